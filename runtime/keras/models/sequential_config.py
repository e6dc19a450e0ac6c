"""A Sequential model's config, as Keras 3 writes it: ``{"name", "trainable", "dtype", "layers",
"build_input_shape"}``, the layers serialized in order after an ``InputLayer`` giving the
input shape.

>>> import runtime as rt
>>> rt.keras.backend.clear_session()
>>> model = rt.keras.Sequential([rt.keras.layers.Dense(2, input_shape=(3,))])
>>> config = model.get_config()
>>> [layer["class_name"] for layer in config["layers"]], config["build_input_shape"]
(['InputLayer', 'Dense'], [None, 3])
>>> copy = rt.keras.Sequential.from_config(config)
>>> copy.built, [v.shape.as_list() for v in copy.weights]
(True, [[3, 2], [2]])
"""

from __future__ import annotations

from runtime.core.tensor_shape import TensorShape
from runtime.keras.layers.layer_config import as_tuple_shape, dtype_policy
from runtime.keras.saving.serialization import deserialize_keras_object, serialize_keras_object


def _input_shape(model):
    shape = model._build_input_shape
    if shape is None:
        shape = model._batch_input_shape
    if shape is None:
        return None
    shape = TensorShape(shape)
    return None if shape.rank is None else [None, *shape.as_list()[1:]]


def get_config(model):
    layers = [serialize_keras_object(layer) for layer in model.layers]
    shape = _input_shape(model)
    config = {"name": model.name, "trainable": model.trainable, "dtype": dtype_policy(model._dtype)}
    if shape is not None:
        layers.insert(0, _input_layer_config(shape, model._dtype.name))
    config["layers"] = layers
    if shape is not None:
        config["build_input_shape"] = shape
    return config


def _input_layer_config(shape, dtype):
    return {
        "module": "keras.layers",
        "class_name": "InputLayer",
        "config": {"batch_shape": shape, "dtype": dtype, "sparse": False, "ragged": False,
                   "name": "input_layer", "optional": False},
        "registered_name": None,
    }  # fmt: skip


def from_config(cls, config, custom_objects=None):
    model = cls(name=config.get("name"))
    shape = config.get("build_input_shape")
    for layer_config in config.get("layers", []):
        if isinstance(layer_config, dict) and layer_config.get("class_name") == "InputLayer":
            inner = layer_config.get("config") or {}
            shape = inner.get("batch_shape") or inner.get("batch_input_shape") or shape
            continue
        layer = deserialize_keras_object(layer_config, custom_objects)
        model.add(layer)
    if shape is not None and model.layers:
        model.build(as_tuple_shape(shape))
    model.trainable = config.get("trainable", True)
    return model
