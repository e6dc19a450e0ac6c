"""Every differentiable op row's gradient against central differences in float64.

Each case runs through ``grad_harness.check_gradient``: an eager tape, a
TensorFlow 1 graph (with unknown dims where ``shapes`` says so) and a tape in
an optimised function graph, all compared with numeric gradients. The cases
are keyed by the row they check, and ``test_every_row_has_a_gradient_or_a_reason``
and ``test_every_differentiable_row_is_checked`` hold the table to that.
"""

from __future__ import annotations

import numpy as np
import pytest

import runtime as rt
from runtime.core.op_def import OPS, NotDifferentiable
from runtime.execution.tracing import trace
from runtime.functions.graph_function import GraphFunction
from runtime.ops import (
    array_ops,
    broadcast_ops,
    clip_ops,
    constant_ops,
    control_flow_ops,
    conv_ops,
    function_ops,
    indexing_ops,
    linalg_ops,
    list_gradient_ops,
    math_ops,
    nn_ops,
    padding_ops,
    pooling_ops,
    reduction_ops,
    scan_ops,
    tensor_array_ops,
)
from runtime.ops.custom_gradient_ops import CUSTOM_GRADIENT
from runtime.ops.script_ops import PY_FUNCTION
from runtime.state import variables
from tests.runtime.gradients.grad_harness import check_gradient
from tests.runtime.ops.op_info_rows import rows_of_registered_ops

RNG = np.random.default_rng(42)


def r(*shape, low=-2.0, high=2.0):
    return RNG.uniform(low, high, shape)


def away_from_zero(*shape):
    return r(*shape, low=0.5, high=2.0) * RNG.choice([-1.0, 1.0], shape)


CASES = []  # (row, label, fn, args, shapes)


def case(row, fn, args, shapes=None, label="", **tolerances):
    CASES.append((row, label or row.type, fn, args, shapes, tolerances))


# --- elementwise binary: equal shapes, broadcasting both ways, unknown dims ------------------

for row, fn in [
    (math_ops.ADD, rt.add),
    (math_ops.SUB, rt.subtract),
    (math_ops.MUL, rt.multiply),
    (math_ops.MAXIMUM, rt.maximum),
    (math_ops.MINIMUM, rt.minimum),
]:
    case(row, fn, [r(2, 3), r(2, 3)], label=f"{row.type} same shapes")
    case(row, fn, [r(2, 3), r(3)], [[None, 3], [3]], label=f"{row.type} bias")
    case(row, fn, [r(4, 1), r(1, 3)], [[None, None], [None, None]], label=f"{row.type} outer")
    case(row, fn, [r(), r(2, 2)], label=f"{row.type} scalar")
case(math_ops.REAL_DIV, rt.divide, [r(2, 3), away_from_zero(3)], [[None, 3], [None]])
case(math_ops.REAL_DIV, rt.divide, [r(2, 1), away_from_zero(2, 3)], label="RealDiv outer")
case(math_ops.FLOOR_MOD, rt.mod, [r(2, 3) * 3, r(3, low=0.7, high=1.3)], [[None, 3], [3]])
case(math_ops.POW, rt.pow, [r(2, 3, low=0.5, high=2.0), r(3)], [[2, None], [None]])
case(
    math_ops.POW,
    lambda x: rt.pow(x, rt.constant([2.0, 3.0, 1.0], rt.float64)),
    [r(3, low=-2.0, high=-0.5)],
    label="Pow of negatives",
)

# --- elementwise unary -------------------------------------------------------------------------

for row, fn, x in [
    (math_ops.NEG, rt.negative, r(2, 3)),
    (math_ops.ABS, rt.abs, away_from_zero(2, 3)),
    (math_ops.SIGN, rt.sign, away_from_zero(3)),
    (math_ops.SQRT, rt.sqrt, r(2, 3, low=0.2, high=3.0)),
    (math_ops.SQUARE, rt.square, r(2, 3)),
    (math_ops.EXP, rt.exp, r(2, 3)),
    (math_ops.LOG, rt.log, r(2, 3, low=0.2, high=3.0)),
    (math_ops.SIN, rt.sin, r(2, 3)),
    (math_ops.COS, rt.cos, r(2, 3)),
    (math_ops.TANH, rt.tanh, r(2, 3)),
    (math_ops.SIGMOID, rt.sigmoid, r(2, 3)),
    (nn_ops.RELU, rt.nn.relu, away_from_zero(2, 3)),
    (array_ops.IDENTITY, rt.identity, r(2, 3)),
]:
    case(row, fn, [x], [[None, None] if x.ndim == 2 else [None]])

case(nn_ops.RELU_GRAD, lambda g, y: nn_ops.relu_grad(g, y), [r(2, 3), away_from_zero(2, 3)])
case(nn_ops.SOFTMAX, rt.nn.softmax, [r(2, 3)], [[None, 3]])
case(nn_ops.SOFTMAX, lambda x: rt.nn.softmax(x, axis=0), [r(2, 3)], label="Softmax axis 0")
case(
    nn_ops.SPARSE_SOFTMAX_XENT,
    lambda x: rt.nn.sparse_softmax_cross_entropy_with_logits([2, 0], x),
    [r(2, 3)],
    [[None, 3]],
)
case(  # its second output, the loss's gradient: differentiated again for second derivatives
    nn_ops.SPARSE_SOFTMAX_XENT,
    lambda x: (
        nn_ops.bind(nn_ops.SPARSE_SOFTMAX_XENT, [x, rt.constant([1, 1])])[1] * [1.0, 2.0, -1.0]
    ),
    [r(2, 3)],
    label="SparseSoftmaxCrossEntropyWithLogits backprop output",
)
case(math_ops.ADD_N, lambda a, b, c: math_ops.add_n([a, b, c]), [r(2, 2), r(2, 2), r(2, 2)])
# float32 rounds: a linear function, so a wide step is exact and rounding is small beside it
case(constant_ops.CAST, lambda x: rt.cast(x, rt.float32), [r(2, 3)], eps=1e-2, rtol=1e-4)

# --- matmul: every transpose flag, batches broadcast ------------------------------------------

for ta in (False, True):
    for tb in (False, True):
        a = r(3, 2) if ta else r(2, 3)
        b = r(4, 3) if tb else r(3, 4)
        case(
            math_ops.MATMUL,
            lambda a, b, ta=ta, tb=tb: rt.matmul(a, b, transpose_a=ta, transpose_b=tb),
            [a, b],
            [[None, None], list(b.shape)],
            label=f"MatMul ta={ta} tb={tb}",
        )
case(math_ops.MATMUL, rt.matmul, [r(2, 2, 3), r(3, 4)], label="MatMul batch")
case(math_ops.MATMUL, rt.matmul, [r(2, 1, 2, 3), r(3, 3, 2)], label="MatMul batch broadcast")

# --- reductions --------------------------------------------------------------------------------

for row, fn in [
    (reduction_ops.SUM, rt.reduce_sum),
    (reduction_ops.MEAN, rt.reduce_mean),
    (reduction_ops.MAX, rt.reduce_max),
    (reduction_ops.MIN, rt.reduce_min),
    (reduction_ops.PROD, rt.reduce_prod),
]:
    case(row, fn, [r(2, 3, 4)], [[None, 3, None]], label=f"{row.type} all")
    case(row, lambda x, fn=fn: fn(x, axis=1), [r(2, 3, 4)], [[None, 3, 4]], label=f"{row.type} 1")
    case(
        row,
        lambda x, fn=fn: fn(x, axis=[0, -1], keepdims=True),
        [r(2, 3, 4)],
        [[None, None, None]],
        label=f"{row.type} keepdims",
    )
case(reduction_ops.MAX, lambda x: rt.reduce_max(x, 1), [np.array([[1.0, 3.0, 3.0]])], label="ties")
for zeros in ([[0.0, 2.0, 3.0]], [[0.0, 2.0, 0.0]]):
    case(reduction_ops.PROD, lambda x: rt.reduce_prod(x, 1), [np.array(zeros)], label=f"{zeros}")

# --- shapes and layouts ---------------------------------------------------------------------------

case(array_ops.RESHAPE, lambda x: rt.reshape(x, [3, -1]), [r(2, 3)], [[None, 3]])
case(array_ops.TRANSPOSE, rt.transpose, [r(2, 3)], [[None, 3]], label="Transpose reversed")
case(array_ops.TRANSPOSE, lambda x: rt.transpose(x, [1, 2, 0]), [r(2, 3, 4)], label="perm")
case(
    array_ops.CONCAT, lambda a, b: rt.concat([a, b], 1), [r(2, 3), r(2, 2)], [[None, 3], [2, None]]
)
case(array_ops.CONCAT, lambda a, b: rt.concat([a, b], 0), [r(2, 3), r(1, 3)], label="axis 0")
case(array_ops.PACK, lambda a, b: rt.stack([a, b], axis=1), [r(2, 3), r(2, 3)], [[None, 3]] * 2)
case(array_ops.UNPACK, lambda x: rt.unstack(x, axis=1), [r(2, 3)], [[None, 3]])
case(array_ops.UNPACK, lambda x: rt.unstack(x)[1], [r(3, 2)], label="Unpack one used")
case(array_ops.EXPAND_DIMS, lambda x: rt.expand_dims(x, 1), [r(2, 3)], [[None, None]])
case(array_ops.SQUEEZE, lambda x: rt.squeeze(x, [1]), [r(2, 1, 3)], [[None, 1, None]])
case(array_ops.SPLIT, lambda x: array_ops.split(x, [1, 2], 1), [r(2, 3)], [[None, 3]])

# --- broadcasting and selecting ------------------------------------------------------------------

case(broadcast_ops.FILL, lambda v: rt.fill([2, 3], v), [r()])
case(
    broadcast_ops.BROADCAST_TO,
    lambda x: broadcast_ops.broadcast_to(x, [2, 3]),
    [r(1, 3)],
    [[1, None]],
)
case(
    broadcast_ops.SUM_TO_SHAPE,
    lambda x: broadcast_ops.sum_to_shape(x, [3]),
    [r(2, 3)],
    [[None, None]],
)
case(
    broadcast_ops.SELECT,
    lambda x, y: rt.where(np.array([True, False, True]), x, y),
    [r(2, 3), r(3)],
    [[None, 3], [3]],
)
case(broadcast_ops.SELECT, lambda x, y: rt.where(x > y, x, y), [r(2, 3), r(2, 3)], label="mask")

# --- indexing ---------------------------------------------------------------------------------------

case(
    indexing_ops.GATHER,
    lambda p, i: rt.gather(p, i),
    [r(4, 3), np.array([2, 0, 2], np.int32)],
    [[None, 3], [None]],
)
case(
    indexing_ops.GATHER,
    lambda p, i: rt.gather(p, i, axis=1),
    [r(2, 4, 3), np.array([[3, 1], [1, 1]], np.int32)],
    [[None, 4, None], [2, None]],
    label="GatherV2 axis 1",
)
case(
    indexing_ops.UNSORTED_SEGMENT_SUM,
    lambda d, i: indexing_ops.unsorted_segment_sum(d, i, 3),
    [r(4, 2), np.array([0, 2, 0, 1], np.int32)],
)
case(indexing_ops.STRIDED_SLICE, lambda x: x[1:, ::2], [r(3, 5)], [[None, None]])
case(indexing_ops.STRIDED_SLICE, lambda x: x[..., 1, None], [r(2, 3)], label="int and newaxis")
case(
    indexing_ops.STRIDED_SLICE,
    lambda x, i: x[i, 1:],
    [r(3, 4), np.array(2, np.int32)],
    [[None, 4], []],
    label="tensor index",
)
case(
    indexing_ops.STRIDED_SLICE_GRAD,
    lambda g: indexing_ops.STRIDED_SLICE.gradient(_slice_op(), g)[0],
    [r(2)],
)

# --- padding, tiling, clipping, running sums, one-hot, einsum --------------------------------------

case(padding_ops.PAD, lambda x: rt.pad(x, [[1, 0], [2, 1]]), [r(2, 3)], [[None, None]])
case(
    padding_ops.PAD,
    lambda x, v, p: rt.pad(x, p, constant_values=v),
    [r(2, 3), r(), np.array([[0, 2], [1, 1]], np.int64)],
    [[None, 3], [], [2, 2]],
    label="PadV2 value and unknown paddings",
)
for mode, pads in [("REFLECT", [[2, 1], [1, 2]]), ("SYMMETRIC", [[3, 0], [2, 3]])]:
    case(
        padding_ops.MIRROR_PAD,
        lambda x, mode=mode, pads=pads: rt.pad(x, pads, mode=mode),
        [r(4, 3)],
        [[None, 3]],
        label=f"MirrorPad {mode}",
    )
    case(
        padding_ops.MIRROR_PAD,
        lambda x, p, mode=mode: rt.pad(x, p, mode=mode),
        [r(4, 3), np.array(pads, np.int32)],
        [[4, None], [2, 2]],
        label=f"MirrorPad {mode} unknown paddings",
    )
case(padding_ops.TILE, lambda x: rt.tile(x, [2, 3]), [r(2, 3)], [[None, 3]])
case(
    padding_ops.TILE,
    lambda x, m: rt.tile(x, m),
    [r(1, 2, 2), np.array([3, 1, 2], np.int32)],
    [[None, 2, None], [3]],
    label="Tile unknown multiples",
)
case(
    clip_ops.CLIP_BY_VALUE,
    rt.clip_by_value,
    [r(3, 4), r(4, low=-1.0, high=-0.2), r(low=0.2, high=1.0)],
    [[None, 4], [4], []],
)
case(
    clip_ops.CLIP_BY_VALUE,
    rt.clip_by_value,
    [r(2, 3), r(2, 3, low=-1.5, high=-0.5), r(2, 3, low=0.5, high=1.5)],
    label="ClipByValue bounds of t's shape",
)
for exclusive in (False, True):
    for reverse in (False, True):
        case(
            scan_ops.CUMSUM,
            lambda x, e=exclusive, v=reverse: rt.cumsum(x, axis=1, exclusive=e, reverse=v),
            [r(2, 4)],
            [[None, None]],
            label=f"Cumsum exclusive={exclusive} reverse={reverse}",
        )
case(
    indexing_ops.ONE_HOT,
    lambda i, on, off: rt.one_hot(i, 4, on_value=on, off_value=off, axis=0),
    [np.array([[0, 3], [5, 1]], np.int32), r(), r()],
    [[None, 2], [], []],
)
for equation, shapes in [
    ("ij,jk->ik", [(2, 3), (3, 4)]),
    ("ij,j", [(2, 3), (3,)]),
    ("ii->i", [(3, 3)]),
    ("iij,j->", [(2, 2, 3), (3,)]),
    ("ij,kl->ik", [(2, 3), (4, 2)]),
    ("...ij,...jk->...ik", [(2, 1, 2, 3), (4, 3, 2)]),
    ("i...j,j->...i", [(2, 3, 1, 2), (2,)]),
]:
    case(
        linalg_ops.EINSUM,
        lambda *xs, equation=equation: rt.einsum(equation, *xs),
        [r(*s) for s in shapes],
        [[None] * len(s) for s in shapes],
        label=f"Einsum {equation}",
    )

# --- TensorArrays --------------------------------------------------------------------------------


def _write_then_stack(x, y):
    ta = rt.TensorArray(x.dtype, size=3)
    ta = ta.write(0, x).write(1, y).write(2, x * y)
    return ta.stack()


def _unstack_then_read(x):
    ta = rt.TensorArray(x.dtype, size=3).unstack(x)
    return ta.read(0) * ta.read(2) + ta.read(0)


def _overwrite(x, y):
    ta = rt.TensorArray(x.dtype, size=2).write(0, x).write(0, y).write(1, x)
    return ta.stack()


case(tensor_array_ops.WRITE, _write_then_stack, [r(2), r(2)], [[None], [None]])
case(tensor_array_ops.WRITE, _overwrite, [r(2), r(2)], label="overwritten values get nothing")
case(tensor_array_ops.STACK, _write_then_stack, [r(3), r(3)], label="TensorListStack")
case(tensor_array_ops.FROM_TENSOR, _unstack_then_read, [r(3, 2)], [[3, None]])
case(tensor_array_ops.READ, _unstack_then_read, [r(3, 2)], label="TensorListGetItem")

# --- gradient lists (what the gradients of TensorArrays are made of) --------------------------------


def _lists(x, y):
    items = list_gradient_ops.grad_list_add(
        list_gradient_ops.grad_list_from_tensor(x), list_gradient_ops.grad_list_element(1, y)
    )
    items = list_gradient_ops.grad_list_drop(items, 2)
    first = list_gradient_ops.grad_list_get(items, 0, [2], x.dtype)
    return list_gradient_ops.grad_list_stack(items, [3, 2], x.dtype), first


for row in [
    list_gradient_ops.GRAD_LIST_ADD,
    list_gradient_ops.GRAD_LIST_ELEMENT,
    list_gradient_ops.GRAD_LIST_FROM_TENSOR,
    list_gradient_ops.GRAD_LIST_DROP,
    list_gradient_ops.GRAD_LIST_GET,
    list_gradient_ops.GRAD_LIST_STACK,
]:
    case(row, _lists, [r(3, 2), r(2)])

# --- control flow: graphs get If and While ops, eager runs them as Python ---------------------------

case(
    control_flow_ops.IF,
    lambda x, y: rt.cond(rt.reduce_sum(x) > 0, lambda: x * y, lambda: rt.sin(x) + y),
    [r(3, low=0.1, high=1.0), r(3)],
    [[None], [3]],
    label="If true",
)
case(
    control_flow_ops.IF,
    lambda x, y: rt.cond(rt.reduce_sum(x) > 0, lambda: x * y, lambda: rt.exp(x) * y),
    [r(3, low=-1.0, high=-0.1), r(3)],
    label="If false",
)
case(
    control_flow_ops.WHILE,
    lambda x: rt.while_loop(lambda i, v: i < 3, lambda i, v: (i + 1, rt.sin(v) * v), (0, x))[1],
    [r(2)],
    [[None]],
)


# --- calls of traced functions ----------------------------------------------------------------------

_CALLED = GraphFunction(
    trace(lambda x, y: rt.sin(x) * y, [rt.TensorSpec([None], rt.float64)] * 2, "called")
)
case(function_ops.CALL, lambda x, y: _CALLED([x, y])[0], [r(3), r(3)], [[None], [None]])


# --- the table is held to account ----------------------------------------------------------------


def _slice_op():
    """A StridedSlice op record (x[1:, 0]) for differentiating its gradient rule directly."""
    from runtime.gradients.backprop import Recorded

    x = rt.zeros([3, 2], rt.float64)
    return Recorded(indexing_ops.STRIDED_SLICE, (x,), {"spec": (slice(1, None, None), 0)}, ())


# Rows whose gradients are checked by tests of their own.
CHECKED_ELSEWHERE = {
    variables.READ: "tests/runtime/gradients/test_tape.py (variables)",
    list_gradient_ops.STACK_GET: "tests/runtime/gradients/test_control_flow_gradients.py (second order)",
    CUSTOM_GRADIENT: "tests/runtime/ops/test_custom_gradient.py (its gradient is the author's)",
    PY_FUNCTION: "tests/runtime/ops/test_py_function.py (the Python function's own ops)",
    # The gradients of convolution and pooling are rows whose own gradients are checked there,
    # second order: the gradient of a loss's first gradient.
    conv_ops.CONV2D_BACKPROP_INPUT: "tests/runtime/ops/test_conv_pool.py (second order)",
    conv_ops.CONV2D_BACKPROP_FILTER: "tests/runtime/ops/test_conv_pool.py (second order)",
    pooling_ops.MAX_POOL_GRAD: "tests/runtime/ops/test_conv_pool.py (second order)",
    pooling_ops.MAX_POOL_GRAD_GRAD: "tests/runtime/ops/test_conv_pool.py (third order, max)",
    pooling_ops.AVG_POOL_GRAD: "tests/runtime/ops/test_conv_pool.py (second order)",
}


@pytest.mark.parametrize(
    "row, fn, args, shapes, tolerances", [c[:1] + c[2:] for c in CASES], ids=[c[1] for c in CASES]
)
def test_gradient_matches_central_differences(row, fn, args, shapes, tolerances):
    check_gradient(fn, args, shapes, **tolerances)


def test_every_row_has_a_gradient_or_a_reason():
    missing = sorted(op.type for op in OPS.values() if op.gradient is None)
    assert not missing, f"rows without gradient= (a rule or NotDifferentiable): {missing}"
    for op in OPS.values():
        if isinstance(op.gradient, NotDifferentiable):
            assert op.gradient.reason, op.type


def test_every_differentiable_row_is_checked():
    checked = {c[0] for c in CASES} | set(CHECKED_ELSEWHERE) | rows_of_registered_ops()
    differentiable = {op for op in OPS.values() if callable(op.gradient)}
    unchecked = sorted(op.type for op in differentiable - checked)
    assert not unchecked, f"differentiable rows with no central-difference case: {unchecked}"


def test_harness_rejects_a_wrong_gradient():
    with pytest.raises(AssertionError):
        check_gradient(lambda x: rt.stop_gradient(x) * x, [r(2)], modes=["tape"], atol=0, rtol=0)
