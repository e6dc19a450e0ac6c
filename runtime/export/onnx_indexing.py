"""``gather`` and ``x[...]`` in ONNX: ``Gather``, and ``Slice`` + ``Gather`` + ``Unsqueeze``.

An index spec (``runtime/ops/indexing_ops.py``) holds ints, slices, ``None``
and ``...``, any bound possibly a tensor. ``x[key]`` becomes, in turn:

- one ``Slice`` over the sliced axes: ONNX clamps bounds as numpy does, and
  counts negative bounds from the end; a missing bound is the start or end
  that the step's sign calls for;
- a ``Gather`` for each integer index, last axis first so the earlier axes
  keep their positions (``Gather`` also counts negative indices from the end);
- one ``Unsqueeze`` putting in the new axes of the ``None``s.
"""

from __future__ import annotations

import numpy as np

from runtime.core import dtypes
from runtime.ops.indexing_ops import GATHER, STRIDED_SLICE

_END = np.iinfo(np.int64).max  # past the end whichever way: ONNX clamps it into the axis
_FULL = slice(None, None, None)


def _gather(b, op, inputs):
    params, indices = inputs
    if op.inputs[1].dtype not in (dtypes.int32, dtypes.int64):  # ONNX's Gather takes only those
        indices = b.cast(indices, dtypes.int64)
    return [b.node1("Gather", [params, indices], axis=op.attrs["axis"])]


def _expand_ellipsis(b, spec, rank):
    if Ellipsis not in spec:
        return spec
    if rank is None:
        raise b.unsupported("an index with `...` needs a tensor of known rank")
    consumed = sum(1 for item in spec if item is not None and item is not Ellipsis)
    at = spec.index(Ellipsis)
    return spec[:at] + (_FULL,) * (rank - consumed) + spec[at + 1 :]


class _Bounds:
    """The starts, ends, axes and steps of one ONNX Slice, as int64 pieces to concatenate."""

    def __init__(self, b, dynamic, sources):
        self.b, self.dynamic, self.sources = b, dynamic, sources
        self.starts, self.ends, self.steps, self.axes = [], [], [], []

    def value(self, v):
        """An int64 piece of one element for a bound: a constant, or a tensor reshaped."""
        if isinstance(v, tuple):  # ("t", k): the k-th dynamic input
            name, t = self.dynamic[v[1]], self.sources[v[1]]
            if t.dtype is not dtypes.int64:
                name = self.b.cast(name, dtypes.int64)
            return self.b.node1("Reshape", [name, self.b.int64s([1])])
        return self.b.int64s([v])

    def add(self, axis, item):
        step = 1 if item.step is None else item.step
        self.axes.append(axis)
        self.steps.append(self.value(step))
        negative = self._negative(step)
        self.starts.append(self._default(item.start, negative, _END, 0))
        self.ends.append(self._default(item.stop, negative, -_END, _END))

    def _negative(self, step):
        if isinstance(step, tuple):
            return self.b.node1("Less", [self.value(step), self.b.int64s([0])])
        return step < 0

    def _default(self, bound, negative, if_negative, if_positive):
        if bound is not None:
            return self.value(bound)
        if isinstance(negative, str):  # a step known only at run time
            choices = [self.b.int64s([if_negative]), self.b.int64s([if_positive])]
            return self.b.node1("Where", [negative, *choices])
        return self.b.int64s([if_negative if negative else if_positive])

    def joined(self, pieces):
        return pieces[0] if len(pieces) == 1 else self.b.node1("Concat", pieces, axis=0)


def _strided_slice(b, op, inputs):
    x, dynamic = inputs[0], inputs[1:]
    spec = _expand_ellipsis(b, tuple(op.attrs["spec"]), op.inputs[0].shape.rank)
    bounds = _Bounds(b, dynamic, op.inputs[1:])
    picks, new_axes = [], []
    axis = position = 0  # the input axis an item indexes; the output axis it makes
    for item in spec:
        if item is None:
            new_axes.append(position)
            position += 1
            continue
        if isinstance(item, slice):
            if item != _FULL:
                bounds.add(axis, item)
            position += 1
        else:
            picks.append((axis, item))
        axis += 1
    y = x
    if bounds.axes:
        y = b.node1(
            "Slice",
            [
                y,
                bounds.joined(bounds.starts),
                bounds.joined(bounds.ends),
                b.int64s(bounds.axes),
                bounds.joined(bounds.steps),
            ],
        )
    for axis, index in reversed(picks):
        if isinstance(index, tuple):
            index = dynamic[index[1]]
        else:
            index = b.const(np.int64(index))
        y = b.node1("Gather", [y, index], axis=axis)
    if new_axes:
        y = b.node1("Unsqueeze", [y, b.int64s(new_axes)])
    return [y]


INDEXING_LOWERINGS = {GATHER: _gather, STRIDED_SLICE: _strided_slice}
