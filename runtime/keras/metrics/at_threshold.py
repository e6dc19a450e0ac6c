"""Metrics at the best threshold under a constraint: ``SensitivityAtSpecificity``,
``SpecificityAtSensitivity``, ``PrecisionAtRecall``, ``RecallAtPrecision``.

Confusion counts are kept at ``num_thresholds`` thresholds evenly spaced over
``[0, 1]`` (one, 0.5, when ``num_thresholds=1``); the result is the largest value
of one rate among the thresholds where the other rate is at least the value
asked for (0 where none is).

>>> import runtime as rt
>>> m = rt.keras.metrics.PrecisionAtRecall(recall=0.5)
>>> float(m([0, 0, 0, 1, 1], [0, 0.3, 0.8, 0.3, 0.8]))
0.5
"""

from __future__ import annotations

from runtime.keras.loss_base import divide_no_nan
from runtime.keras.metrics.confusion import update_confusion_matrix
from runtime.keras.metrics.metric import Metric
from runtime.ops.array_ops import zeros_like
from runtime.ops.broadcast_ops import where
from runtime.ops.math_ops import greater_equal, maximum
from runtime.ops.reduction_ops import reduce_max

_COUNTS = (("tp", "true_positives"), ("fp", "false_positives"), ("tn", "true_negatives"),
           ("fn", "false_negatives"))  # fmt: skip


def _check_rate(argument, value):
    if value < 0 or value > 1:
        raise ValueError(
            f"Argument `{argument}` must be in the range [0, 1]. Received: {argument}={value}"
        )


class _AtConstraint(Metric):
    """Counts at evenly spaced thresholds; subclasses say which rate is constrained
    (``_constrained``) and which is maximised (``_maximised``)."""

    _argument = None

    def __init__(self, value, num_thresholds=200, class_id=None, name=None, dtype=None):
        _check_rate(self._argument, value)
        if num_thresholds <= 0:
            raise ValueError(
                "Argument `num_thresholds` must be an integer > 0. "
                f"Received: num_thresholds={num_thresholds}"
            )
        super().__init__(name=name, dtype=dtype)
        setattr(self, self._argument, value)
        self.value = value
        self.num_thresholds = num_thresholds
        self.class_id = class_id
        if num_thresholds == 1:
            self.thresholds = [0.5]
        else:
            inner = [(i + 1) / (num_thresholds - 1) for i in range(num_thresholds - 2)]
            self.thresholds = [0.0, *inner, 1.0]
        for _, name_ in _COUNTS:
            shape = (len(self.thresholds),)
            setattr(self, name_, self.add_variable(shape, "zeros", name=name_))

    def update_state(self, y_true, y_pred, sample_weight=None):
        update_confusion_matrix(
            {key: getattr(self, name) for key, name in _COUNTS},
            y_true, y_pred, self.thresholds, sample_weight, class_id=self.class_id,
        )  # fmt: skip

    def _rates(self):
        tp, fp, tn, fn = (getattr(self, name).read_value() for _, name in _COUNTS)
        return {
            "sensitivity": divide_no_nan(tp, tp + fn),  # also the recall
            "specificity": divide_no_nan(tn, tn + fp),
            "precision": divide_no_nan(tp, tp + fp),
        }

    def result(self):
        rates = self._rates()
        constrained, maximised = rates[self._constrained], rates[self._maximised]
        feasible = greater_equal(constrained, float(self.value))
        return maximum(reduce_max(where(feasible, maximised, zeros_like(maximised))), 0.0)

    def get_config(self):
        return {
            **super().get_config(),
            "class_id": self.class_id,
            "num_thresholds": self.num_thresholds,
            self._argument: self.value,
        }


class SensitivityAtSpecificity(_AtConstraint):
    """The best sensitivity (recall) where the specificity is at least ``specificity``."""

    _argument, _constrained, _maximised = "specificity", "specificity", "sensitivity"

    def __init__(self, specificity, num_thresholds=200, class_id=None, name=None, dtype=None):
        super().__init__(specificity, num_thresholds, class_id, name, dtype)


class SpecificityAtSensitivity(_AtConstraint):
    """The best specificity where the sensitivity (recall) is at least ``sensitivity``."""

    _argument, _constrained, _maximised = "sensitivity", "sensitivity", "specificity"

    def __init__(self, sensitivity, num_thresholds=200, class_id=None, name=None, dtype=None):
        super().__init__(sensitivity, num_thresholds, class_id, name, dtype)


class PrecisionAtRecall(_AtConstraint):
    """The best precision where the recall is at least ``recall``."""

    _argument, _constrained, _maximised = "recall", "sensitivity", "precision"

    def __init__(self, recall, num_thresholds=200, class_id=None, name=None, dtype=None):
        super().__init__(recall, num_thresholds, class_id, name, dtype)


class RecallAtPrecision(_AtConstraint):
    """The best recall where the precision is at least ``precision`` (0 if it never is)."""

    _argument, _constrained, _maximised = "precision", "precision", "sensitivity"

    def __init__(self, precision, num_thresholds=200, class_id=None, name=None, dtype=None):
        super().__init__(precision, num_thresholds, class_id, name, dtype)
