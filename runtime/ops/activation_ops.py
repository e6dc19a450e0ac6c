"""The activation composites more than one namespace offers (``rt.math.softplus``,
``rt.nn.gelu``/``leaky_relu``, ``rt.keras.activations``, ``rt.keras.ops``): one formula each,
here, on a floating tensor; the public functions check and cast their arguments their own way.

>>> import runtime as rt
>>> softplus(rt.constant([-20.0, 0.0, 100.0])).numpy()     # log1p: exact for large -x too
array([2.0611537e-09, 6.9314718e-01, 1.0000000e+02], dtype=float32)
"""

from __future__ import annotations

import math

from runtime.ops.array_ops import stop_gradient, zeros_like
from runtime.ops.broadcast_ops import where
from runtime.ops.math_ops import add, divide, exp, greater, log, multiply, negative, tanh
from runtime.ops.reduction_ops import reduce_max, reduce_sum
from runtime.ops.special_math_ops import erf, log1p

_SQRT_2_OVER_PI = math.sqrt(2 / math.pi)


def softplus(x):
    """``log(exp(x) + 1)`` as ``max(x, 0) + log1p(exp(-|x|))``: no overflow for large ``x``,
    no rounding to 0 for large ``-x``. ``-|x|`` is written so that at 0 it is ``x`` itself:
    the gradient there is then softplus's, 0.5 (abs's subgradient, 0, would give 0)."""
    positive = greater(x, 0)
    minus_abs = where(positive, negative(x), x)
    return add(where(positive, x, zeros_like(x)), log1p(exp(minus_abs)))


def gelu(x, approximate=False):
    """``0.5 * x * (1 + erf(x / sqrt(2)))``, or TensorFlow's tanh form
    ``0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x**3)))``."""
    if approximate:
        cubic = add(x, multiply(multiply(multiply(x, x), x), 0.044715))
        return multiply(multiply(x, 0.5), add(tanh(multiply(cubic, _SQRT_2_OVER_PI)), 1))
    return multiply(multiply(x, 0.5), add(erf(divide(x, math.sqrt(2))), 1))


def leaky_relu(x, slope):
    """``x`` where ``x > 0``, else ``slope * x``."""
    return where(greater(x, 0), x, multiply(x, slope))


def log_softmax(x, axis=-1):
    """``x - log(sum(exp(x)))`` along ``axis`` (an int or a tuple), shifted by the maximum
    so that no ``exp`` overflows; the shift is a constant to the gradient."""
    shifted = x - stop_gradient(reduce_max(x, axis=axis, keepdims=True))
    return shifted - log(reduce_sum(exp(shifted), axis=axis, keepdims=True))
