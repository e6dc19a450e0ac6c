"""Elementwise arithmetic, comparisons and logic, matmul, and the operators of tensors.

Tensors of different dtypes are never promoted: ``constant(1) + constant(2.0)``
raises TypeError naming both dtypes. A Python number next to a tensor takes the
tensor's dtype.

>>> import runtime as rt
>>> (rt.constant([1.0, 2.0]) * 2 + 1).numpy()
array([3., 5.], dtype=float32)
"""

from __future__ import annotations

import functools

import numpy as np

from runtime.core import attr_kinds as kinds
from runtime.core import dtypes, forms
from runtime.core.op_def import BOOL_OUTPUT, STRINGS, NotDifferentiable, OpDef, skipped_inputs
from runtime.core.tensor import Tensor
from runtime.core.tensor_shape import TensorShape, bracketed, broadcast_shapes
from runtime.ops.array_ops import zeros_like
from runtime.ops.broadcast_ops import unbroadcast, where
from runtime.ops.constant_ops import cast, convert_pair, convert_to_tensor
from runtime.ops.elementwise_ops import binary, division, elementwise_unary
from runtime.ops.registry import (
    ANY_DTYPE,
    BOOL,
    FLOATING,
    NUMERIC,
    DTypeMismatch,
    bind1,
    check_dtype,
)


def _object_result(fn):
    """String kernels: numpy returns bare ``bytes`` for 0-d object arrays; keep arrays."""

    def kernel(*args):
        return np.asarray(fn(*args), dtype=object)

    return kernel


# --- binary elementwise -------------------------------------------------------------------


# --- the gradients of binary ops: each operand's, summed back over what broadcasting added ---


def _binary_gradient(x_rule, y_rule):
    """A rule giving the (unbroadcast) gradients of x and y, ``x_rule(x, y, z, g)`` and
    ``y_rule(x, y, z, g)``; an operand whose gradient nobody needs gets None, uncomputed."""

    def gradient(op, g):
        x, y = op.inputs
        z, skip = op.outputs[0], skipped_inputs(op)
        gx = None if 0 in skip else unbroadcast(x_rule(x, y, z, g), x, [y])
        gy = None if 1 in skip else unbroadcast(y_rule(x, y, z, g), y, [x])
        return gx, gy

    return gradient


def _pow_exponent_gradient(x, y, z, g):
    # d/dy x**y = x**y log(x), taken as 0 where x <= 0, as in TensorFlow.
    positive = greater(x, 0)
    log_x = where(positive, log(where(positive, x, add(zeros_like(x), 1))), zeros_like(x))
    return multiply(g, multiply(z, log_x))


def _extreme_gradient(chooses_x):
    """Maximum and minimum: the gradient goes to the operand chosen (x on ties)."""
    return _binary_gradient(
        lambda x, y, z, g: where(chooses_x(x, y), g, zeros_like(g)),
        lambda x, y, z, g: where(chooses_x(x, y), zeros_like(g), g),
    )


_ADD = _binary_gradient(lambda x, y, z, g: g, lambda x, y, z, g: g)
_SUB = _binary_gradient(lambda x, y, z, g: g, lambda x, y, z, g: negative(g))
_MUL = _binary_gradient(lambda x, y, z, g: multiply(g, y), lambda x, y, z, g: multiply(g, x))
_DIV = _binary_gradient(
    lambda x, y, z, g: divide(g, y), lambda x, y, z, g: negative(multiply(g, divide(z, y)))
)
_MOD = _binary_gradient(
    lambda x, y, z, g: g, lambda x, y, z, g: negative(multiply(g, floordiv(x, y)))
)
_POW = _binary_gradient(
    lambda x, y, z, g: multiply(g, multiply(y, pow(x, subtract(y, 1)))), _pow_exponent_gradient
)
_MAX = _extreme_gradient(lambda x, y: greater_equal(x, y))
_MIN = _extreme_gradient(lambda x, y: less_equal(x, y))
_STEPS = NotDifferentiable(
    "it is piecewise constant: its gradient is zero where it exists (TensorFlow gives None)"
)


_BOOL_ONLY = {"dtypes": lambda dtype: dtype.is_bool}
_IN_TESTS = {"LogicalAnd": "and", "LogicalOr": "or"}  # Python's own, in an if's or while's test

ADD = binary("Add", "add", NUMERIC, "add", _ADD, form="+")
STRING_ADD = binary(
    "StringAdd", _object_result(np.add), lambda d: d is dtypes.string, "add", STRINGS
)
SUB = binary("Sub", "subtract", NUMERIC, "sub", _SUB, form="-")
MUL = binary("Mul", "multiply", NUMERIC, "mul", _MUL, form="*")
REAL_DIV = binary("RealDiv", "true_divide", FLOATING, "truediv", _DIV, form="/")
FLOOR_DIV = division("FloorDiv", "floor_divide", "floordiv", "floordiv", _STEPS, "//")
FLOOR_MOD = division("FloorMod", "mod", "mod", "mod", _MOD, "%")
POW = binary("Pow", np.power, NUMERIC, "pow", _POW, form=forms.division_form("**", np.power, False))  # fmt: skip
MAXIMUM = binary("Maximum", "maximum", NUMERIC, "Maximum", _MAX)
MINIMUM = binary("Minimum", "minimum", NUMERIC, "Minimum", _MIN)
LESS = binary("Less", "less", NUMERIC, "Less", BOOL_OUTPUT, dtypes.bool_, "<")
LESS_EQUAL = binary("LessEqual", "less_equal", NUMERIC, "LessEqual", BOOL_OUTPUT, dtypes.bool_, "<=")  # fmt: skip
GREATER = binary("Greater", "greater", NUMERIC, "Greater", BOOL_OUTPUT, dtypes.bool_, ">")
GREATER_EQUAL = binary("GreaterEqual", "greater_equal", NUMERIC, "GreaterEqual", BOOL_OUTPUT, dtypes.bool_, ">=")  # fmt: skip
EQUAL = binary(
    "Equal",
    lambda x, y: np.bool_(np.equal(x, y)) if np.ndim(x) == np.ndim(y) == 0 else np.equal(x, y),
    ANY_DTYPE,
    "Equal",
    BOOL_OUTPUT,
    dtypes.bool_,
    forms.operator_form("==", np.equal),
)
NOT_EQUAL = binary(
    "NotEqual",
    lambda x, y: np.logical_not(EQUAL.kernel(x, y)),
    ANY_DTYPE,
    "NotEqual",
    BOOL_OUTPUT,
    dtypes.bool_,
    forms.operator_form("!=", np.not_equal),
)
# On bools, numpy's &, | and ^ are the logical ufuncs.
LOGICAL_AND, LOGICAL_OR, LOGICAL_XOR = (
    binary(op_type, name, BOOL, op_type, BOOL_OUTPUT,
            form=forms.operator_form(symbol, getattr(np, name), _IN_TESTS.get(op_type), **_BOOL_ONLY))
    for op_type, name, symbol in (("LogicalAnd", "logical_and", "&"),
                                  ("LogicalOr", "logical_or", "|"),
                                  ("LogicalXor", "logical_xor", "^"))
)  # fmt: skip


def add(x, y, name=None):
    """``x + y`` elementwise, with broadcasting; on strings, concatenation.

    >>> add([1, 2], 3).numpy()
    array([4, 5], dtype=int32)
    """
    x, y = convert_pair(x, y)
    op = STRING_ADD if x.dtype is dtypes.string else ADD
    return bind1(op, [x, y], name=name or "add")


def _binary_fn(op, default_name, doc):
    def fn(x, y, name=None):
        x, y = convert_pair(x, y)
        return bind1(op, [x, y], name=name or default_name)

    fn.__name__ = default_name
    fn.__doc__ = doc
    return fn


subtract = _binary_fn(
    SUB,
    "sub",
    "``x - y`` elementwise.\n\n>>> subtract(5, [1, 2]).numpy()\narray([4, 3], dtype=int32)",
)
multiply = _binary_fn(
    MUL,
    "mul",
    "``x * y`` elementwise.\n\n>>> multiply([1, 2], 3).numpy()\narray([3, 6], dtype=int32)",
)
floordiv = _binary_fn(
    FLOOR_DIV,
    "floordiv",
    "``x // y``, rounding toward -inf.\n\n>>> floordiv(-7, 2).numpy()\nnp.int32(-4)",
)
mod = _binary_fn(
    FLOOR_MOD,
    "mod",
    "``x % y`` with the sign of ``y``, like Python.\n\n>>> mod(-7, 3).numpy()\nnp.int32(2)",
)
pow = _binary_fn(
    POW,
    "pow",
    "``x ** y`` elementwise.\n\n>>> pow(2, [1, 2, 3]).numpy()\narray([2, 4, 8], dtype=int32)",
)
maximum = _binary_fn(
    MAXIMUM,
    "Maximum",
    "Elementwise larger of ``x`` and ``y``.\n\n>>> maximum([1, 5], 3).numpy()\narray([3, 5], dtype=int32)",
)
minimum = _binary_fn(
    MINIMUM,
    "Minimum",
    "Elementwise smaller of ``x`` and ``y``.\n\n>>> minimum([1, 5], 3).numpy()\narray([1, 3], dtype=int32)",
)
less = _binary_fn(
    LESS, "Less", "``x < y`` elementwise.\n\n>>> less([1, 5], 3).numpy()\narray([ True, False])"
)
less_equal = _binary_fn(LESS_EQUAL, "LessEqual", "``x <= y`` elementwise.")
greater = _binary_fn(GREATER, "Greater", "``x > y`` elementwise.")
greater_equal = _binary_fn(GREATER_EQUAL, "GreaterEqual", "``x >= y`` elementwise.")
equal = _binary_fn(
    EQUAL,
    "Equal",
    "``x == y`` elementwise (strings too).\n\n>>> equal(['a', 'b'], 'a').numpy()\narray([ True, False])",
)
not_equal = _binary_fn(NOT_EQUAL, "NotEqual", "``x != y`` elementwise.")
logical_and = _binary_fn(LOGICAL_AND, "LogicalAnd", "Elementwise ``x and y`` on bools.")
logical_or = _binary_fn(LOGICAL_OR, "LogicalOr", "Elementwise ``x or y`` on bools.")
logical_xor = _binary_fn(LOGICAL_XOR, "LogicalXor", "Elementwise exclusive or on bools.")


def divide(x, y, name=None):
    """``x / y``. Integers are divided as floats (int32 -> float64), as in TensorFlow.

    >>> divide(7, 2).numpy()
    np.float64(3.5)
    """
    x, y = convert_pair(x, y)
    if x.dtype.is_integer and x.dtype is y.dtype:
        target = dtypes.float64 if x.dtype in (dtypes.int32, dtypes.int64) else dtypes.float32
        x, y = cast(x, target), cast(y, target)
    return bind1(REAL_DIV, [x, y], name=name or "truediv")


# --- unary elementwise --------------------------------------------------------------------


def _sigmoid(xp, x):
    return 1 / (1 + xp.exp(-x))


NEG, negative = elementwise_unary(
    "Neg",
    "negative",
    NUMERIC,
    "negative",
    "``-x``.\n\n>>> negative([1, -2]).numpy()\narray([-1,  2], dtype=int32)",
    lambda x, y, g: negative(g),
    python_form=forms.operator_form("-", np.negative),
    onnx="Neg",
)
ABS, abs = elementwise_unary(
    "Abs",
    "absolute",
    NUMERIC,
    "abs",
    "``|x|``.\n\n>>> abs([-1.5, 2.0]).numpy()\narray([1.5, 2. ], dtype=float32)",
    lambda x, y, g: multiply(g, sign(x)),
    python_form=forms.builtin_call_form("abs", np.absolute),
    onnx="Abs",
)
SIGN, sign = elementwise_unary(
    "Sign",
    "sign",
    NUMERIC,
    "sign",
    "-1, 0 or 1 by the sign of ``x``.",
    lambda x, y, g: zeros_like(x),
    onnx="Sign",
)
SQRT, sqrt = elementwise_unary(
    "Sqrt",
    "sqrt",
    FLOATING,
    "sqrt",
    "Square root; floats only.\n\n>>> sqrt(4.0).numpy()\nnp.float32(2.0)",
    lambda x, y, g: divide(multiply(g, 0.5), y),
    onnx="Sqrt",
)
SQUARE, square = elementwise_unary(
    "Square",
    "square",
    NUMERIC,
    "square",
    "``x * x``.",
    lambda x, y, g: multiply(g, multiply(x, 2)),
)
EXP, exp = elementwise_unary(
    "Exp",
    "exp",
    FLOATING,
    "exp",
    "``e ** x``; floats only.",
    lambda x, y, g: multiply(g, y),
    onnx="Exp",
)
LOG, log = elementwise_unary(
    "Log",
    "log",
    FLOATING,
    "log",
    "Natural logarithm; floats only.",
    lambda x, y, g: divide(g, x),
    onnx="Log",
)
SIN, sin = elementwise_unary(
    "Sin",
    "sin",
    FLOATING,
    "sin",
    "Sine; floats only.",
    lambda x, y, g: multiply(g, cos(x)),
    onnx="Sin",
)
COS, cos = elementwise_unary(
    "Cos",
    "cos",
    FLOATING,
    "cos",
    "Cosine; floats only.",
    lambda x, y, g: negative(multiply(g, sin(x))),
    onnx="Cos",
)
TANH, tanh = elementwise_unary(
    "Tanh",
    "tanh",
    FLOATING,
    "tanh",
    "Hyperbolic tangent; floats only.",
    lambda x, y, g: multiply(g, subtract(1, multiply(y, y))),
    onnx="Tanh",
)
SIGMOID, sigmoid = elementwise_unary(
    "Sigmoid",
    _sigmoid,
    FLOATING,
    "sigmoid",
    "``1 / (1 + exp(-x))``; floats only.\n\n>>> sigmoid(0.0).numpy()\nnp.float32(0.5)",
    lambda x, y, g: multiply(g, multiply(y, subtract(1, y))),
    onnx="Sigmoid",
)
LOGICAL_NOT, logical_not = elementwise_unary(
    "LogicalNot",
    "logical_not",
    BOOL,
    "logical_not",
    "Elementwise ``not x`` on bools.",
    BOOL_OUTPUT,
    python_form=forms.operator_form("~", np.logical_not, in_test="not", **_BOOL_ONLY),
    onnx="Not",
)


# --- matmul --------------------------------------------------------------------------------


def _matmul_infer(inputs, attrs):
    a, b = inputs
    if a.dtype is not b.dtype:
        raise DTypeMismatch(
            f"Cannot compute MatMul of a {a.dtype.name} tensor and a {b.dtype.name} tensor",
            1,
            a.dtype,
            b.dtype,
        )
    check_dtype("MatMul", a, NUMERIC)
    if a.shape.rank is None or b.shape.rank is None:
        return [(a.dtype, TensorShape(None))]
    if a.shape.rank < 2 or b.shape.rank < 2:
        raise ValueError(f"MatMul needs tensors of rank >= 2, got shapes {a.shape} and {b.shape}")
    da, db = a.shape.as_list(), b.shape.as_list()
    # Two matrices whose inner dims agree, the common case, eagerly on every call: (m, n).
    if len(da) == 2 and len(db) == 2 and da[not attrs["transpose_a"]] == db[attrs["transpose_b"]]:
        return [(a.dtype, TensorShape([da[attrs["transpose_a"]], db[not attrs["transpose_b"]]]))]
    if attrs["transpose_a"]:
        da[-2:] = da[-1], da[-2]
    if attrs["transpose_b"]:
        db[-2:] = db[-1], db[-2]
    if da[-1] is not None and db[-2] is not None and da[-1] != db[-2]:
        raise ValueError(  # TensorFlow's kernel's words, the shapes before any transpose
            f"Matrix size-incompatible: In[0]: {bracketed(a.shape)}, In[1]: {bracketed(b.shape)}"
        )
    batch = broadcast_shapes(TensorShape(da[:-2]), TensorShape(db[:-2]))
    return [(a.dtype, batch.concatenate([da[-2], db[-1]]))]


def _matmul(xp, a, b, transpose_a, transpose_b):
    if transpose_a:
        a = a.mT  # the last two axes swapped: a view
    if transpose_b:
        b = b.mT
    return xp.matmul(a, b)


def _matmul_gradient(op, g):
    """Products with the other operand, transposed through the flags (no transpose ops)."""
    a, b = op.inputs
    ta, tb = op.attrs["transpose_a"], op.attrs["transpose_b"]
    skip = skipped_inputs(op)  # eagerly, the data's gradient is often not needed: not computed
    ga = gb = None
    if 0 not in skip:
        if not ta:
            ga = matmul(g, b, transpose_b=not tb)
        else:
            ga = matmul(b, g, transpose_a=tb, transpose_b=True)
        ga = _sum_batch(ga, a)
    if 1 not in skip:
        if not tb:
            gb = matmul(a, g, transpose_a=not ta)
        else:
            gb = matmul(g, a, transpose_a=True, transpose_b=ta)
        gb = _sum_batch(gb, b)
    return ga, gb


def _sum_batch(grad, x):
    """A batched matmul's operand gradient, summed over the batch dims broadcasting added."""
    if x.shape.rank == 2 and grad.shape.rank == 2:
        return grad
    return unbroadcast(grad, x)


MATMUL = OpDef(
    "MatMul",
    None,
    _matmul_infer,
    attrs={"transpose_a": kinds.BOOL, "transpose_b": kinds.BOOL},
    gradient=_matmul_gradient,
    python_form=forms.matmul_form,
    implementation=_matmul,
)


def matmul(a, b, transpose_a=False, transpose_b=False, name=None):
    """Matrix product of two tensors of rank >= 2 (batched over leading dims).

    >>> matmul([[1, 2]], [[3], [4]]).numpy()
    array([[11]], dtype=int32)
    """
    a, b = convert_pair(a, b)
    attrs = {"transpose_a": bool(transpose_a), "transpose_b": bool(transpose_b)}
    return bind1(MATMUL, [a, b], attrs, name or "MatMul")


# --- sums of many -------------------------------------------------------------------------------


def _add_n_infer(inputs, attrs):
    first = inputs[0]
    shape = first.shape
    for t in inputs[1:]:
        if t.dtype is not first.dtype:
            raise TypeError(f"add_n: inputs of dtypes {first.dtype.name} and {t.dtype.name}")
        if not shape.is_compatible_with(t.shape):
            raise ValueError(f"add_n: inputs of shapes {shape} and {t.shape}")
        shape = shape.merge_with(t.shape)
    check_dtype("AddN", first, NUMERIC)
    return [(first.dtype, shape)]


ADD_N = OpDef(
    "AddN",
    None,
    _add_n_infer,
    gradient=lambda op, g: (g,) * len(op.inputs),
    implementation=lambda xp, *xs: functools.reduce(xp.add, xs),
)


def add_n(inputs, name=None):
    """The sum of tensors of one dtype and shape (how gradients of one tensor are summed).

    >>> add_n([[1, 2], [3, 4], [5, 6]]).numpy()
    array([ 9, 12], dtype=int32)
    """
    inputs = [convert_to_tensor(t) for t in inputs]
    if len(inputs) == 1:
        return inputs[0]
    return bind1(ADD_N, inputs, name=name or "AddN")


# --- operators on tensors ------------------------------------------------------------------


def _eq(a, b):
    if b is None:
        return False
    try:
        return equal(a, b)
    except (TypeError, ValueError):
        return NotImplemented


def _ne(a, b):
    if b is None:
        return True
    try:
        return not_equal(a, b)
    except (TypeError, ValueError):
        return NotImplemented


def _logical(op_name, fn):
    def operator(a, b):
        a, b = convert_pair(a, b)
        if a.dtype is not dtypes.bool_:
            raise TypeError(
                f"Operator {op_name} is only defined on bool tensors, not {a.dtype.name}"
            )
        return fn(a, b)

    return operator


def _invert(a):
    a = convert_to_tensor(a)
    if a.dtype is not dtypes.bool_:
        raise TypeError(f"Operator ~ is only defined on bool tensors, not {a.dtype.name}")
    return logical_not(a)


_and, _or, _xor = (
    _logical("&", logical_and),
    _logical("|", logical_or),
    _logical("^", logical_xor),
)

OPERATORS = {
    "__add__": add, "__radd__": lambda a, b: add(b, a),
    "__sub__": subtract, "__rsub__": lambda a, b: subtract(b, a),
    "__mul__": multiply, "__rmul__": lambda a, b: multiply(b, a),
    "__truediv__": divide, "__rtruediv__": lambda a, b: divide(b, a),
    "__floordiv__": floordiv, "__rfloordiv__": lambda a, b: floordiv(b, a),
    "__mod__": mod, "__rmod__": lambda a, b: mod(b, a),
    "__pow__": pow, "__rpow__": lambda a, b: pow(b, a),
    "__matmul__": matmul, "__rmatmul__": lambda a, b: matmul(b, a),
    "__lt__": less, "__le__": less_equal, "__gt__": greater, "__ge__": greater_equal,
    "__eq__": _eq, "__ne__": _ne,
    "__and__": _and, "__rand__": lambda a, b: _and(b, a),
    "__or__": _or, "__ror__": lambda a, b: _or(b, a),
    "__xor__": _xor, "__rxor__": lambda a, b: _xor(b, a),
    "__neg__": negative, "__abs__": abs, "__invert__": _invert,
    "__pos__": lambda a: a,
}  # fmt: skip


def install_operators(cls):
    """Gives ``cls`` (Tensor, Variable) the arithmetic and comparison operators."""
    for name, fn in OPERATORS.items():
        setattr(cls, name, fn)


install_operators(Tensor)
