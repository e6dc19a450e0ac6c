"""The core layers: ``Dense``, ``Flatten``, ``Dropout``, ``Activation``.

>>> import runtime as rt
>>> rt.keras.backend.clear_session()
>>> dense = rt.keras.layers.Dense(3, activation="relu", kernel_initializer="ones")
>>> dense(rt.constant([[1.0, -2.0]])).numpy()       # relu([1, -2] @ ones((2, 3)) + 0)
array([[0., 0., 0.]], dtype=float32)
>>> [(v.name, v.shape.as_list()) for v in dense.weights]
[('dense/kernel:0', [2, 3]), ('dense/bias:0', [3])]
"""

from __future__ import annotations

import math
import numbers

from runtime.core import dtypes
from runtime.core.tensor import Tensor
from runtime.core.tensor_shape import TensorShape
from runtime.functions.control_flow import cond
from runtime.keras import activations, constraints, initializers, regularizers
from runtime.keras.layers import arguments as args
from runtime.keras.layers.base import Layer
from runtime.ops.array_ops import reshape, shape_of, stack, transpose
from runtime.ops.constant_ops import cast
from runtime.ops.linalg_ops import einsum
from runtime.ops.math_ops import matmul
from runtime.ops.random_ops import uniform


class Dense(Layer):
    """``activation(inputs @ kernel + bias)``: a densely connected layer of ``units`` outputs.

    Input shape ``(batch, ..., input_dim)``; output shape ``(batch, ..., units)``.
    The kernel is ``(input_dim, units)``, made at the first call.
    """

    _supports_masking = True  # as Keras: the mask passes through

    def __init__(
        self,
        units,
        activation=None,
        use_bias=True,
        kernel_initializer="glorot_uniform",
        bias_initializer="zeros",
        kernel_regularizer=None,
        bias_regularizer=None,
        activity_regularizer=None,
        kernel_constraint=None,
        bias_constraint=None,
        **kwargs,
    ):
        kwargs.pop("quantization_config", None)  # Keras 3's config names it; none is used here
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        if not isinstance(units, numbers.Integral) or isinstance(units, bool) or units <= 0:
            raise ValueError(
                "Received an invalid value for `units`, expected a positive integer. "
                f"Received: units={units!r}"
            )
        self.units = int(units)  # numpy's ints too, as Keras takes them
        self.activation = activations.get(activation)
        self.use_bias = use_bias
        self.kernel_initializer = initializers.get(kernel_initializer)  # refused now, as in Keras
        self.bias_initializer = initializers.get(bias_initializer)
        self.kernel_regularizer = regularizers.get(kernel_regularizer)
        self.bias_regularizer = regularizers.get(bias_regularizer)
        self.kernel_constraint = constraints.get(kernel_constraint)
        self.bias_constraint = constraints.get(bias_constraint)

    def build(self, input_shape):
        if input_shape is not None and len(input_shape) < 2:
            self._refuse_rank(input_shape)
        last_dim = input_shape[-1] if input_shape else None
        if last_dim is None:
            raise ValueError(
                "The last dimension of the inputs to a Dense layer should be defined. Found None. "
                f"Full input shape received: {input_shape}"
            )
        self.kernel = self.add_weight(
            name="kernel",
            shape=(last_dim, self.units),
            initializer=self.kernel_initializer,
            regularizer=self.kernel_regularizer,
            constraint=self.kernel_constraint,
        )
        self.bias = None
        if self.use_bias:
            self.bias = self.add_weight(
                name="bias",
                shape=(self.units,),
                initializer=self.bias_initializer,
                regularizer=self.bias_regularizer,
                constraint=self.bias_constraint,
            )

    def call(self, inputs):
        if inputs.shape.rank is not None and inputs.shape.rank < 2:
            self._refuse_rank(tuple(inputs.shape.as_list()))
        if inputs.dtype is not self.kernel.dtype:  # Keras' Dense casts any input, ints too
            inputs = cast(inputs, self.kernel.dtype)
        expected = self.kernel.shape[0]
        received = inputs.shape[-1]
        if received is not None and received != expected:  # Keras' InputSpec check, worded so
            raise ValueError(
                f'Input 0 of layer "{self.name}" is incompatible with the layer: expected axis -1 '
                f"of input shape to have value {expected}, but received input with shape "
                f"{tuple(inputs.shape.as_list())}"
            )
        if inputs.shape.rank == 2:
            outputs = matmul(inputs, self.kernel)
        else:
            outputs = einsum("...i,ij->...j", inputs, self.kernel)
        if self.bias is not None:
            outputs = outputs + self.bias
        return outputs if self.activation is None else self.activation(outputs)

    def compute_output_shape(self, input_shape):
        return TensorShape([*tuple(input_shape)[:-1], self.units])

    def get_config(self):
        return {
            **super().get_config(),
            "units": self.units,
            "activation": activations.serialize(self.activation or activations.linear),
            "use_bias": self.use_bias,
            "kernel_initializer": initializers.serialize(self.kernel_initializer),
            "bias_initializer": initializers.serialize(self.bias_initializer),
            "kernel_regularizer": regularizers.serialize(self.kernel_regularizer),
            "bias_regularizer": regularizers.serialize(self.bias_regularizer),
            "kernel_constraint": constraints.serialize(self.kernel_constraint),
            "bias_constraint": constraints.serialize(self.bias_constraint),
            "quantization_config": None,
        }

    def _refuse_rank(self, shape):  # Keras' InputSpec(min_ndim=2), worded so
        raise ValueError(
            f'Input 0 of layer "{self.name}" is incompatible with the layer: expected min_ndim=2, '
            f"found ndim={len(shape)}. Full shape received: {tuple(shape)}"
        )


class Flatten(Layer):
    """Flattens each example: ``(batch, 28, 28)`` -> ``(batch, 784)``; ``(batch,)`` ->
    ``(batch, 1)``. With ``data_format="channels_first"`` the channels go last first, so
    that the order of the features is the same in both formats."""

    def __init__(self, data_format=None, **kwargs):
        super().__init__(**kwargs)
        self.data_format = args.standardize_data_format(data_format)

    def call(self, inputs):
        shape = inputs.shape.as_list()
        if self.data_format == "channels_first" and len(shape) > 2:
            inputs = transpose(inputs, [0, *range(2, len(shape)), 1])
        if len(shape) == 1:
            return reshape(inputs, [-1, 1])
        if all(d is not None for d in shape[1:]):
            return reshape(inputs, [-1, math.prod(shape[1:])])
        batch = shape[0] if shape[0] is not None else shape_of(inputs)[0]  # a known size kept
        return reshape(inputs, [batch, -1])

    def compute_output_shape(self, input_shape):
        dims = list(tuple(input_shape))
        rest = dims[1:]
        size = math.prod(rest) if all(d is not None for d in rest) else None
        return TensorShape([dims[0], size])

    def get_config(self):
        return {**super().get_config(), "data_format": self.data_format}


class Dropout(Layer):
    """Sets a fraction ``rate`` of its inputs to 0 and scales the others by
    ``1 / (1 - rate)``, only when called with ``training=True``; otherwise the identity."""

    _built_at_init = True
    _supports_masking = True  # as Keras: the mask passes through

    def __init__(self, rate, noise_shape=None, seed=None, **kwargs):
        super().__init__(**kwargs)
        if isinstance(rate, bool) or not isinstance(rate, numbers.Real) or not 0 <= rate < 1:
            raise ValueError(
                "Invalid value received for argument `rate`. Expected a float value between 0 "
                f"and 1. Received: rate={rate!r}"
            )
        self.rate = float(rate)
        self.noise_shape = _checked_noise_shape(noise_shape)
        self.seed = seed

    def call(self, inputs, training=None):
        if isinstance(training, Tensor):
            return cond(training, lambda: self._drop(inputs), lambda: inputs)
        if not training or self.rate == 0:
            return inputs
        return self._drop(inputs)

    def _drop(self, inputs):
        noise_shape = self._noise_shape(inputs)
        # Drawn in float64, the generator's own precision: no conversion before the comparison.
        keep = uniform(noise_shape, dtype=dtypes.float64, seed=self.seed) >= self.rate
        # The mask is scaled, not the inputs: their gradient is then one product.
        return inputs * (cast(keep, inputs.dtype) * (1.0 / (1.0 - self.rate)))

    def _noise_shape(self, inputs):
        """The mask's shape: ``noise_shape`` with its None sizes those of the inputs (a size of
        1 shares the mask along that axis), or the inputs' shape."""
        if self.noise_shape is None:
            return shape_of(inputs)
        if len(self.noise_shape) != inputs.shape.rank:
            raise ValueError(
                f"`noise_shape` {tuple(self.noise_shape)} should have the rank of the inputs, "
                f"{inputs.shape.rank}; received inputs of shape {tuple(inputs.shape.as_list())}"
            )
        sizes = shape_of(inputs)
        return stack([sizes[i] if d is None else d for i, d in enumerate(self.noise_shape)])

    def compute_output_shape(self, input_shape):
        return TensorShape(input_shape)

    def get_config(self):
        return {
            **super().get_config(),
            "rate": self.rate,
            "seed": self.seed,
            "noise_shape": self.noise_shape,
        }


def _checked_noise_shape(noise_shape):
    """Keras' rule: None, or a tuple of positive sizes and Nones (a list becomes a tuple)."""
    if noise_shape is None:
        return None
    problem = None
    if not isinstance(noise_shape, (tuple, list)):
        problem = "Expected a tuple or list of integers."
    elif not all(d is None or isinstance(d, numbers.Integral) for d in noise_shape):
        problem = "Expected all elements to be integers or None."
    elif not all(d is None or d > 0 for d in noise_shape):
        problem = "Expected all dimensions to be positive integers or None."
    if problem:
        raise ValueError(
            f"Invalid value received for argument `noise_shape`. {problem} "
            f"Received: noise_shape={noise_shape}"
        )
    return tuple(noise_shape)


class Activation(Layer):
    """Applies an activation, by name (``"relu"``...) or as a function."""

    _built_at_init = True
    _supports_masking = True  # as Keras: the mask passes through

    def __init__(self, activation, **kwargs):
        super().__init__(**kwargs)
        self.activation = activations.get(activation)

    def call(self, inputs):
        return self.activation(inputs)

    def compute_output_shape(self, input_shape):
        return TensorShape(input_shape)

    def get_config(self):
        return {**super().get_config(), "activation": activations.serialize(self.activation)}
