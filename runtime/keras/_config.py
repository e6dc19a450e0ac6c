"""The namespaces' (initializers, regularizers, constraints, activations) way into the one
serializer, ``runtime.keras.saving.serialization``: Keras 3's form ``{"module", "class_name",
"config", "registered_name"}``. The serializer is imported at call time, since the saving
package loads after these namespaces (it reads their public names).

>>> import runtime as rt
>>> serialize_object(rt.keras.initializers.Zeros())
{'module': 'keras.initializers', 'class_name': 'Zeros', 'config': {}, 'registered_name': None}
"""

from __future__ import annotations


def _serializer():
    from runtime.keras.saving import serialization  # see the module's docstring

    return serialization


def serialize_object(obj):
    """``obj`` as ``serialize_keras_object`` writes it; None stays None."""
    return None if obj is None else _serializer().serialize_keras_object(obj)


def deserialize_object(identifier, names, kind, unknown=None):
    """The object a name (``"L2"``, ``"l2"``) or a serialized dict describes, the name looked
    up first in the namespace's ``names`` (name -> class), then among registered objects.
    For what is found nowhere, ``unknown(name)`` (the namespace's own error) is raised, or a
    ValueError in Keras's words naming ``kind``."""
    if isinstance(identifier, str):
        identifier = {"class_name": identifier, "config": {}}
    if not isinstance(identifier, dict) or "class_name" not in identifier:
        raise ValueError(f"Could not interpret {kind} identifier: {identifier}")
    serialization = _serializer()
    if serialization.locate(identifier, names) is None:
        name = identifier["class_name"]
        if name == "function" and isinstance(identifier.get("config"), str):
            name = identifier["config"]  # a function's config is its name
        if unknown is not None:
            raise unknown(name)
        raise ValueError(
            f"Could not locate class '{name}'. Make sure custom classes are decorated with "
            f"`@keras.saving.register_keras_serializable()`. Unknown {kind}: {name!r}. "
            f"Use one of {sorted(names)}."
        )
    return serialization.deserialize_keras_object(
        {**identifier, "config": identifier.get("config") or {}}, custom_objects=names
    )
