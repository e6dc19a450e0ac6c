"""Hinge metrics (each example's hinge loss, averaged by ``Mean``) and the F-scores
(``FBetaScore``, ``F1Score``: from the true positives, false positives and false negatives of
each class, kept over batches).

>>> import runtime as rt
>>> round(float(rt.keras.metrics.Hinge()([[0, 1], [0, 0]], [[0.6, 0.4], [0.4, 0.6]])), 6)
1.3
>>> m = rt.keras.metrics.F1Score(average="micro", threshold=0.5)
>>> round(float(m([[0, 1], [1, 0]], [[0.2, 0.8], [0.3, 0.6]])), 6)  # tp 1, fp 1, fn 1
0.5
"""

from __future__ import annotations

from runtime.keras import backend, losses
from runtime.keras.loss_base import as_loss_dtype
from runtime.keras.metrics.metric import Metric
from runtime.keras.metrics.reduction import MeanMetricWrapper
from runtime.ops.array_ops import expand_dims, zeros_like
from runtime.ops.constant_ops import cast
from runtime.ops.math_ops import abs as abs_
from runtime.ops.math_ops import greater, greater_equal, logical_and
from runtime.ops.reduction_ops import reduce_max, reduce_mean, reduce_sum

hinge = losses.hinge  # the losses' functions, as Keras' metrics use them
squared_hinge = losses.squared_hinge
categorical_hinge = losses.categorical_hinge


class Hinge(MeanMetricWrapper):
    """The mean hinge loss, ``mean(max(1 - y_true * y_pred, 0))`` (labels 0/1 become -1/1)."""

    def __init__(self, name="hinge", dtype=None):
        super().__init__(hinge, name=name, dtype=dtype)


class SquaredHinge(MeanMetricWrapper):
    """The mean squared hinge loss, ``mean(square(max(1 - y_true * y_pred, 0)))``."""

    def __init__(self, name="squared_hinge", dtype=None):
        super().__init__(squared_hinge, name=name, dtype=dtype)


class CategoricalHinge(MeanMetricWrapper):
    """The mean categorical hinge loss, ``max(0, 1 + max(neg) - pos)`` of one-hot labels."""

    def __init__(self, name="categorical_hinge", dtype=None):
        super().__init__(categorical_hinge, name=name, dtype=dtype)


_AVERAGES = (None, "micro", "macro", "weighted")


class FBetaScore(Metric):
    """``(1 + beta²) precision recall / (beta² precision + recall)`` per class of
    ``(batch, classes)`` labels and predictions: a prediction counts as positive above
    ``threshold``, or, without one, where it is its row's largest. ``average``: None (one score
    per class), ``"micro"`` (over all the classes' counts together), ``"macro"`` (the classes'
    mean) or ``"weighted"`` (weighted by each class's number of true labels)."""

    def __init__(self, average=None, beta=1.0, threshold=None, name="fbeta_score", dtype=None):
        super().__init__(name=name, dtype=dtype)
        _check_arguments(average, beta, threshold)
        self.average, self.beta, self.threshold = average, beta, threshold
        self.axis = None if average == "micro" else 0  # micro: the counts of all classes
        self._built = False

    def _build(self, true_shape, pred_shape):
        if len(pred_shape) != 2 or len(true_shape) != 2:
            raise ValueError(
                "FBetaScore expects 2D inputs with shape (batch_size, output_dim). Received "
                f"input shapes: y_pred.shape={pred_shape} and y_true.shape={true_shape}."
            )
        if pred_shape[-1] is None or true_shape[-1] is None:
            raise ValueError(
                "FBetaScore expects 2D inputs with shape (batch_size, output_dim), with "
                "output_dim fully defined (not None). Received input shapes: "
                f"y_pred.shape={pred_shape} and y_true.shape={true_shape}."
            )
        shape = () if self.average == "micro" else (pred_shape[-1],)
        for name in ("true_positives", "false_positives", "false_negatives"):
            setattr(self, name, self.add_variable(shape, "zeros", name=name))
        self.intermediate_weights = self.add_variable(shape, "zeros", name="intermediate_weights")
        self._built = True

    def update_state(self, y_true, y_pred, sample_weight=None):
        y_true = as_loss_dtype(y_true, self._tensor_dtype)
        y_pred = as_loss_dtype(y_pred, self._tensor_dtype)
        if not self._built:
            self._build(tuple(y_true.shape.as_list()), tuple(y_pred.shape.as_list()))
        if self.threshold is None:  # the row's largest prediction (a row of zeros has none)
            largest = reduce_max(y_pred, axis=-1, keepdims=True)
            positive = logical_and(greater_equal(y_pred, largest), greater(abs_(y_pred), 1e-9))
        else:
            positive = greater(y_pred, self.threshold)
        y_pred = cast(positive, self._tensor_dtype)
        weight = None
        if sample_weight is not None:
            weight = as_loss_dtype(sample_weight, self._tensor_dtype)
            while weight.shape.rank < y_true.shape.rank:  # (batch,) weighs each row
                weight = expand_dims(weight, -1)

        def total(values):
            return reduce_sum(values if weight is None else values * weight, axis=self.axis)

        self.true_positives.assign_add(total(y_pred * y_true))
        self.false_positives.assign_add(total(y_pred * (1.0 - y_true)))
        self.false_negatives.assign_add(total((1.0 - y_pred) * y_true))
        self.intermediate_weights.assign_add(total(y_true))

    def result(self):
        if not self._built:
            return as_loss_dtype(0.0, self._tensor_dtype)
        eps = backend.epsilon()
        tp = self.true_positives.read_value()
        precision = tp / (tp + self.false_positives.read_value() + eps)
        recall = tp / (tp + self.false_negatives.read_value() + eps)
        beta2 = self.beta**2
        score = (1.0 + beta2) * precision * recall / (beta2 * precision + recall + eps)
        if self.average == "weighted":
            weights = self.intermediate_weights.read_value()
            return reduce_sum(score * weights / (reduce_sum(weights) + eps))
        return score if self.average is None else reduce_mean(score)

    def reset_state(self):
        for variable in self.variables:
            variable.assign(zeros_like(variable.read_value()))

    def get_config(self):
        return {
            "name": self.name,
            "dtype": self.dtype,
            "beta": self.beta,
            "average": self.average,
            "threshold": self.threshold,
        }


class F1Score(FBetaScore):
    """``FBetaScore`` with ``beta=1``: ``2 precision recall / (precision + recall)``."""

    def __init__(self, average=None, threshold=None, name="f1_score", dtype=None):
        super().__init__(average=average, beta=1.0, threshold=threshold, name=name, dtype=dtype)

    def get_config(self):
        config = super().get_config()
        del config["beta"]
        return config


def _check_arguments(average, beta, threshold):
    """ValueError in Keras' words for an ``average``, ``beta`` or ``threshold`` it refuses."""
    if average not in _AVERAGES:
        raise ValueError(
            "Invalid `average` argument value. Expected one of: {None, 'micro', 'macro', "
            f"'weighted'}}. Received: average={average}"
        )
    if not isinstance(beta, float):
        raise ValueError(
            "Invalid `beta` argument value. It should be a Python float. "
            f"Received: beta={beta} of type '{type(beta)}'"
        )
    if beta <= 0.0:
        raise ValueError(f"Invalid `beta` argument value. It should be > 0. Received: beta={beta}")
    if threshold is not None:
        if not isinstance(threshold, float):
            raise ValueError(
                "Invalid `threshold` argument value. It should be a Python float. "
                f"Received: threshold={threshold} of type '{type(threshold)}'"
            )
        if threshold > 1.0 or threshold <= 0.0:
            raise ValueError(
                "Invalid `threshold` argument value. It should verify 0 < threshold <= 1. "
                f"Received: threshold={threshold}"
            )
