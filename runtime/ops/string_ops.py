"""Operations on string tensors (``bytes`` elements)."""

from __future__ import annotations

import numpy as np

from runtime.core import attr_kinds as kinds
from runtime.core import dtypes
from runtime.core.op_def import STRINGS, OpDef
from runtime.core.tensor_shape import TensorShape, broadcast_shapes
from runtime.ops.constant_ops import convert_to_tensor
from runtime.ops.registry import bind1, check_dtype

_IS_STRING = lambda d: d is dtypes.string  # noqa: E731


def _join_infer(inputs, attrs):
    shape = TensorShape([])
    for t in inputs:
        check_dtype("StringJoin", t, _IS_STRING)
        shape = broadcast_shapes(shape, t.shape)
    return [(dtypes.string, shape)]


def _join_kernel(*values, separator):
    if all(np.ndim(v) == 0 for v in values):
        return np.asarray(separator.join(v[()] for v in values), dtype=object)
    arrays = np.broadcast_arrays(*values)
    out = np.empty(arrays[0].shape, dtype=object)
    for idx in np.ndindex(out.shape):
        out[idx] = separator.join(a[idx] for a in arrays)
    return out


STRING_JOIN = OpDef(
    "StringJoin", _join_kernel, _join_infer, attrs={"separator": kinds.BYTES}, gradient=STRINGS
)


def join(inputs, separator="", name=None):
    """Joins strings elementwise (scalars broadcast).

    >>> import runtime as rt
    >>> rt.strings.join(["hello", "world"], separator=" ").numpy()
    b'hello world'
    """
    tensors = [convert_to_tensor(x) for x in inputs]
    sep = separator.encode() if isinstance(separator, str) else bytes(separator)
    return bind1(STRING_JOIN, tensors, {"separator": sep}, name or "StringJoin")


def _length_kernel(x, unit):
    measure = (lambda b: len(b.decode("utf-8"))) if unit == "UTF8_CHAR" else len
    if np.ndim(x) == 0:
        return np.int32(measure(x[()]))
    return np.vectorize(measure, otypes=[np.int32])(x)


def _length_infer(inputs, attrs):
    check_dtype("StringLength", inputs[0], _IS_STRING)
    return [(dtypes.int32, inputs[0].shape)]


STRING_LENGTH = OpDef(
    "StringLength",
    _length_kernel,
    _length_infer,
    attrs={"unit": kinds.one_of("BYTE", "UTF8_CHAR")},
    gradient=STRINGS,
)


def length(input, unit="BYTE", name=None):
    """Length of each string in bytes, or in characters with ``unit="UTF8_CHAR"``.

    >>> import runtime as rt
    >>> rt.strings.length(["ab", "héllo"], unit="UTF8_CHAR").numpy()
    array([2, 5], dtype=int32)
    """
    if unit not in ("BYTE", "UTF8_CHAR"):
        raise ValueError(f"unit must be 'BYTE' or 'UTF8_CHAR', got {unit!r}")
    return bind1(STRING_LENGTH, [convert_to_tensor(input)], {"unit": unit}, name or "StringLength")


def _format_one(x, precision, shortest):
    if isinstance(x, (bool, np.bool_)):
        return b"true" if x else b"false"
    if isinstance(x, np.floating):
        if shortest:
            return f"{x:g}".encode()
        return f"{x:.{6 if precision < 0 else precision}f}".encode()
    return str(x).encode()


def _as_string_kernel(x, precision, shortest):
    out = np.empty(np.shape(x), dtype=object)
    for idx in np.ndindex(out.shape):
        out[idx] = _format_one(np.asarray(x)[idx], precision, shortest)
    return out


def _as_string_infer(inputs, attrs):
    check_dtype("AsString", inputs[0], lambda d: d.is_numeric or d.is_bool)
    if attrs["precision"] > _MAX_PRECISION:
        raise ValueError(f"as_string: precision {attrs['precision']} is over {_MAX_PRECISION}")
    return [(dtypes.string, inputs[0].shape)]


_MAX_PRECISION = 1000
AS_STRING = OpDef(
    "AsString",
    _as_string_kernel,
    _as_string_infer,
    attrs={"precision": kinds.INT, "shortest": kinds.BOOL},
    gradient=STRINGS,
)


def as_string(input, precision=-1, shortest=False, name=None):
    """Numbers and bools as strings; floats with 6 decimals unless told otherwise.

    >>> import runtime as rt
    >>> rt.strings.as_string([1.5, 2.0]).numpy()
    array([b'1.500000', b'2.000000'], dtype=object)
    """
    attrs = {"precision": int(precision), "shortest": bool(shortest)}
    return bind1(AS_STRING, [convert_to_tensor(input)], attrs, name or "AsString")
