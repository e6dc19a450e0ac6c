"""``R2Score``: the coefficient of determination, ``1 - SS_res / SS_tot``, per output column
and then averaged, from sums kept over batches (as scikit-learn's ``r2_score`` computes it over
all the data at once).

>>> import runtime as rt
>>> m = rt.keras.metrics.R2Score()
>>> round(float(m([[1.0], [4.0], [3.0]], [[2.0], [4.0], [4.0]])), 6)
0.571429
"""

from __future__ import annotations

import warnings

from runtime.core import context
from runtime.keras.loss_base import as_loss_dtype, squeeze_or_expand_to_same_rank
from runtime.keras.metrics.metric import Metric
from runtime.ops.array_ops import expand_dims, zeros_like
from runtime.ops.broadcast_ops import where
from runtime.ops.constant_ops import cast
from runtime.ops.math_ops import abs as abs_
from runtime.ops.math_ops import equal, greater, maximum, not_equal
from runtime.ops.reduction_ops import reduce_any, reduce_mean, reduce_sum

_AGGREGATIONS = (None, "uniform_average", "variance_weighted_average")


class R2Score(Metric):
    """R² of the predictions: per output column, ``1 - sum(w (y - ŷ)²) / sum(w (y - ȳ)²)``;
    ``class_aggregation`` averages the columns (``"uniform_average"``), weighs them by their
    variance (``"variance_weighted_average"``) or keeps them (``None``); ``num_regressors``
    gives the adjusted R²."""

    def __init__(self, class_aggregation="uniform_average", num_regressors=0, name="r2_score",
                 dtype=None):  # fmt: skip
        super().__init__(name=name, dtype=dtype)
        if class_aggregation not in _AGGREGATIONS:
            raise ValueError(
                "Invalid value for argument `class_aggregation`. Expected one of "
                f"{_AGGREGATIONS}. Received: class_aggregation={class_aggregation}"
            )
        if num_regressors < 0:
            raise ValueError(
                "Invalid value for argument `num_regressors`. Expected a value >= 0. "
                f"Received: num_regressors={num_regressors}"
            )
        self.class_aggregation = class_aggregation
        self.num_regressors = num_regressors
        self.num_samples = self.add_variable((), "zeros", name="num_samples")
        self._built = False

    def _build(self, true_shape, pred_shape):
        if len(pred_shape) != 2 or len(true_shape) != 2 or None in (pred_shape[-1], true_shape[-1]):
            raise ValueError(
                "R2Score expects 2D inputs with shape (batch_size, output_dim), with output_dim "
                f"fully defined (not None). Received input shapes: y_pred.shape={pred_shape} "
                f"and y_true.shape={true_shape}."
            )
        columns = (pred_shape[-1],)
        self.squared_sum = self.add_variable(columns, "zeros", name="squared_sum")
        self.sum = self.add_variable(columns, "zeros", name="sum")
        self.total_mse = self.add_variable(columns, "zeros", name="residual")
        self.count = self.add_variable(columns, "zeros", name="count")
        self._built = True

    def update_state(self, y_true, y_pred, sample_weight=None):
        y_true = as_loss_dtype(y_true, self._tensor_dtype)
        y_pred = as_loss_dtype(y_pred, self._tensor_dtype)
        y_true, y_pred = squeeze_or_expand_to_same_rank(y_true, y_pred)
        if not self._built:
            self._build(y_true.shape.as_list(), y_pred.shape.as_list())
        weight = as_loss_dtype(1.0 if sample_weight is None else sample_weight, self._tensor_dtype)
        if weight.shape.rank == 1:
            weight = expand_dims(weight, 1)
        weight = weight + zeros_like(y_true)  # one weight per value
        weighted = y_true * weight
        self.sum.assign_add(reduce_sum(weighted, axis=0))
        self.squared_sum.assign_add(reduce_sum(y_true * weighted, axis=0))
        self.total_mse.assign_add(reduce_sum((y_true - y_pred) ** 2 * weight, axis=0))
        self.count.assign_add(reduce_sum(weight, axis=0))
        counted = reduce_any(not_equal(weight, 0.0), axis=-1)
        self.num_samples.assign_add(reduce_sum(cast(counted, self._tensor_dtype)))

    def result(self):
        mean = self.sum.read_value() / self.count.read_value()
        total = self.squared_sum.read_value() - self.sum.read_value() * mean
        raw = 1.0 - self.total_mse.read_value() / total
        raw = where(_is_inf(raw), zeros_like(raw), raw)  # a constant column scores 0
        if self.class_aggregation == "uniform_average":
            score = reduce_mean(raw)
        elif self.class_aggregation == "variance_weighted_average":
            score = reduce_sum(total * raw) / reduce_sum(total)
        else:
            score = raw
        return self._adjusted(score)

    def _adjusted(self, score):
        """The adjusted R², ``1 - (1 - R²)(n - 1) / (n - p - 1)``, where there are more than
        ``p + 1`` samples; the plain R² otherwise (Keras also warns, when it runs eagerly)."""
        if self.num_regressors == 0:
            return score
        n, p = self.num_samples.read_value(), float(self.num_regressors)
        if context.executing_eagerly() and p >= float(n.numpy()) - 1:
            warnings.warn(
                "More independent predictors than datapoints in adjusted R2 score. Falling "
                "back to standard R2 score."
                if p > float(n.numpy()) - 1
                else "Division by zero in Adjusted R2 score. Falling back to standard R2 score.",
                stacklevel=3,
            )
        adjusted = 1.0 - (1.0 - score) * (n - 1.0) / maximum(n - p - 1.0, 1.0)
        return where(greater(n - 1.0, p), adjusted, score)

    def reset_state(self):
        for variable in self.variables:
            variable.assign(zeros_like(variable.read_value()))

    def get_config(self):
        return {
            **super().get_config(),
            "class_aggregation": self.class_aggregation,
            "num_regressors": self.num_regressors,
        }


def _is_inf(x):
    """True where ``x`` is +inf or -inf."""
    return equal(abs_(x), float("inf"))
