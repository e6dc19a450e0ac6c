"""The error function and the logarithm and exponential near zero: ``erf``, ``log1p``, ``expm1``.

Each is one row, written once: the ufunc it is in every array namespace, its
gradient, the ONNX operator that computes it where ONNX has one, and the
inputs its tests run on (``runtime.ops.op_info``). ``log1p(x)`` and
``expm1(x)`` keep the digits that ``log(1 + x)`` and ``exp(x) - 1`` lose for
small ``x``.

>>> import runtime as rt
>>> rt.math.log1p(1e-10).numpy() == 1e-10, rt.math.log(1 + rt.constant(1e-10)).numpy()
(np.True_, np.float32(0.0))
"""

from __future__ import annotations

import math

import numpy as np

from runtime.core.array_namespace import elementwise
from runtime.ops.math_ops import add, elementwise_unary, exp, multiply, square
from runtime.ops.math_ops import divide as _divide
from runtime.ops.op_info import floats, op_info
from runtime.ops.registry import FLOATING

_TWO_OVER_ROOT_PI = 2 / math.sqrt(math.pi)


def _by_element(fn):
    """A reference on numpy values: Python's ``math.<fn>`` on each element, in float64."""
    return lambda x: np.vectorize(fn, otypes=[np.float64])(np.asarray(x, np.float64))


ERF, erf = elementwise_unary(
    "Erf",
    elementwise("erf"),
    FLOATING,
    "erf",
    "The Gauss error function, ``2/sqrt(pi) * integral(exp(-t**2), 0, x)``; floats only.\n\n"
    ">>> erf([0.0, 0.5]).numpy()\narray([0.       , 0.5204999], dtype=float32)",
    lambda x, y, g: multiply(g, multiply(exp(-square(x)), _TWO_OVER_ROOT_PI)),
    onnx="Erf",
)
LOG1P, log1p = elementwise_unary(
    "Log1p",
    "log1p",
    FLOATING,
    "log1p",
    "``log(1 + x)``, exact for small ``x``; floats only.\n\n"
    ">>> log1p([0.0, 1.0]).numpy()\narray([0.       , 0.6931472], dtype=float32)",
    lambda x, y, g: _divide(g, add(x, 1)),
)
EXPM1, expm1 = elementwise_unary(
    "Expm1",
    "expm1",
    FLOATING,
    "expm1",
    "``exp(x) - 1``, exact for small ``x``; floats only.\n\n"
    ">>> expm1([0.0, 1.0]).numpy()\narray([0.       , 1.7182817], dtype=float32)",
    lambda x, y, g: multiply(g, add(y, 1)),
)

op_info("rt.math.erf", floats(-3.0, 3.0), _by_element(math.erf))(erf)
op_info("rt.math.log1p", floats(-0.9, 3.0), _by_element(math.log1p))(log1p)
op_info("rt.math.expm1", floats(-3.0, 3.0), _by_element(math.expm1))(expm1)
