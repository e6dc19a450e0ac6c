"""Shapes as tensors: ``shape``, ``size`` and ``rank``, and what a shape tensor stands for.

>>> import runtime as rt
>>> with rt.Graph().as_default():
...     x = rt.placeholder(rt.float32, shape=[None, 3])
...     shape_from_tensor(rt.shape(x))
TensorShape([None, 3])
"""

from __future__ import annotations

import numpy as np

from runtime.core import attr_kinds as kinds
from runtime.core import dtypes
from runtime.core.op_def import SHAPE_ONLY, OpDef
from runtime.core.tensor import SymbolicTensor
from runtime.core.tensor_shape import TensorShape, check_rank
from runtime.ops.constant_ops import constant_value, convert_to_tensor
from runtime.ops.registry import bind1


def _index_type(dtype):
    if dtype not in (dtypes.int32, dtypes.int64):
        raise TypeError(f"out_type must be int32 or int64, got {dtype.name}")
    return dtype


def _shape_value(op):
    """A Shape op's value when its input's shape is fully known: graphs fold it while tracing."""
    if op.inputs[0].shape.is_fully_defined():
        return np.array(op.inputs[0].shape.as_list(), dtype=op.attrs["out_type"].as_numpy_dtype)
    return None


# Shapes are known when XLA compiles: these compute numpy values in every backend, so
# that what depends on them (a reshape's shape, a fill's dims) is known too.
SHAPE = OpDef(
    "Shape",
    None,
    infer=lambda i, a: [(_index_type(a["out_type"]), TensorShape([i[0].shape.rank]))],
    attrs={"out_type": kinds.DTYPE},
    gradient=SHAPE_ONLY,
    static_value=_shape_value,
    implementation=lambda xp, x, out_type: np.array(xp.shape(x), dtype=out_type.as_numpy_dtype),
)


def shape(input, out_type=dtypes.int32, name=None):
    """The shape of ``input`` as a 1-D tensor (known dims are folded in graphs).

    >>> shape([[1, 2, 3], [4, 5, 6]]).numpy()
    array([2, 3], dtype=int32)
    """
    input = convert_to_tensor(input)
    return bind1(SHAPE, [input], {"out_type": dtypes.as_dtype(out_type)}, name or "Shape")


SIZE = OpDef(
    "Size",
    None,
    infer=lambda i, a: [(_index_type(a["out_type"]), TensorShape([]))],
    attrs={"out_type": kinds.DTYPE},
    gradient=SHAPE_ONLY,
    implementation=lambda xp, x, out_type: out_type.as_numpy_dtype(xp.size(x)),
)
RANK = OpDef(
    "Rank",
    None,
    infer=lambda i, a: [(dtypes.int32, TensorShape([]))],
    gradient=SHAPE_ONLY,
    implementation=lambda xp, x: np.int32(xp.ndim(x)),
)


def size(input, out_type=dtypes.int32, name=None):
    """The number of elements of ``input``."""
    return bind1(
        SIZE, [convert_to_tensor(input)], {"out_type": dtypes.as_dtype(out_type)}, name or "Size"
    )


def rank(input, name=None):
    """The number of dimensions of ``input``."""
    return bind1(RANK, [convert_to_tensor(input)], name=name or "Rank")


def shape_from_tensor(t) -> TensorShape:
    """The shape a 1-D shape tensor stands for, as far as it is known statically.

    ValueError when it has more than MAX_RANK elements (checked before its value
    is read where its shape tells: a huge constant of ones is an error, not a
    shape of that rank).
    """
    if t.shape.rank == 1 and t.shape[0] is not None:
        check_rank(t.shape[0], "a shape given as a tensor")
    value = constant_value(t)
    if value is not None:
        check_rank(np.size(value), "a shape given as a tensor")
        dims = np.asarray(value).reshape(-1).tolist()  # Python ints: cheap to check and keep
        return TensorShape([None if d < 0 else int(d) for d in dims])
    if isinstance(t, SymbolicTensor) and t.op.opdef is SHAPE:  # shape(x): as known as x's
        return t.op.inputs[0].shape
    if _packs_scalars(t):  # [batch, 3]: the 3 is known
        return TensorShape([_known_dim(d) for d in t.op.inputs])
    if t.shape.rank == 1 and t.shape[0] is not None:
        return TensorShape([None] * t.shape[0])
    return TensorShape(None)


def _packs_scalars(t):
    """Whether ``t`` is a 1-D stack of scalars (a shape list with tensors in it)."""
    if not isinstance(t, SymbolicTensor) or t.op.type != "Pack" or t.shape.rank != 1:
        return False
    return all(d.shape.rank == 0 for d in t.op.inputs)


def _known_dim(t):
    """One element of a packed shape: its value where it is a known non-negative scalar."""
    value = constant_value(t)
    if value is None or value < 0:
        return None
    return int(value)


# --- samples: what the op's tests run it on (runtime.ops.op_info) ---
from runtime.ops.op_info import floats, integers, joined, op_info  # noqa: E402

_ANY_SHAPE = joined(
    floats(-1.0, 1.0, shapes=[(), (2, 3)], dtypes=["float32"]),
    integers(-9, 10, shapes=[(2, 1, 3)], kwargs=({"out_type": dtypes.int64},)),
)
op_info(
    "rt.shape",
    _ANY_SHAPE,
    lambda x, out_type=dtypes.int32: np.array(list(np.shape(x)), out_type.as_numpy_dtype),
    differentiable=False,
)(shape)
op_info(
    "rt.size",
    _ANY_SHAPE,
    lambda x, out_type=dtypes.int32: np.array(len(x.ravel()), out_type.as_numpy_dtype),
    differentiable=False,
)(size)
op_info(
    "rt.rank",
    floats(-1.0, 1.0, shapes=[(), (2, 3)], dtypes=["float32"]),
    lambda x: np.array(len(np.shape(x)), np.int32),
    differentiable=False,
)(rank)
