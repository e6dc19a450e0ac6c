"""The ops Keras' activations, regularizers and constraints are made of, from ``runtime.ops``
(``rt.math`` and ``rt.nn`` sit in a higher layer than ``rt.keras``), and the few composites
they share: ``softplus``, ``gelu``, ``leaky_relu``."""

from __future__ import annotations

import math

import numpy as np

from runtime.ops.array_ops import zeros_like
from runtime.ops.broadcast_ops import where
from runtime.ops.constant_ops import cast, convert_to_tensor
from runtime.ops.math_ops import (  # noqa: F401  (re-exported)
    abs,
    exp,
    greater,
    greater_equal,
    less,
    less_equal,
    log,
    maximum,
    minimum,
    multiply,
    negative,
    sigmoid,
    sqrt,
    square,
    tanh,
)
from runtime.ops.reduction_ops import reduce_max, reduce_sum  # noqa: F401  (re-exported)
from runtime.ops.special_math_ops import erf, expm1, log1p  # noqa: F401  (re-exported)

_SQRT_2_OVER_PI = math.sqrt(2 / math.pi)


def softplus(x):
    """``log(exp(x) + 1)`` as ``max(x, 0) + log1p(exp(-|x|))``: no overflow for large ``x``;
    ``-|x|`` is written so that its gradient at 0 is softplus's, 0.5."""
    x = convert_to_tensor(x)
    positive = greater(x, cast(0, x.dtype))
    minus_abs = where(positive, negative(x), x)
    return where(positive, x, zeros_like(x)) + log1p(exp(minus_abs))


def gelu(x, approximate=False):
    """``0.5 * x * (1 + erf(x / sqrt(2)))``, or its tanh approximation."""
    x = convert_to_tensor(x)
    if not x.dtype.is_floating:
        x = cast(x, "float32")
    if approximate:
        inner = (x + x * x * x * cast(0.044715, x.dtype)) * cast(_SQRT_2_OVER_PI, x.dtype)
        return x * cast(0.5, x.dtype) * (tanh(inner) + cast(1, x.dtype))
    return x * cast(0.5, x.dtype) * (erf(x / cast(math.sqrt(2), x.dtype)) + cast(1, x.dtype))


def leaky_relu(x, negative_slope):
    """``x`` where ``x > 0``, else ``negative_slope * x``."""
    x = convert_to_tensor(x)
    if not x.dtype.is_floating:
        x = cast(x, "float32")
    slope = cast(float(np.float32(negative_slope)), x.dtype)
    return where(greater(x, cast(0, x.dtype)), x, x * slope)
