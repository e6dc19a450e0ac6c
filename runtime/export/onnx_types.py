"""ONNX's types for runtime dtypes, and the types onnxruntime's kernels compute in.

>>> from runtime.core import dtypes
>>> ONNX_TYPES[dtypes.float32], ONNX_TYPES[dtypes.string]
(1, 8)
>>> work_dtype(dtypes.int16, MIN_MAX).name  # onnxruntime has no int16 Max: computed in int32
'int32'
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from runtime.core import dtypes
from runtime.core.tensor_shape import TensorShape

OPSET = 21
"""The ONNX operator set exported models use (onnxruntime 1.20 and later run it)."""

ONNX_TYPES = {  # ONNX's TensorProto.DataType numbers, fixed by the ONNX standard
    dtypes.float32: 1, dtypes.uint8: 2, dtypes.int8: 3, dtypes.int16: 5, dtypes.int32: 6,
    dtypes.int64: 7, dtypes.string: 8, dtypes.bool_: 9, dtypes.float16: 10, dtypes.float64: 11,
}  # fmt: skip


class ValueType(NamedTuple):
    """What an ONNX value holds: a tensor of ``dtype`` and ``shape``, or a sequence of such
    tensors (a TensorArray)."""

    dtype: object
    shape: TensorShape
    sequence: bool = False


class Handle:
    """What a variable's handle lowers to: no ONNX value, only the variable it names."""

    __slots__ = ("variable",)

    def __init__(self, variable):
        self.variable = variable


# The types onnxruntime's CPU kernels implement, for the ONNX ops whose kernels miss some
# of ours (found by building one-node models of each type). A dtype outside the set is
# computed in a wider one (``work_dtype``) and cast back: integers wrap the same way.
_F = {dtypes.float16, dtypes.float32, dtypes.float64}
FLOATS = frozenset(_F)
ARITHMETIC = frozenset(_F | {dtypes.int8, dtypes.int16, dtypes.int32, dtypes.int64, dtypes.uint8})
NEG = ARITHMETIC - {dtypes.uint8}
POW = frozenset(_F | {dtypes.int32, dtypes.int64})
MIN_MAX = frozenset(_F | {dtypes.int8, dtypes.int32, dtypes.int64, dtypes.uint8})
RELU = frozenset(_F | {dtypes.int8, dtypes.int32})
MATMUL = POW  # also ReduceSum, ReduceProd, ReduceMean
REDUCE_MIN_MAX = MIN_MAX | {dtypes.bool_}
WHERE = MIN_MAX | {dtypes.string}
RANGE = frozenset({dtypes.int16, dtypes.int32, dtypes.int64, dtypes.float32, dtypes.float64})
NON_ZERO = frozenset({dtypes.bool_, dtypes.int32, dtypes.int64, dtypes.uint8, dtypes.float32})

ELEMENTWISE_TYPES = {
    "Neg": NEG, "Abs": ARITHMETIC, "Sign": ARITHMETIC, "Not": frozenset({dtypes.bool_}),
    "Erf": frozenset({dtypes.float16, dtypes.float32}),
}  # fmt: skip
"""The types onnxruntime computes an elementwise operator named by a row's ``onnx`` in
(``runtime.core.op_def``), where they are not the three float types (``FLOATS``) of the
math operators (Exp, Tanh, ...): Erf has no float64 kernel."""

_WIDER = [dtypes.int32, dtypes.int64, dtypes.float32, dtypes.float64]


def work_dtype(dtype, supported):
    """``dtype`` if ``supported`` holds it, else the type to compute in: the narrowest of
    int32, int64, float32, float64 that is supported and holds every ``dtype`` value (int32
    for small integers and bools, float32 for float16). Never a narrower type: a float64 op
    onnxruntime computes only in float32 raises ValueError rather than losing digits."""
    if dtype in supported:
        return dtype
    size = np.dtype(dtype.as_numpy_dtype).itemsize
    for wider in _WIDER:
        if (
            wider in supported
            and wider.is_floating == dtype.is_floating
            and np.dtype(wider.as_numpy_dtype).itemsize >= size
        ):
            return wider
    raise ValueError(
        f"onnxruntime computes it in {', '.join(sorted(d.name for d in supported))}, "
        f"none of which holds every {dtype.name} value"
    )
