"""The ops gradients are built from, against numpy: eagerly and in graphs (``check_op``).

AddN, BroadcastTo and its adjoint SumToShape, SplitV, UnsortedSegmentSum (gather's
adjoint), StridedSliceGrad, ReluGrad, StopGradient; then the ``variant`` values of
the backward pass (gradient lists, loop stacks) and PartitionedCall, run directly.
"""

from __future__ import annotations

import numpy as np
import pytest

import runtime as rt
from runtime.execution.tracing import trace
from runtime.functions.graph_function import GraphFunction
from runtime.gradients.backprop import Recorded
from runtime.ops import array_ops, broadcast_ops, indexing_ops, list_gradient_ops, math_ops, nn_ops
from tests.runtime.ops.op_harness import check_op, eager_and_graph_raise

A = np.arange(6, dtype=np.float32).reshape(2, 3) - 2.5


def test_add_n():
    check_op(
        lambda a, b, c: math_ops.add_n([a, b, c]), [A, A * 2, A - 1], A + A * 2 + A - 1, rt.float32
    )
    check_op(lambda a: math_ops.add_n([a]), [A], A, rt.float32)


def test_broadcast_to():
    check_op(
        lambda x: broadcast_ops.broadcast_to(x, [4, 2, 3]),
        [A[:1]],
        np.broadcast_to(A[:1], (4, 2, 3)),
        rt.float32,
    )
    check_op(
        lambda x: broadcast_ops.broadcast_to(x, [2, 3]),
        [A[0]],
        np.broadcast_to(A[0], (2, 3)),
        rt.float32,
        shapes=[[None]],
        static_shape=[2, 3],
    )
    eager_and_graph_raise(lambda x: broadcast_ops.broadcast_to(x, [3, 3]), [A], ValueError)


@pytest.mark.parametrize(
    "shape, target",
    [
        ((2, 3), (3,)),
        ((2, 3), (1, 3)),
        ((2, 3), (2, 1)),
        ((4, 2, 3), (2, 3)),
        ((2, 3), (2, 3)),
        ((2, 3), ()),
    ],
)
def test_sum_to_shape_is_the_adjoint_of_broadcast_to(shape, target):
    x = np.arange(np.prod(shape), dtype=np.float64).reshape(shape)
    lead = len(shape) - len(target)
    axes = tuple(range(lead)) + tuple(
        lead + i for i, d in enumerate(target) if d == 1 and shape[lead + i] != 1
    )
    expected = np.sum(x, axis=axes, keepdims=True).reshape(target)
    check_op(lambda t: broadcast_ops.sum_to_shape(t, list(target)), [x], expected, rt.float64)
    # adjoint: <broadcast_to(y), x> == <y, sum_to_shape(x)>
    y = np.linspace(1.0, 2.0, int(np.prod(target))).reshape(target)
    assert np.sum(np.broadcast_to(y, shape) * x) == pytest.approx(np.sum(y * expected))


def test_unbroadcast_adds_no_op_when_nothing_was_broadcast():
    g = rt.Graph()
    with g.as_default():
        x = rt.placeholder(rt.float32, [None, 3])
        grad = rt.placeholder(rt.float32, [None, 3])
        same = broadcast_ops.unbroadcast(grad, x, [rt.placeholder(rt.float32, [3])])
        summed = broadcast_ops.unbroadcast(grad, rt.placeholder(rt.float32, [3]), [x])
    assert same is grad
    assert summed.op.type == "SumToShape"


def test_split():
    check_op(lambda x: array_ops.split(x, [1, 2], 1), [A], [A[:, :1], A[:, 1:]], rt.float32)
    eager_and_graph_raise(
        lambda x: array_ops.split(x, [1, 1], 1), [A], rt.errors.InvalidArgumentError
    )


def test_unsorted_segment_sum_adds_rows_by_id_and_drops_ids_out_of_range():
    data = np.arange(8, dtype=np.float32).reshape(4, 2)
    ids = np.array([1, -1, 1, 3], np.int32)
    expected = np.stack([0 * data[0], data[0] + data[2], 0 * data[0], data[3]])  # row 1 dropped
    check_op(
        lambda d, i: indexing_ops.unsorted_segment_sum(d, i, 4), [data, ids], expected, rt.float32
    )


def test_strided_slice_grad_writes_into_zeros():
    grad = np.array([1.0, 2.0], np.float32)
    op = Recorded(
        indexing_ops.STRIDED_SLICE, (rt.zeros([3, 2]),), {"spec": (slice(1, None, None), 0)}, ()
    )
    expected = np.zeros((3, 2), np.float32)
    expected[1:, 0] = grad
    check_op(lambda g: indexing_ops.STRIDED_SLICE.gradient(op, g)[0], [grad], expected, rt.float32)


def test_relu_grad_passes_where_the_output_is_positive():
    g = np.array([1.0, 2.0, 3.0], np.float32)
    y = np.array([0.0, 0.5, 2.0], np.float32)
    check_op(nn_ops.relu_grad, [g, y], np.where(y > 0, g, 0), rt.float32)


def test_stop_gradient_is_the_identity_on_values():
    check_op(rt.stop_gradient, [A], A, rt.float32)


def test_gradient_lists_are_dicts_by_index_with_zeros_elsewhere():
    x = rt.constant([[1.0, 2.0], [3.0, 4.0]])
    items = list_gradient_ops.grad_list_from_tensor(x)
    items = list_gradient_ops.grad_list_add(
        items, list_gradient_ops.grad_list_element(3, rt.constant([5.0, 5.0]))
    )
    items = list_gradient_ops.grad_list_add(
        items, list_gradient_ops.grad_list_element(0, rt.constant([1.0, 1.0]))
    )
    dropped = list_gradient_ops.grad_list_drop(items, 1)
    np.testing.assert_array_equal(
        list_gradient_ops.grad_list_stack(dropped, [4, 2], rt.float32).numpy(),
        [[2.0, 3.0], [0.0, 0.0], [0.0, 0.0], [5.0, 5.0]],
    )
    # the lists given are never changed
    np.testing.assert_array_equal(
        list_gradient_ops.grad_list_get(items, 1, [2], rt.float32).numpy(), [3.0, 4.0]
    )
    np.testing.assert_array_equal(
        list_gradient_ops.grad_list_get(dropped, 1, [2], rt.float32).numpy(), [0.0, 0.0]
    )
    assert list_gradient_ops.grad_list_empty().numpy() == {}


def test_stack_get_reads_what_a_loop_stacked():
    stack = rt.EagerTensor([np.float32(1.0), np.float32(4.0)], rt.variant)
    assert list_gradient_ops.stack_get(stack, 1, rt.float32, []).numpy() == 4.0
    with pytest.raises(rt.errors.InvalidArgumentError, match="iteration 2"):
        list_gradient_ops.stack_get(stack, 2, rt.float32, [])


def test_partitioned_call_runs_a_function_graph_eagerly_and_in_a_graph():
    fn = GraphFunction(
        trace(lambda x: (x * 2.0, x + 1.0), [rt.TensorSpec([None], rt.float32)], "f")
    )
    x = np.array([1.0, 2.0], np.float32)
    check_op(
        lambda t: fn([t]),
        [x],
        [x * 2, x + 1],
        rt.float32,
        shapes=[[None]],
        static_shape=[[None], [None]],
    )
