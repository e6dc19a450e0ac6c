"""Scans: ``cumsum``, running sums along an axis, and its gradient.

>>> import runtime as rt
>>> rt.cumsum([1, 2, 3]).numpy()
array([1, 3, 6], dtype=int32)
"""

from __future__ import annotations

import numpy as np

from runtime.core import attr_kinds as kinds
from runtime.core.op_def import OpDef
from runtime.ops.array_ops import normalize_axis
from runtime.ops.constant_ops import convert_to_tensor, static_int
from runtime.ops.registry import NUMERIC, bind1, check_dtype


def _cumsum_infer(inputs, attrs):
    x = inputs[0]
    check_dtype("cumsum", x, NUMERIC)
    if x.shape.rank == 0:
        raise ValueError("cumsum needs a tensor of rank >= 1, got a scalar")
    if x.shape.rank is not None:
        normalize_axis(attrs["axis"], x.shape.rank, "cumsum")
    return [(x.dtype, x.shape)]


def _cumsum(xp, x, axis, exclusive, reverse):
    if reverse:
        x = xp.flip(x, axis)
    out = xp.cumsum(x, axis=axis, dtype=x.dtype)
    if exclusive and out.shape[axis]:  # each sum leaves its own element out: shift, from zero
        before = (slice(None),) * (axis % out.ndim)
        first, all_but_last = out[(*before, slice(0, 1))], out[(*before, slice(0, -1))]
        out = xp.concatenate([xp.zeros_like(first), all_but_last], axis=axis)
    return xp.flip(out, axis) if reverse else out


def _cumsum_gradient(op, grad):
    """Each element counts in the sums after it (before it, reversed): so its gradient is the
    running sum of the gradient in the other direction, as in TensorFlow."""
    attrs = op.attrs
    return (cumsum(grad, attrs["axis"], attrs["exclusive"], not attrs["reverse"]),)


CUMSUM = OpDef(
    "Cumsum",
    None,
    _cumsum_infer,
    attrs={"axis": kinds.INT, "exclusive": kinds.BOOL, "reverse": kinds.BOOL},
    gradient=_cumsum_gradient,
    implementation=_cumsum,
)


def cumsum(x, axis=0, exclusive=False, reverse=False, name=None):
    """Running sums of ``x`` along ``axis``: ``[a, b, c]`` -> ``[a, a + b, a + b + c]``.

    ``exclusive`` leaves each element out of its own sum (``[0, a, a + b]``);
    ``reverse`` sums from the end (``[a + b + c, b + c, c]``).

    >>> cumsum([[1, 2], [3, 4]], axis=1, exclusive=True).numpy()
    array([[0, 1],
           [0, 3]], dtype=int32)
    >>> cumsum([1.0, 2.0, 3.0], reverse=True).numpy()
    array([6., 5., 3.], dtype=float32)
    """
    attrs = {
        "axis": static_int(axis, "cumsum: axis"),
        "exclusive": bool(exclusive),
        "reverse": bool(reverse),
    }
    return bind1(CUMSUM, [convert_to_tensor(x)], attrs, name or "Cumsum")


# --- samples: what the op's tests run it on (runtime.ops.op_info) ---
import itertools  # noqa: E402

from runtime.ops.op_info import floats, integers, joined, op_info  # noqa: E402


def _cumsum_reference(x, axis=0, exclusive=False, reverse=False):
    """Python's running sums (``itertools.accumulate``) of each line along ``axis``."""
    lines = np.moveaxis(np.asarray(x), axis, -1)
    out = np.empty_like(lines)
    for index in np.ndindex(lines.shape[:-1]):
        line = lines[index].tolist()[::-1] if reverse else lines[index].tolist()
        sums = list(itertools.accumulate(line))
        sums = [0, *sums[:-1]] if exclusive else sums
        out[index] = sums[::-1] if reverse else sums
    return np.moveaxis(out, -1, axis)


op_info(
    "rt.cumsum",
    joined(
        floats(-3.0, 3.0, shapes=[(2, 3)], dtypes=["float32"]),
        floats(-3.0, 3.0, shapes=[(2, 3)], dtypes=["float64"],
               kwargs=({"axis": 1, "exclusive": True}, {"axis": -1, "reverse": True})),
        integers(-9, 10, shapes=[(4,)], kwargs=({"exclusive": True, "reverse": True},)),
    ),
    _cumsum_reference,
)(cumsum)  # fmt: skip
