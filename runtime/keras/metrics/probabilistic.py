"""Probabilistic metrics: each example's cross-entropy (or divergence), averaged by ``Mean``.

>>> import runtime as rt
>>> m = rt.keras.metrics.SparseCategoricalCrossentropy(from_logits=True)
>>> round(float(m([0, 1], [[0.0, 0.0], [0.0, 0.0]])), 6)  # log 2
0.693147
"""

from __future__ import annotations

from runtime.keras import backend, losses
from runtime.keras.metrics.reduction import MeanMetricWrapper
from runtime.ops.clip_ops import clip_by_value
from runtime.ops.math_ops import log
from runtime.ops.reduction_ops import reduce_mean, reduce_sum

binary_crossentropy = losses.binary_crossentropy
categorical_crossentropy = losses.categorical_crossentropy
sparse_categorical_crossentropy = losses.sparse_categorical_crossentropy


def kl_divergence(y_true, y_pred):
    """``sum(y_true * log(y_true / y_pred), axis=-1)``, both clipped to ``[epsilon, 1]``."""
    y_true, y_pred = losses.align(y_true, y_pred)
    eps = backend.epsilon()
    y_true, y_pred = clip_by_value(y_true, eps, 1.0), clip_by_value(y_pred, eps, 1.0)
    return reduce_sum(y_true * log(y_true / y_pred), axis=-1)


def poisson(y_true, y_pred):
    """``mean(y_pred - y_true * log(y_pred + epsilon), axis=-1)``."""
    y_true, y_pred = losses.align(y_true, y_pred)
    return reduce_mean(y_pred - y_true * log(y_pred + backend.epsilon()), axis=-1)


class BinaryCrossentropy(MeanMetricWrapper):
    """The mean binary cross-entropy of labels and predicted probabilities (or logits)."""

    def __init__(self, name="binary_crossentropy", dtype=None, from_logits=False,
                 label_smoothing=0):  # fmt: skip
        super().__init__(
            binary_crossentropy, name=name, dtype=dtype, from_logits=from_logits,
            label_smoothing=label_smoothing,
        )  # fmt: skip


class CategoricalCrossentropy(MeanMetricWrapper):
    """The mean cross-entropy of one-hot labels and predicted probabilities (or logits)."""

    def __init__(self, name="categorical_crossentropy", dtype=None, from_logits=False,
                 label_smoothing=0, axis=-1):  # fmt: skip
        super().__init__(
            categorical_crossentropy, name=name, dtype=dtype, from_logits=from_logits,
            label_smoothing=label_smoothing, axis=axis,
        )  # fmt: skip


class SparseCategoricalCrossentropy(MeanMetricWrapper):
    """The mean cross-entropy of integer labels and predicted probabilities (or logits)."""

    def __init__(self, name="sparse_categorical_crossentropy", dtype=None, from_logits=False,
                 axis=-1):  # fmt: skip
        super().__init__(
            sparse_categorical_crossentropy, name=name, dtype=dtype, from_logits=from_logits,
            axis=axis,
        )  # fmt: skip


class KLDivergence(MeanMetricWrapper):
    """The mean Kullback-Leibler divergence from the labels to the predictions."""

    def __init__(self, name="kl_divergence", dtype=None):
        super().__init__(kl_divergence, name=name, dtype=dtype)


class Poisson(MeanMetricWrapper):
    """The mean Poisson loss: ``y_pred - y_true * log(y_pred)``."""

    def __init__(self, name="poisson", dtype=None):
        super().__init__(poisson, name=name, dtype=dtype)
