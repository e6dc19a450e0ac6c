"""Neural-network activations: ``relu`` and ``softmax``, with their gradients.

>>> import runtime as rt
>>> rt.nn.relu([-1.0, 2.0]).numpy()
array([0., 2.], dtype=float32)
"""

from __future__ import annotations

import numpy as np

from runtime.core import attr_kinds as kinds
from runtime.core.op_def import OpDef
from runtime.ops.constant_ops import convert_to_tensor, static_int
from runtime.ops.math_ops import multiply, subtract
from runtime.ops.reduction_ops import reduce_sum
from runtime.ops.registry import FLOATING, NUMERIC, bind1, check_dtype, unary_spec


def _numeric_unary_spec(op_type, allowed):
    def infer(inputs, attrs):
        check_dtype(op_type, inputs[0], allowed)
        return unary_spec(inputs, attrs)

    return infer


# --- relu -------------------------------------------------------------------------------------


def _relu_grad_infer(inputs, attrs):
    g, y = inputs
    if g.dtype is not y.dtype or not g.shape.is_compatible_with(y.shape):
        raise TypeError(f"ReluGrad: gradient {g.dtype.name} {g.shape} for {y.dtype.name} {y.shape}")
    return [(g.dtype, g.shape.merge_with(y.shape))]


RELU_GRAD = OpDef(
    "ReluGrad",
    lambda g, y: g * (y > 0),  # as TensorFlow's ReluGrad: 0 where y <= 0 (g * False)
    _relu_grad_infer,
    # Linear in g; y only picks where it passes, so y's own gradient is zero almost everywhere.
    gradient=lambda op, gg: (relu_grad(gg, op.inputs[1]), None),
)


def relu_grad(grad, output):
    """``grad`` where ``output`` (a relu's) is positive, else 0: the gradient of relu."""
    return bind1(RELU_GRAD, [grad, output], name="ReluGrad")


RELU = OpDef(
    "Relu",
    lambda x: np.maximum(x, 0),
    _numeric_unary_spec("Relu", NUMERIC),
    gradient=lambda op, g: (relu_grad(g, op.outputs[0]),),
)


def relu(features, name=None):
    """``max(x, 0)``.

    >>> relu([-1, 2]).numpy()
    array([0, 2], dtype=int32)
    """
    return bind1(RELU, [convert_to_tensor(features)], name=name or "Relu")


# --- softmax ------------------------------------------------------------------------------------


def _softmax_kernel(x, axis):
    shifted = x - np.max(x, axis=axis, keepdims=True)
    e = np.exp(shifted)
    return e / np.sum(e, axis=axis, keepdims=True)


def _softmax_infer(inputs, attrs):
    check_dtype("Softmax", inputs[0], FLOATING)
    if inputs[0].shape.rank == 0:
        raise ValueError(
            "softmax needs a tensor of rank >= 1 (it normalises along an axis), got a scalar"
        )
    return unary_spec(inputs, attrs)


def _softmax_gradient(op, g):
    y, axis = op.outputs[0], op.attrs["axis"]
    return (multiply(subtract(g, reduce_sum(multiply(g, y), axis, keepdims=True)), y),)


SOFTMAX = OpDef(
    "Softmax",
    _softmax_kernel,
    _softmax_infer,
    attrs={"axis": kinds.INT},
    gradient=_softmax_gradient,
)


def softmax(logits, axis=-1, name=None):
    """``exp(x) / sum(exp(x))`` along ``axis``, computed stably.

    >>> softmax([0.0, 0.0]).numpy()
    array([0.5, 0.5], dtype=float32)
    """
    return bind1(
        SOFTMAX,
        [convert_to_tensor(logits)],
        {"axis": static_int(axis, "softmax: axis")},
        name or "Softmax",
    )
