"""Regression metrics: each example's error (a mean over its last axis), averaged by ``Mean``.

>>> import runtime as rt
>>> float(rt.keras.metrics.MeanSquaredError()([[0.0, 1.0], [0.0, 0.0]], [[1.0, 1.0], [0.0, 0.0]]))
0.25
>>> round(float(rt.keras.metrics.RootMeanSquaredError()([[0.0, 1.0]], [[1.0, 1.0]])), 6)
0.707107
"""

from __future__ import annotations

import math

from runtime.core import dtypes
from runtime.keras import backend, losses
from runtime.keras.loss_base import divide_no_nan, squeeze_or_expand_to_same_rank
from runtime.keras.metrics.reduction import Mean, MeanMetricWrapper
from runtime.ops.constant_ops import cast, convert_to_tensor
from runtime.ops.math_ops import abs as abs_
from runtime.ops.math_ops import exp, log, maximum, sqrt, square
from runtime.ops.reduction_ops import reduce_mean, reduce_sum
from runtime.ops.special_math_ops import log1p


def _as_floats(y_true, y_pred):
    """The two as tensors of ``y_pred``'s dtype, float32 for integers (Keras' mean of integers
    is a float), brought to the same rank."""
    y_pred = convert_to_tensor(y_pred)
    if not y_pred.dtype.is_floating:
        y_pred = cast(y_pred, dtypes.float32)
    return losses.align(y_true, y_pred)


def mean_squared_error(y_true, y_pred):
    """``mean(square(y_true - y_pred), axis=-1)``."""
    return losses.mean_squared_error(*_as_floats(y_true, y_pred))


def mean_absolute_error(y_true, y_pred):
    """``mean(abs(y_true - y_pred), axis=-1)``."""
    return losses.mean_absolute_error(*_as_floats(y_true, y_pred))


def mean_absolute_percentage_error(y_true, y_pred):
    """``100 * mean(|y_true - y_pred| / max(|y_true|, epsilon), axis=-1)``."""
    y_true, y_pred = _as_floats(y_true, y_pred)
    scale = maximum(abs_(y_true), backend.epsilon())
    return 100.0 * reduce_mean(abs_(y_true - y_pred) / scale, axis=-1)


def mean_squared_logarithmic_error(y_true, y_pred):
    """``mean(square(log(max(y_pred, eps) + 1) - log(max(y_true, eps) + 1)), axis=-1)``."""
    y_true, y_pred = _as_floats(y_true, y_pred)
    eps = backend.epsilon()
    gap = log(maximum(y_pred, eps) + 1.0) - log(maximum(y_true, eps) + 1.0)
    return reduce_mean(square(gap), axis=-1)


def _l2_normalize(x, axis):
    return x / sqrt(maximum(reduce_sum(square(x), axis=axis, keepdims=True), 1e-12))


def cosine_similarity(y_true, y_pred, axis=-1):
    """The cosine of the angle between label and prediction along ``axis`` (1: same way)."""
    y_true, y_pred = _as_floats(y_true, y_pred)
    return reduce_sum(_l2_normalize(y_true, axis) * _l2_normalize(y_pred, axis), axis=axis)


def _softplus(x):
    """``log(1 + exp(x))`` without overflow."""
    return maximum(x, 0.0) + log1p(exp(-abs_(x)))


def log_cosh(y_true, y_pred):
    """``mean(log(cosh(y_pred - y_true)), axis=-1)``, computed without overflow."""
    y_true, y_pred = _as_floats(y_true, y_pred)
    x = y_pred - y_true
    return reduce_mean(x + _softplus(-2.0 * x) - math.log(2.0), axis=-1)


mape = mean_absolute_percentage_error
msle = mean_squared_logarithmic_error


class MeanSquaredError(MeanMetricWrapper):
    """The mean of ``square(y_true - y_pred)``."""

    def __init__(self, name="mean_squared_error", dtype=None):
        super().__init__(mean_squared_error, name=name, dtype=dtype)


class MeanAbsoluteError(MeanMetricWrapper):
    """The mean of ``abs(y_true - y_pred)``."""

    def __init__(self, name="mean_absolute_error", dtype=None):
        super().__init__(mean_absolute_error, name=name, dtype=dtype)


class MeanAbsolutePercentageError(MeanMetricWrapper):
    """The mean of ``100 * abs((y_true - y_pred) / y_true)``."""

    def __init__(self, name="mean_absolute_percentage_error", dtype=None):
        super().__init__(mean_absolute_percentage_error, name=name, dtype=dtype)


class MeanSquaredLogarithmicError(MeanMetricWrapper):
    """The mean of ``square(log(y_true + 1) - log(y_pred + 1))``."""

    def __init__(self, name="mean_squared_logarithmic_error", dtype=None):
        super().__init__(mean_squared_logarithmic_error, name=name, dtype=dtype)


class CosineSimilarity(MeanMetricWrapper):
    """The mean cosine similarity of labels and predictions along ``axis``."""

    def __init__(self, name="cosine_similarity", dtype=None, axis=-1):
        super().__init__(cosine_similarity, name=name, dtype=dtype, axis=axis)


class LogCoshError(MeanMetricWrapper):
    """The mean of ``log(cosh(y_pred - y_true))``."""

    def __init__(self, name="logcosh", dtype=None):
        super().__init__(log_cosh, name=name, dtype=dtype)


class RootMeanSquaredError(Mean):
    """``sqrt`` of the (weighted) mean of ``square(y_true - y_pred)`` over every value.

    >>> import runtime as rt
    >>> m = rt.keras.metrics.RootMeanSquaredError()
    >>> float(m([[0.0, 1.0], [0.0, 0.0]], [[1.0, 1.0], [0.0, 0.0]]))
    0.5
    """

    def __init__(self, name="root_mean_squared_error", dtype=None):
        super().__init__(name=name, dtype=dtype)

    def update_state(self, y_true, y_pred, sample_weight=None):
        y_true, y_pred = _as_floats(y_true, y_pred)
        y_true, y_pred = squeeze_or_expand_to_same_rank(y_true, y_pred)
        super().update_state(square(y_pred - y_true), sample_weight=sample_weight)

    def result(self):
        return sqrt(divide_no_nan(self.total.read_value(), self.count.read_value()))
