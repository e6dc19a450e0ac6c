"""``pad`` (constant, reflect, symmetric) and ``tile`` against numpy, eagerly and in a graph."""

from __future__ import annotations

import numpy as np
import pytest

import runtime as rt
from tests.runtime.ops.op_harness import build_graph, check_op, strings

M = np.arange(1, 7, dtype=np.int32).reshape(2, 3)
V = np.array([1.5, -2.0, 3.0], np.float32)


@pytest.mark.parametrize(
    "value, paddings",
    [
        (M, [[1, 0], [0, 2]]),
        (M, [[0, 0], [0, 0]]),
        (V, [[2, 3]]),
        (np.arange(24, dtype=np.int64).reshape(2, 3, 4), [[1, 1], [0, 1], [2, 0]]),
        (np.zeros((0, 2), np.float32), [[1, 1], [0, 0]]),
    ],
    ids=repr,
)
def test_pad_with_zeros(value, paddings):
    expected = np.pad(value, paddings)
    dtype = rt.as_dtype(value.dtype)
    check_op(lambda x: rt.pad(x, paddings), [value], expected, dtype)


def test_pad_with_a_constant_and_with_paddings_as_a_tensor():
    check_op(
        lambda x: rt.pad(x, [[1, 1], [1, 1]], constant_values=-7),
        [M],
        np.pad(M, 1, constant_values=-7),
        rt.int32,
    )
    paddings = np.array([[0, 1], [2, 0]], np.int32)
    check_op(
        lambda x, p: rt.pad(x, p, constant_values=9),
        [M, paddings],
        np.pad(M, paddings, constant_values=9),
        rt.int32,
        static_shape=[None, None],  # paddings a placeholder: their values are not known
    )


@pytest.mark.parametrize("mode", ["REFLECT", "SYMMETRIC", "reflect", "Symmetric"])
@pytest.mark.parametrize("paddings", [[[1, 1], [2, 0]], [[0, 1], [1, 2]], [[0, 0], [0, 0]]])
def test_mirror_pad(mode, paddings):
    expected = np.pad(M, paddings, mode=mode.lower())
    check_op(lambda x: rt.pad(x, paddings, mode=mode), [M], expected, rt.int32)


def test_reflect_leaves_the_edge_out_and_symmetric_keeps_it():
    row = np.array([1, 2, 3], np.int32)
    assert rt.pad(row, [[2, 2]], mode="REFLECT").numpy().tolist() == [3, 2, 1, 2, 3, 2, 1]
    assert rt.pad(row, [[2, 2]], mode="SYMMETRIC").numpy().tolist() == [2, 1, 1, 2, 3, 3, 2]


def test_pad_of_unknown_dims():
    check_op(
        lambda x: rt.pad(x, [[1, 2], [0, 1]]),
        [M],
        np.pad(M, [[1, 2], [0, 1]]),
        rt.int32,
        shapes=[[None, 3]],
        static_shape=[None, 4],
    )


def test_pad_of_bools_pads_with_false():
    flags = np.array([True, True])
    check_op(lambda x: rt.pad(x, [[1, 1]]), [flags], np.array([False, True, True, False]), rt.bool)


def test_pad_of_strings_pads_with_empty_strings():
    words = strings(["a", "b"])
    check_op(lambda x: rt.pad(x, [[1, 0]]), [words], strings(["", "a", "b"]), rt.string)
    check_op(
        lambda x: rt.pad(x, [[0, 1]], constant_values="z"),
        [words],
        strings(["a", "b", "z"]),
        rt.string,
    )


@pytest.mark.parametrize(
    "call, error, match",
    [
        (lambda: rt.pad(M, [[1, 1]]), ValueError, r"\[2, 2\]"),
        (lambda: rt.pad(M, [1, 1]), ValueError, r"\[rank, 2\]"),
        (lambda: rt.pad(M, [[-1, 0], [0, 0]]), ValueError, "negative"),
        (lambda: rt.pad(M, [[0, 0], [0, 0]], mode="WRAP"), ValueError, "REFLECT"),
        (lambda: rt.pad(M, [[0, 0], [0, 0]], constant_values=0.5), TypeError, "constant_values"),
        (lambda: rt.pad(M, [[0.5, 0], [0, 0]]), TypeError, "integers"),
    ],
)
def test_pad_errors(call, error, match):
    with pytest.raises(error, match=match):
        call()


@pytest.mark.parametrize("mode, size", [("REFLECT", 3), ("SYMMETRIC", 4)])
def test_mirror_padding_past_the_tensor_is_an_error_when_it_runs(mode, size):
    with pytest.raises(rt.errors.InvalidArgumentError, match="at most"):
        rt.pad(M, [[0, 0], [size, 0]], mode=mode)
    g, (x,), out = build_graph(
        lambda t: rt.pad(t, [[0, 0], [size, 0]], mode=mode), [M], [[2, None]]
    )
    with pytest.raises(rt.errors.InvalidArgumentError, match="at most"):
        rt.Session(g).run(out, {x: M})


@pytest.mark.parametrize(
    "value, multiples",
    [
        (M, [1, 1]),
        (M, [2, 3]),
        (M, [0, 2]),
        (V, [4]),
        (np.array(5, np.int32), []),
        (strings([["a", "b"]]), [2, 1]),
    ],
    ids=repr,
)
def test_tile(value, multiples):
    expected = np.tile(value, multiples) if multiples else value
    dtype = rt.string if value.dtype == object else rt.as_dtype(value.dtype)
    check_op(lambda x: rt.tile(x, multiples), [value], expected, dtype)


def test_tile_with_unknown_dims_and_multiples_as_a_tensor():
    check_op(
        lambda x: rt.tile(x, [2, 1]),
        [M],
        np.tile(M, [2, 1]),
        rt.int32,
        shapes=[[None, 3]],
        static_shape=[None, 3],
    )
    check_op(
        rt.tile,
        [M, np.array([1, 2], np.int32)],
        np.tile(M, [1, 2]),
        rt.int32,
        static_shape=[None, None],
    )


def test_tile_errors():
    with pytest.raises(ValueError, match="one entry per dimension"):
        rt.tile(M, [2])
    with pytest.raises(ValueError, match="negative"):
        rt.tile(M, [1, -1])
    with pytest.raises(TypeError, match="1-D integer"):
        rt.tile(M, [[1, 1]])
    g, (x, m), out = build_graph(rt.tile, [M, np.array([1, 1], np.int32)], [[2, 3], [None]])
    with pytest.raises(rt.errors.InvalidArgumentError, match="3 multiples"):
        rt.Session(g).run(out, {x: M, m: np.array([1, 1, 1], np.int32)})
