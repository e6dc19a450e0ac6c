"""``rt.math``: the functions of TensorFlow's ``tf.math`` that the project provides.

Most are the ops of the top-level namespace under their ``tf.math`` names;
``erf``, ``log1p`` and ``expm1`` are here only, and ``softplus`` is a
*composite*: a function over other ops, with no row and no backend rule of its
own (``runtime.ops.op_info``).

>>> import runtime as rt
>>> rt.math.softplus([0.0, 100.0]).numpy()
array([  0.6931472, 100.       ], dtype=float32)
"""

from __future__ import annotations

import numpy as np

from runtime.core.graph import name_scope
from runtime.ops import activation_ops
from runtime.ops.constant_ops import convert_to_tensor
from runtime.ops.math_ops import (
    abs,
    add,
    add_n,
    cos,
    divide,
    equal,
    exp,
    floordiv,
    greater,
    greater_equal,
    less,
    less_equal,
    log,
    logical_and,
    logical_not,
    logical_or,
    logical_xor,
    maximum,
    minimum,
    mod,
    multiply,
    negative,
    not_equal,
    pow,
    sigmoid,
    sign,
    sin,
    sqrt,
    square,
    subtract,
    tanh,
)
from runtime.ops.nn_ops import softmax
from runtime.ops.op_info import floats, op_info
from runtime.ops.reduction_ops import (
    argmax,
    argmin,
    reduce_all,
    reduce_any,
    reduce_max,
    reduce_mean,
    reduce_min,
    reduce_prod,
    reduce_sum,
)
from runtime.ops.registry import FLOATING, check_dtype
from runtime.ops.scan_ops import cumsum
from runtime.ops.special_math_ops import erf, expm1, log1p

floormod = mod
truediv = divide

__all__ = [
    "abs",
    "add",
    "add_n",
    "argmax",
    "argmin",
    "cos",
    "cumsum",
    "divide",
    "equal",
    "erf",
    "exp",
    "expm1",
    "floordiv",
    "floormod",
    "greater",
    "greater_equal",
    "less",
    "less_equal",
    "log",
    "log1p",
    "logical_and",
    "logical_not",
    "logical_or",
    "logical_xor",
    "maximum",
    "minimum",
    "mod",
    "multiply",
    "negative",
    "not_equal",
    "pow",
    "reduce_all",
    "reduce_any",
    "reduce_max",
    "reduce_mean",
    "reduce_min",
    "reduce_prod",
    "reduce_sum",
    "sigmoid",
    "sign",
    "sin",
    "softmax",
    "softplus",
    "sqrt",
    "square",
    "subtract",
    "tanh",
    "truediv",
]


@op_info(
    "rt.math.softplus",
    floats(-30.0, 30.0),
    reference=lambda x: np.logaddexp(0.0, np.asarray(x, np.float64)),
)
def softplus(features, name=None):
    """``log(exp(x) + 1)``, without overflow for large ``x`` (``softplus(100.0)`` is 100).

    Its gradient is ``sigmoid(x)``, 0.5 at 0 too: the two pieces meet at 0 without a
    subgradient between them.

    >>> softplus([-1.0, 0.0, 1.0]).numpy().round(4)
    array([0.3133, 0.6931, 1.3133], dtype=float32)
    """
    with name_scope(name or "Softplus"):
        x = convert_to_tensor(features)
        check_dtype("Softplus", x, FLOATING)
        return activation_ops.softplus(x)
