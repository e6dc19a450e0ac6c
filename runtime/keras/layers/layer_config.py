"""A layer's config (``get_config``/``from_config``) and build config, as Keras 3 writes them.

A layer's config holds ``name``, ``trainable`` and ``dtype`` (Keras's dtype policy),
then its constructor's arguments. A layer class that does not write its own
``get_config`` gets the arguments it was constructed with, when they are plain
values (numbers, strings, None, lists and dicts of them), as Keras 3 does.

>>> import runtime as rt
>>> class Scale(rt.keras.layers.Layer):
...     def __init__(self, factor=2.0, **kwargs):
...         super().__init__(**kwargs)
...         self.factor = factor
>>> config = Scale(3.0, name="scale").get_config()
>>> config["factor"], config["name"], config["dtype"]["config"]
(3.0, 'scale', {'name': 'float32'})
>>> Scale.from_config(config).factor
3.0
"""

from __future__ import annotations

import inspect
import textwrap

from runtime.core.tensor_shape import TensorShape
from runtime.keras import regularizers
from runtime.keras._construct import construct
from runtime.keras.saving.serialization import deserialize_keras_object

_PLAIN = (str, int, float, bool, type(None))


def dtype_policy(dtype):
    """Keras 3's serialized dtype policy of a layer computing in ``dtype``."""
    return {"module": "keras", "class_name": "DTypePolicy", "config": {"name": dtype.name},
            "registered_name": None}  # fmt: skip


def dtype_name(value):
    """A config's ``dtype``: a name, or a serialized dtype policy (its name, then)."""
    if isinstance(value, dict):
        return value.get("config", {}).get("name")
    return value


def constructor_arguments(cls, args, kwargs):
    """``{argument: value}`` of ``cls(*args, **kwargs)`` with defaults filled in, when every
    value is plain; else the reason it is not (``"positional"`` or ``"values"``)."""
    if cls.__init__ is object.__init__:
        return {}
    try:
        bound = inspect.signature(cls.__init__).bind(None, *args, **kwargs)
    except TypeError:
        return "values"  # the constructor itself will say what is wrong
    bound.apply_defaults()
    arguments = dict(list(bound.arguments.items())[1:])  # not self
    parameters = inspect.signature(cls.__init__).parameters
    for name, parameter in parameters.items():
        if parameter.kind is parameter.VAR_POSITIONAL and arguments.pop(name, ()):
            return "positional"
        if parameter.kind is parameter.VAR_KEYWORD:
            arguments.update(arguments.pop(name, {}))
    return arguments if _all_plain(arguments) else "values"


def _all_plain(value):
    if isinstance(value, (list, tuple)):
        return all(_all_plain(v) for v in value)
    if isinstance(value, dict):
        return all(isinstance(k, str) and _all_plain(v) for k, v in value.items())
    return isinstance(value, _PLAIN)


def base_config(layer):
    """``name``, ``trainable``, ``dtype``, then (for a class without its own ``get_config``)
    the constructor's arguments."""
    config = {"name": layer.name, "trainable": layer.trainable, "dtype": dtype_policy(layer._dtype)}
    if layer.activity_regularizer is not None:
        config["activity_regularizer"] = regularizers.serialize(layer.activity_regularizer)
    arguments = getattr(layer, "_constructor_arguments", {})
    if isinstance(arguments, str):
        raise NotImplementedError(_must_override(type(layer).__name__, arguments))
    return {**arguments, **config}


def _must_override(class_name, reason):
    how = {
        "positional": "passing positional only or variadic positional arguments (e.g., `*args`) "
        "to `__init__()`, which is not supported by the automatic config generation",
        "values": "passing non-serializable argument values in `__init__()`",
    }[reason]
    return textwrap.dedent(
        f"""\
        Object {class_name} was created by {how}, and therefore the object must override
        `get_config()` in order to be serializable. Please implement `get_config()`.

        Example:

        class CustomLayer(rt.keras.layers.Layer):
            def __init__(self, arg1, arg2, **kwargs):
                super().__init__(**kwargs)
                self.arg1 = arg1
                self.arg2 = arg2

            def get_config(self):
                config = super().get_config()
                config.update({{"arg1": self.arg1, "arg2": self.arg2}})
                return config"""
    )


def from_config(cls, config, passed_on=None):
    """``cls(**config)``: the dtype policy read as its name, serialized initializers,
    regularizers, constraints and activations made again, options left unused dropped
    (``construct``; the keys ``passed_on``, the base layer's by default, are kept for a
    constructor taking ``**kwargs``)."""
    config = dict(config)
    for key, value in config.items():
        if key == "dtype":
            config[key] = dtype_name(value)
        elif key.endswith(_MADE_BY_GET) and isinstance(value, dict) and "class_name" in value:
            config[key] = deserialize_keras_object(value)
    try:
        return construct(cls, config, passed_on=passed_on or _LAYER_KEYWORDS)
    except Exception as error:  # Keras 3's wording and type: the config is what is wrong
        raise TypeError(
            f"Error when deserializing class '{cls.__name__}' using config={config}.\n\n"
            f"Exception encountered: {error}"
        ) from error


# The arguments Keras's layers read with ``initializers.get``, ``activations.get``...: a
# serialized object there is made here, whatever the layer's ``get`` accepts.
_MADE_BY_GET = ("initializer", "regularizer", "constraint", "activation")
_LAYER_KEYWORDS = {"name", "trainable", "dtype", "input_shape", "batch_input_shape", "batch_size"}


def build_config(layer):
    """``{"input_shape": [...]}``: the shape the layer was built with (None when unbuilt)."""
    shape = layer._build_input_shape
    if not layer.built or shape is None:
        return None
    return {"input_shape": _as_list(shape)}


def _as_list(shape):
    if isinstance(shape, TensorShape):
        return shape.as_list() if shape.rank is not None else None
    if isinstance(shape, (list, tuple)):
        return [_as_list(s) for s in shape]
    return shape


def as_tuple_shape(shape):
    """A shape read from JSON (lists) as tuples."""
    if isinstance(shape, list):
        return tuple(as_tuple_shape(s) for s in shape)
    return shape
