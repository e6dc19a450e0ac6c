"""The activation layers: ``Softmax``, ``ReLU``, ``LeakyReLU``, ``ELU``, ``PReLU``.

>>> import numpy as np, runtime as rt
>>> rt.keras.layers.ReLU(max_value=1.0, negative_slope=0.5)(np.array([-2.0, 0.5, 3.0])).numpy()
array([-1. ,  0.5,  1. ], dtype=float32)
>>> rt.keras.layers.Softmax(axis=(1, 2))(np.zeros((1, 2, 2))).numpy().ravel()
array([0.25, 0.25, 0.25, 0.25], dtype=float32)
"""

from __future__ import annotations

import warnings

from runtime.core.tensor_shape import TensorShape
from runtime.keras import activations, constraints, initializers, regularizers
from runtime.keras.layers.base import Layer
from runtime.ops.broadcast_ops import where
from runtime.ops.constant_ops import cast, convert_to_tensor
from runtime.ops.math_ops import greater
from runtime.ops.nn_ops import relu


class _SameShape(Layer):
    """An elementwise layer: the output has the input's shape."""

    _supports_masking = True  # as Keras: the mask passes through

    def compute_output_shape(self, input_shape):
        return TensorShape(input_shape)


class Softmax(_SameShape):
    """``softmax`` along ``axis`` (an int or a tuple of ints). Where a ``mask`` given to the
    call is False (or at most 0.5), the output is 0 and the other entries share the whole."""

    _built_at_init = True  # as Keras 3: its config in a .keras file has no build config

    def __init__(self, axis=-1, **kwargs):
        super().__init__(**kwargs)
        self.axis = axis

    def call(self, inputs, mask=None):
        if mask is not None:
            mask = convert_to_tensor(mask)
            _check_broadcastable(mask, inputs)
            if not mask.dtype.is_bool:
                mask = greater(mask, cast(0.5, mask.dtype))
            inputs = where(mask, inputs, cast(_large_negative(inputs.dtype), inputs.dtype))
        outputs = activations.softmax(inputs, axis=self.axis)
        if mask is not None:  # an axis masked whole gives zeros, not a uniform distribution
            outputs = where(mask, outputs, outputs * 0)
        return outputs

    def get_config(self):
        return {**super().get_config(), "axis": self.axis}


def _check_broadcastable(mask, inputs):
    mask_shape, input_shape = mask.shape.as_list(), inputs.shape.as_list()
    shapes = f"Received: inputs.shape={tuple(input_shape)}, mask.shape={tuple(mask_shape)}"
    if len(mask_shape) > len(input_shape):
        raise ValueError(
            "The `mask` must be broadcastable to `inputs` and must not have more dimensions. "
            + shapes
        )
    for m, i in zip(reversed(mask_shape), reversed(input_shape)):
        if m is not None and i is not None and m not in (1, i):
            raise ValueError(
                "The `mask` must be broadcastable to `inputs`. Each mask dimension must be 1 "
                "or match the corresponding input dimension. " + shapes
            )


def _large_negative(dtype):
    """Keras's stand-in for minus infinity in masked softmax: ``-1e9``, ``-3e4`` in float16."""
    return -3e4 if dtype.name == "float16" else -1e9


class ReLU(_SameShape):
    """``activations.relu(x, negative_slope, max_value, threshold)``."""

    _built_at_init = True  # as Keras 3: its config in a .keras file has no build config

    def __init__(self, max_value=None, negative_slope=0.0, threshold=0.0, **kwargs):
        super().__init__(**kwargs)
        if max_value is not None and max_value < 0.0:
            raise ValueError(
                "max_value of a ReLU layer cannot be a negative value. "
                f"Received: max_value={max_value}"
            )
        if negative_slope is None or negative_slope < 0.0:
            raise ValueError(
                "negative_slope of a ReLU layer cannot be None or a negative value. "
                f"Received: negative_slope={negative_slope}"
            )
        if threshold is None or threshold < 0.0:
            raise ValueError(
                "threshold of a ReLU layer cannot be None or a negative value. "
                f"Received: threshold={threshold}"
            )
        self.max_value, self.negative_slope, self.threshold = max_value, negative_slope, threshold

    def call(self, inputs):
        return activations.relu(
            inputs,
            negative_slope=self.negative_slope,
            max_value=self.max_value,
            threshold=self.threshold,
        )

    def get_config(self):
        return {
            **super().get_config(),
            "max_value": self.max_value,
            "negative_slope": self.negative_slope,
            "threshold": self.threshold,
        }


class LeakyReLU(_SameShape):
    """``x`` where ``x > 0``, else ``negative_slope * x`` (default 0.3)."""

    _built_at_init = True  # as Keras 3: its config in a .keras file has no build config

    def __init__(self, negative_slope=0.3, **kwargs):
        if "alpha" in kwargs:  # Keras 2's name
            negative_slope = kwargs.pop("alpha")
            warnings.warn(
                "Argument `alpha` is deprecated. Use `negative_slope` instead.", stacklevel=2
            )
        super().__init__(**kwargs)
        if negative_slope is None or negative_slope < 0:
            raise ValueError(
                "The negative_slope value of a Leaky ReLU layer cannot be None or negative "
                f"value. Expected a float. Received: negative_slope={negative_slope}"
            )
        self.negative_slope = negative_slope

    def call(self, inputs):
        return activations.leaky_relu(inputs, negative_slope=self.negative_slope)

    def get_config(self):
        return {**super().get_config(), "negative_slope": self.negative_slope}


class ELU(_SameShape):
    """``x`` for ``x > 0``, else ``alpha * (exp(x) - 1)``. Its config, as Keras 3's, does not
    hold ``alpha``."""

    _built_at_init = True  # as Keras 3: its config in a .keras file has no build config

    def __init__(self, alpha=1.0, **kwargs):
        super().__init__(**kwargs)
        self.alpha = alpha

    def call(self, inputs):
        return activations.elu(inputs, alpha=self.alpha)


class PReLU(_SameShape):
    """``x`` where ``x > 0``, else ``alpha * x``, with ``alpha`` a learned weight of the input's
    shape without the batch (of size 1 along the ``shared_axes``)."""

    def __init__(
        self,
        alpha_initializer="Zeros",
        alpha_regularizer=None,
        alpha_constraint=None,
        shared_axes=None,
        **kwargs,
    ):
        super().__init__(**kwargs)
        self.alpha_initializer = initializers.get(alpha_initializer)
        self.alpha_regularizer = regularizers.get(alpha_regularizer)
        self.alpha_constraint = constraints.get(alpha_constraint)
        if shared_axes is None:
            self.shared_axes = None
        elif isinstance(shared_axes, (list, tuple)):
            self.shared_axes = list(shared_axes)
        else:
            self.shared_axes = [shared_axes]

    def build(self, input_shape):
        param_shape = list(input_shape[1:])
        for axis in self.shared_axes or ():
            param_shape[axis - 1] = 1
        self.alpha = self.add_weight(
            name="alpha",
            shape=param_shape,
            initializer=self.alpha_initializer,
            regularizer=self.alpha_regularizer,
            constraint=self.alpha_constraint,
        )

    def call(self, inputs):
        return relu(inputs) - self.alpha * relu(-inputs)

    def get_config(self):
        return {
            **super().get_config(),
            "alpha_initializer": initializers.serialize(self.alpha_initializer),
            "alpha_regularizer": regularizers.serialize(self.alpha_regularizer),
            "alpha_constraint": constraints.serialize(self.alpha_constraint),
            "shared_axes": self.shared_axes,
        }
