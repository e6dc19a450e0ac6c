"""Each example's loss for regression, probabilistic and hinge losses, as Keras 3 defines them.

Each function takes ``(y_true, y_pred)``, brings them to the same rank where they
differ by a trailing axis of size 1, and reduces over the last axis. With
``e = backend.epsilon()`` (1e-7):

- ``mean_absolute_percentage_error``: ``100 * mean(|y - p| / max(|y|, e))``.
- ``mean_squared_logarithmic_error``: ``mean((log(max(p, e) + 1) - log(max(y, e) + 1))^2)``.
- ``huber``: ``mean(0.5 d^2 if |d| <= delta else delta |d| - 0.5 delta^2)``, ``d = p - y``.
- ``log_cosh``: ``mean(log(cosh(p - y)))``, computed as ``|x| + log(1 + exp(-2|x|)) - log 2``.
- ``kl_divergence``: ``sum(y log(y / p))``, both clipped to ``[e, 1]``.
- ``poisson``: ``mean(p - y log(p + e))``.
- ``cosine_similarity``: ``-sum(l2_normalize(y) * l2_normalize(p), axis)``.
- ``hinge``: ``mean(max(1 - y p, 0))``, labels in {0, 1} first mapped to {-1, 1};
  ``squared_hinge`` squares it; ``categorical_hinge``: ``max(neg - pos + 1, 0)`` with
  ``pos = sum(y p)``, ``neg = max((1 - y) p)``.

>>> import runtime as rt
>>> rt.keras.losses.huber([[0.0, 1.0]], [[0.5, 3.0]]).numpy()   # (0.125 + 1.5) / 2
array([0.8125], dtype=float32)
"""

from __future__ import annotations

import math

from runtime.keras import backend
from runtime.keras.loss_base import as_loss_dtype, as_prediction, squeeze_or_expand_to_same_rank
from runtime.ops.broadcast_ops import where
from runtime.ops.clip_ops import clip_by_value
from runtime.ops.math_ops import abs as abs_
from runtime.ops.math_ops import equal, exp, log, logical_or, maximum, sqrt, square
from runtime.ops.reduction_ops import reduce_all, reduce_max, reduce_mean, reduce_sum


def align(y_true, y_pred):
    """The two as tensors of ``y_pred``'s dtype, brought to the same rank where they differ by a
    trailing axis of size 1 (labels ``(n,)`` against predictions ``(n, 1)``), as Keras does."""
    y_pred = as_prediction(y_pred)
    y_true = as_loss_dtype(y_true, y_pred.dtype)
    return squeeze_or_expand_to_same_rank(y_true, y_pred)


def _as_pred_dtype(y_true, y_pred):
    """Both as tensors of ``y_pred``'s dtype, their shapes as they are."""
    y_pred = as_prediction(y_pred)
    return as_loss_dtype(y_true, y_pred.dtype), y_pred


def mean_squared_error(y_true, y_pred):
    """``mean(square(y_true - y_pred), axis=-1)``."""
    y_true, y_pred = align(y_true, y_pred)
    return reduce_mean(square(y_true - y_pred), axis=-1)


def mean_absolute_error(y_true, y_pred):
    """``mean(abs(y_true - y_pred), axis=-1)``."""
    y_true, y_pred = align(y_true, y_pred)
    return reduce_mean(abs_(y_true - y_pred), axis=-1)


def mean_absolute_percentage_error(y_true, y_pred):
    """``100 * mean(abs((y_true - y_pred) / max(abs(y_true), epsilon)), axis=-1)``.

    >>> mean_absolute_percentage_error([[2.0, 4.0]], [[1.0, 5.0]]).numpy()
    array([37.5], dtype=float32)
    """
    y_true, y_pred = align(y_true, y_pred)
    diff = abs_((y_true - y_pred) / maximum(abs_(y_true), backend.epsilon()))
    return 100.0 * reduce_mean(diff, axis=-1)


def mean_squared_logarithmic_error(y_true, y_pred):
    """``mean(square(log(max(y_pred, eps) + 1) - log(max(y_true, eps) + 1)), axis=-1)``."""
    y_true, y_pred = align(y_true, y_pred)
    eps = backend.epsilon()
    gap = log(maximum(y_pred, eps) + 1.0) - log(maximum(y_true, eps) + 1.0)
    return reduce_mean(square(gap), axis=-1)


def huber(y_true, y_pred, delta=1.0):
    """Quadratic for errors up to ``delta``, linear beyond: the mean over the last axis."""
    y_true, y_pred = align(y_true, y_pred)
    error = y_pred - y_true
    size = abs_(error)
    delta = as_loss_dtype(delta, y_pred.dtype)
    losses = where(size <= delta, 0.5 * square(error), delta * size - 0.5 * square(delta))
    return reduce_mean(losses, axis=-1)


def log_cosh(y_true, y_pred):
    """``mean(log(cosh(y_pred - y_true)), axis=-1)``, finite for large errors.

    >>> log_cosh([[0.0, 0.0]], [[1.0, 100.0]]).numpy().round(4)   # log(cosh(1)), 100 - log 2
    array([49.8703], dtype=float32)
    """
    y_true, y_pred = align(y_true, y_pred)
    size = abs_(y_pred - y_true)  # cosh is even; exp(-2|x|) <= 1 never overflows
    return reduce_mean(size + log(1.0 + exp(-2.0 * size)) - math.log(2.0), axis=-1)


def kl_divergence(y_true, y_pred):
    """``sum(y_true * log(y_true / y_pred), axis=-1)``, both clipped to ``[epsilon, 1]``."""
    y_true, y_pred = _as_pred_dtype(y_true, y_pred)
    y_true = clip_by_value(y_true, backend.epsilon(), 1.0)
    y_pred = clip_by_value(y_pred, backend.epsilon(), 1.0)
    return reduce_sum(y_true * log(y_true / y_pred), axis=-1)


def poisson(y_true, y_pred):
    """``mean(y_pred - y_true * log(y_pred + epsilon), axis=-1)``."""
    y_true, y_pred = _as_pred_dtype(y_true, y_pred)
    return reduce_mean(y_pred - y_true * log(y_pred + backend.epsilon()), axis=-1)


def l2_normalize(x, axis=-1):
    """``x / max(norm(x, axis), epsilon)``: zero vectors stay zero."""
    norm = sqrt(reduce_sum(square(x), axis=axis, keepdims=True))
    return x / maximum(norm, backend.epsilon())


def cosine_similarity(y_true, y_pred, axis=-1):
    """``-sum(l2_normalize(y_true) * l2_normalize(y_pred), axis)``: -1 for the same direction,
    0 for orthogonal vectors (and for a zero vector).

    >>> cosine_similarity([[0.0, 1.0], [1.0, 1.0]], [[1.0, 0.0], [1.0, 1.0]]).numpy().round(4)
    array([-0., -1.], dtype=float32)
    """
    y_true, y_pred = align(y_true, y_pred)
    return -reduce_sum(l2_normalize(y_true, axis) * l2_normalize(y_pred, axis), axis=axis)


def _hinge_labels(y_true):
    """Labels in {0, 1} as {-1, 1}; other labels (already -1 and 1) as they are."""
    binary = reduce_all(logical_or(equal(y_true, 0.0), equal(y_true, 1.0)))
    return where(binary, 2.0 * y_true - 1.0, y_true)


def hinge(y_true, y_pred):
    """``mean(maximum(1 - y_true * y_pred, 0), axis=-1)``, labels -1 or 1 (0 or 1 mapped to
    them)."""
    y_true, y_pred = _as_pred_dtype(y_true, y_pred)
    return reduce_mean(maximum(1.0 - _hinge_labels(y_true) * y_pred, 0.0), axis=-1)


def squared_hinge(y_true, y_pred):
    """``mean(square(maximum(1 - y_true * y_pred, 0)), axis=-1)``."""
    y_true, y_pred = _as_pred_dtype(y_true, y_pred)
    return reduce_mean(square(maximum(1.0 - _hinge_labels(y_true) * y_pred, 0.0)), axis=-1)


def categorical_hinge(y_true, y_pred):
    """``maximum(neg - pos + 1, 0)``, ``pos = sum(y_true * y_pred)``, ``neg = max((1 - y_true) *
    y_pred)`` over the last axis."""
    y_true, y_pred = _as_pred_dtype(y_true, y_pred)
    positive = reduce_sum(y_true * y_pred, axis=-1)
    negative = reduce_max((1.0 - y_true) * y_pred, axis=-1)
    return maximum(negative - positive + 1.0, 0.0)
