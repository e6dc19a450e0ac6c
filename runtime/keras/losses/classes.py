"""The loss objects: each Keras 3 loss class, a ``LossFunctionWrapper`` of its function.

Every class takes ``reduction`` (``"sum_over_batch_size"``, ``"sum"``, ``"mean"``,
``"mean_with_sample_weight"``, ``"none"`` or None), ``name`` and ``dtype``, and its
function's options (``delta``, ``axis``, ``from_logits``, ``label_smoothing``...), which
``get_config`` gives back under Keras 3's keys.

>>> import runtime as rt
>>> rt.keras.losses.Huber(delta=0.5, reduction="sum").get_config()
{'name': 'huber_loss', 'reduction': 'sum', 'delta': 0.5}
"""

from __future__ import annotations

from runtime.keras.loss_base import LossFunctionWrapper
from runtime.keras.losses import crossentropy as ce
from runtime.keras.losses import regression as reg

MEAN = "sum_over_batch_size"


class MeanSquaredError(LossFunctionWrapper):
    """``mean(square(y_true - y_pred))``."""

    def __init__(self, reduction=MEAN, name="mean_squared_error", dtype=None):
        super().__init__(reg.mean_squared_error, reduction, name, dtype)


class MeanAbsoluteError(LossFunctionWrapper):
    """``mean(abs(y_true - y_pred))``."""

    def __init__(self, reduction=MEAN, name="mean_absolute_error", dtype=None):
        super().__init__(reg.mean_absolute_error, reduction, name, dtype)


class MeanAbsolutePercentageError(LossFunctionWrapper):
    """``100 * mean(abs((y_true - y_pred) / y_true))``."""

    def __init__(self, reduction=MEAN, name="mean_absolute_percentage_error", dtype=None):
        super().__init__(reg.mean_absolute_percentage_error, reduction, name, dtype)


class MeanSquaredLogarithmicError(LossFunctionWrapper):
    """``mean(square(log(y_true + 1) - log(y_pred + 1)))``."""

    def __init__(self, reduction=MEAN, name="mean_squared_logarithmic_error", dtype=None):
        super().__init__(reg.mean_squared_logarithmic_error, reduction, name, dtype)


class CosineSimilarity(LossFunctionWrapper):
    """``-sum(l2_normalize(y_true) * l2_normalize(y_pred), axis)``."""

    def __init__(self, axis=-1, reduction=MEAN, name="cosine_similarity", dtype=None):
        super().__init__(reg.cosine_similarity, reduction, name, dtype, axis=axis)
        self.axis = axis


class Huber(LossFunctionWrapper):
    """Quadratic for errors up to ``delta``, linear beyond."""

    def __init__(self, delta=1.0, reduction=MEAN, name="huber_loss", dtype=None):
        super().__init__(reg.huber, reduction, name, dtype, delta=delta)
        self.delta = delta


class LogCosh(LossFunctionWrapper):
    """``mean(log(cosh(y_pred - y_true)))``."""

    def __init__(self, reduction=MEAN, name="log_cosh", dtype=None):
        super().__init__(reg.log_cosh, reduction, name, dtype)


class Hinge(LossFunctionWrapper):
    """``mean(maximum(1 - y_true * y_pred, 0))``, labels -1 or 1 (0 or 1 mapped to them)."""

    def __init__(self, reduction=MEAN, name="hinge", dtype=None):
        super().__init__(reg.hinge, reduction, name, dtype)


class SquaredHinge(LossFunctionWrapper):
    """``mean(square(maximum(1 - y_true * y_pred, 0)))``."""

    def __init__(self, reduction=MEAN, name="squared_hinge", dtype=None):
        super().__init__(reg.squared_hinge, reduction, name, dtype)


class CategoricalHinge(LossFunctionWrapper):
    """``maximum(neg - pos + 1, 0)`` over one-hot labels."""

    def __init__(self, reduction=MEAN, name="categorical_hinge", dtype=None):
        super().__init__(reg.categorical_hinge, reduction, name, dtype)


class KLDivergence(LossFunctionWrapper):
    """``sum(y_true * log(y_true / y_pred))``."""

    def __init__(self, reduction=MEAN, name="kl_divergence", dtype=None):
        super().__init__(reg.kl_divergence, reduction, name, dtype)


class Poisson(LossFunctionWrapper):
    """``mean(y_pred - y_true * log(y_pred))``."""

    def __init__(self, reduction=MEAN, name="poisson", dtype=None):
        super().__init__(reg.poisson, reduction, name, dtype)


class _Crossentropy(LossFunctionWrapper):
    """A cross-entropy loss object: its function's options are attributes too, as Keras keeps
    them."""

    def __init__(self, fn, reduction, name, dtype, **options):
        super().__init__(fn, reduction, name, dtype, **options)
        for option, value in options.items():
            setattr(self, option, value)


class BinaryCrossentropy(_Crossentropy):
    """``binary_crossentropy`` as a loss object: labels 0 or 1, predictions probabilities (or
    logits with ``from_logits=True``) of the same shape."""

    def __init__(
        self,
        from_logits=False,
        label_smoothing=0.0,
        axis=-1,
        reduction=MEAN,
        name="binary_crossentropy",
        dtype=None,
    ):
        options = {"from_logits": from_logits, "label_smoothing": label_smoothing, "axis": axis}
        super().__init__(ce.binary_crossentropy, reduction, name, dtype, **options)


class BinaryFocalCrossentropy(_Crossentropy):
    """``binary_focal_crossentropy`` as a loss object."""

    def __init__(
        self,
        apply_class_balancing=False,
        alpha=0.25,
        gamma=2.0,
        from_logits=False,
        label_smoothing=0.0,
        axis=-1,
        reduction=MEAN,
        name="binary_focal_crossentropy",
        dtype=None,
    ):
        options = {"from_logits": from_logits, "label_smoothing": label_smoothing, "axis": axis}
        balancing = {"apply_class_balancing": apply_class_balancing, "alpha": alpha}
        fn = ce.binary_focal_crossentropy
        super().__init__(fn, reduction, name, dtype, **options, **balancing, gamma=gamma)


class CategoricalCrossentropy(_Crossentropy):
    """``categorical_crossentropy`` as a loss object: one-hot labels of the predictions'
    shape."""

    def __init__(
        self,
        from_logits=False,
        label_smoothing=0.0,
        axis=-1,
        reduction=MEAN,
        name="categorical_crossentropy",
        dtype=None,
    ):
        options = {"from_logits": from_logits, "label_smoothing": label_smoothing, "axis": axis}
        super().__init__(ce.categorical_crossentropy, reduction, name, dtype, **options)


class CategoricalFocalCrossentropy(_Crossentropy):
    """``categorical_focal_crossentropy`` as a loss object."""

    def __init__(
        self,
        alpha=0.25,
        gamma=2.0,
        from_logits=False,
        label_smoothing=0.0,
        axis=-1,
        reduction=MEAN,
        name="categorical_focal_crossentropy",
        dtype=None,
    ):
        options = {"from_logits": from_logits, "label_smoothing": label_smoothing, "axis": axis}
        fn = ce.categorical_focal_crossentropy
        super().__init__(fn, reduction, name, dtype, **options, alpha=alpha, gamma=gamma)


class SparseCategoricalCrossentropy(_Crossentropy):
    """``sparse_categorical_crossentropy`` as a loss object: labels are class indices. With
    ``ignore_class``, the examples of that label are left out of the mean. As with Keras'
    TensorFlow backend, ``axis`` can only be the last (-1)."""

    def __init__(
        self,
        from_logits=False,
        ignore_class=None,
        reduction=MEAN,
        name="sparse_categorical_crossentropy",
        dtype=None,
        axis=-1,
    ):
        options = {"from_logits": from_logits, "ignore_class": ignore_class, "axis": axis}
        super().__init__(ce.sparse_categorical_crossentropy, reduction, name, dtype, **options)

    def _losses_and_mask(self, y_true, y_pred):
        losses = self.call(y_true, y_pred)
        if self.ignore_class is None:
            return losses, None
        labels = ce._sparse_labels(y_true, y_pred)
        return losses, ce.valid_labels(labels, self.ignore_class)
