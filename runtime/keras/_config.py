"""Keras 3's serialized form of an object, shared by initializers, regularizers, constraints
and layers: ``{"module": ..., "class_name": ..., "config": ..., "registered_name": ...}``.

>>> import runtime as rt
>>> serialize_object(rt.keras.initializers.Zeros(), "keras.initializers")
{'module': 'keras.initializers', 'class_name': 'Zeros', 'config': {}, 'registered_name': None}
"""

from __future__ import annotations

import inspect


def serialize_object(obj, module):
    """``obj`` as Keras 3 writes it in a config: its class, its ``get_config()``. A class of
    the user's own gets its module and a registered name, as Keras' ``serialize_keras_object``."""
    cls = type(obj)
    ours = cls.__module__.startswith("runtime.keras")
    return {
        "module": module if ours else cls.__module__,
        "class_name": cls.__name__,
        "config": obj.get_config(),
        "registered_name": None if ours else cls.__name__,
    }


def deserialize_object(identifier, classes, kind):
    """The object a class name (``"L2"``, ``"l2"``) or a serialized dict names, among
    ``classes`` (name -> class). ``kind`` names what is looked up in the error."""
    if isinstance(identifier, str):
        identifier = {"class_name": identifier, "config": {}}
    if not isinstance(identifier, dict) or "class_name" not in identifier:
        raise ValueError(f"Could not interpret {kind} identifier: {identifier}")
    name = identifier["class_name"]
    cls = classes.get(name)
    if cls is None:
        raise ValueError(
            f"Could not locate class '{name}'. Make sure custom classes are decorated with "
            f"`@keras.saving.register_keras_serializable()`. Unknown {kind}: {name!r}. "
            f"Use one of {sorted(classes)}."
        )
    config = identifier.get("config") or {}
    if inspect.isclass(cls):
        from_config = getattr(cls, "from_config", None)
        return from_config(config) if from_config else cls(**config)
    return cls


def construct(cls, config, passed_on=()):
    """``cls(**config)``, less the keys its constructor does not take whose value is None or
    False: a Keras option left unused (a newer Keras's ``quantization_config``, an option not
    implemented here). Other unknown keys reach the constructor, which refuses them. Keys in
    ``passed_on`` are kept when the constructor takes ``**kwargs`` (it passes them on)."""
    parameters = inspect.signature(cls.__init__).parameters
    takes_kwargs = any(p.kind is p.VAR_KEYWORD for p in parameters.values())
    kept = {
        key: value
        for key, value in config.items()
        if key in parameters
        or (value is not None and value is not False)
        or (takes_kwargs and key in passed_on)
    }
    return cls(**kept)
