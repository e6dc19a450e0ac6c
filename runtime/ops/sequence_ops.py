"""``linspace``: evenly spaced values, composed of ``range`` and arithmetic, so it has a
gradient with respect to ``start`` and ``stop`` and runs on every backend.

>>> import runtime as rt
>>> rt.linspace(10.0, 12.0, 3).numpy()
array([10., 11., 12.], dtype=float32)
>>> rt.linspace(0, 100, 5)           # integers give float64, as TensorFlow
<rt.Tensor: shape=(5,), dtype=float64, numpy=array([  0.,  25.,  50.,  75., 100.])>
"""

from __future__ import annotations

import builtins

from runtime.core import dtypes
from runtime.ops.array_ops import concat, expand_dims
from runtime.ops.constant_ops import cast, convert_to_tensor, range, static_int
from runtime.ops.math_ops import add, multiply


def linspace(start, stop, num, name=None, axis=0):
    """``num`` values from ``start`` to ``stop``, both included, along a new ``axis``
    (``start`` and ``stop`` may be tensors of one shape: ``axis`` places the sequence
    among their dimensions).

    >>> import runtime as rt
    >>> rt.linspace([0.0, 5.0], [10.0, 40.0], 5, axis=0).numpy()
    array([[ 0.  ,  5.  ],
           [ 2.5 , 13.75],
           [ 5.  , 22.5 ],
           [ 7.5 , 31.25],
           [10.  , 40.  ]], dtype=float32)
    """
    start = convert_to_tensor(start)
    if not start.dtype.is_floating:
        start = cast(start, dtypes.float64)  # TensorFlow's linspace divides in float64
    stop = cast(convert_to_tensor(stop), start.dtype)
    num = static_int(num, "linspace's num")
    if num <= 0:
        raise ValueError(f"linspace's num must be positive, got {num}")
    rank = start.shape.rank
    if not -rank - 1 <= axis <= rank:
        raise ValueError(f"axis {axis} is out of range for start and stop of rank {rank}")
    axis = axis % (rank + 1)
    first, last = expand_dims(start, axis), expand_dims(stop, axis)
    if num == 1:
        return first
    # start + i * step for i < num - 1, then stop itself, so the last value is exactly stop.
    steps = cast(range(num - 1), start.dtype)
    steps = steps if rank == 0 else _along(steps, axis, rank + 1)
    delta = (stop - start) / (num - 1)
    inner = add(first, multiply(steps, expand_dims(delta, axis)))
    return concat([inner, last], axis=axis, name=name)


def _along(vector, axis, rank):
    """``vector`` shaped to broadcast along ``axis`` of a tensor of ``rank`` dimensions."""
    for _ in builtins.range(axis):
        vector = expand_dims(vector, 0)
    for _ in builtins.range(rank - axis - 1):
        vector = expand_dims(vector, -1)
    return vector
