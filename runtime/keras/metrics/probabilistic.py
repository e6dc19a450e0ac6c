"""Probabilistic metrics: each example's cross-entropy (or divergence), averaged by ``Mean``.

>>> import runtime as rt
>>> m = rt.keras.metrics.SparseCategoricalCrossentropy(from_logits=True)
>>> round(float(m([0, 1], [[0.0, 0.0], [0.0, 0.0]])), 6)  # log 2
0.693147
"""

from __future__ import annotations

from runtime.core import dtypes
from runtime.keras import losses
from runtime.keras.loss_base import squeeze_or_expand_to_same_rank
from runtime.keras.metrics.reduction import MeanMetricWrapper
from runtime.ops.constant_ops import cast, convert_to_tensor
from runtime.ops.math_ops import not_equal

binary_crossentropy = losses.binary_crossentropy
categorical_crossentropy = losses.categorical_crossentropy
sparse_categorical_crossentropy = losses.sparse_categorical_crossentropy
kl_divergence = losses.kl_divergence  # the losses' functions, as Keras' metrics use them
poisson = losses.poisson


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
                 ignore_class=None, axis=-1):  # fmt: skip
        super().__init__(
            sparse_categorical_crossentropy, name=name, dtype=dtype, from_logits=from_logits,
            ignore_class=ignore_class, axis=axis,
        )  # fmt: skip

    def update_state(self, y_true, y_pred, sample_weight=None):
        """As ``Mean``'s; with ``ignore_class`` and weights, the ignored examples weigh 0 (so
        the mean is over the others), as in Keras 3. Without weights Keras counts them, with
        a loss of 0, and so does this."""
        ignore_class = self._fn_kwargs.get("ignore_class")
        if ignore_class is not None and sample_weight is not None:
            labels = convert_to_tensor(y_true)
            kept = cast(not_equal(labels, cast(ignore_class, labels.dtype)), dtypes.float32)
            weights = cast(convert_to_tensor(sample_weight), dtypes.float32)
            kept, weights = squeeze_or_expand_to_same_rank(kept, weights)
            sample_weight = weights * kept
        super().update_state(y_true, y_pred, sample_weight=sample_weight)


class KLDivergence(MeanMetricWrapper):
    """The mean Kullback-Leibler divergence from the labels to the predictions."""

    def __init__(self, name="kl_divergence", dtype=None):
        super().__init__(kl_divergence, name=name, dtype=dtype)


class Poisson(MeanMetricWrapper):
    """The mean Poisson loss: ``y_pred - y_true * log(y_pred)``."""

    def __init__(self, name="poisson", dtype=None):
        super().__init__(poisson, name=name, dtype=dtype)
