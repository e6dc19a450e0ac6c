"""The ops Keras' activations, regularizers and constraints are made of, from ``runtime.ops``
(``rt.math`` and ``rt.nn`` sit in a higher layer than ``rt.keras``): the composites are
``runtime.ops.activation_ops``'s, which ``rt.math`` and ``rt.nn`` use too."""

from __future__ import annotations

import numpy as np

from runtime.ops import activation_ops
from runtime.ops.activation_ops import softplus  # noqa: F401  (re-exported)
from runtime.ops.constant_ops import cast, convert_to_tensor
from runtime.ops.math_ops import (  # noqa: F401  (re-exported)
    abs,
    exp,
    greater,
    greater_equal,
    less,
    less_equal,
    maximum,
    minimum,
    multiply,
    sigmoid,
    sqrt,
    square,
    tanh,
)
from runtime.ops.reduction_ops import reduce_max, reduce_sum  # noqa: F401  (re-exported)
from runtime.ops.special_math_ops import expm1  # noqa: F401  (re-exported)


def gelu(x, approximate=False):
    """Keras's gelu: integers are taken as float32."""
    x = convert_to_tensor(x)
    return activation_ops.gelu(x if x.dtype.is_floating else cast(x, "float32"), approximate)


def leaky_relu(x, negative_slope):
    """Keras's leaky_relu: integers are taken as float32; the slope is a float32 number."""
    x = convert_to_tensor(x)
    x = x if x.dtype.is_floating else cast(x, "float32")
    return activation_ops.leaky_relu(x, float(np.float32(negative_slope)))
