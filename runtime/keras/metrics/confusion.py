"""Confusion-matrix metrics: counts of true/false positives/negatives at thresholds, and
``Precision`` and ``Recall`` made of them.

A prediction is positive at a threshold when it is strictly above it; a label is
positive when it is not 0. ``sample_weight`` weighs each count; ``top_k`` keeps
only each example's ``k`` largest predictions (the others count as negative);
``class_id`` looks at one column of ``(examples, classes)`` data.

>>> import runtime as rt
>>> float(rt.keras.metrics.TruePositives()([0, 1, 1, 1], [1, 0, 1, 1]))
2.0
>>> round(float(rt.keras.metrics.Precision()([0, 1, 1, 1], [1, 0, 1, 1])), 6)  # 2 of 3 right
0.666667
>>> round(float(rt.keras.metrics.Recall()([0, 1, 1, 1], [1, 0, 1, 1])), 6)  # 2 of 3 found
0.666667
"""

from __future__ import annotations

import numpy as np

from runtime.core import dtypes
from runtime.keras.loss_base import divide_no_nan, squeeze_or_expand_to_same_rank
from runtime.keras.metrics.metric import Metric
from runtime.ops.array_ops import expand_dims, reshape, zeros_like
from runtime.ops.constant_ops import cast, constant, convert_to_tensor
from runtime.ops.math_ops import greater, logical_and, logical_not, not_equal
from runtime.ops.reduction_ops import reduce_sum

NEG_INF = -1e10  # what top_k filtering puts in place of the predictions it drops


def parse_thresholds(thresholds, default):
    """``thresholds`` as a list, each checked to be in ``[0, 1]`` (Keras' error otherwise)."""
    if thresholds is None:
        return [default]
    listed = list(thresholds) if isinstance(thresholds, (list, tuple)) else [thresholds]
    invalid = [t for t in listed if t is None or t < 0 or t > 1]
    if invalid:
        raise ValueError(f"Threshold values must be in [0, 1]. Received: {invalid}")
    return listed


def _filter_top_k(x, k):
    """``x`` with all but each row's ``k`` largest values (ties: the first) set to NEG_INF."""
    classes = x.shape[-1]
    before = constant(np.tril(np.ones((classes, classes), bool), -1))  # [i, j]: j comes before i
    row, column = expand_dims(x, -1), expand_dims(x, -2)  # [.., i, 1] and [.., 1, j]
    outranks = greater(column, row)
    ties_before = logical_and(logical_not(not_equal(column, row)), before)
    rank = reduce_sum(cast(outranks, dtypes.int32) + cast(ties_before, dtypes.int32), axis=-1)
    keep = cast(rank < k, x.dtype)
    return x * keep + NEG_INF * (1.0 - keep)


def _prepared(y_true, y_pred, sample_weight, top_k, class_id):
    y_true = cast(convert_to_tensor(y_true), dtypes.float32)
    y_pred = cast(convert_to_tensor(y_pred), dtypes.float32)
    y_pred, y_true = squeeze_or_expand_to_same_rank(y_pred, y_true)
    if sample_weight is not None:
        sample_weight = expand_dims(cast(convert_to_tensor(sample_weight), dtypes.float32), -1)
        _, sample_weight = squeeze_or_expand_to_same_rank(y_true, sample_weight, False)
    if top_k is not None:
        y_pred = _filter_top_k(y_pred, top_k)
    if class_id is not None:
        if y_pred.shape.rank == 1:
            raise ValueError(
                "When class_id is provided, y_pred must be a 2D array with shape "
                f"(num_samples, num_classes), found shape: {y_pred.shape}"
            )
        y_true = y_true[..., class_id : class_id + 1]
        y_pred = y_pred[..., class_id : class_id + 1]
    return y_true, y_pred, sample_weight


def update_confusion_matrix(variables, y_true, y_pred, thresholds, sample_weight=None,
                            top_k=None, class_id=None, multi_label=False,
                            label_weights=None):  # fmt: skip
    """Adds this batch's counts to ``variables`` (``{"tp"|"fp"|"tn"|"fn": variable}``), one per
    threshold (and per label with ``multi_label``)."""
    y_true, y_pred, sample_weight = _prepared(y_true, y_pred, sample_weight, top_k, class_id)
    thresholds = constant(np.asarray(thresholds, np.float32))
    if multi_label:  # [thresholds, examples, labels]: counted per label
        flat = lambda t: expand_dims(t, 0)  # noqa: E731
        thresholds = reshape(thresholds, [-1, 1, 1])
    else:  # [thresholds, every value]
        flat = lambda t: reshape(t, [1, -1])  # noqa: E731
        thresholds = reshape(thresholds, [-1, 1])
    pred_is_pos = greater(flat(y_pred), thresholds)
    label_is_pos = not_equal(flat(y_true), 0.0)
    weights = None
    if sample_weight is not None:
        weights = flat(sample_weight + zeros_like(y_pred))
    if label_weights is not None and not multi_label:
        label_weights = cast(convert_to_tensor(label_weights), dtypes.float32)
        label_weights = flat(label_weights + zeros_like(y_pred))
        weights = label_weights if weights is None else weights * label_weights
    conditions = {
        "tp": (label_is_pos, pred_is_pos),
        "fp": (logical_not(label_is_pos), pred_is_pos),
        "tn": (logical_not(label_is_pos), logical_not(pred_is_pos)),
        "fn": (label_is_pos, logical_not(pred_is_pos)),
    }
    for key, variable in variables.items():
        hits = cast(logical_and(*conditions[key]), variable.dtype)
        if weights is not None:
            hits = hits * cast(weights, variable.dtype)
        variable.assign_add(reduce_sum(hits, axis=1))


class _ConditionCount(Metric):
    """How many (label, prediction) pairs fall in one cell of the confusion matrix, per
    threshold: one variable, ``accumulator``."""

    _condition = None

    def __init__(self, thresholds=None, name=None, dtype=None):
        super().__init__(name=name, dtype=dtype)
        self.init_thresholds = thresholds
        self.thresholds = parse_thresholds(thresholds, 0.5)
        self.accumulator = self.add_variable(
            shape=(len(self.thresholds),), initializer="zeros", name="accumulator"
        )

    def update_state(self, y_true, y_pred, sample_weight=None):
        update_confusion_matrix(
            {self._condition: self.accumulator}, y_true, y_pred, self.thresholds, sample_weight
        )

    def result(self):
        value = self.accumulator.read_value()
        return value[0] if len(self.thresholds) == 1 else value

    def get_config(self):
        return {**super().get_config(), "thresholds": self.init_thresholds}


class TruePositives(_ConditionCount):
    """The (weighted) number of positive labels predicted positive."""

    _condition = "tp"


class FalsePositives(_ConditionCount):
    """The (weighted) number of negative labels predicted positive."""

    _condition = "fp"


class TrueNegatives(_ConditionCount):
    """The (weighted) number of negative labels predicted negative."""

    _condition = "tn"


class FalseNegatives(_ConditionCount):
    """The (weighted) number of positive labels predicted negative."""

    _condition = "fn"


class _Ratio(Metric):
    """``true_positives / (true_positives + <other>)`` per threshold (a scalar for one)."""

    _other = None

    def __init__(self, thresholds=None, top_k=None, class_id=None, name=None, dtype=None):
        super().__init__(name=name, dtype=dtype)
        self.init_thresholds = thresholds
        self.top_k = top_k
        self.class_id = class_id
        self.thresholds = parse_thresholds(thresholds, 0.5 if top_k is None else NEG_INF)
        shape = (len(self.thresholds),)
        self.true_positives = self.add_variable(shape, "zeros", name="true_positives")
        other_name = {"fp": "false_positives", "fn": "false_negatives"}[self._other]
        setattr(self, other_name, self.add_variable(shape, "zeros", name=other_name))
        self._other_variable = getattr(self, other_name)

    def update_state(self, y_true, y_pred, sample_weight=None):
        update_confusion_matrix(
            {"tp": self.true_positives, self._other: self._other_variable},
            y_true, y_pred, self.thresholds, sample_weight, self.top_k, self.class_id,
        )  # fmt: skip

    def result(self):
        tp = self.true_positives.read_value()
        value = divide_no_nan(tp, tp + self._other_variable.read_value())
        return value[0] if len(self.thresholds) == 1 else value

    def get_config(self):
        extra = {"thresholds": self.init_thresholds, "top_k": self.top_k}
        return {**super().get_config(), **extra, "class_id": self.class_id}


class Precision(_Ratio):
    """Of the predictions counted positive, the fraction whose label is positive."""

    _other = "fp"


class Recall(_Ratio):
    """Of the positive labels, the fraction predicted positive."""

    _other = "fn"
