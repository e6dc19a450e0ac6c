"""The ONNX forms of eye, einsum, pad, tile, one_hot, cumsum and clip_by_value compute what the
runtime does: each is exported from a small function and run by onnxruntime against it."""

from __future__ import annotations

import numpy as np
import pytest

import runtime as rt
from runtime.export.onnx_array_ops import ARRAY_OPS_LOWERINGS
from runtime.ops import clip_ops, indexing_ops, linalg_ops, padding_ops, scan_ops
from tests.runtime.export.onnx_harness import check_export, spec

F32, F64, F16 = rt.float32, rt.float64, rt.float16
I32, I64, I8, I16, U8 = rt.int32, rt.int64, rt.int8, rt.int16, rt.uint8
NUMBERS = [F32, F64, F16, I32, I64, I8, I16, U8]
COVERED = set()


def _args(values, signature):
    return [
        tuple(np.asarray(v).astype(s.dtype.as_numpy_dtype) for v, s in zip(call, signature))
        for call in values
    ]


def _check(opdefs, fn, signature, calls, tmp_path):
    COVERED.update(opdefs)
    check_export(fn, signature, _args(calls, signature), tmp_path / "model.onnx")


def test_eye(tmp_path):
    def eyes(n):
        return (
            rt.eye(3),
            rt.eye(n, 4, dtype=rt.int32),
            rt.eye(2, batch_shape=[2, 1], dtype=rt.bool),
            rt.eye(n, dtype=rt.float64),
        )

    _check([linalg_ops.EYE], eyes, [spec([], I32)], [(2,), (0,), (5,)], tmp_path)


@pytest.mark.parametrize("dtype", [F32, F64, F16, I32, I64, I8])
def test_einsum(dtype, tmp_path):
    def products(a, b):
        return (
            rt.einsum("ij,jk->ik", a, b),
            rt.einsum("ij->ji", a),
            rt.einsum("ij,ij->i", a, rt.transpose(b)),
            rt.einsum("ij", a),
            rt.einsum("...j,jk->...k", a, b),
        )

    signature = [spec([None, 3], dtype), spec([3, None], dtype)]
    a = np.arange(6).reshape(2, 3) - 2
    b = np.arange(6).reshape(3, 2) % 3
    _check([linalg_ops.EINSUM], products, signature, [(a, b), (a[:1], b[:, :2])], tmp_path)


@pytest.mark.parametrize("dtype", NUMBERS + [rt.bool])
def test_pad_with_a_constant(dtype, tmp_path):
    def padded(x):
        fill = True if dtype is rt.bool else 3
        return rt.pad(x, [[1, 0], [2, 1]]), rt.pad(x, [[0, 2], [0, 0]], constant_values=fill)

    x = np.arange(6).reshape(2, 3) % 2
    _check([padding_ops.PAD], padded, [spec([None, 3], dtype)], [(x,), (x[:1],)], tmp_path)


def test_pad_with_paddings_from_a_tensor(tmp_path):
    def padded(x, p):
        return rt.pad(x, p, constant_values=-1.0), rt.pad(x, p, mode="REFLECT")

    signature = [spec([None, None], F32), spec([2, 2], I32)]
    x = np.arange(12).reshape(3, 4)
    calls = [(x, [[1, 2], [0, 3]]), (x, [[0, 0], [2, 1]])]
    _check([padding_ops.PAD, padding_ops.MIRROR_PAD], padded, signature, calls, tmp_path)


@pytest.mark.parametrize("dtype", [F32, I32, I64, U8, F16])
def test_mirror_pad(dtype, tmp_path):
    def mirrored(x):
        return (
            rt.pad(x, [[1, 1], [2, 0]], mode="REFLECT"),
            rt.pad(x, [[1, 2], [0, 3]], mode="SYMMETRIC"),
            rt.pad(x, [[0, 0], [3, 3]], mode="symmetric"),
        )

    x = np.arange(12).reshape(3, 4)
    _check([padding_ops.MIRROR_PAD], mirrored, [spec([None, 4], dtype)], [(x,), (x[:2],)], tmp_path)


def test_a_symmetric_pad_with_paddings_only_known_when_run_is_not_exported(tmp_path):
    def mirrored(x, p):
        return rt.pad(x, p, mode="SYMMETRIC")

    with pytest.raises(rt.errors.UnimplementedError, match="known when exporting"):
        _check([], mirrored, [spec([3], F32), spec([1, 2], I32)], [], tmp_path)


@pytest.mark.parametrize("dtype", [F32, I32, I64, rt.bool, rt.string])
def test_tile(dtype, tmp_path):
    def tiled(x, m):
        return rt.tile(x, [2, 1]), rt.tile(x, m)

    signature = [spec([None, 2], dtype), spec([2], I32)]
    x = np.array([["a", "b"], ["c", "d"]], dtype=object) if dtype is rt.string else np.eye(2)
    calls = [(x, [1, 3]), (x[:1], [0, 2])]
    if dtype is rt.string:
        from tests.runtime.ops.op_harness import strings

        calls = [(strings(x), [1, 3])]
        COVERED.add(padding_ops.TILE)
        check_export(tiled, signature, calls, tmp_path / "model.onnx")
        return
    _check([padding_ops.TILE], tiled, signature, calls, tmp_path)


@pytest.mark.parametrize("dtype", [F32, F64, I32, I64, U8, rt.bool])
def test_one_hot(dtype, tmp_path):
    def hot(i, depth):
        return (
            rt.one_hot(i, 4, dtype=dtype),
            rt.one_hot(
                i,
                depth,
                on_value=rt.cast(5, dtype) if dtype is not rt.bool else True,
                off_value=rt.cast(1, dtype) if dtype is not rt.bool else False,
                axis=0,
            ),
            rt.one_hot(rt.reshape(i, [-1, 1]), 3, axis=1, dtype=dtype),
        )

    signature = [spec([None], I32), spec([], I32)]
    calls = [([0, 3, -1, 7, 2], 3), ([], 2), ([1], 0)]
    _check([indexing_ops.ONE_HOT], hot, signature, calls, tmp_path)


@pytest.mark.parametrize("dtype", [F32, F64, F16, I32, I64, I16, U8])
def test_cumsum(dtype, tmp_path):
    def sums(x):
        return (
            rt.cumsum(x),
            rt.cumsum(x, axis=1, exclusive=True),
            rt.cumsum(x, axis=-1, reverse=True),
            rt.cumsum(x, axis=0, exclusive=True, reverse=True),
        )

    x = np.arange(12).reshape(3, 4) % 5
    _check([scan_ops.CUMSUM], sums, [spec([None, 4], dtype)], [(x,), (x[:1],)], tmp_path)


@pytest.mark.parametrize("dtype", [F32, F64, F16, I32, I64, I8, U8])
def test_clip_by_value(dtype, tmp_path):
    def clipped(x, low):
        return rt.clip_by_value(x, 2, 6), rt.clip_by_value(x, low, rt.cast(5, dtype))

    signature = [spec([None, 3], dtype), spec([3], dtype)]
    x = np.arange(12).reshape(4, 3)
    _check([clip_ops.CLIP_BY_VALUE], clipped, signature, [(x, [1, 4, 9])], tmp_path)


def test_every_lowering_here_is_tested():
    # runs last in this file: the tests above record what they cover
    assert set(ARRAY_OPS_LOWERINGS) <= COVERED, set(ARRAY_OPS_LOWERINGS) - COVERED
