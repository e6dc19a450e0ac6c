"""Neural-network activations: ``relu`` and ``softmax``, with their gradients.

>>> import runtime as rt
>>> rt.nn.relu([-1.0, 2.0]).numpy()
array([0., 2.], dtype=float32)
"""

from __future__ import annotations

import numpy as np

from runtime.core import attr_kinds as kinds
from runtime.core.forms import Bound, Call, Form, Input, Operator
from runtime.core.op_def import OpDef
from runtime.ops.array_ops import expand_dims
from runtime.ops.constant_ops import convert_to_tensor, static_int
from runtime.ops.math_ops import add, multiply, subtract
from runtime.ops.reduction_ops import reduce_sum
from runtime.ops.registry import FLOATING, NUMERIC, bind, bind1, check_dtype, unary_spec

INTEGER = lambda d: d.is_integer  # noqa: E731


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


def _zero(op):
    """0 of the op's first input's dtype, bound: what relu compares with."""
    return Bound(op.inputs[0].dtype.as_numpy_dtype(0), "zero")


def _relu_grad_form(op):
    if not op.inputs[0].dtype.is_numeric:
        return None
    return Form(Operator("*", Input(0), Operator(">", Input(1), _zero(op))))


def _relu_grad(xp, g, y):
    """As TensorFlow's ReluGrad, ``g * (y > 0)``: 0 where y <= 0, but NaN where g is NaN or
    infinite there (NaN * 0), in every backend."""
    # A Python 0 keeps the dtype of the array it meets (numpy's NEP 50, JAX's weak types).
    if xp.backend == "numpy":
        return g * (y > 0)
    # XLA would simplify the product with a converted bool into a choice of g or 0.
    return xp.where(y > 0, g, g * 0)


RELU_GRAD = OpDef(
    "ReluGrad",
    None,
    _relu_grad_infer,
    # Linear in g; y only picks where it passes, so y's own gradient is zero almost everywhere.
    gradient=lambda op, gg: (relu_grad(gg, op.inputs[1]), None),
    python_form=_relu_grad_form,
    implementation=_relu_grad,
)


def relu_grad(grad, output):
    """``grad`` where ``output`` (a relu's) is positive, else 0: the gradient of relu."""
    return bind1(RELU_GRAD, [grad, output], name="ReluGrad")


def _relu_form(op):
    if not op.inputs[0].dtype.is_numeric:
        return None
    call = Call(Bound(np.maximum, "maximum", shared=True), Input(0), _zero(op))
    return Form(call, ufunc=np.maximum)


RELU = OpDef(
    "Relu",
    None,
    _numeric_unary_spec("Relu", NUMERIC),
    gradient=lambda op, g: (relu_grad(g, op.outputs[0]),),
    python_form=_relu_form,
    implementation=lambda xp, x: xp.maximum(x, 0),  # 0 keeps x's dtype (NEP 50, weak types)
)


def relu(features, name=None):
    """``max(x, 0)``.

    >>> relu([-1, 2]).numpy()
    array([0, 2], dtype=int32)
    """
    return bind1(RELU, [convert_to_tensor(features)], name=name or "Relu")


# --- softmax ------------------------------------------------------------------------------------


def _softmax(xp, x, axis):
    shifted = x - xp.max(x, axis=axis, keepdims=True)
    e = xp.exp(shifted)
    return e / xp.sum(e, axis=axis, keepdims=True)


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
    None,
    _softmax_infer,
    attrs={"axis": kinds.INT},
    gradient=_softmax_gradient,
    implementation=_softmax,
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


# --- sparse softmax cross-entropy ----------------------------------------------------------------


def _sparse_xent(xp, logits, labels):
    # Array methods rather than xp's functions: numpy's function wrappers cost more than this
    # op's arithmetic on a batch; JAX's arrays have the same methods.
    depth = logits.shape[-1]
    flat_labels = labels.reshape(-1)
    if flat_labels.size:
        bad = (flat_labels < 0) | (flat_labels >= depth)
        xp.check(
            bad,
            f"Received a label value of {{0}} which is outside the valid range of [0, {depth})",
            detail=lambda: flat_labels[xp.argmax(bad)],  # the first bad one
        )
    if logits.size == 0:  # no example, or no class (then no label either: checked above)
        return xp.zeros(labels.shape, logits.dtype), xp.zeros(logits.shape, logits.dtype)
    flat = logits.reshape(-1, depth)
    shifted = flat - flat.max(axis=1, keepdims=True)  # exp cannot overflow
    exp = xp.exp(shifted)
    sums = exp.sum(axis=1, keepdims=True)
    at_label = shifted[xp.arange(flat.shape[0]), flat_labels]
    loss = xp.log(sums[:, 0]) - at_label
    hot = flat_labels[:, None] == xp.arange(depth)
    backprop = exp / sums - hot  # softmax, minus 1 at the label: the loss's gradient
    return loss.reshape(labels.shape), backprop.reshape(logits.shape)


def _sparse_xent_infer(inputs, attrs):
    logits, labels = inputs
    check_dtype("SparseSoftmaxCrossEntropyWithLogits", logits, FLOATING, "logits")
    check_dtype("SparseSoftmaxCrossEntropyWithLogits", labels, INTEGER, "labels")
    if logits.shape.rank == 0:
        raise ValueError("sparse_softmax_cross_entropy_with_logits: logits must have rank >= 1")
    batch = logits.shape.as_list()[:-1] if logits.shape.rank is not None else None
    if batch is not None and not labels.shape.is_compatible_with(batch):
        raise ValueError(
            "sparse_softmax_cross_entropy_with_logits: labels must have the shape of logits "
            f"without its last axis: labels {labels.shape}, logits {logits.shape}"
        )
    loss_shape = labels.shape if batch is None else labels.shape.merge_with(batch)
    return [(logits.dtype, loss_shape), (logits.dtype, logits.shape)]


def _sparse_xent_gradient(op, loss_grad, backprop_grad):
    """``loss_grad * (softmax - onehot)``; through the second output (a gradient taken
    again), the softmax's own gradient."""
    backprop = op.outputs[1]
    grad = None
    if loss_grad is not None:
        grad = multiply(expand_dims(loss_grad, -1), backprop)
    if backprop_grad is not None:
        probs = softmax(op.inputs[0])
        inner = reduce_sum(multiply(backprop_grad, probs), -1, keepdims=True)
        second = multiply(subtract(backprop_grad, inner), probs)
        grad = second if grad is None else add(grad, second)
    return grad, None


SPARSE_SOFTMAX_XENT = OpDef(
    "SparseSoftmaxCrossEntropyWithLogits",
    None,
    _sparse_xent_infer,
    default_name="SparseSoftmaxCrossEntropyWithLogits",
    gradient=_sparse_xent_gradient,
    implementation=_sparse_xent,
)


def sparse_softmax_cross_entropy_with_logits(labels, logits, name=None):
    """``-log(softmax(logits)[label])`` for each example: ``labels`` holds class indices (an
    integer tensor with the shape of ``logits`` without its last axis). A label outside
    ``[0, classes)`` raises InvalidArgumentError when the op runs, as in TensorFlow.

    >>> loss = sparse_softmax_cross_entropy_with_logits([0, 1], [[0.0, 0.0], [0.0, 1.0]])
    >>> loss.numpy().round(4)
    array([0.6931, 0.3133], dtype=float32)
    """
    logits, labels = convert_to_tensor(logits), convert_to_tensor(labels)
    return bind(
        SPARSE_SOFTMAX_XENT, [logits, labels], name=name or "SparseSoftmaxCrossEntropyWithLogits"
    )[0]


# --- samples: what the op's tests run it on (runtime.ops.op_info) ---
from runtime.ops.op_info import Sample, by_element, floats, integers, joined, op_info  # noqa: E402


def _log_sum_exp(x, axis):
    """``log(sum(exp(x)))`` along ``axis`` by pairwise ``logaddexp``: not the kernels' shift."""
    return np.logaddexp.reduce(np.asarray(x, np.float64), axis=axis, keepdims=True)


def _softmax_reference(logits, axis=-1):
    return np.exp(logits - _log_sum_exp(logits, axis))


def _sparse_xent_reference(labels, logits):
    picked = np.take_along_axis(np.asarray(logits, np.float64), labels[..., None], axis=-1)
    return (_log_sum_exp(logits, -1) - picked)[..., 0]


def _sparse_xent_samples(rng):
    def logits(*shape, dtype="float64"):
        return rng.uniform(-3.0, 3.0, shape).astype(dtype)

    return [
        Sample((np.array([0, 3], np.int32), logits(2, 4, dtype="float32")), {}),
        Sample((np.array([2, 0, 1], np.int64), logits(3, 3)), {}),
        Sample((np.array(1, np.int32), logits(4)), {}),
        Sample((np.array([[1, 0], [2, 2]], np.int32), logits(2, 2, 3)), {}),
    ]


op_info(
    "rt.nn.relu",
    joined(floats(-3.0, 3.0, shapes=[(), (2, 4)]), integers(-5, 6, shapes=[(3,)])),
    by_element(lambda v: v if v > 0 else 0),
)(relu)
op_info(
    "rt.nn.softmax",
    joined(floats(-3.0, 3.0, shapes=[(3,), (2, 4)]), floats(-3.0, 3.0, shapes=[(2, 3)], kwargs=({"axis": 0},))),
    _softmax_reference,
)(softmax)  # fmt: skip
op_info(
    "rt.nn.sparse_softmax_cross_entropy_with_logits", _sparse_xent_samples, _sparse_xent_reference
)(sparse_softmax_cross_entropy_with_logits)
