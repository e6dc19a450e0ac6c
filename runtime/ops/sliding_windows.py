"""Sliding windows over the spatial dims of a channels-last tensor: what convolution and
pooling are made of, written once against an array namespace ``xp`` (numpy or JAX).

A tensor ``(batch, *spatial, channels)`` seen through a window of ``window`` elements
(``dilations`` apart), moved by ``strides``, is ``windows(...)``: an array
``(batch, *out, *window, channels)``. Under numpy it is a strided view (no copy); under
JAX, one strided slice per window position, stacked. ``scatter_windows`` is its transpose:
it adds each window's values back where they came from (the gradients of both ops).

>>> import numpy as np
>>> from runtime.core.array_namespace import NUMPY
>>> x = np.arange(5.0).reshape(1, 5, 1)
>>> windows(NUMPY, x, (2,), (2,), (1,))[0, :, :, 0]
array([[0., 1.],
       [2., 3.]])
>>> output_size(5, 2, 2, 1, "SAME"), same_padding(5, 2, 2, 1)
(3, (0, 1))
"""

from __future__ import annotations

import numpy as np

from runtime.core.attr_kinds import AttrKind, is_int, one_of

PADDING = one_of("VALID", "SAME")

POSITIVE_INTS = AttrKind(
    "a tuple of ints >= 1",
    lambda value: type(value) is tuple and all(is_int(v) and v >= 1 for v in value),
)


def checked_padding(padding):
    """``padding`` if it is ``"VALID"`` or ``"SAME"``, else TensorFlow's ValueError."""
    if not PADDING.accepts(padding):
        raise ValueError(
            f"Value for attr 'padding' of {padding!r} is not in the list of allowed values: "
            '"SAME", "VALID"'
        )
    return padding


def output_size(size, window, stride, dilation, padding):
    """The number of window positions along one dim (TensorFlow's formula); None if unknown.
    Negative (VALID with a window larger than the input) is the caller's error to raise."""
    if size is None:
        return None
    if padding == "SAME":
        return -(-size // stride)
    reach = (window - 1) * dilation + 1
    return -(-(size - reach + 1) // stride)


def same_padding(size, window, stride, dilation):
    """``(before, after)`` padding of SAME along one dim: the odd element goes after."""
    reach = (window - 1) * dilation + 1
    out = -(-size // stride)
    total = max((out - 1) * stride + reach - size, 0)
    return total // 2, total - total // 2


def paddings(spatial, window, strides, dilations, padding):
    """``(before, after)`` of each spatial dim."""
    if padding == "VALID":
        return [(0, 0)] * len(spatial)
    return [same_padding(*dims) for dims in zip(spatial, window, strides, dilations)]


def padded(xp, x, pads, value=0):
    """``x`` with ``pads`` on its spatial dims (none on batch and channels)."""
    if not any(b or a for b, a in pads):
        return x
    return xp.pad(x, [(0, 0), *pads, (0, 0)], constant_values=value)


def _out_sizes(spatial, window, strides, dilations):
    """Window positions along each dim of an already padded input (VALID)."""
    return [
        max(output_size(n, k, s, d, "VALID"), 0)
        for n, k, s, d in zip(spatial, window, strides, dilations)
    ]


def windows(xp, x, window, strides, dilations):
    """``(batch, *out, *window, channels)``: every window of ``x`` (already padded)."""
    batch, *spatial, channels = x.shape
    out = _out_sizes(spatial, window, strides, dilations)
    if xp.backend == "numpy":
        # A view: each window element's stride is its dilation, each position's its stride.
        x = np.asarray(x)
        step = x.strides[1:-1]
        view_strides = (
            x.strides[0],
            *[st * s for st, s in zip(step, strides)],
            *[st * d for st, d in zip(step, dilations)],
            x.strides[-1],
        )
        shape = (batch, *out, *window, channels)
        return np.lib.stride_tricks.as_strided(x, shape, view_strides, writeable=False)
    parts = [x[_positions(offset, out, strides, dilations)] for offset in np.ndindex(*window)]
    stacked = xp.stack(parts, axis=-2)  # (batch, *out, window elements, channels)
    return stacked.reshape((batch, *out, *window, channels))


def _positions(offset, out, strides, dilations):
    """The index of the elements at window position ``offset`` of every window."""
    spatial = tuple(
        slice(o * d, o * d + (n - 1) * s + 1, s)
        for o, n, s, d in zip(offset, out, strides, dilations)
    )
    return (slice(None), *spatial, slice(None))


def window_positions(x, window, strides, dilations):
    """For each position in the window, in order, the index of the elements every window
    holds there: ``x[index]`` is ``(batch, *out, channels)``. Reducing windows position by
    position (a few whole-array operations) is faster than reducing the strided view."""
    out = _out_sizes(x.shape[1:-1], window, strides, dilations)
    return [_positions(offset, out, strides, dilations) for offset in np.ndindex(*window)]


def add_at(xp, total, index, part):
    """``total`` with ``part`` added at ``index`` (in place under numpy)."""
    if xp.backend == "numpy":
        total[index] += part
        return total
    return total.at[index].add(part)


def scatter_windows(xp, parts, shape, strides, dilations):
    """The transpose of ``windows``: ``parts`` ``(batch, *out, *window, channels)`` added
    into zeros of ``shape`` (the padded input's) where each window element was read."""
    rank = len(shape) - 2
    out = parts.shape[1 : 1 + rank]
    window = parts.shape[1 + rank : 1 + 2 * rank]
    total = xp.zeros(shape, parts.dtype)
    keep = (slice(None),) * (1 + rank)
    for offset in np.ndindex(*window):
        part = parts[(*keep, *offset, slice(None))]
        total = add_at(xp, total, _positions(offset, out, strides, dilations), part)
    return total


def cropped(x, pads):
    """``x`` without the spatial ``pads`` ``padded`` added."""
    if not any(b or a for b, a in pads):
        return x
    spatial = tuple(slice(b, x.shape[i + 1] - a) for i, (b, a) in enumerate(pads))
    return x[(slice(None), *spatial, slice(None))]
