"""``clip_by_value`` and ``cumsum`` against numpy, eagerly and in a graph (``check_op``)."""

from __future__ import annotations

import numpy as np
import pytest

import runtime as rt
from tests.runtime.ops.op_harness import build_graph, check_op

F32 = np.array([[-2.5, -1.0, 0.0], [0.5, 1.0, 3.0]], np.float32)
I32 = np.array([[-3, -1, 0], [1, 2, 7]], np.int32)


# --- clip_by_value -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "value, low, high",
    [
        (F32, -1.0, 1.0),
        (I32, 0, 2),
        (I32, 5, 1),  # low above high: every value becomes high, as TensorFlow's min(max(...))
        (F32, np.float32([-1, 0, -2]), np.float32(2)),
        (I32, np.int32([[0], [1]]), np.int32([[1], [3]])),
        (np.float64(7.5), 0.0, 5.0),
    ],
    ids=repr,
)
def test_clip_by_value(value, low, high):
    expected = np.minimum(np.maximum(value, low), high)
    dtype = rt.as_dtype(np.asarray(value).dtype)
    check_op(lambda t: rt.clip_by_value(t, low, high), [value], expected, dtype)


def test_clip_by_value_with_tensor_bounds_and_unknown_dims():
    low, high = np.float32([-1, 0, -2]), np.float32(0.5)
    check_op(
        rt.clip_by_value,
        [F32, low, high],
        np.clip(F32, low, high),
        rt.float32,
        shapes=[[None, 3], [3], []],
        static_shape=[None, 3],
    )


def test_clip_by_value_errors():
    with pytest.raises(TypeError, match="clip_value_min"):
        rt.clip_by_value(rt.constant([1, 2]), 0.5, 3)
    with pytest.raises(TypeError, match="clip_value_max"):
        rt.clip_by_value(rt.constant([1.0]), 0.0, rt.constant(1.0, rt.float64))
    with pytest.raises(ValueError, match="must not change the shape"):
        rt.clip_by_value(rt.constant(1.0), [0.0, 1.0], 2.0)
    with pytest.raises(TypeError, match="dtype string"):
        rt.clip_by_value(rt.constant(["a"]), "a", "b")
    g, (t, low), out = build_graph(
        lambda x, lo: rt.clip_by_value(x, lo, 5.0), [F32[0], F32[0]], [[None], [None]]
    )
    with pytest.raises(rt.errors.InvalidArgumentError, match="must not change the shape"):
        rt.Session(g).run(out, {t: np.float32([1.0]), low: np.float32([0.0, 1.0])})


# --- cumsum ------------------------------------------------------------------------------------


def _cumsum_reference(x, axis, exclusive, reverse):
    """Running sums written out one element at a time."""
    x = np.moveaxis(np.asarray(x), axis, 0)
    out = np.zeros_like(x)
    order = range(len(x) - 1, -1, -1) if reverse else range(len(x))
    total = np.zeros_like(x[0]) if len(x) else None
    for i in order:
        if exclusive:
            out[i] = total
            total = total + x[i]
        else:
            total = total + x[i]
            out[i] = total
    return np.moveaxis(out, 0, axis)


@pytest.mark.parametrize("exclusive", [False, True])
@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("axis", [0, 1, -1])
@pytest.mark.parametrize("value", [I32, F32], ids=["int32", "float32"])
def test_cumsum(value, axis, exclusive, reverse):
    expected = _cumsum_reference(value, axis, exclusive, reverse)
    check_op(
        lambda x: rt.cumsum(x, axis=axis, exclusive=exclusive, reverse=reverse),
        [value],
        expected,
        rt.as_dtype(value.dtype),
    )


def test_cumsum_of_a_vector_unknown_dims_and_an_empty_axis():
    check_op(rt.cumsum, [np.int64([1, 2, 3])], np.int64([1, 3, 6]), rt.int64)
    check_op(
        lambda x: rt.cumsum(x, axis=1),
        [F32],
        np.cumsum(F32, axis=1),
        rt.float32,
        shapes=[[None, None]],
        static_shape=[None, None],
    )
    empty = np.zeros((0, 2), np.int32)
    check_op(lambda x: rt.cumsum(x, exclusive=True), [empty], empty, rt.int32)


def test_cumsum_of_int32_keeps_int32():
    assert rt.cumsum(rt.constant([2**30, 2**30 - 1])).dtype is rt.int32


def test_cumsum_errors():
    with pytest.raises(ValueError, match="rank >= 1"):
        rt.cumsum(3)
    with pytest.raises(ValueError, match="out of range"):
        rt.cumsum([1, 2], axis=1)
    with pytest.raises(TypeError, match="dtype bool"):
        rt.cumsum([True, False])
