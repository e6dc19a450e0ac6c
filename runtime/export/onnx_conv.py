"""The ONNX forms of convolution and pooling: ``Conv``, ``MaxPool``, ``AveragePool``.

ONNX takes channels first and a filter ``(out, in, *window)``, the runtime's rows channels
last and ``(*window, in, out)``: each form transposes on the way in and out. TensorFlow's
SAME padding puts the odd element after, ONNX's ``SAME_UPPER``; an average excludes the
padding in both (ONNX's ``count_include_pad=0``, its default). A dilated SAME convolution
gets explicit ``pads`` instead: onnxruntime refuses ``SAME_UPPER`` with dilations, so its
spatial sizes must be known when it is exported.

``Conv2DBackpropInput`` (``rt.nn.conv2d_transpose``, a ``Conv2DTranspose`` layer) is ONNX's
``ConvTranspose``, with the padding spelled out from the known output shape. The other
gradients' rows have no ONNX form: ONNX computes a model's values, and a function that
exports its gradient is rare enough to be refused with the reason.

>>> from runtime.ops.conv_ops import CONV2D
>>> CONV2D in CONV_LOWERINGS
True
"""

from __future__ import annotations

from runtime.core import dtypes
from runtime.export.onnx_types import work_dtype
from runtime.ops import conv_ops, pooling_ops
from runtime.ops import sliding_windows as sw

_TO_FIRST, _TO_LAST = [0, 3, 1, 2], [0, 2, 3, 1]
_AUTO_PAD = {"VALID": "VALID", "SAME": "SAME_UPPER"}
# onnxruntime's kernels: Conv and AveragePool of float32 only (float64 is refused rather
# than computed with half its digits); MaxPool of floats and 8-bit ints.
_FLOAT32 = frozenset({dtypes.float32})
_MAX_POOL = frozenset({dtypes.float32, dtypes.float64, dtypes.int8, dtypes.uint8})
_EXACT_IN_FLOAT64 = frozenset({dtypes.int16, dtypes.int32})  # a maximum picks, never rounds


def _padding(b, op, window, strides, dilations):
    """``auto_pad``, or explicit ``pads`` (ONNX: all begins, then all ends) where a dilated
    SAME convolution needs them."""
    if op.attrs["padding"] == "VALID" or all(d == 1 for d in dilations):
        return {"auto_pad": _AUTO_PAD[op.attrs["padding"]]}
    spatial = op.inputs[0].shape.as_list()[1:-1]
    if any(size is None for size in spatial):
        raise b.unsupported(
            f"a dilated SAME convolution needs its input's spatial sizes, got {spatial}: "
            "onnxruntime refuses SAME_UPPER with dilations, so the padding must be explicit"
        )
    pads = [sw.same_padding(*dims) for dims in zip(spatial, window, strides, dilations)]
    return {"pads": [before for before, _ in pads] + [after for _, after in pads]}


def _channels_first_node(b, op, op_type, inputs, supported, **attributes):
    """``op_type`` on ``inputs`` transposed to channels first, its result transposed back,
    computed in a type onnxruntime has (float16 in float32, int32 maxima in float64)."""
    dtype = op.inputs[0].dtype
    try:
        work = work_dtype(dtype, supported)
    except ValueError as e:
        if op_type != "MaxPool" or dtype not in _EXACT_IN_FLOAT64:
            raise b.unsupported(f"{op_type} of {dtype.name}: {e}") from None
        work = dtypes.float64
    if work is not dtype:
        inputs = [b.cast(x, work) for x in inputs]
    inputs[0] = b.node1("Transpose", [inputs[0]], perm=_TO_FIRST)
    out = b.node1(op_type, inputs, **attributes)
    out = b.node1("Transpose", [out], perm=_TO_LAST)
    return [out if work is dtype else b.cast(out, dtype)]


def _conv(b, op, inputs):
    x, filters = inputs
    filters = b.node1("Transpose", [filters], perm=[3, 2, 0, 1])
    strides, dilations = list(op.attrs["strides"]), list(op.attrs["dilations"])
    window = op.inputs[1].shape.as_list()[:2]
    return _channels_first_node(
        b, op, "Conv", [x, filters], _FLOAT32, strides=strides, dilations=dilations,
        **_padding(b, op, window, strides, dilations),
    )  # fmt: skip


def _pool(op_type, supported):
    def rule(b, op, inputs):
        attrs = op.attrs
        return _channels_first_node(
            b, op, op_type, list(inputs), supported,
            kernel_shape=list(attrs["ksize"]), strides=list(attrs["strides"]),
            auto_pad=_AUTO_PAD[attrs["padding"]],
        )  # fmt: skip

    return rule


def _spatial_sizes(b, tensor, what):
    dims = tensor.shape.as_list() if tensor.shape.rank is not None else [None] * 4
    if None in dims[1:3]:
        raise b.unsupported(f"ConvTranspose needs the {what}'s height and width known: {dims}")
    return dims[1:3]


def _conv_transpose(b, op, inputs):
    """``ConvTranspose`` of the output gradient onto the template's height and width: the
    padding TensorFlow puts around the convolution's input, and the rows and columns past
    the last window (``output_padding``), made explicit."""
    _template, filters, grad = inputs
    template, kernel, out_grad = op.inputs
    attrs = op.attrs
    window = kernel.shape.as_list()[:2]
    pads, extras = [], []
    for out, n, k, s, d in zip(
        _spatial_sizes(b, template, "output"), _spatial_sizes(b, out_grad, "input"),
        window, attrs["strides"], attrs["dilations"],
    ):  # fmt: skip
        before, after = sw.paddings([out], [k], [s], [d], attrs["padding"])[0]
        pads.append((before, after))
        extras.append(out + before + after - ((n - 1) * s + (k - 1) * d + 1))
    dtype = out_grad.dtype
    work = _work_dtype(b, dtype, _FLOAT32, "ConvTranspose")
    x, filters = [b.cast(v, work) if work is not dtype else v for v in (grad, filters)]
    x = b.node1("Transpose", [x], perm=_TO_FIRST)
    filters = b.node1("Transpose", [filters], perm=[3, 2, 0, 1])  # (in, out, *window)
    out = b.node1(
        "ConvTranspose", [x, filters],
        strides=list(attrs["strides"]), dilations=list(attrs["dilations"]),
        pads=[p[0] for p in pads] + [p[1] for p in pads], output_padding=extras,
    )  # fmt: skip
    out = b.node1("Transpose", [out], perm=_TO_LAST)
    return [out if work is dtype else b.cast(out, dtype)]


def _work_dtype(b, dtype, supported, op_type):
    try:
        return work_dtype(dtype, supported)
    except ValueError as e:
        raise b.unsupported(f"{op_type} of {dtype.name}: {e}") from None


CONV_LOWERINGS = {
    conv_ops.CONV2D: _conv,
    conv_ops.CONV2D_BACKPROP_INPUT: _conv_transpose,
    pooling_ops.MAX_POOL: _pool("MaxPool", _MAX_POOL),
    pooling_ops.AVG_POOL: _pool("AveragePool", _FLOAT32),
}

_GRADIENT = "it computes a convolution's or a pooling's gradient, which ONNX models do not"
UNEXPORTABLE_CONV_GRADIENTS = {
    opdef: _GRADIENT
    for opdef in (
        conv_ops.CONV2D_BACKPROP_FILTER,
        pooling_ops.MAX_POOL_GRAD,
        pooling_ops.MAX_POOL_GRAD_GRAD,
        pooling_ops.AVG_POOL_GRAD,
    )
}
