"""Convolution: ``rt.nn.conv2d``, ``conv1d`` and ``convolution``, with their gradients.

One row computes a 2-D convolution of a channels-last input (``Conv2D``, as TensorFlow's);
its gradients are rows too (``Conv2DBackpropInput``, ``Conv2DBackpropFilter``), each the
other's gradient. A 1-D convolution is a 2-D one over a height of 1, as in TensorFlow; a
channels-first input is transposed. Every window is one row of a matrix multiplied by the
filter (``runtime.ops.sliding_windows``): no loop over pixels.

>>> import runtime as rt
>>> x = rt.reshape(rt.range(1.0, 6.0), [1, 5, 1])
>>> rt.nn.conv1d(x, [[[1.0]], [[-1.0]]], stride=1, padding="VALID")[0, :, 0].numpy()
array([-1., -1., -1., -1.], dtype=float32)
"""

from __future__ import annotations

import collections.abc

import numpy as np

from runtime import errors
from runtime.core.op_def import OpDef
from runtime.core.tensor_shape import TensorShape
from runtime.ops import sliding_windows as sw
from runtime.ops.array_ops import expand_dims, squeeze, transpose
from runtime.ops.broadcast_ops import zeros
from runtime.ops.constant_ops import convert_to_tensor
from runtime.ops.indexing_ops import gather
from runtime.ops.padding_ops import pad
from runtime.ops.registry import FLOATING, bind1, check_dtype

_ATTRS = {"strides": sw.POSITIVE_INTS, "padding": sw.PADDING, "dilations": sw.POSITIVE_INTS}


# --- what the rows compute ------------------------------------------------------------------


def _conv(xp, x, filters, strides, padding, dilations):
    window, channels = filters.shape[:-2], filters.shape[-1]
    pads = sw.paddings(x.shape[1:-1], window, strides, dilations, padding)
    win = sw.windows(xp, sw.padded(xp, x, pads), window, strides, dilations)
    rows = win.reshape((-1, filters[..., 0].size))  # one window a row: a copy, then one matmul
    out = xp.matmul(rows, filters.reshape((-1, channels)))
    return out.reshape((*win.shape[: x.ndim - 1], channels))


def _conv_backprop_input(xp, x, filters, grad, strides, padding, dilations):
    """Each window's share of ``grad`` (``grad @ filters.T``), added back where it was read."""
    window, features = filters.shape[:-1], filters.shape[-1]
    pads = sw.paddings(x.shape[1:-1], window[:-1], strides, dilations, padding)
    rows = xp.matmul(grad.reshape((-1, features)), filters.reshape((-1, features)).T)
    parts = rows.reshape((*grad.shape[:-1], *window))
    shape = (x.shape[0], *[n + b + a for n, (b, a) in zip(x.shape[1:-1], pads)], x.shape[-1])
    return sw.cropped(sw.scatter_windows(xp, parts, shape, strides, dilations), pads)


def _conv_backprop_filter(xp, x, filters, grad, strides, padding, dilations):
    """Every window times its output's gradient, summed over the batch and positions."""
    window, (channels, features) = filters.shape[:-2], filters.shape[-2:]
    pads = sw.paddings(x.shape[1:-1], window, strides, dilations, padding)
    x = sw.padded(xp, x, pads)
    grad = grad.reshape((-1, features))
    if channels == 1:
        # Copying the windows' view is slow when its rows are one element: one product per
        # window position instead, each over a plain slice (measured faster only here).
        positions = sw.window_positions(x, window, strides, dilations)
        parts = [xp.matmul(x[index].reshape((-1, channels)).T, grad) for index in positions]
        return xp.stack(parts).reshape(filters.shape)
    rows = sw.windows(xp, x, window, strides, dilations).reshape((-1, filters[..., 0].size))
    return xp.matmul(rows.T, grad).reshape(filters.shape)


# --- shapes ---------------------------------------------------------------------------------


def _dims(shape, rank, what, op_type):
    if shape.rank is None:
        return [None] * rank
    if shape.rank != rank:
        raise ValueError(f"{op_type}: {what} must be {rank}-dimensional, got shape {shape}")
    return shape.as_list()


def conv_output_shape(op_type, x_shape, window, strides, dilations, padding, channels):
    """``(batch, *out, channels)``; ValueError (TensorFlow's words) where a VALID window
    does not fit in the input."""
    batch, *spatial, _ = x_shape
    out = []
    for size, k, s, d in zip(spatial, window, strides, dilations):
        n = sw.output_size(size, k, s, d, padding) if k is not None else None
        if n is not None and padding == "VALID" and size < (k - 1) * d + 1:
            raise ValueError(
                f"Negative dimension size caused by subtracting {(k - 1) * d + 1} from {size} "
                f"for '{op_type}' with input shape {list(x_shape)}"
            )
        out.append(n)
    return TensorShape([batch, *out, channels])


def _conv_infer(inputs, attrs):
    x, filters = inputs
    check_dtype("Conv2D", x, FLOATING)
    if filters.dtype is not x.dtype:
        raise TypeError(f"Conv2D: filters of {filters.dtype.name} for an input of {x.dtype.name}")
    x_dims = _dims(x.shape, 4, "input", "Conv2D")
    f_dims = _dims(filters.shape, 4, "filters", "Conv2D")
    if None not in (x_dims[-1], f_dims[-2]) and x_dims[-1] != f_dims[-2]:
        raise ValueError(
            f"Dimensions must be equal, but are {x_dims[-1]} and {f_dims[-2]} for 'Conv2D' "
            f"with input shapes: {list(x.shape)}, {list(filters.shape)}."
        )
    shape = conv_output_shape(
        "Conv2D",
        x_dims,
        f_dims[:2],
        attrs["strides"],
        attrs["dilations"],
        attrs["padding"],
        f_dims[-1],
    )
    return [(x.dtype, shape)]


def _same_as(index):
    def infer(inputs, attrs):
        return [(inputs[index].dtype, inputs[index].shape)]

    return infer


# --- gradients: each row's gradients are the others -----------------------------------------


def _conv_gradient(op, grad):
    x, filters = op.inputs
    return (
        _bind(CONV2D_BACKPROP_INPUT, [x, filters, grad], op.attrs),
        _bind(CONV2D_BACKPROP_FILTER, [x, filters, grad], op.attrs),
    )


def _backprop_input_gradient(op, grad):
    """Linear in ``filters`` and in the output gradient; ``x`` gives only its shape."""
    x, filters, out_grad = op.inputs
    return (
        None,
        _bind(CONV2D_BACKPROP_FILTER, [grad, filters, out_grad], op.attrs),
        _bind(CONV2D, [grad, filters], op.attrs),
    )


def _backprop_filter_gradient(op, grad):
    x, filters, out_grad = op.inputs
    return (
        _bind(CONV2D_BACKPROP_INPUT, [x, grad, out_grad], op.attrs),
        None,
        _bind(CONV2D, [x, grad], op.attrs),
    )


def _bind(opdef, inputs, attrs):
    return bind1(opdef, inputs, dict(attrs), opdef.type)


CONV2D = OpDef(
    "Conv2D", None, _conv_infer, attrs=_ATTRS, gradient=_conv_gradient, implementation=_conv
)
CONV2D_BACKPROP_INPUT = OpDef(
    "Conv2DBackpropInput",
    None,
    _same_as(0),
    attrs=_ATTRS,
    gradient=_backprop_input_gradient,
    implementation=_conv_backprop_input,
)
CONV2D_BACKPROP_FILTER = OpDef(
    "Conv2DBackpropFilter",
    None,
    _same_as(1),
    attrs=_ATTRS,
    gradient=_backprop_filter_gradient,
    implementation=_conv_backprop_filter,
)


# --- the public functions: TensorFlow's arguments ---------------------------------------------


def spatial_ints(value, n, channels_first, name):
    """TensorFlow's strides, dilations or ksize: an int, or 1, ``n`` or ``n + 2`` ints (the
    last with 1 at batch and channels) -> the ``n`` spatial ones."""
    if value is None:
        value = [1]
    elif not isinstance(value, collections.abc.Sized):
        value = [value]
    value = [int(v) for v in value]
    if len(value) == n + 2:
        outer = (value[0], value[1]) if channels_first else (value[0], value[-1])
        if outer != (1, 1):
            raise errors.UnimplementedError(
                f"Current implementation does not yet support {name} in the batch and depth "
                "dimensions."
            )
        return tuple(value[2:] if channels_first else value[1:-1])
    if len(value) == 1:
        value = value * n
    if len(value) != n:
        raise ValueError(
            f"{name} should be of length 1, {n} or {n + 2}. Received: {name}={value} of "
            f"length {len(value)}"
        )
    if min(value) < 1:
        raise ValueError(f"{name} must be positive, got {value}")
    return tuple(value)


def channels_first(data_format, last, first):
    """Whether ``data_format`` (``last`` or ``first``, or None: ``last``) puts channels first."""
    if data_format is None or data_format == last:
        return False
    if data_format == first:
        return True
    raise ValueError(f"data_format must be {last!r} or {first!r}, got {data_format!r}")


def to_channels_last(x, first):
    if not first:
        return x
    rank = x.shape.rank
    return transpose(x, [0, *range(2, rank), 1])


def from_channels_last(x, first):
    if not first:
        return x
    rank = x.shape.rank
    return transpose(x, [0, rank - 1, *range(1, rank - 1)])


def _explicit_padding(x, padding, first):
    """An explicit padding ``[[0, 0], [top, bottom], [left, right], [0, 0]]`` (in the data
    format's order) applied to channels-last ``x``: then the convolution is VALID."""
    pairs = [tuple(int(v) for v in pair) for pair in padding]
    if len(pairs) != 4 or any(len(p) != 2 for p in pairs):
        raise ValueError(f"padding must be of length 4 when explicit, got {padding!r}")
    spatial = pairs[2:] if first else pairs[1:3]
    outer = pairs[:2] if first else [pairs[0], pairs[3]]
    if any(outer[0]) or any(outer[1]):
        raise ValueError(
            f"The padding of the batch and depth dimensions must be 0, got {padding!r}"
        )
    return pad(x, [[0, 0], *spatial, [0, 0]])


def conv2d(input, filters, strides, padding, data_format="NHWC", dilations=None, name=None):
    """The 2-D convolution of ``input`` ``(batch, height, width, in_channels)`` with
    ``filters`` ``(height, width, in_channels, out_channels)`` (strictly, the
    cross-correlation: the filter is not flipped).

    ``strides`` and ``dilations``: an int, 2 ints, or 4 (1 at batch and channels).
    ``padding``: ``"VALID"`` (windows inside the input), ``"SAME"`` (zeros around it so
    that ``out = ceil(in / stride)``, the odd one after), or explicit pairs of the 4 dims.
    ``data_format="NCHW"`` takes and gives channels first.

    >>> x = np.arange(9.0, dtype=np.float32).reshape(1, 3, 3, 1)
    >>> conv2d(x, np.ones((2, 2, 1, 1), np.float32), 1, "VALID")[0, :, :, 0].numpy()
    array([[ 8., 12.],
           [20., 24.]], dtype=float32)
    """
    first = channels_first(data_format, "NHWC", "NCHW")
    x = to_channels_last(convert_to_tensor(input), first)
    filters = convert_to_tensor(filters, dtype_hint=x.dtype)
    attrs = {
        "strides": spatial_ints(strides, 2, first, "strides"),
        "dilations": spatial_ints(dilations, 2, first, "dilations"),
    }
    if isinstance(padding, (list, tuple)):
        x, padding = _explicit_padding(x, padding, first), "VALID"
    attrs["padding"] = sw.checked_padding(padding)
    return from_channels_last(bind1(CONV2D, [x, filters], attrs, name or "Conv2D"), first)


def conv1d(input, filters, stride, padding, data_format="NWC", dilations=None, name=None):
    """The 1-D convolution of ``input`` ``(batch, width, in_channels)`` with ``filters``
    ``(width, in_channels, out_channels)``: a 2-D one over a height of 1, as in TensorFlow.

    >>> conv1d([[[1.0], [2.0], [4.0]]], [[[1.0]], [[1.0]]], 1, "SAME")[0, :, 0].numpy()
    array([3., 6., 4.], dtype=float32)
    """
    first = channels_first(data_format, "NWC", "NCW")
    x = convert_to_tensor(input)
    filters = convert_to_tensor(filters, dtype_hint=x.dtype)
    stride = (1, *spatial_ints(stride, 1, first, "stride"))
    dilations = (1, *spatial_ints(dilations, 1, first, "dilations"))
    height = 2 if first else 1
    out = conv2d(
        expand_dims(x, height),
        expand_dims(filters, 0),
        stride,
        padding,
        "NCHW" if first else "NHWC",
        dilations,
        name or "conv1d",
    )
    return squeeze(out, [height])


def convolution(input, filters, strides=None, padding="VALID", data_format=None, dilations=None, name=None):  # fmt: skip
    """``conv1d`` or ``conv2d``, by the rank of ``input`` (3 or 4).

    >>> convolution(np.ones((1, 4, 4, 2), np.float32), np.ones((3, 3, 2, 1), np.float32)).shape
    TensorShape([1, 2, 2, 1])
    """
    x = convert_to_tensor(input)
    if x.shape.rank == 3:
        return conv1d(x, filters, strides, padding, data_format or "NWC", dilations, name)
    if x.shape.rank == 4:
        return conv2d(x, filters, strides, padding, data_format or "NHWC", dilations, name)
    raise ValueError(
        f"`input` must be of rank 3 or 4 (1-D or 2-D convolution), got shape {x.shape}"
    )


def conv2d_transpose(input, filters, output_shape, strides, padding="SAME", data_format="NHWC", dilations=None, name=None):  # fmt: skip
    """The transpose of ``conv2d`` (the gradient of a convolution with respect to its
    input): ``input`` ``(batch, height, width, in_channels)`` spread through ``filters``
    ``(height, width, out_channels, in_channels)`` onto ``output_shape``, the shape of the
    convolution's input (``[batch, height, width, out_channels]``, in ``data_format``'s
    order; ints or scalar tensors). ``conv2d`` of a tensor of ``output_shape`` with the same
    filters, strides and padding must have ``input``'s height and width.

    >>> x = np.ones((1, 2, 2, 1), np.float32)
    >>> conv2d_transpose(x, np.ones((2, 2, 1, 1), np.float32), [1, 4, 4, 1], 2)[0, :, :, 0].numpy()
    array([[1., 1., 1., 1.],
           [1., 1., 1., 1.],
           [1., 1., 1., 1.],
           [1., 1., 1., 1.]], dtype=float32)
    """
    first = channels_first(data_format, "NHWC", "NCHW")
    x = to_channels_last(convert_to_tensor(input), first)
    filters = convert_to_tensor(filters, dtype_hint=x.dtype)
    attrs = {
        "strides": spatial_ints(strides, 2, first, "strides"),
        "dilations": spatial_ints(dilations, 2, first, "dilations"),
        "padding": sw.checked_padding(padding),
    }
    shape = _channels_last_shape(output_shape, first)
    template = zeros(shape, x.dtype)  # the convolution's input: only its shape is read
    _check_transpose_shapes(x, filters, template.shape, attrs)
    out = bind1(CONV2D_BACKPROP_INPUT, [template, filters, x], attrs, name or "conv2d_transpose")
    return from_channels_last(out, first)


def _channels_last_shape(output_shape, first):
    """``output_shape`` (a list or a 1-D tensor of 4) in channels-last order."""
    if isinstance(output_shape, (list, tuple)):
        if len(output_shape) != 4:
            raise ValueError(f"output_shape must have shape (4,), got {list(output_shape)}")
        dims = list(output_shape)
        return [dims[0], dims[2], dims[3], dims[1]] if first else dims
    output_shape = convert_to_tensor(output_shape)
    if output_shape.shape.rank != 1 or output_shape.shape[0] not in (None, 4):
        raise ValueError(f"output_shape must have shape (4,), got shape {output_shape.shape}")
    return gather(output_shape, [0, 2, 3, 1]) if first else output_shape


def _check_transpose_shapes(x, filters, out_shape, attrs):
    """TensorFlow's InvalidArgumentError where the known shapes do not fit together: the
    filters' last dim against the input's channels, their third against the output's, and
    the convolution of the output's height and width against the input's (groups, which
    TensorFlow allows where the output's channels are a multiple, are not supported)."""
    x_dims = _dims(x.shape, 4, "input", "Conv2DBackpropInput")
    f_dims = _dims(filters.shape, 4, "filters", "Conv2DBackpropInput")
    out_dims = _dims(out_shape, 4, "output_shape", "Conv2DBackpropInput")
    label = "Conv2DCustomBackpropInput"
    if None not in (x_dims[-1], f_dims[-1]) and x_dims[-1] != f_dims[-1]:
        raise errors.InvalidArgumentError(
            f"{label}: filter and out_backprop must have the same out_depth "
            f"(filters of shape {f_dims}, input of shape {x_dims})"
        )
    if None not in (out_dims[-1], f_dims[-2]) and out_dims[-1] != f_dims[-2]:
        raise errors.InvalidArgumentError(
            f"{label}: input depth must be evenly divisible by filter depth "
            f"(filters of shape {f_dims}, output_shape {out_dims})"
        )
    for dim, (size, computed_from, k, s, d) in enumerate(
        zip(x_dims[1:3], out_dims[1:3], f_dims[:2], attrs["strides"], attrs["dilations"])
    ):
        if None in (size, computed_from, k):
            continue
        computed = sw.output_size(computed_from, k, s, d, attrs["padding"])
        if computed != size:
            raise errors.InvalidArgumentError(
                "Conv2DCustomBackpropInput: Size of out_backprop doesn't match computed: "
                f"actual = {size}, computed = {computed} spatial_dim: {dim + 1} input: "
                f"{computed_from} filter: {k} output: {size} stride: {s} dilation: {d}"
            )


# --- samples: what the ops' tests run them on (runtime.ops.op_info) ---
from runtime.ops.op_info import Sample, op_info  # noqa: E402


def _conv2d_reference(x, filters, strides, padding, data_format="NHWC", dilations=None):
    """A loop over every output element: TensorFlow's definition, in float64."""
    x = np.asarray(x, np.float64)
    if data_format == "NCHW":
        x = x.transpose(0, 2, 3, 1)
    (sh, sw_), (dh, dw) = _pair(strides), _pair(dilations or 1)
    kh, kw, _, features = np.shape(filters)
    if padding == "SAME":
        (top, _b), (left, _r) = (
            sw.same_padding(x.shape[1], kh, sh, dh),
            sw.same_padding(x.shape[2], kw, sw_, dw),
        )
        oh, ow = -(-x.shape[1] // sh), -(-x.shape[2] // sw_)
    else:
        top = left = 0
        oh = (x.shape[1] - (kh - 1) * dh - 1) // sh + 1
        ow = (x.shape[2] - (kw - 1) * dw - 1) // sw_ + 1
    out = np.zeros((x.shape[0], oh, ow, features))
    for n, i, j, f in np.ndindex(out.shape):
        for a, b, c in np.ndindex(kh, kw, x.shape[3]):
            row, col = i * sh + a * dh - top, j * sw_ + b * dw - left
            if 0 <= row < x.shape[1] and 0 <= col < x.shape[2]:
                out[n, i, j, f] += x[n, row, col, c] * filters[a, b, c, f]
    return out.transpose(0, 3, 1, 2) if data_format == "NCHW" else out


def _conv2d_transpose_reference(x, filters, output_shape, strides, padding="SAME", data_format="NHWC", dilations=None):  # fmt: skip
    """Each input pixel times the filters, added into the (padded) output where the
    convolution would have read it: TensorFlow's definition, in float64."""
    x = np.asarray(x, np.float64)
    first = data_format == "NCHW"
    if first:
        x = x.transpose(0, 2, 3, 1)
        output_shape = [output_shape[i] for i in (0, 2, 3, 1)]
    (sh, sw_), (dh, dw) = _pair(strides), _pair(dilations or 1)
    kh, kw = np.shape(filters)[:2]
    pads = [(0, 0), (0, 0)]
    if padding == "SAME":
        pads = [sw.same_padding(output_shape[1], kh, sh, dh), sw.same_padding(output_shape[2], kw, sw_, dw)]  # fmt: skip
    (top, bottom), (left, right) = pads
    out = np.zeros((output_shape[0], output_shape[1] + top + bottom, output_shape[2] + left + right, output_shape[3]))  # fmt: skip
    for n, i, j, a, b in np.ndindex(x.shape[0], x.shape[1], x.shape[2], kh, kw):
        out[n, i * sh + a * dh, j * sw_ + b * dw] += filters[a, b] @ x[n, i, j]
    out = out[:, top : top + output_shape[1], left : left + output_shape[2]]
    return out.transpose(0, 3, 1, 2) if first else out


def _pair(value):
    return (value, value) if np.ndim(value) == 0 else tuple(value)


def _conv1d_reference(x, filters, stride, padding, data_format="NWC", dilations=None):
    first = data_format == "NCW"
    out = _conv2d_reference(
        np.expand_dims(x, 2 if first else 1),
        np.expand_dims(filters, 0),
        (1, stride),
        padding,
        "NCHW" if first else "NHWC",
        (1, dilations or 1),
    )
    return out[:, :, 0] if first else out[:, 0]


def _conv2d_samples(rng):
    def draw(*shape, dtype="float64"):
        return rng.uniform(-2.0, 2.0, shape).astype(dtype)

    return [
        Sample((draw(2, 5, 4, 3, dtype="float32"), draw(3, 2, 3, 2, dtype="float32")), {"strides": 1, "padding": "VALID"}),
        Sample((draw(1, 5, 6, 2), draw(3, 3, 2, 3)), {"strides": 2, "padding": "SAME"}),
        Sample((draw(1, 6, 5, 1, dtype="float32"), draw(2, 2, 1, 2, dtype="float32")), {"strides": 1, "padding": "SAME", "dilations": 2}),
        Sample((draw(1, 2, 4, 5), draw(2, 3, 2, 1)), {"strides": [1, 2], "padding": "VALID", "data_format": "NCHW"}),
    ]  # fmt: skip


def _conv2d_transpose_samples(rng):
    def draw(*shape, dtype="float64"):
        return rng.uniform(-2.0, 2.0, shape).astype(dtype)

    return [
        Sample((draw(2, 3, 3, 2, dtype="float32"), draw(3, 3, 4, 2, dtype="float32")), {"output_shape": [2, 6, 6, 4], "strides": 2, "padding": "SAME"}),
        Sample((draw(1, 3, 4, 2), draw(2, 3, 3, 2)), {"output_shape": [1, 7, 9, 3], "strides": 2, "padding": "VALID"}),
        Sample((draw(1, 4, 3, 1), draw(4, 4, 2, 1)), {"output_shape": [1, 8, 6, 2], "strides": [2, 2], "padding": "SAME"}),
        Sample((draw(1, 5, 4, 2), draw(2, 2, 1, 2)), {"output_shape": [1, 5, 4, 1], "strides": 1, "padding": "SAME", "dilations": 2}),
        Sample((draw(1, 2, 3, 3), draw(2, 3, 2, 2)), {"output_shape": [1, 2, 6, 5], "strides": [2, 1], "padding": "VALID", "data_format": "NCHW"}),
    ]  # fmt: skip


def _conv1d_samples(rng):
    def draw(*shape, dtype="float64"):
        return rng.uniform(-2.0, 2.0, shape).astype(dtype)

    return [
        Sample((draw(2, 7, 3, dtype="float32"), draw(3, 3, 2, dtype="float32")), {"stride": 2, "padding": "SAME"}),
        Sample((draw(1, 8, 2), draw(2, 2, 2)), {"stride": 1, "padding": "VALID", "dilations": 3}),
        Sample((draw(1, 2, 6), draw(3, 2, 1)), {"stride": 1, "padding": "SAME", "data_format": "NCW"}),
    ]  # fmt: skip


op_info("rt.nn.conv2d", _conv2d_samples, _conv2d_reference)(conv2d)
op_info("rt.nn.conv1d", _conv1d_samples, _conv1d_reference)(conv1d)
op_info("rt.nn.conv2d_transpose", _conv2d_transpose_samples, _conv2d_transpose_reference)(conv2d_transpose)  # fmt: skip
