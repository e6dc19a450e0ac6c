"""Data types of tensors, with TensorFlow's names and default conversions.

>>> import runtime as rt
>>> rt.as_dtype("float32") is rt.float32
True
>>> rt.int32.as_numpy_dtype
<class 'numpy.int32'>
"""

from __future__ import annotations

import numpy as np


class DType:
    """One element type. Instances are unique: compare them with ``is`` or ``==``."""

    __slots__ = ("name", "as_numpy_dtype", "_np")

    def __init__(self, name: str, numpy_type):
        self.name = name
        self.as_numpy_dtype = numpy_type
        self._np = np.dtype(numpy_type)

    @property
    def is_floating(self) -> bool:
        return self._np.kind == "f"

    @property
    def is_integer(self) -> bool:
        return self._np.kind in "iu"

    @property
    def is_bool(self) -> bool:
        return self is bool_

    @property
    def is_string(self) -> bool:
        return self is string

    @property
    def is_opaque(self) -> bool:
        """Internal handle types (TensorArray lists, variable handles): scalars holding an object."""
        return self is variant or self is resource

    @property
    def is_numeric(self) -> bool:
        return self._np.kind in "iuf"

    @property
    def min(self):
        return np.finfo(self._np).min if self.is_floating else np.iinfo(self._np).min

    @property
    def max(self):
        return np.finfo(self._np).max if self.is_floating else np.iinfo(self._np).max

    def __repr__(self):
        return f"rt.{self.name}"

    def __reduce__(self):
        return (as_dtype, (self.name,))


bool_ = DType("bool", np.bool_)
int8 = DType("int8", np.int8)
int16 = DType("int16", np.int16)
int32 = DType("int32", np.int32)
int64 = DType("int64", np.int64)
uint8 = DType("uint8", np.uint8)
float16 = DType("float16", np.float16)
float32 = DType("float32", np.float32)
float64 = DType("float64", np.float64)
# Strings are held as numpy object arrays of ``bytes``.
string = DType("string", np.object_)
# Internal types: a TensorArray's list of elements, and a variable's handle.
variant = DType("variant", np.object_)
resource = DType("resource", np.object_)

_BY_NAME = {
    d.name: d
    for d in (
        bool_,
        int8,
        int16,
        int32,
        int64,
        uint8,
        float16,
        float32,
        float64,
        string,
        variant,
        resource,
    )
}
_BY_NAME.update({"double": float64, "float": float32, "half": float16, "str": string})
_BY_NUMPY = {d._np: d for d in (bool_, int8, int16, int32, int64, uint8, float16, float32, float64)}


def as_dtype(value) -> DType:
    """Returns the DType for a DType, a numpy dtype or type, or a name.

    >>> as_dtype(np.float64)
    rt.float64
    """
    if isinstance(value, DType):
        return value
    if value is None:
        raise TypeError("Cannot convert None to a dtype.")
    if isinstance(value, str):
        if value in _BY_NAME:
            return _BY_NAME[value]
        raise TypeError(f"Cannot convert {value!r} to a dtype: no dtype has that name.")
    if value is bool:
        return bool_
    if value is str or value is bytes:
        return string
    if value is int:
        return int32
    if value is float:
        return float32
    try:
        np_dtype = np.dtype(value)
    except TypeError:
        raise TypeError(f"Cannot convert {value!r} to a dtype.") from None
    if np_dtype in _BY_NUMPY:
        return _BY_NUMPY[np_dtype]
    if np_dtype.kind in "SUO":
        return string
    raise TypeError(f"Cannot convert {value!r} to a dtype: numpy type {np_dtype} is not supported.")


def compatible_kind(value, dtype: DType) -> bool:
    """Whether a Python or numpy scalar may silently take ``dtype``.

    Ints may become any numeric type, floats only floating types, bools only
    bool, text only string: the conversions TensorFlow allows next to a tensor.
    """
    if isinstance(value, (bool, np.bool_)):
        return dtype is bool_
    if isinstance(value, (int, np.integer)):
        return dtype.is_numeric
    if isinstance(value, (float, np.floating)):
        return dtype.is_floating
    if isinstance(value, (str, bytes)):
        return dtype is string
    return False
