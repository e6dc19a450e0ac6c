"""Keras 3's activations (``keras.activations``), by function or by name.

Each is a composite of ``rt`` ops, so its gradient, its graph form and its XLA form are
those of the ops it is made of.

>>> import runtime as rt
>>> rt.keras.activations.get("relu")(rt.constant([-1.0, 2.0])).numpy()
array([0., 2.], dtype=float32)
>>> rt.keras.activations.relu(rt.constant([-10.0, 1.0, 20.0]), negative_slope=0.5, max_value=6.0).numpy()
array([-5.,  1.,  6.], dtype=float32)
>>> rt.keras.activations.serialize(rt.keras.activations.silu)
'silu'
"""

from __future__ import annotations

from runtime.keras import _math as math_ops
from runtime.keras._config import deserialize_object, serialize_object
from runtime.ops import activation_ops, nn_ops
from runtime.ops.array_ops import expand_dims, shape_of, split, stack, stop_gradient, zeros_like
from runtime.ops.broadcast_ops import where
from runtime.ops.constant_ops import cast, convert_to_tensor

_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


def _tensor(x):
    return convert_to_tensor(x)


def _clip(x, low, high):
    return math_ops.minimum(math_ops.maximum(x, low), high)


def relu(x, negative_slope=0.0, max_value=None, threshold=0.0):
    """``max(x, 0)``; below ``threshold`` the output is ``negative_slope * (x - threshold)``
    and it stops at ``max_value``.

    >>> relu([-10.0, 5.0, 10.0], threshold=5.0).numpy()
    array([ 0.,  0., 10.], dtype=float32)
    """
    x = _tensor(x)
    if negative_slope != 0 and max_value is None and threshold == 0:
        return leaky_relu(x, negative_slope=negative_slope)
    negative_part = None
    if negative_slope != 0:
        negative_part = nn_ops.relu(threshold - x) if threshold != 0 else nn_ops.relu(-x)
    if threshold != 0:
        x = where(math_ops.greater(x, cast(threshold, x.dtype)), x, zeros_like(x))
    else:
        x = nn_ops.relu(x)
    if max_value is not None:
        x = _clip(x, cast(0, x.dtype), cast(max_value, x.dtype))
    if negative_part is not None:
        x = x - math_ops.multiply(negative_part, cast(negative_slope, x.dtype))
    return x


def leaky_relu(x, negative_slope=0.2):
    """``x`` where ``x > 0``, else ``negative_slope * x``."""
    return math_ops.leaky_relu(x, negative_slope)


def relu6(x):
    """``min(max(x, 0), 6)``."""
    x = _tensor(x)
    return _clip(x, cast(0, x.dtype), cast(6, x.dtype))


def _reduction_axes(x, axis):
    return tuple(axis) if isinstance(axis, (tuple, list)) else axis


def softmax(x, axis=-1):
    """``exp(x) / sum(exp(x))`` along ``axis``, an int or a tuple of ints.

    >>> softmax([[1.0, 1.0], [1.0, 1.0]], axis=(0, 1)).numpy()
    array([[0.25, 0.25],
           [0.25, 0.25]], dtype=float32)
    """
    x = _tensor(x)
    if not isinstance(axis, (tuple, list)):
        return nn_ops.softmax(x, axis=axis)
    axes = _reduction_axes(x, axis)
    exps = math_ops.exp(x - stop_gradient(math_ops.reduce_max(x, axis=axes, keepdims=True)))
    return exps / math_ops.reduce_sum(exps, axis=axes, keepdims=True)


def log_softmax(x, axis=-1):
    """``x - log(sum(exp(x)))`` along ``axis``, an int or a tuple of ints."""
    x = _tensor(x)
    return activation_ops.log_softmax(x, _reduction_axes(x, axis))


def _expm1_of_negative_part(x):
    """``exp(min(x, 0)) - 1``: the branch a ``where`` drops never overflows (no NaN
    gradient from ``0 * inf``)."""
    return math_ops.expm1(math_ops.minimum(x, cast(0, x.dtype)))


def elu(x, alpha=1.0):
    """``x`` for ``x > 0``, else ``alpha * (exp(x) - 1)``."""
    x = _tensor(x)
    negative = math_ops.multiply(_expm1_of_negative_part(x), cast(alpha, x.dtype))
    return where(math_ops.greater(x, cast(0, x.dtype)), x, negative)


def selu(x):
    """``scale * elu(x, alpha)`` with Keras' constants ``alpha=1.67326324``,
    ``scale=1.05070098``."""
    x = _tensor(x)
    return math_ops.multiply(elu(x, _SELU_ALPHA), cast(_SELU_SCALE, x.dtype))


def celu(x, alpha=1.0):
    """``max(x, 0) + min(0, alpha * (exp(x / alpha) - 1))``."""
    x = _tensor(x)
    alpha = cast(alpha, x.dtype)
    negative = math_ops.multiply(_expm1_of_negative_part(x / alpha), alpha)
    return where(math_ops.greater_equal(x, cast(0, x.dtype)), x, negative)


def softplus(x):
    """``log(exp(x) + 1)``, computed without overflow."""
    return math_ops.softplus(_tensor(x))


def softsign(x):
    """``x / (abs(x) + 1)``."""
    x = _tensor(x)
    return x / (math_ops.abs(x) + cast(1, x.dtype))


def soft_shrink(x, threshold=0.5):
    """``x - threshold`` above ``threshold``, ``x + threshold`` below ``-threshold``, else 0."""
    x = _tensor(x)
    t = cast(threshold, x.dtype)
    zero = zeros_like(x)
    return where(math_ops.greater(x, t), x - t, where(math_ops.less(x, -t), x + t, zero))


def hard_shrink(x, threshold=0.5):
    """``x`` where ``abs(x) > threshold``, else 0."""
    x = _tensor(x)
    keep = math_ops.greater(math_ops.abs(x), cast(threshold, x.dtype))
    return where(keep, x, zeros_like(x))


def threshold(x, threshold, default_value):
    """``x`` where ``x > threshold``, else ``default_value``."""
    x = _tensor(x)
    default = zeros_like(x) + cast(default_value, x.dtype)
    return where(math_ops.greater(x, cast(threshold, x.dtype)), x, default)


def sparse_plus(x):
    """0 for ``x <= -1``, ``x`` for ``x >= 1``, ``(x + 1)**2 / 4`` between."""
    x = _tensor(x)
    one = cast(1, x.dtype)
    middle = math_ops.square(x + one) / cast(4, x.dtype)
    return where(
        math_ops.less_equal(x, -one),
        zeros_like(x),
        where(math_ops.greater_equal(x, one), x, middle),
    )


def squareplus(x, b=4):
    """``(x + sqrt(x**2 + b)) / 2``."""
    x = _tensor(x)
    return (x + math_ops.sqrt(math_ops.square(x) + cast(b, x.dtype))) / cast(2, x.dtype)


def sigmoid(x):
    """``1 / (1 + exp(-x))``."""
    return math_ops.sigmoid(_tensor(x))


def hard_sigmoid(x):
    """``relu6(x + 3) / 6``: 0 below -3, 1 above 3, ``x / 6 + 0.5`` between."""
    x = _tensor(x)
    return relu6(x + cast(3, x.dtype)) / cast(6, x.dtype)


def sparse_sigmoid(x):
    """0 for ``x <= -1``, 1 for ``x >= 1``, ``(x + 1) / 2`` between."""
    x = _tensor(x)
    return _clip((x + cast(1, x.dtype)) / cast(2, x.dtype), cast(0, x.dtype), cast(1, x.dtype))


def log_sigmoid(x):
    """``log(sigmoid(x)) = -softplus(-x)``."""
    return -softplus(-_tensor(x))


def silu(x):
    """``x * sigmoid(x)`` (also named ``swish``)."""
    x = _tensor(x)
    return x * math_ops.sigmoid(x)


def hard_silu(x):
    """``x * hard_sigmoid(x)`` (also named ``hard_swish``)."""
    x = _tensor(x)
    return x * hard_sigmoid(x)


swish = silu
hard_swish = hard_silu


def gelu(x, approximate=False):
    """``x * P(X <= x)`` for a standard normal ``X``; ``approximate=True`` is the tanh form."""
    return math_ops.gelu(_tensor(x), approximate=approximate)


def glu(x, axis=-1):
    """``a * sigmoid(b)``, where ``a`` and ``b`` are the two halves of ``x`` along ``axis``."""
    x = _tensor(x)
    size = x.shape[axis]
    if size is not None and size % 2:
        raise ValueError(
            "axis size must be divisible by 2. "
            f"Received: x.shape={tuple(x.shape.as_list())} with axis={axis}"
        )
    half = size // 2 if size is not None else shape_of(x)[axis] // 2
    a, b = split(x, stack([half, half]), axis=axis)
    return a * math_ops.sigmoid(b)


def tanh(x):
    """The hyperbolic tangent."""
    return math_ops.tanh(_tensor(x))


def tanh_shrink(x):
    """``x - tanh(x)``."""
    x = _tensor(x)
    return x - math_ops.tanh(x)


def hard_tanh(x):
    """``x`` clipped to ``[-1, 1]``."""
    x = _tensor(x)
    return _clip(x, cast(-1, x.dtype), cast(1, x.dtype))


def exponential(x):
    """``exp(x)``."""
    return math_ops.exp(_tensor(x))


def mish(x):
    """``x * tanh(softplus(x))``."""
    x = _tensor(x)
    return x * math_ops.tanh(softplus(x))


def sparsemax(x, axis=-1):
    """The Euclidean projection of ``x`` on the probability simplex along ``axis``:
    ``max(x - tau, 0)``, ``tau`` chosen so that the outputs sum to 1.

    Sort-free: ``x_i`` is in the support when ``1 + k_i * x_i > s_i``, with ``k_i`` the number
    of entries ``>= x_i`` and ``s_i`` their sum.
    """
    x = _tensor(x)
    rank = x.shape.rank
    axis = axis % rank
    others = expand_dims(x, axis + 1)  # [.., j, i, ..] holds x_j
    mine = expand_dims(x, axis)  # [.., j, i, ..] holds x_i
    at_least = cast(math_ops.greater_equal(others, mine), x.dtype)
    count = math_ops.reduce_sum(at_least, axis=axis)
    total = math_ops.reduce_sum(at_least * others, axis=axis)
    in_support = cast(math_ops.greater(cast(1, x.dtype) + count * x, total), x.dtype)
    size = math_ops.reduce_sum(in_support, axis=axis, keepdims=True)
    tau = (math_ops.reduce_sum(in_support * x, axis=axis, keepdims=True) - 1) / size
    return math_ops.maximum(x - tau, cast(0, x.dtype))


def linear(x):
    """``x`` unchanged (the activation of a layer given none)."""
    return x


_BY_NAME = {
    f.__name__: f
    for f in (
        relu,
        leaky_relu,
        relu6,
        softmax,
        celu,
        elu,
        selu,
        softplus,
        softsign,
        squareplus,
        soft_shrink,
        sparse_plus,
        silu,
        gelu,
        glu,
        tanh,
        tanh_shrink,
        threshold,
        sigmoid,
        sparse_sigmoid,
        exponential,
        hard_sigmoid,
        hard_silu,
        hard_tanh,
        hard_shrink,
        linear,
        mish,
        log_softmax,
        log_sigmoid,
        sparsemax,
    )
}
_BY_NAME.update(swish=silu, hard_swish=hard_silu)


def _unknown(identifier):
    return ValueError(
        f"Could not interpret activation function identifier: {identifier}. "
        f"Unknown activation function: {identifier!r}. Use one of {sorted(_BY_NAME)} "
        "or a callable."
    )


def get(identifier):
    """The activation ``identifier`` names (a name, a serialized dict), a callable as it is,
    ``linear`` for None.

    >>> get("swish") is silu, get(None) is linear
    (True, True)
    """
    if identifier is None:
        return linear
    if isinstance(identifier, dict):
        return deserialize(identifier)
    if isinstance(identifier, str):
        if identifier in _BY_NAME:
            return _BY_NAME[identifier]
        raise _unknown(identifier)
    if callable(identifier):
        return identifier
    raise _unknown(identifier)


def serialize(activation):
    """What Keras 3 writes in a config: a built-in activation's name; for a function of the
    user's, what ``serialize_keras_object`` writes (its registered name).

    >>> serialize(relu)
    'relu'
    """
    name = getattr(activation, "__name__", None)
    if name in _BY_NAME and _BY_NAME[name] is activation:
        return name
    if name is None and not hasattr(activation, "get_config"):
        raise ValueError(
            f"Unknown activation function '{activation}' cannot be serialized due to invalid "
            "function name."
        )
    return serialize_object(activation)


def deserialize(config, custom_objects=None):
    """The activation a name or a serialized dict (``{"class_name": "function", "config":
    "relu"}``) names; ``custom_objects`` maps further names to functions."""
    known = {**_BY_NAME, **(custom_objects or {})}
    if isinstance(config, str) and config in known:
        return known[config]
    if not isinstance(config, dict):
        raise _unknown(config)
    return deserialize_object(config, known, "activation", lambda _: _unknown(config))


def name_of(activation):
    """The name Keras shows for an activation function."""
    return getattr(activation, "__name__", type(activation).__name__)
