"""The ONNX form of the ops that make, pad and tile arrays (eye, one_hot, pad, mirror_pad,
tile), contract them (einsum), sum them along an axis (cumsum) and clip them (clip_by_value),
keyed by their ``OpDef`` rows (merged into ``onnx_ops.LOWERINGS``).

Where ONNX's operator means something else than TensorFlow's, the rule keeps TensorFlow's:
``OneHot`` counts negative indices from the end (TensorFlow gives them no hot entry), so
one_hot is built from ``Equal`` and ``Where``; ONNX's ``Pad`` has no symmetric mode, so a
symmetric pad is made of reversed slices.
"""

from __future__ import annotations

import numpy as np

from runtime.core import dtypes
from runtime.export import onnx_types as types
from runtime.export.onnx_types import work_dtype
from runtime.ops import clip_ops, indexing_ops, linalg_ops, padding_ops, scan_ops
from runtime.ops.constant_ops import constant_value

_EINSUM = frozenset({dtypes.float32, dtypes.float64, dtypes.int32, dtypes.int64})
_CUMSUM = _EINSUM
_PAD = types.MIN_MAX | {dtypes.bool_}
_FAR = np.iinfo(np.int64).min  # a slice end before the start of any axis


def _in(b, name, dtype, supported):
    """``name`` as a type onnxruntime computes ``supported`` ops in, and that type."""
    work = work_dtype(dtype, supported)
    return (name if work is dtype else b.cast(name, work)), work


def _back(b, name, work, dtype):
    return name if work is dtype else b.cast(name, dtype)


def _scalar_int64(b, name, t):
    return b.node1("Reshape", [b.as_int64(name, t), b.int64s([1])])


def _eye(b, op, inputs):
    rows, columns = (_scalar_int64(b, name, t) for name, t in zip(inputs, op.inputs))
    dims = b.node1("Concat", [rows, columns], axis=0)
    zeros = b.node1("ConstantOfShape", [dims])  # float32 zeros of the matrix's shape
    eye = b.node1("EyeLike", [zeros])
    batch = op.attrs["batch_shape"]
    if batch:
        eye = b.node1("Expand", [eye, b.node1("Concat", [b.int64s(batch), dims], axis=0)])
    dtype = op.attrs["dtype"]
    return [eye if dtype is dtypes.float32 else b.cast(eye, dtype)]


def _einsum(b, op, inputs):
    dtype = op.inputs[0].dtype
    work = work_dtype(dtype, _EINSUM)
    operands = [x if work is dtype else b.cast(x, work) for x in inputs]
    out = b.node1("Einsum", operands, equation=op.attrs["equation"].replace(" ", ""))
    return [_back(b, out, work, dtype)]


def _pad_amounts(b, name, t):
    """TensorFlow's [rank, 2] paddings as ONNX's pads: all the befores, then all the afters."""
    amounts = b.node1("Transpose", [b.as_int64(name, t)], perm=[1, 0])
    return b.node1("Reshape", [amounts, b.int64s([-1])])


def _pad(b, op, inputs):
    x, paddings, value = inputs
    dtype = op.inputs[0].dtype
    if dtype is dtypes.string:
        raise b.unsupported("onnxruntime's Pad takes no strings")
    x, work = _in(b, x, dtype, _PAD)
    value = value if work is dtype else b.cast(value, work)
    padded = b.node1("Pad", [x, _pad_amounts(b, paddings, op.inputs[1]), value], mode="constant")
    return [_back(b, padded, work, dtype)]


def _mirror_pad(b, op, inputs):
    x, paddings = inputs
    if op.attrs["mode"] == "REFLECT":
        dtype = op.inputs[0].dtype
        if dtype is dtypes.string:
            raise b.unsupported("onnxruntime's Pad takes no strings")
        x, work = _in(b, x, dtype, _PAD)
        padded = b.node1("Pad", [x, _pad_amounts(b, paddings, op.inputs[1])], mode="reflect")
        return [_back(b, padded, work, dtype)]
    return [_symmetric_pad(b, op, x)]


def _symmetric_pad(b, op, x):
    """Each axis between reversed slices of its own edge: ONNX's Pad has no symmetric mode."""
    amounts = constant_value(op.inputs[1])
    if amounts is None:
        raise b.unsupported("a SYMMETRIC pad needs paddings known when exporting")
    for axis, (before, after) in enumerate(np.asarray(amounts).tolist()):
        parts = []
        if before:  # elements before-1 .. 0, the edge included
            parts.append(_reversed_slice(b, x, axis, before - 1, _FAR))
        parts.append(x)
        if after:  # the last `after` elements, last first
            parts.append(_reversed_slice(b, x, axis, -1, -after - 1))
        if len(parts) > 1:
            x = b.node1("Concat", parts, axis=axis)
    return x


def _reversed_slice(b, x, axis, start, end):
    bounds = [b.int64s([start]), b.int64s([end]), b.int64s([axis]), b.int64s([-1])]
    return b.node1("Slice", [x, *bounds])


def _tile(b, op, inputs):
    x, multiples = inputs
    return [b.node1("Tile", [x, b.as_int64(multiples, op.inputs[1])])]


def _one_hot(b, op, inputs):
    indices, depth, on, off = inputs
    rank = op.inputs[0].shape.rank
    axis = op.attrs["axis"]
    if axis != -1 and rank is None:
        raise b.unsupported("one_hot along an axis other than the last needs indices of known rank")
    indices, depth = b.as_int64(indices, op.inputs[0]), b.as_int64(depth, op.inputs[1])
    positions = b.node1("Range", [b.const(np.int64(0)), depth, b.const(np.int64(1))])
    # A negative or too large index equals no position: only off values, as in TensorFlow.
    hot = b.node1("Equal", [b.node1("Unsqueeze", [indices, b.int64s([-1])]), positions])
    dtype = op.outputs[0].dtype
    work = work_dtype(dtype, types.WHERE)
    if work is not dtype:
        on, off = b.cast(on, work), b.cast(off, work)
    out = _back(b, b.node1("Where", [hot, on, off]), work, dtype)
    if axis not in (-1, rank):
        perm = list(range(axis)) + [rank] + list(range(axis, rank))
        out = b.node1("Transpose", [out], perm=perm)
    return [out]


def _cumsum(b, op, inputs):
    dtype = op.inputs[0].dtype
    x, work = _in(b, inputs[0], dtype, _CUMSUM)
    attrs = {"exclusive": int(op.attrs["exclusive"]), "reverse": int(op.attrs["reverse"])}
    out = b.node1("CumSum", [x, b.const(np.int64(op.attrs["axis"]))], **attrs)
    return [_back(b, out, work, dtype)]


def _clip_by_value(b, op, inputs):
    dtype = op.inputs[0].dtype
    work = work_dtype(dtype, types.MIN_MAX)
    x, low, high = (v if work is dtype else b.cast(v, work) for v in inputs)
    out = b.node1("Min", [b.node1("Max", [x, low]), high])
    return [_back(b, out, work, dtype)]


ARRAY_OPS_LOWERINGS = {
    linalg_ops.EYE: _eye,
    linalg_ops.EINSUM: _einsum,
    padding_ops.PAD: _pad,
    padding_ops.MIRROR_PAD: _mirror_pad,
    padding_ops.TILE: _tile,
    indexing_ops.ONE_HOT: _one_hot,
    scan_ops.CUMSUM: _cumsum,
    clip_ops.CLIP_BY_VALUE: _clip_by_value,
}
