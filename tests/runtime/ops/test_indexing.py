"""Indexing and slicing tensors (``x[0]``, ``x[1:3]``, ``x[:, 0]``, ``x[..., None]`` ...).

Every key is checked against numpy's indexing of the same array, eagerly and in a
graph (placeholders + ``Session.run``), including the static shapes inferred for
placeholders with unknown dims, integer tensors used as indices and bounds inside
graphs, errors for bad indices, and ``len``/iteration.
"""

from __future__ import annotations

import numpy as np
import pytest

import runtime as rt
from tests.runtime.ops.op_harness import build_graph, check_op, run_graph, strings

M = np.arange(12, dtype=np.int32).reshape(3, 4)
T = np.arange(24, dtype=np.float32).reshape(2, 3, 4) - 10
V = np.array([10, 20, 30, 40, 50], np.int64)

KEYS_2D = [
    np.s_[0],
    np.s_[2],
    np.s_[-1],
    np.s_[-3],
    np.s_[1:3],
    np.s_[:, 0],
    np.s_[:, -1],
    np.s_[..., None],
    np.s_[None],
    np.s_[None, ...],
    np.s_[1, -1],
    np.s_[-2:],
    np.s_[:-1],
    np.s_[::2],
    np.s_[::-1],
    np.s_[:, ::-2],
    np.s_[:, 1:3],
    np.s_[1:100],
    np.s_[-100:2],
    np.s_[2:1],
    np.s_[:, None, 1],
    np.s_[..., -1],
    np.s_[0, 1:],
    np.s_[:, :],
    np.s_[...],
    np.s_[np.int64(1)],
    np.s_[np.int32(-1), ::3],
]


@pytest.mark.parametrize("key", KEYS_2D, ids=repr)
def test_indexing_a_matrix_matches_numpy(key):
    check_op(lambda x: x[key], [M], M[key], rt.int32)


@pytest.mark.parametrize(
    "key",
    [
        np.s_[0],
        np.s_[1, 2],
        np.s_[1, 2, 3],
        np.s_[-1, -1, -1],
        np.s_[..., 0],
        np.s_[0, ..., 1],
        np.s_[..., 1:3, None],
        np.s_[:, None, :, None],
        np.s_[:, 1],
        np.s_[:, :, ::-1],
        np.s_[1:, ..., :2],
        np.s_[None, 1, ..., None],
    ],
    ids=repr,
)
def test_indexing_a_3d_tensor_matches_numpy(key):
    check_op(lambda x: x[key], [T], T[key], rt.float32)


@pytest.mark.parametrize(
    "key", [np.s_[2], np.s_[-1], np.s_[1:4], np.s_[::-2], np.s_[None], np.s_[..., None]], ids=repr
)
def test_indexing_a_vector_matches_numpy(key):
    check_op(lambda x: x[key], [V], V[key], rt.int64)


def test_indexing_scalars_with_new_axes():
    check_op(lambda x: x[None], [np.float32(2)], np.array([2], np.float32), rt.float32)
    check_op(lambda x: x[..., None], [np.float32(2)], np.array([2], np.float32), rt.float32)
    check_op(lambda x: x[...], [np.int32(7)], np.int32(7), rt.int32)


def test_indexing_strings_and_bools():
    words = strings(["a", "bc", "d"])
    check_op(lambda x: x[1], [words], b"bc", rt.string)
    check_op(lambda x: x[::-1], [words], strings(["d", "bc", "a"]), rt.string)
    flags = np.array([[True, False], [False, True]])
    check_op(lambda x: x[:, 1], [flags], flags[:, 1], rt.bool)


def test_a_string_element_stays_a_string_tensor_that_string_ops_take():
    # numpy gives an object array's element as bare bytes; as a tensor's value it must stay a
    # 0-d array, so joining, measuring and printing it work in a graph as eagerly.
    words = strings(["a", "bc", "d"])
    check_op(lambda x: rt.strings.join([x[0], x[1]], separator="-"), [words], b"a-bc", rt.string)
    check_op(lambda x: rt.strings.length(x[1]), [words], np.int32(2), rt.int32)


def test_chained_indexing():
    check_op(lambda x: x[1][2], [M], M[1][2], rt.int32)
    check_op(lambda x: x[:, 1:][0][::-1], [M], M[:, 1:][0][::-1], rt.int32)


@pytest.mark.parametrize(
    "key, shape, static",
    [
        (np.s_[0], [None, 4], [4]),
        (np.s_[-1], [None, 4], [4]),
        (np.s_[1:3], [None, 4], [None, 4]),
        (np.s_[:, 0], [None, 4], [None]),
        (np.s_[..., None], [None, 4], [None, 4, 1]),
        (np.s_[None], [None, 4], [1, None, 4]),
        (np.s_[:, 1:3], [None, 4], [None, 2]),
        (np.s_[:, ::-1], [None, 4], [None, 4]),
        (np.s_[..., -1], [None, 4], [None]),
        (np.s_[0, 1:], [None, 4], [3]),
        (np.s_[:, 0], [3, None], [3]),
        (np.s_[1:3], [3, None], [2, None]),
        (np.s_[1, 2], [None, None], []),
        (np.s_[:, None, 1], [None, None], [None, 1]),
        (np.s_[0], None, None),
        (np.s_[..., None], None, None),
    ],
    ids=repr,
)
def test_static_shapes_with_unknown_dims(key, shape, static):
    check_op(lambda x: x[key], [M], M[key], rt.int32, shapes=[shape], static_shape=static)


# --- tensors as indices -----------------------------------------------------------------------


@pytest.mark.parametrize("i", [0, 2, -1, -3])
def test_a_scalar_tensor_index(i):
    idx = np.int32(i)
    check_op(lambda x, j: x[j], [M, idx], M[i], rt.int32, static_shape=[4])
    check_op(lambda x, j: x[:, j], [M, idx], M[:, i], rt.int32, static_shape=[3])
    check_op(lambda x, j: x[j], [M, idx], M[i], rt.int32, shapes=[[None, 4], []], static_shape=[4])
    check_op(
        lambda x, j: x[j, ..., None],
        [T, idx % 2],
        T[i % 2, ..., None],
        rt.float32,
        static_shape=[3, 4, 1],
    )


def test_two_tensor_indices_give_a_scalar():
    check_op(
        lambda x, i, j: x[i, j], [M, np.int32(2), np.int64(-1)], M[2, -1], rt.int32, static_shape=[]
    )


@pytest.mark.parametrize("start, stop", [(1, 3), (0, 1), (-2, 4), (2, 2), (-100, 100)])
def test_tensor_slice_bounds(start, stop):
    args = [M, np.int32(start), np.int32(stop)]
    check_op(lambda x, a, b: x[a:b], args, M[start:stop], rt.int32, static_shape=[None, 4])
    check_op(lambda x, a, b: x[:, a:b], args, M[:, start:stop], rt.int32, static_shape=[3, None])
    check_op(lambda x, a, b: x[a:], args, M[start:], rt.int32, static_shape=[None, 4])
    check_op(lambda x, a, b: x[:b], args, M[:stop], rt.int32, static_shape=[None, 4])


@pytest.mark.parametrize("step", [1, 2, -1, -2])
def test_tensor_slice_step(step):
    check_op(lambda x, s: x[::s], [V, np.int32(step)], V[::step], rt.int64, static_shape=[None])


def test_indices_computed_in_the_graph():
    check_op(
        lambda x: x[rt.shape(x)[0] - 1], [M], M[-1], rt.int32, shapes=[[None, 4]], static_shape=[4]
    )
    check_op(
        lambda x: x[1 : rt.shape(x)[0]],
        [M],
        M[1:],
        rt.int32,
        shapes=[[None, 4]],
        static_shape=[None, 4],
    )
    check_op(lambda x: x[rt.size(x) - 1], [V], V[-1], rt.int64, static_shape=[])


def test_an_eager_tensor_as_an_index():
    x = rt.constant(M)
    assert x[rt.constant(1)].numpy().tolist() == M[1].tolist()
    assert (
        x[rt.constant(1) : rt.constant(3), rt.constant(-1)].numpy().tolist() == M[1:3, -1].tolist()
    )


# --- errors -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "key, message",
    [
        (np.s_[3], "index 3 is out of bounds for dimension 0 with size 3"),
        (np.s_[-4], "index -4 is out of bounds for dimension 0 with size 3"),
        (np.s_[0, 4], "index 4 is out of bounds for dimension 1 with size 4"),
        (np.s_[0, 0, 0], "Too many indices for a tensor of rank 2"),
    ],
    ids=repr,
)
def test_static_out_of_range_indices_are_errors(key, message):
    with pytest.raises(IndexError, match=message):
        rt.constant(M)[key]
    with pytest.raises(IndexError, match=message):
        build_graph(lambda x: x[key], [M])


@pytest.mark.parametrize("i", [3, -4])
def test_out_of_range_tensor_index_fails_when_run(i):
    with pytest.raises(rt.errors.InvalidArgumentError):
        rt.constant(M)[rt.constant(i)]
    with pytest.raises(rt.errors.InvalidArgumentError):
        run_graph(lambda x, j: x[j], [M, np.int32(i)])
    with pytest.raises(rt.errors.InvalidArgumentError):
        run_graph(lambda x: x[i], [M], shapes=[[None, 4]])


@pytest.mark.parametrize(
    "key",
    [1.0, np.s_[0.5:2], rt.constant(1.0), rt.constant([0, 1]), "a", np.s_[[0, 1]]],
    ids=["float", "float-bound", "float-tensor", "vector-tensor", "str", "list"],
)
def test_invalid_index_types_raise_type_error(key):
    with pytest.raises(TypeError):
        rt.constant(M)[key]


def test_other_invalid_keys():
    with pytest.raises(ValueError, match="slice step cannot be zero"):
        rt.constant(M)[::0]
    with pytest.raises(IndexError, match="only have a single ellipsis"):
        rt.constant(T)[..., 0, ...]
    with pytest.raises(IndexError, match="Too many indices for a tensor of rank 0"):
        rt.constant(3)[0]


# --- len and iteration ------------------------------------------------------------------------


def test_len_and_iteration_of_eager_tensors():
    x = rt.constant(M)
    assert len(x) == 3
    rows = list(x)
    assert len(rows) == 3
    for row, expected in zip(rows, M):
        assert isinstance(row, rt.Tensor)
        assert row.dtype is rt.int32
        assert row.numpy().tolist() == expected.tolist()
    with pytest.raises(TypeError):
        len(rt.constant(1))
    with pytest.raises(TypeError):
        iter(rt.constant(1))


def test_len_and_iteration_of_symbolic_tensors():
    g, (p,), rows = build_graph(lambda x: list(x), [M], shapes=[[3, None]])
    assert len(p) == 3
    assert len(rows) == 3
    assert all(r.dtype is rt.int32 and r.shape.as_list() == [None] for r in rows)
    values = rt.Session(g).run(rows, feed_dict={p: M})
    assert [v.tolist() for v in values] == M.tolist()
    g2, (q,), _ = build_graph(lambda x: x, [M], shapes=[[None, 4]])
    with pytest.raises(TypeError):
        len(q)
    with pytest.raises(TypeError):
        iter(q)
