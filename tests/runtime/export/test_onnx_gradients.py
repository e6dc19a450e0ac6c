"""Functions that compute gradients export to ONNX and run in onnxruntime as in the runtime:
each op gradients are made of, then whole training-step gradients."""

from __future__ import annotations

import numpy as np
import pytest

import autograph as ag
import runtime as rt
from runtime.export.onnx_gradients import GRADIENT_LOWERINGS
from runtime.ops import array_ops, broadcast_ops, indexing_ops, math_ops, nn_ops
from tests.extras import import_extra
from tests.runtime.export.onnx_harness import check_export, spec

import_extra("onnxruntime")

COVERED = set()


def _ops(fn, *rows):
    COVERED.update(rows)
    return fn


def add_n(x, y):
    return math_ops.add_n([x, y, x])


def broadcast_and_sum(x):
    wide = broadcast_ops.broadcast_to(x, [4, 3])
    return wide, broadcast_ops.sum_to_shape(wide, [1, 3]), broadcast_ops.sum_to_shape(wide, [3])


def split_and_stop(x):
    a, b = array_ops.split(x, [1, 2], 0)
    return a, rt.stop_gradient(b) * 2.0


def segment_sum(x, ids):
    return indexing_ops.unsorted_segment_sum(x, ids, 4)


def relu_grad(g, y):
    return nn_ops.relu_grad(g, y)


CASES = [
    (_ops(add_n, math_ops.ADD_N), [spec([None]), spec([None])], ([1.0, 2.0], [3.0, 4.0])),
    (
        _ops(broadcast_and_sum, broadcast_ops.BROADCAST_TO, broadcast_ops.SUM_TO_SHAPE),
        [spec([3])],
        ([1.0, -2.0, 3.0],),
    ),
    (
        _ops(split_and_stop, array_ops.SPLIT, array_ops.STOP_GRADIENT),
        [spec([3])],
        ([1.0, 2.0, 3.0],),
    ),
    (
        _ops(segment_sum, indexing_ops.UNSORTED_SEGMENT_SUM),
        [spec([None, 2]), spec([None], rt.int32)],
        ([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], [3, 0, 3]),
    ),
    (
        _ops(relu_grad, nn_ops.RELU_GRAD),
        [spec([None]), spec([None])],
        ([1.0, 2.0, 3.0], [-1.0, 0.0, 2.0]),
    ),
]


@pytest.mark.parametrize(("fn", "signature", "args"), CASES, ids=[c[0].__name__ for c in CASES])
def test_gradient_op_exports(fn, signature, args, tmp_path):
    values = [np.asarray(a, s.dtype.as_numpy_dtype) for a, s in zip(args, signature)]
    check_export(fn, signature, [values], tmp_path / "model.onnx")


def test_every_gradient_lowering_has_a_case():
    assert set(GRADIENT_LOWERINGS) <= COVERED


def test_a_training_step_gradient_exports(tmp_path):
    w1 = rt.Variable(np.linspace(-1.0, 1.0, 12).reshape(4, 3).astype(np.float32))
    b1 = rt.Variable(np.zeros(3, np.float32))
    w2 = rt.Variable(np.linspace(0.5, -0.5, 6).reshape(3, 2).astype(np.float32))

    @ag.function
    def gradients(x, y, ids):
        with rt.GradientTape() as tape:
            h = rt.nn.relu(rt.matmul(x, w1) + b1)
            out = rt.nn.softmax(rt.matmul(rt.gather(h, ids), w2))
            loss = rt.reduce_mean(rt.square(out - y)) + rt.reduce_sum(rt.abs(w2)) * 0.01
        return tape.gradient(loss, [w1, b1, w2])

    rng = np.random.default_rng(0)
    x = rng.standard_normal((5, 4)).astype(np.float32)
    y = rng.uniform(size=(3, 2)).astype(np.float32)
    ids = np.array([4, 0, 4], np.int32)
    signature = [spec([None, 4]), spec([None, 2]), spec([None], rt.int32)]
    check_export(gradients, signature, [(x, y, ids)], tmp_path / "model.onnx")


def test_a_differentiated_loop_does_not_export(tmp_path):
    @ag.function
    def loop_gradient(x):
        with rt.GradientTape() as tape:
            tape.watch(x)
            y = x
            for _ in rt.range(3):
                y = y * x
        return tape.gradient(y, x)

    with pytest.raises(rt.errors.UnimplementedError, match="stacks values"):
        rt.onnx.export(loop_gradient.get_concrete_function(spec([])), str(tmp_path / "m.onnx"))


def _gradient_of(f):
    def gradient(*xs):
        with rt.GradientTape() as tape:
            tape.watch(xs)
            y = f(*xs)
        return tape.gradient(y, list(xs))

    gradient.__name__ = f.__name__
    return gradient


@_gradient_of
def einsums(square, batch, y):
    diagonal = rt.einsum("ii->i", square) * rt.einsum("ij->j", y)
    return rt.reduce_sum(diagonal) + rt.reduce_sum(rt.einsum("...ij,jk->...ik", batch, y))


@_gradient_of
def pads_and_tiles(x, y):
    framed = rt.pad(x, [[1, 0], [0, 2]], constant_values=-1.0)
    mirrored = rt.pad(x, [[1, 1], [2, 0]], mode="REFLECT") * 3.0
    return rt.reduce_sum(framed) + rt.reduce_sum(mirrored) + rt.reduce_sum(rt.tile(y, [2, 2]) ** 2)


@_gradient_of
def clipped_sums(x, low, on):
    running = rt.cumsum(x, axis=1, exclusive=True, reverse=True)
    return rt.clip_by_value(running, low, 0.5) * rt.one_hot([1, 0], 3, on_value=on)


def test_the_gradients_of_the_array_ops_export(tmp_path):
    x = np.array([[0.5, -1.0, 2.0], [1.5, 0.25, -0.5], [1.0, 2.0, 3.0]], np.float32)
    y = np.array([[0.75, -2.0, 1.0], [0.5, 1.0, -1.5], [2.0, 0.0, 1.0]], np.float32)
    signature = [spec([3, 3]), spec([2, 3, 3]), spec([3, 3])]
    check_export(einsums, signature, [(x, np.stack([x, y]), y)], tmp_path / "e.onnx")
    check_export(pads_and_tiles, [spec([3, 3]), spec([None, 3])], [(x, y)], tmp_path / "p.onnx")
    signature = [spec([2, 3]), spec([3]), spec([])]
    low, on = np.array([-0.5, 0.0, -2.0], np.float32), np.float32(1.5)
    check_export(clipped_sums, signature, [(x[:2], low, on)], tmp_path / "c.onnx")
