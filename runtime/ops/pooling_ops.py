"""Pooling: ``rt.nn.max_pool2d``, ``avg_pool2d``, their 1-D forms and ``max_pool`` /
``avg_pool``, with their gradients.

``MaxPool`` and ``AvgPool`` rows reduce each window of a channels-last input (TensorFlow's
names); ``MaxPoolGrad`` sends each window's gradient to its first maximum and
``AvgPoolGrad`` shares it among the window's elements; ``MaxPoolGradGrad`` (the gradient of
``MaxPoolGrad``) reads back what it sent. SAME padding is never pooled: a max ignores it,
an average divides by the window's elements inside the input, as in TensorFlow.

>>> import runtime as rt
>>> rt.nn.max_pool1d([[[1.0], [3.0], [2.0]]], 2, 1, "VALID")[0, :, 0].numpy()
array([3., 3.], dtype=float32)
>>> rt.nn.avg_pool1d([[[1.0], [3.0], [2.0]]], 2, 2, "SAME")[0, :, 0].numpy()
array([2., 2.], dtype=float32)
"""

from __future__ import annotations

import numpy as np

from runtime.core.op_def import OpDef
from runtime.ops import sliding_windows as sw
from runtime.ops.array_ops import expand_dims, squeeze
from runtime.ops.constant_ops import convert_to_tensor
from runtime.ops.conv_ops import (
    channels_first,
    conv_output_shape,
    from_channels_last,
    spatial_ints,
    to_channels_last,
)
from runtime.ops.registry import FLOATING, NUMERIC, bind1, check_dtype

_ATTRS = {"ksize": sw.POSITIVE_INTS, "strides": sw.POSITIVE_INTS, "padding": sw.PADDING}


def _geometry(x, ksize, strides, padding):
    """The paddings and the window's reach of a pooling of ``x`` (dilations are 1)."""
    ones = (1,) * len(ksize)
    return sw.paddings(x.shape[1:-1], ksize, strides, ones, padding), ones


def _lowest(dtype):
    """What padding a max ignores: -inf, or the least integer."""
    dtype = np.dtype(dtype)
    return -np.inf if dtype.kind == "f" else np.iinfo(dtype).min


def _positions_in(xp, x, ksize, strides, padding, value=0):
    """``x`` padded, its paddings, and the index of each window position's elements."""
    pads, ones = _geometry(x, ksize, strides, padding)
    x = sw.padded(xp, x, pads, value)
    return x, pads, sw.window_positions(x, ksize, strides, ones)


def _max_pool(xp, x, ksize, strides, padding):
    """The elementwise maximum of the windows' elements, one window position at a time."""
    x, _, positions = _positions_in(xp, x, ksize, strides, padding, _lowest(x.dtype))
    result = x[positions[0]]
    for index in positions[1:]:
        result = xp.maximum(result, x[index])
    return result


def _first_maxima(xp, x, ksize, strides, padding):
    """``(padded x, its paddings, [(index, mask)])``: for each window position, the windows
    whose first maximum is there (a maximum's gradient goes to its first element only)."""
    maxima = _max_pool(xp, x, ksize, strides, padding)
    x, pads, positions = _positions_in(xp, x, ksize, strides, padding, _lowest(x.dtype))
    taken = xp.zeros(maxima.shape, bool)
    found = []
    for index in positions:
        first = (x[index] == maxima) & ~taken
        taken = taken | first
        found.append((index, first))
    return x, pads, found


def _max_pool_grad(xp, x, grad, ksize, strides, padding):
    """Each window's gradient added onto its first maximum."""
    padded_x, pads, found = _first_maxima(xp, x, ksize, strides, padding)
    total = xp.zeros(padded_x.shape, grad.dtype)
    for index, first in found:
        total = sw.add_at(xp, total, index, xp.where(first, grad, 0))
    return sw.cropped(total, pads)


def _max_pool_grad_grad(xp, x, grad, ksize, strides, padding):
    """What ``MaxPoolGrad`` of ``x`` sent each input element, read back at each maximum."""
    _, pads, found = _first_maxima(xp, x, ksize, strides, padding)
    grad = sw.padded(xp, grad, pads)
    result = xp.zeros(found[0][1].shape, grad.dtype)
    for index, first in found:
        result = result + xp.where(first, grad[index], 0)
    return result


def _counts(x, ksize, strides, padding):
    """How many elements of the input each window holds: ``(*out, 1)``."""
    pads, _ = _geometry(x, ksize, strides, padding)
    counts = np.ones(())
    for n, k, s, (before, _after) in zip(x.shape[1:-1], ksize, strides, pads):
        out = sw.output_size(n, k, s, 1, padding)
        starts = np.arange(out) * s - before
        inside = np.minimum(starts + k, n) - np.maximum(starts, 0)
        counts = np.multiply.outer(counts, inside)
    return counts[..., None].astype(x.dtype)


def _avg_pool(xp, x, ksize, strides, padding):
    """The windows' sums, one window position at a time, over their counts."""
    counts = _counts(x, ksize, strides, padding)
    x, _, positions = _positions_in(xp, x, ksize, strides, padding)
    total = x[positions[0]]
    for index in positions[1:]:
        total = total + x[index]
    return total / xp.asarray(counts)


def _avg_pool_grad(xp, x, grad, ksize, strides, padding):
    """Each window's gradient shared equally among its elements inside the input."""
    shares = grad / xp.asarray(_counts(x, ksize, strides, padding))
    padded_x, pads, positions = _positions_in(xp, x, ksize, strides, padding)
    total = xp.zeros(padded_x.shape, grad.dtype)
    for index in positions:
        total = sw.add_at(xp, total, index, shares)
    return sw.cropped(total, pads)


# --- shapes and gradients -----------------------------------------------------------------


def _pool_infer(op_type, allowed):
    def infer(inputs, attrs):
        x = inputs[0]
        check_dtype(op_type, x, allowed)
        if x.shape.rank not in (None, 4):
            raise ValueError(f"{op_type}: input must be 4-dimensional, got shape {x.shape}")
        dims = x.shape.as_list() if x.shape.rank is not None else [None] * 4
        ksize, strides = attrs["ksize"], attrs["strides"]
        ones = (1,) * len(ksize)
        channels = dims[-1]
        return [(x.dtype, conv_output_shape(op_type, dims, ksize, strides, ones, attrs["padding"], channels))]  # fmt: skip

    return infer


def _like_input(inputs, attrs):
    return [(inputs[0].dtype, inputs[0].shape)]


def _bind(opdef, inputs, attrs):
    return bind1(opdef, inputs, dict(attrs), opdef.type)


MAX_POOL = OpDef(
    "MaxPool",
    None,
    _pool_infer("MaxPool", NUMERIC),
    attrs=_ATTRS,
    gradient=lambda op, g: (_bind(MAX_POOL_GRAD, [op.inputs[0], g], op.attrs),),
    implementation=_max_pool,
)
# The input only says where the maxima are: piecewise constant, no gradient through it.
MAX_POOL_GRAD = OpDef(
    "MaxPoolGrad",
    None,
    _like_input,
    attrs=_ATTRS,
    gradient=lambda op, g: (None, _bind(MAX_POOL_GRAD_GRAD, [op.inputs[0], g], op.attrs)),
    implementation=_max_pool_grad,
)
MAX_POOL_GRAD_GRAD = OpDef(
    "MaxPoolGradGrad",
    None,
    _pool_infer("MaxPoolGradGrad", NUMERIC),
    attrs=_ATTRS,
    gradient=lambda op, g: (None, _bind(MAX_POOL_GRAD, [op.inputs[0], g], op.attrs)),
    implementation=_max_pool_grad_grad,
)
AVG_POOL = OpDef(
    "AvgPool",
    None,
    _pool_infer("AvgPool", FLOATING),
    attrs=_ATTRS,
    gradient=lambda op, g: (_bind(AVG_POOL_GRAD, [op.inputs[0], g], op.attrs),),
    implementation=_avg_pool,
)
# The input gives only its shape: the gradient is linear in the output's gradient.
AVG_POOL_GRAD = OpDef(
    "AvgPoolGrad",
    None,
    _like_input,
    attrs=_ATTRS,
    gradient=lambda op, g: (None, _bind(AVG_POOL, [g], op.attrs)),
    implementation=_avg_pool_grad,
)


# --- the public functions: TensorFlow's arguments ---------------------------------------------


def _pool(opdef, input, ksize, strides, padding, data_format, formats, name):
    """``opdef`` over the spatial dims of ``input`` (1 or 2 of them: a 1-D input pools over
    a height of 1, as in TensorFlow)."""
    last, first_format = formats
    first = channels_first(data_format, last, first_format)
    x = convert_to_tensor(input)
    n = len(last) - 2
    if x.shape.rank not in (None, n + 2):
        raise ValueError(f"Input tensor must be of rank {n + 2} but was {x.shape.rank}.")
    attrs = {
        "ksize": spatial_ints(ksize, n, first, "ksize"),
        "strides": spatial_ints(strides, n, first, "strides"),
        "padding": sw.checked_padding(padding),
    }
    x = to_channels_last(x, first)
    if n == 1:
        attrs = {k: (1, *v) if k != "padding" else v for k, v in attrs.items()}
        x = expand_dims(x, 1)
    out = bind1(opdef, [x], attrs, name or opdef.type)
    return from_channels_last(squeeze(out, [1]) if n == 1 else out, first)


def max_pool2d(input, ksize, strides, padding, data_format="NHWC", name=None):
    """The largest element of each ``ksize`` window of ``input``
    ``(batch, height, width, channels)``, moved by ``strides`` (an int, 2 ints or 4).
    ``padding`` ``"SAME"`` pads with elements no maximum picks.

    >>> x = np.arange(16.0, dtype=np.float32).reshape(1, 4, 4, 1)
    >>> max_pool2d(x, 2, 2, "VALID")[0, :, :, 0].numpy()
    array([[ 5.,  7.],
           [13., 15.]], dtype=float32)
    """
    return _pool(MAX_POOL, input, ksize, strides, padding, data_format, ("NHWC", "NCHW"), name)


def avg_pool2d(input, ksize, strides, padding, data_format="NHWC", name=None):
    """The mean of each ``ksize`` window of ``input``; with ``"SAME"`` padding, of the
    window's elements inside the input.

    >>> x = np.arange(16.0, dtype=np.float32).reshape(1, 4, 4, 1)
    >>> avg_pool2d(x, 2, 2, "VALID")[0, :, :, 0].numpy()
    array([[ 2.5,  4.5],
           [10.5, 12.5]], dtype=float32)
    """
    return _pool(AVG_POOL, input, ksize, strides, padding, data_format, ("NHWC", "NCHW"), name)


def max_pool1d(input, ksize, strides, padding, data_format="NWC", name=None):
    """``max_pool2d`` of ``input`` ``(batch, width, channels)``."""
    return _pool(MAX_POOL, input, ksize, strides, padding, data_format, ("NWC", "NCW"), name)


def avg_pool1d(input, ksize, strides, padding, data_format="NWC", name=None):
    """``avg_pool2d`` of ``input`` ``(batch, width, channels)``."""
    return _pool(AVG_POOL, input, ksize, strides, padding, data_format, ("NWC", "NCW"), name)


def _by_rank(pool1d, pool2d, input, ksize, strides, padding, data_format, name):
    x = convert_to_tensor(input)
    if x.shape.rank == 3:
        return pool1d(x, ksize, strides, padding, data_format or "NWC", name)
    if x.shape.rank == 4:
        return pool2d(x, ksize, strides, padding, data_format or "NHWC", name)
    raise ValueError(f"`input` must be of rank 3 or 4 (1-D or 2-D pooling), got shape {x.shape}")


def max_pool(input, ksize, strides, padding, data_format=None, name=None):
    """``max_pool1d`` or ``max_pool2d``, by the rank of ``input``."""
    return _by_rank(max_pool1d, max_pool2d, input, ksize, strides, padding, data_format, name)


def avg_pool(input, ksize, strides, padding, data_format=None, name=None):
    """``avg_pool1d`` or ``avg_pool2d``, by the rank of ``input``."""
    return _by_rank(avg_pool1d, avg_pool2d, input, ksize, strides, padding, data_format, name)


# --- samples: what the ops' tests run them on (runtime.ops.op_info) ---
from runtime.ops.op_info import Sample, op_info  # noqa: E402


def _pool_reference(reduce):
    """A loop over every output element of a channels-last 2-D pooling, in float64 (ints
    kept): the window's elements inside the input, reduced."""

    def reference(x, ksize, strides, padding, data_format="NHWC"):
        first = data_format == "NCHW"
        x = np.asarray(x).transpose(0, 2, 3, 1) if first else np.asarray(x)
        if x.dtype.kind == "f":
            x = x.astype(np.float64)
        (kh, kw), (sh, sw_) = _pair(ksize), _pair(strides)
        if padding == "SAME":
            oh, ow = -(-x.shape[1] // sh), -(-x.shape[2] // sw_)
            top = sw.same_padding(x.shape[1], kh, sh, 1)[0]
            left = sw.same_padding(x.shape[2], kw, sw_, 1)[0]
        else:
            oh, ow, top, left = (x.shape[1] - kh) // sh + 1, (x.shape[2] - kw) // sw_ + 1, 0, 0
        out = np.zeros((x.shape[0], oh, ow, x.shape[3]), x.dtype)
        for n, i, j, c in np.ndindex(out.shape):
            rows = range(max(i * sh - top, 0), min(i * sh - top + kh, x.shape[1]))
            cols = range(max(j * sw_ - left, 0), min(j * sw_ - left + kw, x.shape[2]))
            out[n, i, j, c] = reduce([x[n, r, q, c] for r in rows for q in cols])
        return out.transpose(0, 3, 1, 2) if first else out

    return reference


def _pool1d_reference(reduce):
    two = _pool_reference(reduce)

    def reference(x, ksize, strides, padding, data_format="NWC"):
        first = data_format == "NCW"
        out = two(np.expand_dims(x, 2 if first else 1), (1, ksize), (1, strides), padding,
                  "NCHW" if first else "NHWC")  # fmt: skip
        return out[:, :, 0] if first else out[:, 0]

    return reference


def _pair(value):
    return (value, value) if np.ndim(value) == 0 else tuple(value)


def _pool2d_samples(ints):
    def samples(rng):
        def draw(*shape, dtype="float64"):
            # Distinct values: a tie would make the maximum's gradient a choice.
            return rng.permutation(np.prod(shape)).reshape(shape).astype(dtype) / 4 - 2

        cases = [
            Sample((draw(2, 4, 5, 3, dtype="float32"),), {"ksize": 2, "strides": 2, "padding": "VALID"}),
            Sample((draw(1, 5, 5, 2),), {"ksize": 3, "strides": 2, "padding": "SAME"}),
            Sample((draw(1, 4, 3, 2),), {"ksize": [2, 3], "strides": 1, "padding": "SAME"}),
            Sample((draw(1, 2, 5, 4),), {"ksize": 2, "strides": [1, 2], "padding": "VALID", "data_format": "NCHW"}),
        ]  # fmt: skip
        if ints:
            x = rng.integers(-50, 50, (1, 3, 4, 2)).astype(np.int32)
            cases.append(Sample((x,), {"ksize": 2, "strides": 1, "padding": "SAME"}))
        return cases

    return samples


def _pool1d_samples(rng):
    def draw(*shape, dtype="float64"):
        return rng.permutation(np.prod(shape)).reshape(shape).astype(dtype) / 4 - 2

    return [
        Sample((draw(2, 7, 3, dtype="float32"),), {"ksize": 3, "strides": 2, "padding": "SAME"}),
        Sample((draw(1, 6, 2),), {"ksize": 2, "strides": 1, "padding": "VALID"}),
        Sample((draw(1, 2, 5),), {"ksize": 2, "strides": 2, "padding": "SAME", "data_format": "NCW"}),
    ]  # fmt: skip


op_info("rt.nn.max_pool2d", _pool2d_samples(True), _pool_reference(max))(max_pool2d)
op_info("rt.nn.avg_pool2d", _pool2d_samples(False), _pool_reference(np.mean))(avg_pool2d)
op_info("rt.nn.max_pool1d", _pool1d_samples, _pool1d_reference(max))(max_pool1d)
op_info("rt.nn.avg_pool1d", _pool1d_samples, _pool1d_reference(np.mean))(avg_pool1d)
