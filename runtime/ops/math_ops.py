"""Elementwise arithmetic, comparisons, logic, matmul, reductions and activations.

Tensors of different dtypes are never promoted: ``constant(1) + constant(2.0)``
raises TypeError naming both dtypes. A Python number next to a tensor takes the
tensor's dtype.

>>> import runtime as rt
>>> (rt.constant([1.0, 2.0]) * 2 + 1).numpy()
array([3., 5.], dtype=float32)
"""

from __future__ import annotations

import builtins

import numpy as np

from runtime import errors
from runtime.core import attr_kinds as kinds
from runtime.core import dtypes
from runtime.core.op_def import OpDef
from runtime.core.tensor import Tensor
from runtime.core.tensor_shape import TensorShape, broadcast_shapes
from runtime.ops.constant_ops import cast, convert_pair, convert_to_tensor, static_int, static_ints
from runtime.ops.registry import ANY, BOOL, FLOATING, NUMERIC, bind1, check_dtype, unary_spec


def _object_result(fn):
    """String kernels: numpy returns bare ``bytes`` for 0-d object arrays; keep arrays."""

    def kernel(*args):
        return np.asarray(fn(*args), dtype=object)

    return kernel


# --- binary elementwise -------------------------------------------------------------------


def _binary_infer(op_type, allowed, out_dtype=None):
    def infer(inputs, attrs):
        x, y = inputs
        if x.dtype is not y.dtype:
            raise TypeError(
                f"Cannot compute {op_type} of a {x.dtype.name} tensor and a {y.dtype.name} tensor: "
                f"tensors of different dtypes are not converted implicitly; use rt.cast(x, rt.{y.dtype.name}) "
                f"or rt.cast(y, rt.{x.dtype.name})."
            )
        check_dtype(op_type, x, allowed)
        return [(out_dtype or x.dtype, broadcast_shapes(x.shape, y.shape))]

    return infer


def _binary(op_type, kernel, allowed, default_name, out_dtype=None):
    return OpDef(
        op_type, kernel, _binary_infer(op_type, allowed, out_dtype), default_name=default_name
    )


def _int_safe(fn, what):
    """Integer floordiv/mod by zero is an error, as in TensorFlow, not numpy's silent 0."""

    def kernel(x, y):
        if x.dtype.kind in "iu" and not y.all():  # the method: much cheaper than np.all on scalars
            raise errors.InvalidArgumentError(f"Integer division by zero in {what}")
        return fn(x, y)

    return kernel


ADD = _binary("Add", np.add, NUMERIC, "add")
STRING_ADD = _binary("StringAdd", _object_result(np.add), lambda d: d is dtypes.string, "add")
SUB = _binary("Sub", np.subtract, NUMERIC, "sub")
MUL = _binary("Mul", np.multiply, NUMERIC, "mul")
REAL_DIV = _binary("RealDiv", np.true_divide, FLOATING, "truediv")
FLOOR_DIV = _binary("FloorDiv", _int_safe(np.floor_divide, "floordiv"), NUMERIC, "floordiv")
FLOOR_MOD = _binary("FloorMod", _int_safe(np.mod, "mod"), NUMERIC, "mod")
POW = _binary("Pow", np.power, NUMERIC, "pow")
MAXIMUM = _binary("Maximum", np.maximum, NUMERIC, "Maximum")
MINIMUM = _binary("Minimum", np.minimum, NUMERIC, "Minimum")
LESS = _binary("Less", np.less, NUMERIC, "Less", dtypes.bool_)
LESS_EQUAL = _binary("LessEqual", np.less_equal, NUMERIC, "LessEqual", dtypes.bool_)
GREATER = _binary("Greater", np.greater, NUMERIC, "Greater", dtypes.bool_)
GREATER_EQUAL = _binary("GreaterEqual", np.greater_equal, NUMERIC, "GreaterEqual", dtypes.bool_)
EQUAL = _binary(
    "Equal",
    lambda x, y: np.bool_(np.equal(x, y)) if np.ndim(x) == np.ndim(y) == 0 else np.equal(x, y),
    ANY,
    "Equal",
    dtypes.bool_,
)
NOT_EQUAL = _binary(
    "NotEqual", lambda x, y: np.logical_not(EQUAL.kernel(x, y)), ANY, "NotEqual", dtypes.bool_
)
LOGICAL_AND = _binary("LogicalAnd", np.logical_and, BOOL, "LogicalAnd")
LOGICAL_OR = _binary("LogicalOr", np.logical_or, BOOL, "LogicalOr")
LOGICAL_XOR = _binary("LogicalXor", np.logical_xor, BOOL, "LogicalXor")


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


def _unary(op_type, kernel, allowed, py_name, doc):
    def infer(inputs, attrs):
        check_dtype(op_type, inputs[0], allowed)
        return [(inputs[0].dtype, inputs[0].shape)]

    op = OpDef(op_type, kernel, infer, default_name=op_type)

    def fn(x, name=None):
        return bind1(op, [convert_to_tensor(x)], name=name or op_type)

    fn.__name__ = py_name
    fn.__doc__ = doc
    return op, fn


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


NEG, negative = _unary(
    "Neg",
    np.negative,
    NUMERIC,
    "negative",
    "``-x``.\n\n>>> negative([1, -2]).numpy()\narray([-1,  2], dtype=int32)",
)
ABS, abs = _unary(
    "Abs",
    np.abs,
    NUMERIC,
    "abs",
    "``|x|``.\n\n>>> abs([-1.5, 2.0]).numpy()\narray([1.5, 2. ], dtype=float32)",
)
SIGN, sign = _unary("Sign", np.sign, NUMERIC, "sign", "-1, 0 or 1 by the sign of ``x``.")
SQRT, sqrt = _unary(
    "Sqrt",
    np.sqrt,
    FLOATING,
    "sqrt",
    "Square root; floats only.\n\n>>> sqrt(4.0).numpy()\nnp.float32(2.0)",
)
SQUARE, square = _unary("Square", np.square, NUMERIC, "square", "``x * x``.")
EXP, exp = _unary("Exp", np.exp, FLOATING, "exp", "``e ** x``; floats only.")
LOG, log = _unary("Log", np.log, FLOATING, "log", "Natural logarithm; floats only.")
SIN, sin = _unary("Sin", np.sin, FLOATING, "sin", "Sine; floats only.")
COS, cos = _unary("Cos", np.cos, FLOATING, "cos", "Cosine; floats only.")
TANH, tanh = _unary("Tanh", np.tanh, FLOATING, "tanh", "Hyperbolic tangent; floats only.")
SIGMOID, sigmoid = _unary(
    "Sigmoid",
    _sigmoid,
    FLOATING,
    "sigmoid",
    "``1 / (1 + exp(-x))``; floats only.\n\n>>> sigmoid(0.0).numpy()\nnp.float32(0.5)",
)
RELU, relu = _unary(
    "Relu",
    lambda x: np.maximum(x, 0),
    NUMERIC,
    "relu",
    "``max(x, 0)``.\n\n>>> relu([-1, 2]).numpy()\narray([0, 2], dtype=int32)",
)
LOGICAL_NOT, logical_not = _unary(
    "LogicalNot", np.logical_not, BOOL, "logical_not", "Elementwise ``not x`` on bools."
)


def _softmax_kernel(x, axis):
    shifted = x - np.max(x, axis=axis, keepdims=True)
    e = np.exp(shifted)
    return e / np.sum(e, axis=axis, keepdims=True)


def _softmax_infer(inputs, attrs):
    check_dtype("Softmax", inputs[0], FLOATING)
    if inputs[0].shape.rank == 0:
        raise ValueError("softmax needs a tensor of rank >= 1")
    return unary_spec(inputs, attrs)


SOFTMAX = OpDef("Softmax", _softmax_kernel, _softmax_infer, attrs={"axis": kinds.INT})


def softmax(logits, axis=-1, name=None):
    """``exp(x) / sum(exp(x))`` along ``axis``, computed stably.

    >>> softmax([0.0, 0.0]).numpy()
    array([0.5, 0.5], dtype=float32)
    """
    return bind1(
        SOFTMAX,
        [convert_to_tensor(logits)],
        {"axis": static_int(axis, "softmax: axis")},
        name or "Softmax",
    )


# --- matmul --------------------------------------------------------------------------------


def _matmul_infer(inputs, attrs):
    a, b = inputs
    if a.dtype is not b.dtype:
        raise TypeError(
            f"Cannot compute MatMul of a {a.dtype.name} tensor and a {b.dtype.name} tensor"
        )
    check_dtype("MatMul", a, NUMERIC)
    if a.shape.rank is None or b.shape.rank is None:
        return [(a.dtype, TensorShape(None))]
    if a.shape.rank < 2 or b.shape.rank < 2:
        raise ValueError(f"MatMul needs tensors of rank >= 2, got shapes {a.shape} and {b.shape}")
    da, db = a.shape.as_list(), b.shape.as_list()
    if attrs["transpose_a"]:
        da[-2:] = da[-1], da[-2]
    if attrs["transpose_b"]:
        db[-2:] = db[-1], db[-2]
    if da[-1] is not None and db[-2] is not None and da[-1] != db[-2]:
        raise ValueError(
            f"MatMul: inner dimensions differ: {a.shape} and {b.shape} ({da[-1]} vs {db[-2]})"
        )
    batch = broadcast_shapes(TensorShape(da[:-2]), TensorShape(db[:-2]))
    return [(a.dtype, batch.concatenate([da[-2], db[-1]]))]


def _matmul_kernel(a, b, transpose_a, transpose_b):
    if transpose_a:
        a = np.swapaxes(a, -1, -2)
    if transpose_b:
        b = np.swapaxes(b, -1, -2)
    return np.matmul(a, b)


MATMUL = OpDef(
    "MatMul",
    _matmul_kernel,
    _matmul_infer,
    attrs={"transpose_a": kinds.BOOL, "transpose_b": kinds.BOOL},
)


def matmul(a, b, transpose_a=False, transpose_b=False, name=None):
    """Matrix product of two tensors of rank >= 2 (batched over leading dims).

    >>> matmul([[1, 2]], [[3], [4]]).numpy()
    array([[11]], dtype=int32)
    """
    a, b = convert_pair(a, b)
    attrs = {"transpose_a": bool(transpose_a), "transpose_b": bool(transpose_b)}
    return bind1(MATMUL, [a, b], attrs, name or "MatMul")


# --- reductions ----------------------------------------------------------------------------


def _axes(axis):
    return static_ints(axis, "axis")


def _reduce_infer(op_type, allowed, out_dtype=None):
    def infer(inputs, attrs):
        x, axis, keepdims = inputs[0], attrs["axis"], attrs["keepdims"]
        check_dtype(op_type, x, allowed)
        dtype = out_dtype or x.dtype
        if x.shape.rank is None:
            return [(dtype, TensorShape(None) if axis is not None or keepdims else TensorShape([]))]
        rank = x.shape.rank
        axes = builtins.range(rank) if axis is None else axis
        norm = set()
        for a in axes:
            if not -rank <= a < max(rank, 1):
                raise ValueError(f"{op_type}: axis {a} is out of range for a tensor of rank {rank}")
            norm.add(a % rank if rank else 0)
        dims = x.shape.as_list()
        if keepdims:
            out = [1 if i in norm else d for i, d in enumerate(dims)]
        else:
            out = [d for i, d in enumerate(dims) if i not in norm]
        return [(dtype, TensorShape(out))]

    return infer


def _typed(reducer):
    def kernel(x, axis, keepdims):
        return reducer(x, axis=axis, keepdims=keepdims, dtype=x.dtype)

    return kernel


def _mean_kernel(x, axis, keepdims):
    if x.dtype.kind in "iu":
        total = np.sum(x, axis=axis, keepdims=keepdims, dtype=np.int64)
        count = np.size(x) // builtins.max(np.size(total), 1)
        if count == 0:
            raise errors.InvalidArgumentError("reduce_mean of an empty integer tensor")
        # Integer mean truncates toward zero, like TensorFlow's.
        return (np.sign(total) * (np.abs(total) // count)).astype(x.dtype)
    if np.size(x) == 0:  # the mean of nothing is nan, without numpy's warning
        empty_sum = np.sum(x, axis=axis, keepdims=keepdims)
        return np.full(np.shape(empty_sum), np.nan, dtype=x.dtype)[()]
    # Half floats are summed in float32, so a mean of many large values does not overflow.
    accumulate = np.float32 if x.dtype == np.float16 else x.dtype
    return np.asarray(np.mean(x, axis=axis, keepdims=keepdims, dtype=accumulate)).astype(x.dtype)[
        ()
    ]


def _extreme(reducer, largest):
    """Max or min; over nothing it is the identity (-inf for a float max), as in TensorFlow."""

    def kernel(x, axis, keepdims):
        if np.size(x):
            return reducer(x, axis=axis, keepdims=keepdims)
        if x.dtype.kind == "f":
            initial = -np.inf if largest else np.inf
        else:
            info = np.iinfo(x.dtype)
            initial = info.min if largest else info.max
        return reducer(x, axis=axis, keepdims=keepdims, initial=initial)

    return kernel


def _bool_reduce(reducer):
    def kernel(x, axis, keepdims):
        return reducer(x, axis=axis, keepdims=keepdims)

    return kernel


def _reduction(op_type, kernel, allowed, default_name, doc):
    op = OpDef(
        op_type,
        kernel,
        _reduce_infer(op_type, allowed),
        default_name=default_name,
        attrs={"axis": kinds.AXES, "keepdims": kinds.BOOL},
    )

    def fn(input_tensor, axis=None, keepdims=False, name=None):
        attrs = {"axis": _axes(axis), "keepdims": bool(keepdims)}
        return bind1(op, [convert_to_tensor(input_tensor)], attrs, name or default_name)

    fn.__doc__ = doc
    fn.__name__ = default_name
    return op, fn


SUM, reduce_sum = _reduction(
    "Sum",
    _typed(np.sum),
    NUMERIC,
    "Sum",
    "Sum over ``axis`` (all axes by default).\n\n>>> reduce_sum([[1, 2], [3, 4]], axis=0).numpy()\narray([4, 6], dtype=int32)",
)
MEAN, reduce_mean = _reduction(
    "Mean",
    _mean_kernel,
    NUMERIC,
    "Mean",
    "Mean over ``axis``; integer means truncate, as in TensorFlow.\n\n>>> reduce_mean([1, 2]).numpy()\nnp.int32(1)",
)
MAX, reduce_max = _reduction(
    "Max", _extreme(np.max, largest=True), NUMERIC, "Max", "Largest element over ``axis``."
)
MIN, reduce_min = _reduction(
    "Min", _extreme(np.min, largest=False), NUMERIC, "Min", "Smallest element over ``axis``."
)
PROD, reduce_prod = _reduction("Prod", _typed(np.prod), NUMERIC, "Prod", "Product over ``axis``.")
ALL, reduce_all = _reduction("All", _bool_reduce(np.all), BOOL, "All", "Logical and over ``axis``.")
ANY_, reduce_any = _reduction("Any", _bool_reduce(np.any), BOOL, "Any", "Logical or over ``axis``.")


def _arg_infer(op_type):
    def infer(inputs, attrs):
        x = inputs[0]
        check_dtype(op_type, x, NUMERIC)
        if not attrs["output_type"].is_integer:
            raise TypeError(f"{op_type}: output_type must be an integer dtype")
        if x.shape.rank is None:
            return [(attrs["output_type"], TensorShape(None))]
        dims = x.shape.as_list()
        if not -len(dims) <= attrs["axis"] < len(dims):
            raise ValueError(
                f"{op_type}: axis {attrs['axis']} is out of range for rank {len(dims)}"
            )
        del dims[attrs["axis"] % len(dims)]
        return [(attrs["output_type"], TensorShape(dims))]

    return infer


def _arg_kernel(reducer):
    def kernel(x, axis, output_type):
        if np.shape(x)[axis] == 0:
            raise errors.InvalidArgumentError("argmax/argmin over an empty dimension")
        return reducer(x, axis=axis).astype(output_type.as_numpy_dtype)

    return kernel


_ARG_ATTRS = {"axis": kinds.INT, "output_type": kinds.DTYPE}
ARG_MAX = OpDef("ArgMax", _arg_kernel(np.argmax), _arg_infer("ArgMax"), attrs=_ARG_ATTRS)
ARG_MIN = OpDef("ArgMin", _arg_kernel(np.argmin), _arg_infer("ArgMin"), attrs=_ARG_ATTRS)


def argmax(input, axis=None, output_type=dtypes.int64, name=None):
    """Index of the largest value along ``axis`` (0 by default), as int64.

    >>> argmax([3, 9, 2]).numpy()
    np.int64(1)
    """
    attrs = {
        "axis": 0 if axis is None else static_int(axis, "axis"),
        "output_type": dtypes.as_dtype(output_type),
    }
    return bind1(ARG_MAX, [convert_to_tensor(input)], attrs, name or "ArgMax")


def argmin(input, axis=None, output_type=dtypes.int64, name=None):
    """Index of the smallest value along ``axis`` (0 by default), as int64."""
    attrs = {
        "axis": 0 if axis is None else static_int(axis, "axis"),
        "output_type": dtypes.as_dtype(output_type),
    }
    return bind1(ARG_MIN, [convert_to_tensor(input)], attrs, name or "ArgMin")


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
