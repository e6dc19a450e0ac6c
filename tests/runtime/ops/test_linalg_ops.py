"""``eye`` and ``einsum`` against numpy, eagerly and in a graph (``check_op``)."""

from __future__ import annotations

import numpy as np
import pytest

import runtime as rt
from tests.runtime.ops.op_harness import build_graph, check_op

F32 = np.arange(6, dtype=np.float32).reshape(2, 3) / 2 - 1
I32 = np.arange(12, dtype=np.int32).reshape(3, 4) - 5


# --- eye ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "kwargs, expected",
    [
        ({"num_rows": 3}, np.eye(3, dtype=np.float32)),
        ({"num_rows": 2, "num_columns": 4}, np.eye(2, 4, dtype=np.float32)),
        ({"num_rows": 3, "num_columns": 1}, np.eye(3, 1, dtype=np.float32)),
        ({"num_rows": 0}, np.zeros((0, 0), np.float32)),
        ({"num_rows": 2, "dtype": rt.int32}, np.eye(2, dtype=np.int32)),
        ({"num_rows": 2, "dtype": rt.bool}, np.eye(2, dtype=bool)),
        (
            {"num_rows": 2, "batch_shape": [3]},
            np.broadcast_to(np.eye(2, dtype=np.float32), (3, 2, 2)),
        ),
        (
            {"num_rows": 1, "num_columns": 2, "batch_shape": (2, 1)},
            np.broadcast_to(np.eye(1, 2, dtype=np.float32), (2, 1, 1, 2)),
        ),
    ],
    ids=repr,
)
def test_eye_of_python_sizes(kwargs, expected):
    dtype = kwargs.get("dtype", rt.float32)
    check_op(lambda: rt.eye(**kwargs), [], expected, dtype)


def test_eye_of_tensor_sizes_has_unknown_static_dims():
    check_op(
        lambda rows, cols: rt.eye(rows, cols, batch_shape=[2]),
        [np.int32(2), np.int32(3)],
        np.broadcast_to(np.eye(2, 3, dtype=np.float32), (2, 2, 3)),
        rt.float32,
        static_shape=[2, None, None],
    )


def test_eye_errors():
    with pytest.raises(ValueError, match=">= 0"):
        rt.eye(-1)
    with pytest.raises(TypeError, match="float does not silently become int32"):
        rt.eye(2.5)
    with pytest.raises(TypeError, match="string"):
        rt.eye(2, dtype=rt.string)
    g, (rows,), out = build_graph(rt.eye, [np.int32(2)])
    with pytest.raises(rt.errors.InvalidArgumentError, match=">= 0"):
        rt.Session(g).run(out, {rows: -2})


# --- einsum ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "equation, operands",
    [
        ("ij,jk->ik", [F32, F32.T.copy()]),
        ("ij,jk", [I32[:2, :3], I32[:3, :]]),  # implicit output: i, k
        ("ij->ji", [I32]),
        ("ii->i", [I32[:3, :3]]),
        ("ii", [I32[:3, :3]]),  # trace
        ("i,i->", [F32[0], F32[1]]),
        ("i,j->ij", [F32[0], F32[1]]),
        ("ij->", [I32]),
        (
            "bij,bjk->bik",
            [np.arange(12, dtype=np.float32).reshape(2, 2, 3), np.ones((2, 3, 1), np.float32)],
        ),
        ("...ij,...jk->...ik", [np.arange(12, dtype=np.int32).reshape(2, 2, 3), I32[:, :2]]),
        ("i...->...", [I32]),
        (" ij , jk -> ik ", [F32, F32.T.copy()]),
    ],
    ids=repr,
)
def test_einsum_matches_numpy(equation, operands):
    expected = np.einsum(equation.replace(" ", ""), *operands)
    dtype = rt.as_dtype(operands[0].dtype)
    check_op(lambda *xs: rt.einsum(equation, *xs), operands, expected, dtype)


def test_einsum_with_unknown_dims_infers_what_it_can():
    a, b = F32, F32.T.copy()
    check_op(
        lambda x, y: rt.einsum("ij,jk->ik", x, y),
        [a, b],
        a @ b,
        rt.float32,
        shapes=[[None, 3], [3, None]],
        static_shape=[None, None],
    )
    check_op(
        lambda x, y: rt.einsum("ij,jk->ki", x, y),
        [a, b],
        (a @ b).T,
        rt.float32,
        shapes=[[2, None], [None, 2]],
        static_shape=[2, 2],
    )
    check_op(
        lambda x: rt.einsum("...j->...", x),
        [I32],
        I32.sum(axis=1),
        rt.int32,
        shapes=[None],
        static_shape=None,
    )


@pytest.mark.parametrize(
    "equation, shapes, error, match",
    [
        ("ij,jk->ik", [(2, 3), (2, 3)], ValueError, "label 'j'"),
        ("ij->ik", [(2, 3)], ValueError, "output label 'k'"),
        ("ij,jk->ik", [(2, 3)], ValueError, "2 input terms"),
        ("ijk->i", [(2, 3)], ValueError, "does not fit"),
        ("i2->i", [(2, 3)], ValueError, "unexpected"),
        ("...j->j", [(2, 3)], ValueError, "keep the ellipsis"),
    ],
)
def test_einsum_errors(equation, shapes, error, match):
    operands = [np.ones(s, np.float32) for s in shapes]
    with pytest.raises(error, match=match):
        rt.einsum(equation, *operands)


def test_einsum_rejects_mixed_dtypes_and_strings():
    with pytest.raises(TypeError, match="one dtype"):
        rt.einsum("i,i->i", rt.constant([1.0]), rt.constant([1]))
    with pytest.raises(TypeError, match="dtype string"):
        rt.einsum("i->i", rt.constant(["a"]))
