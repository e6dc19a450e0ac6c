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

from runtime.core.array_namespace import elementwise
from runtime.ops.elementwise_ops import elementwise_unary
from runtime.ops.math_ops import add, exp, multiply, square
from runtime.ops.math_ops import divide as _divide
from runtime.ops.op_info import by_decimal, floats, joined, op_info, values
from runtime.ops.registry import FLOATING

_TWO_OVER_ROOT_PI = 2 / math.sqrt(math.pi)


_PI = "3.14159265358979323846264338327950288419716939937510"


def _erf_series(x):
    """erf by its Maclaurin series, ``2/sqrt(pi) * sum((-1)**n x**(2n+1) / (n! (2n+1)))``, in
    the decimal context's precision (a reference for tests: slow, and exact enough for |x| <= 6)."""
    import decimal  # tests only: not on every import of runtime

    total, term, n = decimal.Decimal(0), x, 0  # term: (-1)**n x**(2n+1) / n!
    while True:
        step = term / (2 * n + 1)
        if abs(step) < decimal.Decimal(10) ** (-decimal.getcontext().prec - 5):
            return 2 * total / decimal.Decimal(_PI).sqrt()
        total += step
        n += 1
        term = -term * x * x / n


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
    lambda x, y, g: multiply(g, exp(x)),  # not y + 1: that cancels where x is negative
)

_FLOATS = ("float16", "float32", "float64")
# Tiny inputs, where log(1 + x) and exp(x) - 1 lose every digit, and large ones.
_NEAR_ZERO = values(1e-30, -3e-12, 2e-8, -5e-5, 0.0, dtypes=_FLOATS[1:])

op_info(
    "rt.math.erf",
    joined(floats(-3.0, 3.0, dtypes=_FLOATS), values(-5.5, 1e-20, 0.0, 4.0)),
    by_decimal(_erf_series),
)(erf)
op_info(
    "rt.math.log1p",
    joined(floats(-0.9, 3.0, dtypes=_FLOATS), _NEAR_ZERO, values(-0.999, 1e30)),
    by_decimal(lambda d: (1 + d).ln()),
)(log1p)
op_info(
    "rt.math.expm1",
    joined(floats(-3.0, 3.0, dtypes=_FLOATS), _NEAR_ZERO, values(-40.0, 30.0)),
    by_decimal(lambda d: d.exp() - 1),
)(expm1)
