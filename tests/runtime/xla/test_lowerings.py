"""The XLA column of the op table: complete, and each lowering agrees with the op's kernel.

Every case below is traced on placeholders and run by the default executor and
by XLA; the results must agree (same dtype and shape, equal values, floats to
float tolerance). The cases together use every lowered op, or the op is one the
other XLA tests cover (control flow, state, printing, TensorArrays).
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.extras import import_extra

import_extra("jax")

import runtime as rt  # noqa: E402
from runtime.core.op_def import OPS  # noqa: E402
from runtime.execution.compile import compile_function  # noqa: E402
from runtime.execution.tracing import trace  # noqa: E402
from runtime.functions.graph_function import GraphFunction  # noqa: E402
from runtime.ops.array_ops import split  # noqa: E402
from runtime.ops.broadcast_ops import broadcast_to, sum_to_shape  # noqa: E402
from runtime.ops.indexing_ops import unsorted_segment_sum  # noqa: E402
from runtime.ops.list_gradient_ops import (  # noqa: E402
    grad_list_add,
    grad_list_drop,
    grad_list_empty,
    grad_list_from_tensor,
    grad_list_get,
    grad_list_stack,
)
from runtime.ops.math_ops import add_n  # noqa: E402
from runtime.ops.nn_ops import relu_grad  # noqa: E402
from runtime.xla.lowerings import LOWERINGS, STATIC_OPERANDS, UNLOWERABLE  # noqa: E402
from runtime.xla.program import XlaProgram  # noqa: E402
from tests.runtime.ops.op_info_rows import rows_of_registered_ops  # noqa: E402
from tests.runtime.xla.xla_harness import assert_same_results, run_both, traced  # noqa: E402

F = np.array([[-2.5, -1.0, 0.0], [0.5, 1.0, 3.0]], np.float32)
P = np.array([[0.5, 1.0, 2.0], [3.0, 4.5, 9.0]], np.float32)
K = np.array([[-3, -1, 0], [1, 2, 7]], np.int32)
J = np.array([[2, -3, 1], [4, 5, -2]], np.int32)
B = np.array([[True, False, True], [False, False, True]])
C = np.array([[False, False, True], [True, False, True]])
V = np.arange(6, dtype=np.float32) - 2.5


def _gradients_of_slices(x, i):
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = rt.reduce_sum(x[i] * x[i, 1:2]) + rt.reduce_sum(rt.gather(x, [0, 0], axis=1))
    return tape.gradient(y, x)


def _gradient_lists(a, b, i):
    """A TensorArray's gradients as dense lists: sums, a dropped row, rows past the end."""
    total = grad_list_add(grad_list_add(grad_list_from_tensor(a), grad_list_empty()),
                          grad_list_from_tensor(b))  # fmt: skip
    dropped = grad_list_drop(total, i)
    return (
        grad_list_get(dropped, i, [3], rt.float32),
        grad_list_get(dropped, i - 1, [3], rt.float32),
        grad_list_get(total, i + 5, [3], rt.float32),  # no gradient there: zeros
        grad_list_get(grad_list_empty(), i, [3], rt.float32),
        grad_list_stack(dropped, [4, 3], rt.float32),  # rows past the list's: zeros
        grad_list_stack(grad_list_empty(), [2, 3], rt.float32),
    )


def _xent_and_gradient(logits, labels):
    with rt.GradientTape() as tape:
        tape.watch(logits)
        loss = rt.nn.sparse_softmax_cross_entropy_with_logits(labels, logits)
    return loss, tape.gradient(loss, logits)


def _conv_and_pool_gradients(x, w):
    """The gradient rows of convolution and pooling, and their own gradients (second order)."""
    with rt.GradientTape() as outer:
        outer.watch([x, w])
        with rt.GradientTape() as tape:
            tape.watch([x, w])
            y = rt.nn.conv2d(x, w, 2, "SAME")
            y = rt.nn.max_pool2d(y, 2, 1, "SAME") + rt.nn.avg_pool2d(y, 2, 1, "SAME")
            loss = rt.reduce_sum(y * y)
        dx, dw = tape.gradient(loss, [x, w])
        total = rt.reduce_sum(dx * dx) + rt.reduce_sum(dw * dw)
    return (dx, dw, *outer.gradient(total, [x, w]))


def _call_of_a_function(x):
    square = GraphFunction(trace(lambda v: v * v + 1.0, [rt.TensorSpec([2, 3])], "square"))
    return square([x])[0]


CASES = {
    "add": (lambda x, y: x + y, [K, J]),
    "sub": (lambda x, y: x - y, [F, P]),
    "mul": (lambda x, y: x * y, [K, J]),
    "truediv": (lambda x, y: x / y, [F, P]),
    "int truediv": (lambda x, y: x / y, [K, J]),
    "floordiv int": (lambda x, y: x // y, [K, J]),
    "floordiv float": (lambda x, y: x // y, [F, P]),
    "mod int": (lambda x, y: x % y, [K, J]),
    "mod float": (lambda x, y: x % y, [F, P]),
    "pow int": (lambda x, y: x ** rt.abs(y), [K, J]),
    "pow float": (lambda x, y: x**y, [P, F]),
    "maximum": (rt.maximum, [F, P]),
    "minimum": (rt.minimum, [K, J]),
    "comparisons": (lambda x, y: (x < y, x <= y, x > y, x >= y, x == y, x != y), [K, J]),
    "logic": (lambda a, b: (a & b, a | b, a ^ b, ~a), [B, C]),
    "bool equal": (lambda a, b: (rt.equal(a, b), rt.not_equal(a, b)), [B, C]),
    "unary numeric": (lambda x: (-x, rt.abs(x), rt.sign(x), rt.square(x), rt.nn.relu(x)), [F]),
    "unary int": (lambda x: (-x, rt.abs(x), rt.sign(x), rt.square(x), rt.nn.relu(x)), [K]),
    "unary floating": (
        lambda x: (rt.sqrt(x), rt.exp(x), rt.log(x), rt.sin(x), rt.cos(x), rt.tanh(x)),
        [P],
    ),
    "sigmoid": (rt.sigmoid, [F]),
    "custom_gradient": (rt.custom_gradient(lambda x: (x * 2.0, lambda dy: dy)), [F]),
    "softmax": (lambda x: rt.nn.softmax(x, axis=0), [F]),
    "sparse softmax cross-entropy": (
        lambda x, labels: _xent_and_gradient(x, labels),
        [F, np.array([2, 0], np.int32)],
    ),
    "matmul": (lambda a, b: rt.matmul(a, b, transpose_b=True), [F, P]),
    "matmul int": (lambda a, b: rt.matmul(a, b, transpose_a=True), [K, J]),
    "reductions": (
        lambda x: (
            rt.reduce_sum(x, axis=1),
            rt.reduce_prod(x),
            rt.reduce_max(x, axis=0, keepdims=True),
            rt.reduce_min(x),
            rt.reduce_mean(x, axis=[0, 1]),
        ),
        [F],
    ),
    "int reductions": (
        lambda x: (rt.reduce_sum(x), rt.reduce_mean(x, axis=1), rt.reduce_max(x)),
        [K],
    ),
    "half mean": (lambda x: rt.reduce_mean(rt.cast(x, rt.float16)), [F]),
    "empty max": (lambda x: (rt.reduce_max(x[:0]), rt.reduce_mean(x[:0])), [V]),
    "bool reductions": (lambda b: (rt.reduce_all(b, axis=0), rt.reduce_any(b)), [B]),
    "argmax": (lambda x: (rt.argmax(x, axis=1), rt.argmin(x, output_type=rt.int32)), [F]),
    "cast": (lambda x: (rt.cast(x, rt.int32), rt.cast(x, rt.bool), rt.cast(x, rt.float16)), [F]),
    "range": (lambda x: rt.range(2, 11, 3) + rt.cast(rt.reduce_sum(x), rt.int32), [K]),
    "fill": (lambda x: rt.fill(rt.shape(x), 7) + x, [K]),
    "zeros and ones like": (lambda x: (rt.zeros_like(x), rt.ones_like(x, dtype=rt.int32)), [F]),
    "shape size rank": (lambda x: (rt.shape(x), rt.size(x), rt.rank(x)), [F]),
    "reshape": (lambda x: rt.reshape(x, [3, -1]), [F]),
    "transpose": (lambda x: rt.transpose(x), [F]),
    "concat": (lambda x, y: rt.concat([x, y], axis=1), [F, P]),
    "stack": (lambda x, y: rt.stack([x, y], axis=1), [K, J]),
    "unstack": (lambda x: tuple(rt.unstack(x, axis=1)), [F]),
    "expand and squeeze": (lambda x: rt.squeeze(rt.expand_dims(x, 1), axis=[1]), [F]),
    "identity": (rt.identity, [K]),
    "where": (lambda c, x, y: rt.where(c, x, y), [B, F, P]),
    "gather": (lambda x, i: rt.gather(x, i, axis=1), [F, np.array([2, 0, 2], np.int32)]),
    "slices": (lambda x: (x[1], x[:, 1:], x[..., None], x[::-1, 0]), [F]),
    "tensor index": (lambda x, i: (x[i], x[-i, 2]), [F, np.int32(1)]),
    "const": (lambda x: x + rt.constant([[1], [2]]), [K]),
    "one hot": (lambda i: (rt.one_hot(i, 4), rt.one_hot(i, 3, 5, -1, axis=0)), [J]),
    "clip": (lambda x, lo: rt.clip_by_value(x, lo, 1.5), [F, np.float32(-1.0)]),
    "pad": (lambda x, v: rt.pad(x, [[1, 0], [0, 2]], constant_values=v), [F, np.float32(9)]),
    "mirror pad": (
        lambda x: (
            rt.pad(x, [[1, 1], [2, 0]], "REFLECT"),
            rt.pad(x, [[2, 0], [0, 1]], "SYMMETRIC"),
        ),
        [F],
    ),
    "tile": (lambda x: rt.tile(x, [2, 3]), [K]),
    "cumsum": (
        lambda x: (
            rt.cumsum(x, axis=1),
            rt.cumsum(x, exclusive=True),
            rt.cumsum(x, axis=1, exclusive=True, reverse=True),
        ),
        [K],
    ),
    "eye": (lambda x: rt.eye(2, 3, dtype=rt.float32) + x[:, :3][:2], [F]),
    "einsum": (
        lambda a, b: (
            rt.einsum("ij,kj->ik", a, b),
            rt.einsum("ij->j", a),
            rt.einsum("ii->i", a[:, :2]),
        ),
        [F, P],
    ),
    "gradient ops": (
        lambda x, g: (
            add_n([x, x, x]),
            broadcast_to(x[0], [4, 3]),
            sum_to_shape(x, [1, 3]),
            relu_grad(g, x),
            tuple(split(x, [1, 2], axis=1)),
            rt.stop_gradient(x),
            unsorted_segment_sum(x, rt.constant([1, -1]), 3),
        ),
        [F, P],
    ),
    "gradients through slices and gathers": (_gradients_of_slices, [F, np.int32(1)]),
    "gradient lists": (_gradient_lists, [F, P, np.int32(1)]),
    "a call of a traced function": (_call_of_a_function, [P]),
    "convolution and pooling gradients": (
        _conv_and_pool_gradients,
        [
            np.linspace(-1.0, 1.0, 50, dtype=np.float32).reshape(1, 5, 5, 2) ** 3,
            np.linspace(-1.0, 0.7, 36, dtype=np.float32).reshape(3, 3, 2, 2),
        ],
    ),
}


def _label(name):
    return name.replace(" ", "_")


@pytest.mark.parametrize("name", sorted(CASES), ids=_label)
def test_lowering_agrees_with_the_kernel(name):
    fn, args = CASES[name]
    assert_same_results(fn, args)


def test_every_op_is_lowered_or_declared_unlowerable():
    missing = [op for op in OPS.values() if op not in LOWERINGS and op not in UNLOWERABLE]
    assert not missing, f"no XLA lowering and no reason why not: {missing}"
    both = set(LOWERINGS) & set(UNLOWERABLE)
    assert not both, f"lowered and declared unlowerable: {both}"
    assert all(isinstance(r, str) and r for r in UNLOWERABLE.values())
    assert set(STATIC_OPERANDS) <= set(LOWERINGS)


# Ops whose lowering the other XLA tests run (they need state, sub-graphs or effects).
COVERED_ELSEWHERE = {
    "If": "test_control_flow",
    "While": "test_control_flow",
    "NoOp": "test_control_flow",
    "Placeholder": "every case (its inputs)",
    "PrintV2": "test_effects",
    "Assert": "test_effects",
    "RandomStandardNormal": "test_effects",
    "RandomUniform": "test_effects",
    "VarHandleOp": "test_effects",
    "ReadVariableOp": "test_effects",
    "AssignVariableOp": "test_effects",
    "AssignAddVariableOp": "test_effects",
    "AssignSubVariableOp": "test_effects",
    "TensorListReserve": "test_tensor_arrays",
    "TensorListSetItem": "test_tensor_arrays",
    "TensorListGetItem": "test_tensor_arrays",
    "TensorListStack": "test_tensor_arrays",
    "TensorListLength": "test_tensor_arrays",
    "TensorListFromTensor": "test_tensor_arrays",
    "StackGet": "test_loop_gradients",
    "GradientListElement": "test_tensor_array_gradients",
}


def _op_types(graph):
    for op in graph.get_operations():
        yield op.type
        for sub in op.subgraphs():
            yield from _op_types(sub)


def test_the_cases_use_every_lowered_op():
    used = set()
    for fn, args in CASES.values():
        used.update(_op_types(traced(fn, args)))
    lowered = {op.type for op in LOWERINGS}
    missing = lowered - used - set(COVERED_ELSEWHERE) - {op.type for op in rows_of_registered_ops()}
    assert not missing, f"lowered ops no case runs: {sorted(missing)}"


def test_unknown_placeholder_dims_take_the_call_shapes():
    result = assert_same_results(lambda x: rt.reduce_sum(x * 2.0, axis=0), [F], shapes=[[None, 3]])
    assert result[0].shape == (3,)


def test_relu_grad_is_nan_where_the_gradient_is_nan_or_infinite():
    """TensorFlow's ReluGrad is ``g * (y > 0)``: where y <= 0 a NaN or infinite g gives
    NaN (NaN * 0, inf * 0), not 0; the default executor and XLA alike."""
    g = np.array([np.nan, np.inf, 2.0, np.nan, -np.inf], np.float32)
    y = np.array([-1.0, 0.0, 0.0, 3.0, 1.0], np.float32)
    expected = np.array([np.nan, np.nan, 0.0, np.nan, -np.inf], np.float32)
    default, xla = run_both(relu_grad, [g, y])
    np.testing.assert_array_equal(default[0], expected)
    np.testing.assert_array_equal(xla[0], expected)


FAILING = {
    "negative paddings": (
        lambda x, p: rt.pad(x, p), [F, np.array([[0, -1], [0, 0]], np.int32)],
        "pad: paddings must not be negative",
    ),
    "mirror padding too wide": (
        lambda x: rt.pad(x, [[2, 0], [0, 0]], "REFLECT"), [F],
        "pad: REFLECT paddings 2 and 0 must be at most 1 for a dimension of size 2",
    ),
    "negative multiples": (
        lambda x, m: rt.tile(x, m), [K, np.array([1, -2], np.int32)],
        "tile: multiples must not be negative: [ 1 -2]",
    ),
    "split sizes": (
        lambda x: tuple(split(x, [1, 1], axis=1)), [F],
        "split: sizes [1, 1] do not add up to dimension 1 of size 3",
    ),
    "argmax of nothing": (
        lambda x: rt.argmax(x[:, :0], axis=1), [F], "argmax/argmin over an empty dimension",
    ),
    "integer mean of nothing": (
        lambda x: rt.reduce_mean(x[:0]), [K], "reduce_mean of an empty integer tensor",
    ),
    "clip bounds widening t": (
        lambda x, low: rt.clip_by_value(x[:1], low, 1.5), [F, P],
        "clip_by_value: the bounds (shapes (2, 3) and ()) must not change the shape of t ((1, 3))",
    ),
    "gather index out of range": (
        lambda x, i: rt.gather(x, i, axis=1), [F, np.array([0, 5, -1], np.int32)],
        "gather: index 5 is not in [0, 3)",
    ),
    "label out of range": (
        lambda x, labels: rt.nn.sparse_softmax_cross_entropy_with_logits(labels, x),
        [F, np.array([1, 7], np.int32)],
        "Received a label value of 7 which is outside the valid range of [0, 3)",
    ),
}  # fmt: skip


@pytest.mark.parametrize("name", sorted(FAILING), ids=_label)
def test_a_failing_op_fails_alike_in_both(name):
    """The op's checks are its own (written once): XLA's program fails as the kernel does."""
    fn, args, message = FAILING[name]
    graph = traced(fn, args)
    for run in (compile_function(graph), XlaProgram(graph)):
        with pytest.raises(rt.errors.InvalidArgumentError) as failure:
            run(*args)
        # TensorFlow's heading of a function's graph failing, then the op's own message.
        heading, blank, first = failure.value.message.splitlines()[:3]
        assert (heading, blank, first) == ("Graph execution error:", "", message)
