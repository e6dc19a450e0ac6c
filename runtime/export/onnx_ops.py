"""The ONNX form of every op of the op table, keyed by its ``OpDef`` row.

``LOWERINGS[opdef](scope, op, inputs)`` adds the ONNX nodes that compute
``op`` (see ``runtime.export.onnx_graph.Scope``) and returns the ONNX names of
its outputs. ``DROPPED`` ops have no outputs and no effect on results: the
exported model leaves them out. ``UNEXPORTABLE`` ops have no ONNX form: a
function holding one cannot be exported. Every row of ``OPS`` is in exactly one
of the three (``tests/runtime/export/test_onnx_ops.py`` checks it).

Where ONNX's defaults differ from the runtime's (TensorFlow's) meaning, the
rule says how it keeps the runtime's: floor division and modulo round toward
-inf, ``Reshape`` keeps a 0 in a shape as 0, an empty ``axis`` list reduces
nothing, integer means truncate, and types onnxruntime has no kernel for are
computed in a wider type and cast back (``onnx_types.work_dtype``).

>>> from runtime.ops.math_ops import ADD
>>> from runtime.ops.string_ops import STRING_LENGTH
>>> ADD in LOWERINGS, STRING_LENGTH in UNEXPORTABLE
(True, True)
"""

from __future__ import annotations

import numpy as np

from runtime.core import dtypes
from runtime.core.graph import CONST, PLACEHOLDER
from runtime.core.op_def import OPS
from runtime.export import onnx_types as types
from runtime.export.onnx_array_ops import ARRAY_OPS_LOWERINGS
from runtime.export.onnx_control_flow import CONTROL_FLOW_LOWERINGS
from runtime.export.onnx_conv import CONV_LOWERINGS, UNEXPORTABLE_CONV_GRADIENTS
from runtime.export.onnx_gradients import GRADIENT_LOWERINGS, UNEXPORTABLE_GRADIENT_OPS
from runtime.export.onnx_indexing import INDEXING_LOWERINGS
from runtime.export.onnx_sequences import SEQUENCE_LOWERINGS
from runtime.export.onnx_types import Handle, work_dtype
from runtime.ops import array_ops as array
from runtime.ops import (
    broadcast_ops,
    constant_ops,
    custom_gradient_ops,
    logging_ops,
    nn_ops,
    random_ops,
    script_ops,
    shape_ops,
    special_math_ops,
    string_ops,
)
from runtime.ops import math_ops as math
from runtime.ops import reduction_ops as reduction
from runtime.ops.control_flow_ops import NO_OP
from runtime.state import variables

# --- computing in a type onnxruntime supports ---------------------------------------------------

_ALL = frozenset(types.ONNX_TYPES)


def _computed(b, op_type, inputs, dtype, supported, result_dtype=None, **attributes):
    """``op_type`` on ``inputs`` of ``dtype``, cast to a wider type if onnxruntime lacks it.

    ``result_dtype``: the runtime dtype of the result, when not ``dtype`` (a comparison).
    """
    try:
        work = work_dtype(dtype, supported)
    except ValueError as e:
        raise b.unsupported(f"{op_type} of {dtype.name}: {e}") from None
    if work is dtype:
        return b.node1(op_type, inputs, **attributes)
    out = b.node1(op_type, [b.cast(x, work) for x in inputs], **attributes)
    return out if result_dtype not in (None, dtype) else b.cast(out, dtype)


def _elementwise(op_type, supported=types.ARITHMETIC):
    def rule(b, op, inputs):
        result = op.outputs[0].dtype
        return [_computed(b, op_type, inputs, op.inputs[0].dtype, supported, result)]

    return rule


def _passthrough(b, op, inputs):
    return [inputs[0]]


def _custom_gradient_results(b, op, inputs):
    """A model computes values only: the function's results, passed through."""
    start = op.attrs["arguments"]
    return inputs[start : start + op.attrs["results"]]


# --- arithmetic -----------------------------------------------------------------------------------


def _floor_div(b, op, inputs):
    x, y = inputs
    dtype = op.inputs[0].dtype
    if dtype.is_integer:  # ONNX's integer Div truncates; x - floormod(x, y) divides exactly
        remainder = _computed(b, "Mod", [x, y], dtype, types.ARITHMETIC)
        return [_computed(b, "Div", [b.node1("Sub", [x, remainder]), y], dtype, types.ARITHMETIC)]
    # numpy's (Python's) float floor division, which is not floor(x / y): floor_divide(1, 0.1)
    # is 9. From fmod: the quotient of x - fmod(x, y), less one where the signs call for it.
    remainder = b.node1("Mod", [x, y], fmod=1)
    quotient = b.node1("Div", [b.node1("Sub", [x, remainder]), y])
    one = b.const(np.ones((), dtype.as_numpy_dtype))
    zero = b.const(np.zeros((), dtype.as_numpy_dtype))
    adjust = _signs_differ(b, remainder, y, zero)
    quotient = b.node1("Where", [adjust, b.node1("Sub", [quotient, one]), quotient])
    floor = b.node1("Floor", [quotient])
    half = b.const(np.asarray(0.5, dtype.as_numpy_dtype))
    rounds_up = b.node1("Greater", [b.node1("Sub", [quotient, floor]), half])
    floor = b.node1("Where", [rounds_up, b.node1("Add", [floor, one]), floor])
    by_zero = b.node1("Equal", [y, zero])
    return [b.node1("Where", [by_zero, b.node1("Div", [x, y]), floor])]


def _signs_differ(b, remainder, y, zero):
    """Where a nonzero fmod remainder and the divisor differ in sign: Python rounds down there."""
    nonzero = b.node1("Not", [b.node1("Equal", [remainder, zero])])
    differ = b.node1("Xor", [b.node1("Less", [y, zero]), b.node1("Less", [remainder, zero])])
    return b.node1("And", [nonzero, differ])


def _floor_mod(b, op, inputs):
    x, y = inputs
    dtype = op.inputs[0].dtype
    if dtype.is_integer:  # ONNX's integer Mod (fmod=0) takes the divisor's sign, as Python does
        return [_computed(b, "Mod", inputs, dtype, types.ARITHMETIC)]
    remainder = b.node1("Mod", [x, y], fmod=1)
    zero = b.const(np.zeros((), dtype.as_numpy_dtype))
    adjust = _signs_differ(b, remainder, y, zero)
    return [b.node1("Where", [adjust, b.node1("Add", [remainder, y]), remainder])]


def _not_equal(b, op, inputs):
    return [b.node1("Not", [_elementwise("Equal", _ALL)(b, op, inputs)[0]])]


def _square(b, op, inputs):
    return [_computed(b, "Mul", [inputs[0], inputs[0]], op.inputs[0].dtype, types.ARITHMETIC)]


def _string_join(b, op, inputs):
    separator = b.const(np.asarray(op.attrs["separator"], dtype=object), dtypes.string)
    joined = inputs[0]
    for x in inputs[1:]:
        if op.attrs["separator"]:
            joined = b.node1("StringConcat", [joined, separator])
        joined = b.node1("StringConcat", [joined, x])
    return [joined]


def _as_string(b, op, inputs):
    dtype = op.inputs[0].dtype
    if dtype is dtypes.bool_:
        words = b.const(np.asarray([b"false", b"true"], dtype=object), dtypes.string)
        return [b.node1("Gather", [words, b.cast(inputs[0], dtypes.int32)], axis=0)]
    if dtype.is_integer:
        return [b.cast(inputs[0], dtypes.string)]
    raise b.unsupported(
        "ONNX's Cast formats floats differently from as_string (6 decimals, or %g); "
        "export the number and format it where the model runs"
    )


# --- log(1 + x) and exp(x) - 1 near zero: ONNX has neither ------------------------------------


def _float_rule(compute):
    """A rule computing in a float type onnxruntime has (float16 in float32), cast back."""

    def rule(b, op, inputs):
        dtype = op.inputs[0].dtype
        work = work_dtype(dtype, types.FLOATS - {dtypes.float16})
        x = inputs[0] if work is dtype else b.cast(inputs[0], work)
        one = b.const(np.ones((), work.as_numpy_dtype))
        out = compute(b, x, one)
        return [out if work is dtype else b.cast(out, dtype)]

    return rule


def _log1p(b, x, one):
    """``log(u) * x / (u - 1)`` with ``u = 1 + x``: the rounding of ``u`` cancels (Goldberg's
    way of computing log1p from log); ``x`` itself where ``u`` rounds to 1, inf at inf."""
    u = b.node1("Add", [x, one])
    exact = b.node1("Mul", [b.node1("Log", [u]), b.node1("Div", [x, b.node1("Sub", [u, one])])])
    small = b.node1("Where", [b.node1("Equal", [u, one]), x, exact])
    return b.node1("Where", [b.node1("IsInf", [u], detect_negative=0), u, small])


def _expm1(b, x, one):
    """``(u - 1) * x / log(u)`` with ``u = exp(x)`` (Kahan's way of computing expm1 from exp):
    ``x`` where ``u`` rounds to 1, -1 where ``u`` is 0, inf at inf."""
    u = b.node1("Exp", [x])
    less_one = b.node1("Sub", [u, one])
    exact = b.node1("Mul", [less_one, b.node1("Div", [x, b.node1("Log", [u])])])
    small = b.node1("Where", [b.node1("Equal", [u, one]), x, exact])
    to_zero = b.node1(
        "Where", [b.node1("Equal", [less_one, b.node1("Neg", [one])]), less_one, small]
    )
    return b.node1("Where", [b.node1("IsInf", [u], detect_negative=0), u, to_zero])


# --- reductions -------------------------------------------------------------------------------------


def _reduction(op_type, supported):
    def rule(b, op, inputs):
        axis, keepdims = op.attrs["axis"], int(op.attrs["keepdims"])
        if axis is not None and len(axis) == 0:
            return [inputs[0]]  # no axes: nothing is reduced (ONNX would reduce them all)
        operands = [inputs[0]] + ([b.int64s(axis)] if axis is not None else [])
        dtype = op.inputs[0].dtype
        work = work_dtype(dtype, supported)
        if work is not dtype:
            operands[0] = b.cast(operands[0], work)
        out = b.node1(op_type, operands, keepdims=keepdims)
        return [out if work is dtype else b.cast(out, dtype)]

    return rule


def _mean(b, op, inputs):
    """The sum over the count: a float mean of nothing is nan (ONNX's ReduceMean gives 0), an
    integer mean is the int64 sum divided by the count, truncated toward zero (as ONNX's Div)."""
    axis, keepdims = op.attrs["axis"], int(op.attrs["keepdims"])
    if axis is not None and len(axis) == 0:
        return [inputs[0]]
    dtype = op.inputs[0].dtype
    # float16 is summed in float32, as the runtime does; integers in int64.
    work = dtypes.int64 if dtype.is_integer else work_dtype(dtype, types.MATMUL - {dtypes.float16})
    operands = [inputs[0] if work is dtype else b.cast(inputs[0], work)]
    operands += [b.int64s(axis)] if axis is not None else []
    total = b.node1("ReduceSum", operands, keepdims=keepdims)
    count = b.node1("Div", [b.node1("Size", [inputs[0]]), b.node1("Size", [total])])
    mean = b.node1("Div", [total, count if work is dtypes.int64 else b.cast(count, work)])
    return [mean if work is dtype else b.cast(mean, dtype)]


def _any(b, op, inputs):
    """Or over axes: whether the count of trues is positive (onnxruntime has no ReduceMax of
    an empty bool tensor)."""
    return [b.node1("Greater", [_count(b, op, inputs[0]), b.const(np.int64(0))])]


def _all(b, op, inputs):
    """And over axes: whether no element is false."""
    falses = _count(b, op, b.node1("Not", inputs))
    return [b.node1("Equal", [falses, b.const(np.int64(0))])]


def _count(b, op, x):
    axis, keepdims = op.attrs["axis"], int(op.attrs["keepdims"])
    if axis is None:
        return b.node1("ReduceSum", [b.cast(x, dtypes.int64)], keepdims=keepdims)
    # An empty axis list reduces nothing, as in the runtime.
    operands = [b.cast(x, dtypes.int64), b.int64s(axis)]
    return b.node1("ReduceSum", operands, keepdims=keepdims, noop_with_empty_axes=1)


def _arg_extreme(op_type):
    def rule(b, op, inputs):
        dtype = op.inputs[0].dtype
        x = inputs[0]
        work = work_dtype(dtype, types.MIN_MAX)
        if work is not dtype:
            x = b.cast(x, work)
        index = b.node1(op_type, [x], axis=op.attrs["axis"], keepdims=0)
        wanted = op.attrs["output_type"]
        return [index if wanted is dtypes.int64 else b.cast(index, wanted)]

    return rule


def _matmul(b, op, inputs):
    a, c = inputs
    for flag, i in (("transpose_a", 0), ("transpose_b", 1)):
        if op.attrs[flag]:
            rank = op.inputs[i].shape.rank
            if rank is None:
                raise b.unsupported(f"{flag} needs an input of known rank")
            perm = list(range(rank - 2)) + [rank - 1, rank - 2]
            operand = b.node1("Transpose", [inputs[i]], perm=perm)
            a, c = (operand, c) if i == 0 else (a, operand)
    return [_computed(b, "MatMul", [a, c], op.inputs[0].dtype, types.MATMUL)]


def _softmax(b, op, inputs):
    return [b.node1("Softmax", inputs, axis=op.attrs["axis"])]


def _sparse_softmax_xent(b, op, inputs):
    """The loss from LogSoftmax and a one-hot of the labels; the gradient ``softmax - onehot``.
    (Labels outside the classes are not checked: they pick nothing, a loss of 0.)"""
    logits, labels = inputs
    dtype = op.inputs[0].dtype
    log_probs = b.node1("LogSoftmax", [logits], axis=-1)
    labels = b.as_int64(labels, op.inputs[1])
    depth = b.node1("Squeeze", [b.node1("Shape", [logits], start=-1)])
    positions = b.node1("Range", [b.const(np.int64(0)), depth, b.const(np.int64(1))])
    hot = b.node1("Equal", [b.node1("Unsqueeze", [labels, b.int64s([-1])]), positions])
    zero = b.const(np.zeros((), dtype.as_numpy_dtype), dtype)
    picked = b.node1(
        "ReduceSum", [b.node1("Where", [hot, log_probs, zero]), b.int64s([-1])], keepdims=0
    )
    backprop = b.node1("Sub", [b.node1("Exp", [log_probs]), b.cast(hot, dtype)])
    return [b.node1("Neg", [picked]), backprop]


def _relu(b, op, inputs):
    dtype = op.inputs[0].dtype
    if dtype is not dtypes.int64:
        return [_computed(b, "Relu", inputs, dtype, types.RELU)]
    # onnxruntime's Relu has no int64 (nor a wider integer to compute it in): Max with 0.
    return [b.node1("Max", [inputs[0], b.const(np.zeros((), np.int64))])]


# --- making, shaping and selecting tensors ----------------------------------------------------------


def _cast(b, op, inputs):
    return [b.cast(inputs[0], op.attrs["dtype"])]


def _range(b, op, inputs):
    dtype = op.outputs[0].dtype
    if dtype in (dtypes.float16, dtypes.float32):
        # numpy counts the elements in float64: so does the exported model
        doubles = [b.cast(x, dtypes.float64) for x in inputs]
        return [b.cast(b.node1("Range", doubles), dtype)]
    return [_computed(b, "Range", inputs, dtype, types.RANGE)]


def _fill(b, op, inputs):
    dims, value = inputs
    return [b.node1("Expand", [value, b.as_int64(dims, op.inputs[0])])]


def _full_like(fill_value):
    def rule(b, op, inputs):
        dtype = op.attrs["dtype"]
        value = b"" if dtype is dtypes.string else fill_value
        scalar = b.const(np.asarray(value, dtype=dtype.as_numpy_dtype), dtype)
        return [b.node1("Expand", [scalar, b.node1("Shape", inputs)])]

    return rule


def _shape(b, op, inputs):
    shape = b.node1("Shape", inputs)
    return [shape if op.attrs["out_type"] is dtypes.int64 else b.cast(shape, op.attrs["out_type"])]


def _size(b, op, inputs):
    size = b.node1("Size", inputs)
    return [size if op.attrs["out_type"] is dtypes.int64 else b.cast(size, op.attrs["out_type"])]


def _rank(b, op, inputs):
    return [b.cast(b.node1("Size", [b.node1("Shape", inputs)]), dtypes.int32)]


def _reshape(b, op, inputs):
    x, shape = inputs
    # allowzero: a 0 in the shape is a dimension of size 0, not "copy the input's".
    return [b.node1("Reshape", [x, b.as_int64(shape, op.inputs[1])], allowzero=1)]


def _transpose(b, op, inputs):
    perm = op.attrs["perm"]  # None: reversed, as ONNX's default
    attributes = {} if perm is None else {"perm": list(perm)}
    return [b.node1("Transpose", inputs, **attributes)]


def _concat(b, op, inputs):
    return [b.node1("Concat", inputs, axis=op.attrs["axis"])]


def _pack(b, op, inputs):
    axis = b.int64s([op.attrs["axis"]])
    rows = [b.node1("Unsqueeze", [x, axis]) for x in inputs]
    return [rows[0] if len(rows) == 1 else b.node1("Concat", rows, axis=op.attrs["axis"])]


def _unpack(b, op, inputs):
    axis = op.attrs["axis"]
    return [
        b.node1("Gather", [inputs[0], b.const(np.int64(i))], axis=axis)
        for i in range(op.attrs["num"])
    ]


def _expand_dims(b, op, inputs):
    return [b.node1("Unsqueeze", [inputs[0], b.int64s([op.attrs["axis"]])])]


def _squeeze(b, op, inputs):
    axis = op.attrs["axis"]
    if axis is None:
        return [b.node1("Squeeze", inputs)]
    if len(axis) == 0:
        return [inputs[0]]
    return [b.node1("Squeeze", [inputs[0], b.int64s(axis)])]


def _select(b, op, inputs):
    condition, x, y = inputs
    dtype = op.outputs[0].dtype
    work = work_dtype(dtype, types.WHERE)
    if work is dtype:
        return [b.node1("Where", inputs)]
    chosen = b.node1("Where", [condition, b.cast(x, work), b.cast(y, work)])
    return [b.cast(chosen, dtype)]


def _where_indices(b, op, inputs):
    dtype = op.inputs[0].dtype
    if dtype is dtypes.string:
        raise b.unsupported("ONNX's NonZero takes no strings")
    condition = inputs[0]
    if dtype not in types.NON_ZERO:
        condition = b.cast(condition, dtypes.bool_)  # nonzero is nonzero in any type
    return [b.node1("Transpose", [b.node1("NonZero", [condition])], perm=[1, 0])]


# --- state, randomness ----------------------------------------------------------------------------


def _handle(b, op, inputs):
    return [Handle(op.attrs["variable"])]


def _read_variable(b, op, inputs):
    return [b.read_variable(op.attrs["variable"])]


def _assign(combine):
    def rule(b, op, inputs):
        variable = op.attrs["variable"]
        value = inputs[1]
        if combine is not None:
            old = b.read_variable(variable)
            value = _computed(b, combine, [old, value], variable.dtype, types.ARITHMETIC)
        b.assign_variable(variable, value)
        return [value]

    return rule


def _random(op_type):
    def rule(b, op, inputs):
        attrs = op.attrs
        dtype = attrs["dtype"]
        work = dtypes.float64 if dtype in (dtypes.float64, dtypes.int64) else dtypes.float32
        shape_of = b.node1("ConstantOfShape", [b.as_int64(inputs[0], op.inputs[0])])
        params = {"dtype": b.onnx_type(work)}
        if attrs["state"].seed is not None:
            params["seed"] = float(attrs["state"].seed)
        if op_type == "RandomNormalLike":
            params.update(mean=float(attrs["mean"]), scale=float(attrs["stddev"]))
        else:
            params.update(low=float(attrs["minval"]), high=float(attrs["maxval"]))
        draw = b.node1(op_type, [shape_of], **params)
        if dtype.is_integer:  # integers drawn from [minval, maxval): the floor of a float draw
            draw = b.node1("Floor", [draw])
        return [draw if dtype is work else b.cast(draw, dtype)]

    return rule


def _placeholder(b, op, inputs):
    raise b.unsupported("a placeholder that is not one of the function's inputs")


LOWERINGS = {
    CONST: lambda b, op, inputs: [b.constant_initializer(op)],
    PLACEHOLDER: _placeholder,
    # arithmetic
    math.ADD: _elementwise("Add"),
    math.SUB: _elementwise("Sub"),
    math.MUL: _elementwise("Mul"),
    math.REAL_DIV: _elementwise("Div", types.FLOATS),
    math.FLOOR_DIV: _floor_div,
    math.FLOOR_MOD: _floor_mod,
    math.POW: _elementwise("Pow", types.POW),
    math.MAXIMUM: _elementwise("Max", types.MIN_MAX),
    math.MINIMUM: _elementwise("Min", types.MIN_MAX),
    math.SQUARE: _square,
    special_math_ops.LOG1P: _float_rule(_log1p),
    special_math_ops.EXPM1: _float_rule(_expm1),
    nn_ops.RELU: _relu,
    nn_ops.SOFTMAX: _softmax,
    nn_ops.SPARSE_SOFTMAX_XENT: _sparse_softmax_xent,
    math.MATMUL: _matmul,
    # comparisons and logic
    math.LESS: _elementwise("Less"),
    math.LESS_EQUAL: _elementwise("LessOrEqual"),
    math.GREATER: _elementwise("Greater"),
    math.GREATER_EQUAL: _elementwise("GreaterOrEqual"),
    math.EQUAL: _elementwise("Equal", _ALL),
    math.NOT_EQUAL: _not_equal,
    math.LOGICAL_AND: _elementwise("And", {dtypes.bool_}),
    math.LOGICAL_OR: _elementwise("Or", {dtypes.bool_}),
    math.LOGICAL_XOR: _elementwise("Xor", {dtypes.bool_}),
    # reductions
    reduction.SUM: _reduction("ReduceSum", types.MATMUL),
    reduction.PROD: _reduction("ReduceProd", types.MATMUL),
    reduction.MAX: _reduction("ReduceMax", types.REDUCE_MIN_MAX),
    reduction.MIN: _reduction("ReduceMin", types.REDUCE_MIN_MAX),
    reduction.ALL: _all,
    reduction.ANY: _any,
    reduction.MEAN: _mean,
    reduction.ARG_MAX: _arg_extreme("ArgMax"),
    reduction.ARG_MIN: _arg_extreme("ArgMin"),
    # strings
    math.STRING_ADD: lambda b, op, inputs: [b.node1("StringConcat", inputs)],
    string_ops.STRING_JOIN: _string_join,
    string_ops.AS_STRING: _as_string,
    # making and shaping tensors
    constant_ops.CAST: _cast,
    constant_ops.RANGE: _range,
    broadcast_ops.FILL: _fill,
    array.ZEROS_LIKE: _full_like(0),
    array.ONES_LIKE: _full_like(1),
    shape_ops.SHAPE: _shape,
    shape_ops.SIZE: _size,
    shape_ops.RANK: _rank,
    array.RESHAPE: _reshape,
    array.TRANSPOSE: _transpose,
    array.CONCAT: _concat,
    array.PACK: _pack,
    array.UNPACK: _unpack,
    array.EXPAND_DIMS: _expand_dims,
    array.SQUEEZE: _squeeze,
    array.IDENTITY: _passthrough,
    custom_gradient_ops.CUSTOM_GRADIENT: _custom_gradient_results,
    broadcast_ops.SELECT: _select,
    broadcast_ops.WHERE: _where_indices,
    # state and randomness
    variables.VAR_HANDLE: _handle,
    variables.READ: _read_variable,
    variables.ASSIGN: _assign(None),
    variables.ASSIGN_ADD: _assign("Add"),
    variables.ASSIGN_SUB: _assign("Sub"),
    random_ops.RANDOM_NORMAL: _random("RandomNormalLike"),
    random_ops.RANDOM_UNIFORM: _random("RandomUniformLike"),
    **INDEXING_LOWERINGS,
    **ARRAY_OPS_LOWERINGS,
    **CONTROL_FLOW_LOWERINGS,
    **SEQUENCE_LOWERINGS,
    **GRADIENT_LOWERINGS,
    **CONV_LOWERINGS,
}

# A row naming its ONNX operator (``onnx="Tanh"``) is that one node on its inputs.
for _opdef in list(OPS.values()):
    if _opdef.onnx is not None and _opdef not in LOWERINGS:
        LOWERINGS[_opdef] = _elementwise(
            _opdef.onnx, types.ELEMENTWISE_TYPES.get(_opdef.onnx, types.FLOATS)
        )

DROPPED = {
    logging_ops.PRINT: "ONNX has no output stream: the model computes its results without printing",
    logging_ops.ASSERT: "ONNX has no assertion: the model does not check the condition",
    NO_OP: "it does nothing",
}

UNEXPORTABLE = {
    string_ops.STRING_LENGTH: "ONNX has no operator giving the length of a string",
    script_ops.PY_FUNCTION: "it calls Python (rt.py_function), which an ONNX model cannot hold",
    **UNEXPORTABLE_GRADIENT_OPS,
    **UNEXPORTABLE_CONV_GRADIENTS,
}
