"""Each op's ONNX form computes what the runtime does.

Each lowered op is exported from a small function and run by onnxruntime on
several inputs, in each dtype it takes, against the runtime.
"""

from __future__ import annotations

import numpy as np
import pytest

import autograph as ag
import runtime as rt
from runtime.export.onnx_ops import LOWERINGS
from runtime.ops import array_ops as array
from runtime.ops import broadcast_ops, constant_ops, indexing_ops, nn_ops, shape_ops, string_ops
from runtime.ops import math_ops as math
from runtime.ops import reduction_ops as reduction
from runtime.ops.custom_gradient_ops import CUSTOM_GRADIENT
from tests.runtime.export.onnx_harness import check_export, spec
from tests.runtime.ops.op_harness import strings
from tests.runtime.ops.op_info_rows import rows_of_registered_ops

# --- each lowered op against the runtime ------------------------------------------------------

F32, F64, F16 = rt.float32, rt.float64, rt.float16
I32, I64, I8, I16, U8 = rt.int32, rt.int64, rt.int8, rt.int16, rt.uint8
INTS = [I32, I64, I8, I16, U8]
FLOATS = [F32, F64, F16]
CASES = []


def case(opdefs, signature, *calls, dtypes=None):
    """Registers the function for each dtype of ``dtypes`` (``signature`` is then a function
    of the dtype giving the TensorSpecs), called with each argument tuple of ``calls``."""

    def register(fn):
        for dtype in dtypes or [None]:
            sig = signature(dtype) if dtype is not None else signature
            args = [tuple(_value(a, s.dtype) for a, s in zip(c, sig)) for c in calls]
            label = f"{fn.__name__}-{dtype.name}" if dtype is not None else fn.__name__
            CASES.append(pytest.param(fn, sig, args, id=label))
            COVERED.update(opdefs)
        return fn

    return register


COVERED = set()


def _value(a, dtype):
    """An argument as a numpy value of ``dtype`` (integers wrap: -7 is 249 as uint8)."""
    if dtype is rt.string:
        return strings(a)
    return np.asarray(a).astype(dtype.as_numpy_dtype)


_VECTOR = [[3, -7, 0, 5], [-1, 2, 9, -4]]


def _two(dtype):
    return [spec([None], dtype), spec([None], dtype)]


@case([math.ADD, math.SUB, math.MUL], _two, *(_VECTOR, [[100], [100]]), dtypes=INTS + FLOATS)
def add_sub_mul(x, y):
    return x + y, x - y, x * y


_SIGNED = [I32, I64, I8, I16]


@case([math.FLOOR_DIV, math.FLOOR_MOD], _two, ([7, -7, 7, -7], [2, 2, -2, -2]), dtypes=_SIGNED)
def floor_division(x, y):
    return x // y, x % y


@case(
    [math.FLOOR_DIV, math.FLOOR_MOD, math.REAL_DIV],
    _two,
    ([7.5, -7.5, 1.0, -1.0, 0.0, 5.0], [2.0, 2.0, 0.1, 0.1, 3.0, -0.5]),
    ([1.0, -1.0, 0.0, 2.5], [0.0, 0.0, 0.0, -2.5]),  # by zero: inf, nan, as numpy
    dtypes=FLOATS,
)
def float_division(x, y):
    return x // y, x % y, x / y


@case([math.POW], _two, ([2, 3, -2, 0], [3, 2, 3, 5]), dtypes=INTS[:4] + FLOATS)
def power(x, y):
    return x**y


@case(
    [math.MAXIMUM, math.MINIMUM, math.ABS, math.SIGN, math.NEG, math.SQUARE],
    _two,
    _VECTOR,
    dtypes=INTS[:4] + FLOATS,
)
def signs_and_extremes(x, y):
    return rt.maximum(x, y), rt.minimum(x, y), abs(x), rt.sign(x), -x, rt.square(y)


@case([math.MAXIMUM, math.MINIMUM, math.NEG, math.SQUARE, math.ABS], _two(U8), ([3, 200], [7, 1]))
def unsigned(x, y):  # negation and squares wrap around, as in numpy
    return rt.maximum(x, y), rt.minimum(x, y), -x, rt.square(x), abs(x)


@case(
    [math.SQRT, math.EXP, math.LOG, math.SIN, math.COS, math.TANH, math.SIGMOID],
    lambda d: [spec([None], d)],
    ([0.5, 1.0, 4.0, 0.0],),
    ([-1.0, 2.0, 10.0, 1e-3],),
    dtypes=FLOATS,
)
def transcendental(x):
    return rt.sqrt(x), rt.exp(x), rt.log(x), rt.sin(x), rt.cos(x), rt.tanh(x), rt.sigmoid(x)


@case([nn_ops.RELU], lambda d: [spec([None], d)], ([-3, 0, 4],), dtypes=INTS[:4] + FLOATS)
def relu(x):
    return rt.nn.relu(x)


@case(
    [nn_ops.SOFTMAX],
    lambda d: [spec([None, 3], d)],
    ([[1.0, 2.0, 3.0], [0.0, 0.0, 0.0]],),
    ([[100.0, -100.0, 0.0]],),
    dtypes=[F32, F64],
)
def softmax(x):
    return rt.nn.softmax(x), rt.nn.softmax(x, axis=0)


@case(
    [nn_ops.SPARSE_SOFTMAX_XENT],
    lambda d: [spec([None, 3], d), spec([None], I64)],
    ([[1.0, 2.0, 3.0], [0.0, 0.0, 0.0]], [2, 0]),
    ([[100.0, -100.0, 0.0]], [1]),
    dtypes=[F32, F64],
)
def sparse_softmax_cross_entropy(logits, labels):
    with rt.GradientTape() as tape:
        tape.watch(logits)
        loss = rt.nn.sparse_softmax_cross_entropy_with_logits(labels, logits)
    return loss, tape.gradient(loss, logits)


@case(
    [math.MATMUL],
    lambda d: [spec([2, 3], d), spec([3, 2], d)],
    ([[1, 2, 3], [4, 5, 6]], [[1, 0], [0, 1], [2, -1]]),
    dtypes=[I32, I64, I8, F32, F64],
)
def matmul(a, b):
    return a @ b, rt.matmul(a, b, transpose_a=True, transpose_b=True)


@case(
    [math.LESS, math.LESS_EQUAL, math.GREATER, math.GREATER_EQUAL, math.EQUAL, math.NOT_EQUAL],
    _two,
    ([1, 5, 3, -2], [3, 5, 1, -2]),
    dtypes=INTS + FLOATS,
)
def comparisons(x, y):
    return x < y, x <= y, x > y, x >= y, rt.equal(x, y), rt.not_equal(x, y)


@case(
    [math.LOGICAL_AND, math.LOGICAL_OR, math.LOGICAL_XOR, math.LOGICAL_NOT, math.EQUAL],
    [spec([None], rt.bool), spec([None], rt.bool)],
    ([True, True, False, False], [True, False, True, False]),
)
def logic(x, y):
    return x & y, x | y, x ^ y, ~x, rt.equal(x, y), rt.not_equal(x, y)


@case(
    [reduction.SUM, reduction.PROD, reduction.MAX, reduction.MIN, reduction.MEAN],
    lambda d: [spec([None, 3], d)],
    ([[1, -2, 3], [4, 0, -6]],),
    ([[7, 8, -9]],),
    dtypes=INTS[:4] + FLOATS,
)
def reductions(x):
    return (
        rt.reduce_sum(x),
        rt.reduce_sum(x, axis=1, keepdims=True),
        rt.reduce_prod(x, axis=0),
        rt.reduce_max(x, axis=-1),
        rt.reduce_min(x, axis=[0, 1]),
        rt.reduce_mean(x, axis=0),
        rt.reduce_mean(x),
        rt.reduce_sum(x, axis=[]),
    )


@case(
    [reduction.MAX, reduction.MIN, reduction.MEAN, reduction.SUM],
    [spec([None], F32)],
    (np.zeros([0], np.float32),),
)
def empty_reductions(x):
    return rt.reduce_max(x), rt.reduce_min(x), rt.reduce_mean(x), rt.reduce_sum(x)


@case(
    [reduction.ALL, reduction.ANY],
    [spec([None, 2], rt.bool)],
    ([[True, False], [True, True]],),
    (np.zeros([0, 2], bool),),
)
def bool_reductions(x):
    return rt.reduce_all(x, axis=1), rt.reduce_any(x, axis=0), rt.reduce_all(x), rt.reduce_any(x)


@case(
    [reduction.ARG_MAX, reduction.ARG_MIN],
    lambda d: [spec([None, 3], d)],
    ([[1, 5, 5], [7, 0, 7]],),
    dtypes=INTS + FLOATS,
)
def arg_extremes(x):
    return rt.argmax(x, axis=1), rt.argmin(x), rt.argmax(x, axis=0, output_type=rt.int32)


@case(
    [math.STRING_ADD, string_ops.STRING_JOIN],
    [spec([None], rt.string), spec([], rt.string)],
    (["a", "bc", ""], "!"),
)
def string_concat(x, y):
    return x + y, rt.strings.join([x, y, x], separator="--"), rt.strings.join([y])


@case(
    [string_ops.AS_STRING],
    [spec([None], I64), spec([None], rt.bool)],
    ([0, -12, 345], [True, False, True]),
)
def as_string(x, b):
    return rt.strings.as_string(x), rt.strings.as_string(b)


@case(
    [constant_ops.CAST],
    [spec([None], F32)],
    ([1.7, -1.7, 0.0, 3.0, 250.0],),
)
def casts(x):
    return (
        rt.cast(x, rt.int32),
        rt.cast(x, rt.bool),
        rt.cast(x, rt.float16),
        rt.cast(rt.cast(x, rt.int32), rt.uint8),
        rt.cast(rt.cast(x, rt.bool), rt.float64),
    )


@case(
    [constant_ops.RANGE],
    [spec([], I32), spec([], F32)],
    (5, 0.5),
    (0, 0.1),
    (-3, 2.5),
)
def ranges(n, step):
    return (
        rt.range(n),
        rt.range(n, 10, 2),
        rt.range(0.0, 1.0, step),
        rt.range(10, n, -3),
        rt.range(rt.cast(n, rt.int8), 4),
    )


@case(
    [
        broadcast_ops.FILL,
        array.ZEROS_LIKE,
        array.ONES_LIKE,
        shape_ops.SHAPE,
        shape_ops.SIZE,
        shape_ops.RANK,
    ],
    [spec([None, None], F32), spec([], I32)],
    ([[1.0, 2.0, 3.0]], 2),
    (np.zeros([0, 2], np.float32), 0),
)
def making(x, n):
    return (
        rt.fill([n, 2], 7.5),
        rt.zeros_like(x),
        rt.ones_like(x, dtype=rt.int8),
        rt.zeros([n], rt.string),
        rt.shape(x),
        rt.shape(x, out_type=rt.int64),
        rt.size(x),
        rt.rank(x),
    )


@case(
    [array.RESHAPE, array.TRANSPOSE, array.EXPAND_DIMS, array.SQUEEZE],
    [spec([None, 3], I32)],
    ([[1, 2, 3], [4, 5, 6]],),
)
def shaping(x):
    return (
        rt.reshape(x, [-1]),
        rt.reshape(x, [3, -1]),
        rt.reshape(x, rt.shape(x)[::-1]),
        rt.transpose(x),
        rt.transpose(rt.expand_dims(x, -1), [2, 0, 1]),
        rt.expand_dims(x, 0),
        rt.squeeze(rt.expand_dims(x, 1), axis=[1]),
        rt.squeeze(rt.reshape(x, [1, 6, 1])),
    )


@case(
    [array.CONCAT, array.PACK, array.UNPACK],
    [spec([2, None], F32), spec([2, None], F32)],
    ([[1.0], [2.0]], [[3.0], [4.0]]),
    ([[1.0, 2.0], [3.0, 4.0]], [[5.0, 6.0], [7.0, 8.0]]),
)
def joining(x, y):
    first, second = rt.unstack(x)
    return (
        rt.concat([x, y], axis=0),
        rt.concat([x, y, x], axis=-1),
        rt.stack([x, y]),
        rt.stack([x, y], axis=-1),
        rt.stack([first]),
        second,
        rt.unstack(y, axis=0)[0],
    )


@case(
    [broadcast_ops.SELECT, broadcast_ops.WHERE],
    lambda d: [spec([None], rt.bool), spec([None], d), spec([None], d)],
    ([True, False, True], [1, 2, 3], [4, 5, 6]),
    dtypes=[I32, I16, U8, F32],
)
def selecting(c, x, y):
    return rt.where(c, x, y), rt.where(c), rt.where(c, x > y, x < y)


@case(
    [indexing_ops.GATHER],
    [spec([None, 2], F32), spec([None], I32)],
    ([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], [2, 0, 2]),
)
def gathering(x, i):
    return rt.gather(x, i), rt.gather(x, [1, 0], axis=1), rt.gather(x, 1)


@case(
    [indexing_ops.STRIDED_SLICE],
    [spec([None, 4], I32), spec([], I32)],
    (np.arange(20).reshape(5, 4), 1),
    (np.arange(8).reshape(2, 4), -1),
    (np.arange(12).reshape(3, 4), 0),
)
def slicing(x, k):
    return (
        x[0],
        x[-1, 1:3],
        x[:, ::-1],
        x[::2, -1],
        x[1:, None, ..., 0],
        x[..., None],
        x[k],
        x[k:],
        x[:k, 1],
        x[::-1, k],
        x[:, 0 : 4 : k * k + 1],
        x[None],
    )


@case([array.IDENTITY], [spec([None], I32)], ([1, 2],))
def identity(x):
    return rt.identity(x), rt.identity(x + 1)


@case([CUSTOM_GRADIENT], [spec([None], F32)], ([1.5, -2.0],))
def custom_gradient(x):
    """The function's results: the gradient it was given is not part of the model."""
    return _two_results(x)


@rt.custom_gradient
def _two_results(t):
    return (t * 2.0, t + 1.0), lambda da, db: da


@pytest.mark.parametrize(("fn", "signature", "calls"), CASES)
def test_op_exports_and_runs_as_in_the_runtime(fn, signature, calls, tmp_path):
    check_export(fn, signature, calls, tmp_path / "model.onnx")


def test_every_simple_lowered_op_has_a_case_here():
    # Control flow, TensorArrays, variables, random ops and the array ops of onnx_array_ops have
    # their own test files.
    from runtime.core.graph import CONST, PLACEHOLDER
    from runtime.export.onnx_array_ops import ARRAY_OPS_LOWERINGS  # test_onnx_array_ops.py
    from runtime.export.onnx_control_flow import CONTROL_FLOW_LOWERINGS
    from runtime.export.onnx_gradients import GRADIENT_LOWERINGS  # test_onnx_gradients.py
    from runtime.export.onnx_sequences import SEQUENCE_LOWERINGS
    from runtime.ops import conv_ops, random_ops
    from runtime.state import variables

    elsewhere = (
        set(CONTROL_FLOW_LOWERINGS)
        | set(SEQUENCE_LOWERINGS)
        | set(GRADIENT_LOWERINGS)
        | set(ARRAY_OPS_LOWERINGS)
        | {CONST, PLACEHOLDER, random_ops.RANDOM_NORMAL, random_ops.RANDOM_UNIFORM}
        | {variables.VAR_HANDLE, variables.READ}
        | {variables.ASSIGN, variables.ASSIGN_ADD, variables.ASSIGN_SUB}
        # rt.nn.conv2d_transpose's op_info sample (a zeros tensor gives its shape) exports it.
        | {conv_ops.CONV2D_BACKPROP_INPUT}
    )
    missing = set(LOWERINGS) - COVERED - elsewhere - rows_of_registered_ops()
    assert not missing, sorted(op.type for op in missing)


def test_int64_beyond_int32_is_not_computed_in_int32(tmp_path):
    # onnxruntime's Relu has no int64: the model once computed it in int32, wrapping 2**40.
    calls = [(np.array([-(2**40), 2**40, 3], np.int64),)]
    check_export(rt.nn.relu, [spec([3], rt.int64)], calls, tmp_path / "relu.onnx")


def test_a_float64_op_onnxruntime_has_only_in_float32_is_refused(tmp_path):
    # Computing it in float32 would lose half its digits without a word.
    function = ag.function(rt.math.erf).get_concrete_function(spec([2], rt.float64))
    with pytest.raises(rt.errors.UnimplementedError, match="Erf of float64.*float32"):
        rt.onnx.export(function, tmp_path / "erf.onnx")


def _dilated_same_conv(x, w, dilation):
    """SAME, stride 1: zero padding of (reach - 1) // 2 before, the odd one after."""
    reach = (w.shape[0] - 1) * dilation + 1
    before = (reach - 1) // 2
    padded = np.pad(x, [(0, 0), (before, reach - 1 - before), (before, reach - 1 - before), (0, 0)])
    out = np.zeros(x.shape[:3] + w.shape[-1:])
    for a, b in np.ndindex(w.shape[:2]):
        window = padded[:, a * dilation :, b * dilation :][:, : x.shape[1], : x.shape[2]]
        out += window @ w[a, b]
    return out


def test_a_dilated_same_convolution_runs_in_onnxruntime(tmp_path):
    # onnxruntime refuses auto_pad=SAME_UPPER with dilations: the pads are written out.
    rng = np.random.default_rng(0)
    x = rng.normal(size=(1, 7, 6, 2)).astype(np.float32)
    w = rng.normal(size=(3, 3, 2, 2)).astype(np.float32)
    function = ag.function(lambda t: rt.nn.conv2d(t, w, 1, "SAME", dilations=2))
    rt.onnx.export(function.get_concrete_function(spec([1, 7, 6, 2])), tmp_path / "conv.onnx")
    sess = __import__("onnxruntime").InferenceSession(str(tmp_path / "conv.onnx"))
    got = sess.run(None, {sess.get_inputs()[0].name: x})[0]
    np.testing.assert_allclose(got, _dilated_same_conv(x, w, 2), rtol=1e-5, atol=1e-5)


def test_a_dilated_same_convolution_of_unknown_size_is_refused(tmp_path):
    w = np.ones((3, 3, 1, 1), np.float32)
    function = ag.function(lambda t: rt.nn.conv2d(t, w, 1, "SAME", dilations=2))
    concrete = function.get_concrete_function(spec([1, None, 6, 1]))
    with pytest.raises(rt.errors.UnimplementedError, match="dilated SAME.*spatial sizes"):
        rt.onnx.export(concrete, tmp_path / "conv.onnx")
