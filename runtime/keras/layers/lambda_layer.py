"""``Lambda``: a layer that calls a function; ``Identity``: a layer that returns its input.

>>> import numpy as np, runtime as rt
>>> double = rt.keras.layers.Lambda(lambda x, k: x * k, arguments={"k": 2.0})
>>> double(np.array([[1.0, 2.0]])).numpy()
array([[2., 4.]], dtype=float32)

A ``Lambda`` whose function is a Python lambda writes the lambda's bytecode in its config,
as Keras 3 does; ``from_config`` refuses to run such code unless given ``safe_mode=False``.
"""

from __future__ import annotations

import base64
import inspect
import marshal
import types

import numpy as np

from runtime.core import nest
from runtime.core.tensor_shape import TensorShape
from runtime.keras import activations
from runtime.keras.layers.base import Layer


class Lambda(Layer):
    """Calls ``function(inputs, **arguments)`` (and ``mask``/``training`` where the function
    takes them). ``output_shape`` (without the batch, or a function of the input shape) says
    what it returns where that cannot be found by calling it."""

    def __init__(self, function, output_shape=None, mask=None, arguments=None, **kwargs):
        super().__init__(**kwargs)
        self.function = function
        self.arguments = dict(arguments or {})
        self.mask = mask
        self.supports_masking = mask is not None  # Keras: it masks only when given a mask
        self._output_shape = output_shape
        parameters = inspect.signature(function).parameters
        self._fn_expects_training_arg = "training" in parameters
        self._fn_expects_mask_arg = "mask" in parameters

    def call(self, inputs, mask=None, training=None):
        kwargs = dict(self.arguments)
        if self._fn_expects_mask_arg:
            kwargs["mask"] = mask
        if self._fn_expects_training_arg:
            kwargs["training"] = training
        return self.function(inputs, **kwargs)

    def compute_output_shape(self, input_shape):
        if self._output_shape is None:
            try:
                return super().compute_output_shape(input_shape)
            except Exception as error:
                raise NotImplementedError(
                    "We could not automatically infer the shape of the Lambda's output. Please "
                    "specify the `output_shape` argument for this Lambda layer."
                ) from error
        if callable(self._output_shape):
            return self._output_shape(input_shape)
        batch = nest.flatten(tuple(input_shape))[0] if input_shape is not None else None
        return TensorShape([batch, *self._output_shape])

    def compute_mask(self, inputs, mask=None):
        return self.mask(inputs, mask) if callable(self.mask) else self.mask

    def get_config(self):
        config = {**super().get_config(), "function": _function_config(self.function)}
        if self._output_shape is not None:
            shape = self._output_shape
            config["output_shape"] = _function_config(shape) if callable(shape) else shape
        if self.mask is not None:
            mask = self.mask
            config["mask"] = _function_config(mask) if callable(mask) else _value_config(mask)
        config["arguments"] = self.arguments
        return config

    @classmethod
    def from_config(cls, config, custom_objects=None, safe_mode=None):
        """The layer again; a Python lambda's code in the config is refused unless
        ``safe_mode=False`` (code from a file would run). Unset, ``safe_mode`` is the enclosing
        load's (``deserialize_keras_object(..., safe_mode=False)``), else True."""
        from runtime.keras.saving.serialization import in_safe_mode  # saving imports layers

        if safe_mode is None:
            safe_mode = in_safe_mode() is not False
        config = dict(config)
        config["function"] = _load_function(config["function"], custom_objects, safe_mode)
        shape = config.get("output_shape")
        if isinstance(shape, dict):
            config["output_shape"] = _load_function(shape, custom_objects, safe_mode)
        elif isinstance(shape, list):
            config["output_shape"] = tuple(shape)
        mask = config.get("mask")
        if isinstance(mask, dict) and mask.get("class_name") in ("__tensor__", "__numpy__"):
            config["mask"] = np.asarray(mask["config"]["value"], mask["config"]["dtype"])
        elif isinstance(mask, dict):
            config["mask"] = _load_function(mask, custom_objects, safe_mode)
        return cls(**config)


def _function_config(function):
    """Keras 3's form of a function in a config: a lambda's code, or a named function."""
    if isinstance(function, types.LambdaType) and function.__name__ == "<lambda>":
        code = base64.encodebytes(marshal.dumps(function.__code__)).decode("ascii")
        closure = None
        if function.__closure__:
            closure = tuple(cell.cell_contents for cell in function.__closure__)
        config = {"code": code, "defaults": function.__defaults__, "closure": closure}
        return {"class_name": "__lambda__", "config": config}
    if callable(function):
        return activations.serialize(function)
    raise ValueError(
        f"Invalid input type for serialization. Received: {function} of type {type(function)}."
    )


def _value_config(value):
    """An array or a tensor as Keras 3 writes it in a config."""
    array = np.asarray(value.numpy() if hasattr(value, "numpy") else value)
    config = {"value": array.tolist(), "dtype": str(array.dtype)}
    return {"class_name": "__tensor__", "config": config}


def _load_function(config, custom_objects, safe_mode):
    if callable(config):
        return config
    if isinstance(config, dict) and config.get("class_name") == "__lambda__":
        if safe_mode:
            raise ValueError(
                "Requested the deserialization of a `Lambda` layer whose `function` is a "
                "Python lambda. This carries a potential risk of arbitrary code execution and "
                "thus it is disallowed by default. If you trust the source of the artifact, "
                "you can override this error by passing `safe_mode=False` to the loading "
                "function."
            )
        return _lambda_from_code(config["config"])
    return activations.deserialize(config, custom_objects=custom_objects)


def _lambda_from_code(config):
    code = marshal.loads(base64.decodebytes(config["code"].encode("ascii")))
    closure = config.get("closure")
    if closure is not None:
        closure = tuple(types.CellType(value) for value in closure)
    defaults = config.get("defaults")
    return types.FunctionType(
        code, globals(), code.co_name, tuple(defaults) if defaults else None, closure
    )


class Identity(Layer):
    """Returns its inputs as they are (a placeholder layer)."""

    _built_at_init = True  # as Keras 3: its config in a .keras file has no build config
    _supports_masking = True  # as Keras: the mask passes through

    def call(self, inputs):
        return inputs

    def compute_output_shape(self, input_shape):
        return input_shape
