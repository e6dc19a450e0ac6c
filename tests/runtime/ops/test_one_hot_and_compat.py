"""``one_hot`` against a hand-built reference, ``rt.newaxis``, and the ``rt.compat.v1`` spellings."""

from __future__ import annotations

import numpy as np
import pytest

import runtime as rt
from tests.runtime.ops.op_harness import check_op


def _one_hot_reference(indices, depth, on, off, axis, dtype):
    """One row per index: ``on`` where the position equals it, ``off`` elsewhere."""
    indices = np.asarray(indices)
    out = np.full(indices.shape + (depth,), off, dtype)
    for where, index in np.ndenumerate(indices):
        if 0 <= index < depth:
            out[where + (index,)] = on
    return out if axis == -1 else np.moveaxis(out, -1, axis)


@pytest.mark.parametrize(
    "indices, depth, kwargs, dtype",
    [
        (np.int32([0, 2, 1]), 3, {}, rt.float32),
        (np.int32([0, 5, -1]), 3, {}, rt.float32),  # out of range: all off
        (np.int64([[0, 1], [2, 0]]), 4, {"on_value": 5, "off_value": -1}, rt.int32),
        (np.int32([1, 0]), 2, {"axis": 0, "dtype": rt.int64}, rt.int64),
        (np.int32([[1, 2]]), 3, {"axis": 1, "on_value": 2.5}, rt.float32),
        (np.int32(2), 4, {"dtype": rt.bool}, rt.bool),
        (np.uint8([3]), 4, {"off_value": 0.5}, rt.float32),
        (np.int32([0, 1]), 0, {}, rt.float32),
    ],
    ids=repr,
)
def test_one_hot(indices, depth, kwargs, dtype):
    np_dtype = dtype.as_numpy_dtype
    on = kwargs.get("on_value", 1)
    off = kwargs.get("off_value", 0)
    axis = kwargs.get("axis", -1)
    expected = _one_hot_reference(indices, depth, on, off, axis, np_dtype)
    check_op(lambda i: rt.one_hot(i, depth, **kwargs), [indices], expected, dtype)


def test_one_hot_with_a_depth_tensor_and_unknown_dims():
    indices = np.int32([2, 0])
    expected = _one_hot_reference(indices, 3, 1, 0, -1, np.float32)
    check_op(rt.one_hot, [indices, np.int32(3)], expected, rt.float32, static_shape=[2, None])
    check_op(
        lambda i: rt.one_hot(i, 3),
        [indices],
        expected,
        rt.float32,
        shapes=[[None]],
        static_shape=[None, 3],
    )


def test_one_hot_errors():
    with pytest.raises(TypeError, match="indices"):
        rt.one_hot([0.5], 2)
    with pytest.raises(TypeError, match="requested dtype int32 for a tensor of dtype float32"):
        rt.one_hot([0], 2, on_value=rt.constant(1), off_value=rt.constant(0.0))
    with pytest.raises(TypeError, match="requested dtype float32 for a tensor of dtype int32"):
        rt.one_hot([0], 2, on_value=rt.constant(1), dtype=rt.float32)
    with pytest.raises(ValueError, match="axis"):
        rt.one_hot([0], 2, axis=3)
    with pytest.raises(ValueError, match="depth"):
        rt.one_hot([0], -1)


def test_newaxis_adds_a_dimension_like_none():
    m = np.arange(6, dtype=np.int32).reshape(2, 3)
    check_op(lambda x: x[:, rt.newaxis], [m], m[:, np.newaxis], rt.int32)
    check_op(lambda x: x[rt.newaxis, ..., rt.newaxis], [m], m[None, ..., None], rt.int32)


def test_compat_v1_is_the_graph_api_under_its_tensorflow_1_names():
    g = rt.compat.v1.Graph()
    with g.as_default():
        assert rt.compat.v1.get_default_graph() is g
        x = rt.compat.v1.placeholder(rt.float32, [None], name="x")
        y = rt.reduce_sum(x * 2.0)
    with rt.compat.v1.Session(graph=g) as sess:
        assert sess.run(y, {x: [1.0, 2.5]}) == np.float32(7.0)
    assert rt.compat.v1.Graph is rt.Graph and rt.compat.v1.Session is rt.Session
