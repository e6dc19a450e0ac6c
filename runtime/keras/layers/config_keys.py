"""Keras 3's config forms for the normalization and recurrent layers: the keys every layer's
config has, and initializers written and read back as ``.keras`` files hold them.

>>> from runtime.keras import initializers
>>> serialize_initializer(initializers.get("zeros"))
{'module': 'keras.initializers', 'class_name': 'Zeros', 'config': {}, 'registered_name': None}
>>> type(initializer(serialize_initializer(initializers.get("ones")))).__name__
'Ones'
"""

from __future__ import annotations

from runtime.keras import activations, initializers

# Each initializer's own config keys, as Keras 3's get_config names them.
_INITIALIZER_KEYS = {
    "Zeros": (),
    "Ones": (),
    "Constant": ("value",),
    "RandomUniform": ("minval", "maxval", "seed"),
    "RandomNormal": ("mean", "stddev", "seed"),
    "GlorotUniform": ("seed",),
    "HeUniform": ("seed",),
    "LecunUniform": ("seed",),
    "Orthogonal": ("gain", "seed"),
}


def base_config(layer):
    """The keys of every Keras 3 layer config: ``name``, ``trainable``, ``dtype`` (a policy)."""
    return {
        "name": layer.name,
        "trainable": layer.trainable,
        "dtype": {
            "module": "keras",
            "class_name": "DTypePolicy",
            "config": {"name": layer._dtype.name},
            "registered_name": None,
        },
    }


def from_config(cls, config):
    """``cls(**config)``, a DTypePolicy read back as its dtype's name."""
    config = dict(config)
    dtype = config.get("dtype")
    if isinstance(dtype, dict):
        config["dtype"] = dtype.get("config", {}).get("name")
    return cls(**config)


def serialize_initializer(value):
    """An initializer as Keras 3 writes it in a config (``None`` stays ``None``)."""
    if value is None:
        return None
    name = type(value).__name__
    keys = _INITIALIZER_KEYS.get(name, ())
    return {
        "module": "keras.initializers",
        "class_name": name,
        "config": {key: getattr(value, key, None) for key in keys},
        "registered_name": None,
    }


def initializer(identifier):
    """``initializers.get``, also taking the dict a Keras 3 config holds."""
    if isinstance(identifier, dict):
        cls = getattr(initializers, identifier["class_name"], None)
        if not isinstance(cls, type) or not issubclass(cls, initializers.Initializer):
            raise ValueError(f"Unknown initializer: {identifier['class_name']!r}")
        return cls(**identifier.get("config", {}))
    return initializers.get(identifier)


def serialize_activation(activation):
    """An activation as Keras 3 writes it in a layer config: its name."""
    return activations.name_of(activation)


def serialize_other(value):
    """A regularizer or a constraint: ``None``, or its name as it was given."""
    if value is None or isinstance(value, str):
        return value
    get_config = getattr(value, "get_config", None)
    config = get_config() if get_config else {}
    return {"module": "keras", "class_name": type(value).__name__, "config": config}
