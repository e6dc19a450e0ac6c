"""Clipping: ``clip_by_value`` keeps values within bounds; ``clip_by_global_norm`` scales a
list of tensors so that their joint norm (``global_norm``) stays under a bound.

>>> import runtime as rt
>>> rt.clip_by_value([1, 5, 9], 2, 6).numpy()
array([2, 5, 6], dtype=int32)
"""

from __future__ import annotations

from runtime import errors
from runtime.core.graph import name_scope
from runtime.core.op_def import OpDef
from runtime.core.tensor_shape import broadcast_shapes
from runtime.ops.array_ops import stack, zeros_like
from runtime.ops.broadcast_ops import unbroadcast, where
from runtime.ops.constant_ops import cast, convert_to_tensor
from runtime.ops.math_ops import (
    divide,
    greater,
    less,
    logical_or,
    minimum,
    multiply,
    sqrt,
    subtract,
)
from runtime.ops.reduction_ops import reduce_sum
from runtime.ops.registry import NUMERIC, bind1, check_dtype


def _clip_infer(inputs, attrs):
    t, low, high = inputs
    check_dtype("clip_by_value", t, NUMERIC)
    for what, bound in (("clip_value_min", low), ("clip_value_max", high)):
        if bound.dtype is not t.dtype:
            raise TypeError(
                f"clip_by_value: {what} is {bound.dtype.name} but t is {t.dtype.name}; "
                f"use rt.cast(..., rt.{t.dtype.name})"
            )
    shape = broadcast_shapes(broadcast_shapes(t.shape, low.shape), high.shape)
    if shape.rank is not None and t.shape.rank is not None and shape.rank != t.shape.rank:
        raise ValueError(
            f"clip_by_value: the bounds (shapes {low.shape} and {high.shape}) must not change "
            f"the shape of t ({t.shape})"
        )
    return [(t.dtype, t.shape.merge_with(shape) if t.shape.is_compatible_with(shape) else shape)]


def _clip(xp, t, low, high):
    out = xp.minimum(xp.maximum(t, low), high)
    if xp.shape(out) != xp.shape(t):
        raise errors.InvalidArgumentError(
            f"clip_by_value: the bounds (shapes {xp.shape(low)} and {xp.shape(high)}) must not "
            f"change the shape of t ({xp.shape(t)})"
        )
    return out


def _clip_gradient(op, grad):
    """Where ``t`` is within its bounds the gradient is ``t``'s; below them, the lower bound's;
    above, the upper's (summed back to each bound's shape), as in TensorFlow."""
    t, low, high = op.inputs
    below, above = less(t, low), greater(t, high)
    zeros = zeros_like(grad)
    return (
        where(logical_or(below, above), zeros, grad),
        unbroadcast(where(below, grad, zeros), low, [t, high]),
        unbroadcast(where(above, grad, zeros), high, [t, low]),
    )


CLIP_BY_VALUE = OpDef(
    "ClipByValue", None, _clip_infer, gradient=_clip_gradient, implementation=_clip
)


def clip_by_value(t, clip_value_min, clip_value_max, name=None):
    """``t`` with values below ``clip_value_min`` raised to it and those above
    ``clip_value_max`` lowered to it. The bounds may be scalars or tensors that
    broadcast to ``t``'s shape; Python numbers take ``t``'s dtype.

    >>> clip_by_value([[-1.0, 0.5], [2.0, 3.0]], 0.0, [1.0, 2.5]).numpy()
    array([[0. , 0.5],
           [1. , 2.5]], dtype=float32)
    """
    t = convert_to_tensor(t)
    low = convert_to_tensor(clip_value_min, dtype_hint=t.dtype)
    high = convert_to_tensor(clip_value_max, dtype_hint=t.dtype)
    return bind1(CLIP_BY_VALUE, [t, low, high], name=name or "clip_by_value")


def global_norm(t_list, name=None):
    """``sqrt(sum(reduce_sum(t ** 2) for t in t_list))``: the norm of all the tensors of
    ``t_list`` taken as one vector, as ``tf.linalg.global_norm``. None entries are skipped;
    the tensors share one floating-point dtype, which the result has.

    >>> global_norm([[3.0], None, [[4.0, 0.0]]]).numpy()
    np.float32(5.0)
    """
    tensors = [convert_to_tensor(t) for t in _as_tensor_list(t_list) if t is not None]
    if not tensors:
        raise ValueError("global_norm needs at least one tensor in t_list that is not None")
    with name_scope(name or "global_norm"):
        squares = [reduce_sum(multiply(t, t)) for t in tensors]
        return sqrt(reduce_sum(stack(squares)))


def clip_by_global_norm(t_list, clip_norm, use_norm=None, name=None):
    """``(list_clipped, global_norm)``: each tensor ``t`` of ``t_list`` becomes
    ``t * clip_norm / max(global_norm, clip_norm)``, so the list keeps its direction and its
    joint norm is at most ``clip_norm``; the gradient-clipping rule of TensorFlow's
    ``tf.clip_by_global_norm``. ``use_norm`` gives the norm when it is already computed (else
    ``global_norm(t_list)``). None entries stay None. A norm that is infinite or NaN makes
    every entry NaN, to show that something overflowed.

    >>> clipped, norm = clip_by_global_norm([[3.0, 0.0], None, [4.0]], 1.0)
    >>> [None if t is None else t.numpy() for t in clipped], norm.numpy()
    ([array([0.6, 0. ], dtype=float32), None, array([0.8], dtype=float32)], np.float32(5.0))
    """
    t_list = _as_tensor_list(t_list)
    with name_scope(name or "clip_by_global_norm"):
        norm = global_norm(t_list) if use_norm is None else convert_to_tensor(use_norm)
        clip_norm = convert_to_tensor(clip_norm, dtype_hint=norm.dtype)
        # min(1 / norm, 1 / clip_norm) * clip_norm; adding norm - norm turns an infinite norm
        # into NaN rather than zeros.
        scale = multiply(clip_norm, minimum(divide(1.0, norm), divide(1.0, clip_norm)))
        scale = subtract(scale, subtract(norm, norm))
        clipped = [None if t is None else _scaled(convert_to_tensor(t), scale) for t in t_list]
    return clipped, norm


def _as_tensor_list(t_list):
    if isinstance(t_list, str | bytes) or not isinstance(t_list, list | tuple):
        raise TypeError(f"`t_list` should be a sequence of tensors. Received {type(t_list)}.")
    return list(t_list)


def _scaled(t, scale):
    return multiply(t, scale if scale.dtype is t.dtype else cast(scale, t.dtype))


# --- samples: what the op's tests run it on (runtime.ops.op_info) ---
from runtime.ops.op_info import by_element, floats, integers, joined, op_info  # noqa: E402

op_info(
    "rt.clip_by_value",
    joined(
        floats((-3.0, -1.5, 0.5), (3.0, -0.5, 1.5), shapes=[((2, 3), (), ()), ((2, 3), (3,), (1, 3))], arity=3),
        integers((-9, -4, 1), (10, 0, 5), shapes=[((4,), (), ())], arity=3),
    ),
    by_element(lambda value, low, high: min(max(value, low), high)),
)(clip_by_value)  # fmt: skip
