"""``AUC``: the area under the ROC or precision-recall curve, from confusion counts at
``num_thresholds`` thresholds, summed as Keras sums it.

The thresholds are ``i / (num_thresholds - 1)`` inside ``(0, 1)``, with
``-epsilon`` and ``1 + epsilon`` at the ends (or the ``thresholds`` given, with
the same ends). ``summation_method="interpolation"`` takes the trapezoids between
successive thresholds for ROC, and for PR the interpolation of Davis & Goadrich
(2006), precision varying along each step as true positives over predicted
positives do; ``"minoring"``/``"majoring"`` take the lower/upper rectangle.

>>> import runtime as rt
>>> m = rt.keras.metrics.AUC(num_thresholds=3)
>>> float(m([0, 0, 1, 1], [0, 0.5, 0.3, 0.9]))
0.75
"""

from __future__ import annotations

import enum

import numpy as np

from runtime.core import dtypes
from runtime.keras import backend
from runtime.keras.loss_base import divide_no_nan
from runtime.keras.metrics.confusion import update_confusion_matrix
from runtime.keras.metrics.metric import Metric
from runtime.ops.array_ops import ones_like, zeros_like
from runtime.ops.broadcast_ops import where
from runtime.ops.constant_ops import cast, convert_to_tensor
from runtime.ops.math_ops import equal, greater, log, logical_and, maximum, minimum, sigmoid
from runtime.ops.reduction_ops import reduce_mean, reduce_sum


class AUCCurve(str, enum.Enum):
    """The curve ``AUC`` integrates; each equals its name as a string."""

    ROC = "ROC"
    PR = "PR"
    PRGAIN = "PRGAIN"


class AUCSummationMethod(str, enum.Enum):
    """How ``AUC`` sums between thresholds; each equals its name as a string."""

    INTERPOLATION = "interpolation"
    MAJORING = "majoring"
    MINORING = "minoring"


_COUNTS = (("tp", "true_positives"), ("fp", "false_positives"), ("tn", "true_negatives"),
           ("fn", "false_negatives"))  # fmt: skip


def _curve(curve):
    key = curve.value if isinstance(curve, AUCCurve) else str(curve).upper()
    if key not in AUCCurve._value2member_map_:
        raise ValueError(
            f'Invalid AUC curve value: "{curve}". Expected values are ["PR", "ROC", "PRGAIN"]'
        )
    return AUCCurve(key)


def _summation(method):
    key = method.value if isinstance(method, AUCSummationMethod) else str(method).lower()
    if key not in AUCSummationMethod._value2member_map_:
        raise ValueError(
            f'Invalid AUC summation method value: "{method}". Expected values are '
            '["interpolation", "majoring", "minoring"]'
        )
    return AUCSummationMethod(key)


def _inner_thresholds(num_thresholds, thresholds):
    if thresholds is not None:
        return sorted(thresholds)
    if num_thresholds <= 1:
        raise ValueError(
            "Argument `num_thresholds` must be an integer > 1. "
            f"Received: num_thresholds={num_thresholds}"
        )
    return [(i + 1) / (num_thresholds - 1) for i in range(num_thresholds - 2)]


def _gains(tp, fp, tn, fn):
    """``(recall gain, precision gain)`` of the PR-gain curve (Flach & Kull, 2015): each
    ``1 - (positives / negatives) * (fn or fp) / tp``, recall gain at least 0; with no true
    positives, recall gain 0 and precision gain 1."""
    scale = divide_no_nan(tp + fn, tn + fp)
    no_tp = equal(tp, 0.0)
    recall_gain = where(no_tp, zeros_like(tp), 1.0 - scale * divide_no_nan(fn, tp))
    precision_gain = where(no_tp, ones_like(tp), 1.0 - scale * divide_no_nan(fp, tp))
    return maximum(recall_gain, 0.0), precision_gain


class AUC(Metric):
    """The area under the ROC (``curve="ROC"``) or precision-recall (``"PR"``) curve.

    With ``multi_label`` the predictions are ``(examples, labels)`` and the area is
    computed per label, then averaged (weighted by ``label_weights``); otherwise every
    value counts as one more example. ``from_logits`` passes predictions through a sigmoid.
    """

    def __init__(self, num_thresholds=200, curve="ROC", summation_method="interpolation",
                 name=None, dtype=None, thresholds=None, multi_label=False, num_labels=None,
                 label_weights=None, from_logits=False):  # fmt: skip
        inner = _inner_thresholds(num_thresholds, thresholds)
        self._init_from_thresholds = thresholds is not None
        self.num_thresholds = len(inner) + 2
        eps = backend.epsilon()
        self._thresholds = np.array([0.0 - eps, *inner, 1.0 + eps])
        self.curve = _curve(curve)
        self.summation_method = _summation(summation_method)
        super().__init__(name=name, dtype=dtype)
        self.multi_label = multi_label
        self.num_labels = num_labels
        self.label_weights = label_weights
        self._from_logits = from_logits
        self._built = False
        if not multi_label and num_labels:
            raise ValueError("`num_labels` is needed only when `multi_label` is True.")
        if not multi_label or num_labels:
            self._build([None, num_labels] if multi_label else None)

    @property
    def thresholds(self):
        """The thresholds the counts are taken at, the two ends included."""
        return list(self._thresholds)

    def _build(self, shape):
        if self.multi_label:
            if len(shape) != 2:
                raise ValueError(
                    "`y_pred` must have rank 2 when `multi_label=True`. Found rank "
                    f"{len(shape)}. Full shape received for `y_pred`: {shape}"
                )
            self._num_labels = shape[1]
            variable_shape = (self.num_thresholds, self._num_labels)
        else:
            variable_shape = (self.num_thresholds,)
        for _, name in _COUNTS:
            setattr(self, name, self.add_variable(variable_shape, "zeros", name=name))
        self._built = True

    def update_state(self, y_true, y_pred, sample_weight=None):
        y_pred = convert_to_tensor(y_pred)
        if not self._built:
            self._build(y_pred.shape.as_list())
        if self._from_logits:
            y_pred = sigmoid(cast(y_pred, dtypes.float32))
        label_weights = None if self.multi_label else self.label_weights
        update_confusion_matrix(
            {key: getattr(self, name) for key, name in _COUNTS},
            y_true, y_pred, self._thresholds, sample_weight,
            multi_label=self.multi_label, label_weights=label_weights,
        )  # fmt: skip

    def _counts(self):
        return [getattr(self, name).read_value() for _, name in _COUNTS]

    def _by_label(self, by_label):
        """One area from the per-label areas: the mean, or the ``label_weights`` average."""
        if not self.multi_label:
            return by_label
        if self.label_weights is None:
            return reduce_mean(by_label)
        weights = cast(convert_to_tensor(self.label_weights), dtypes.float32)
        return divide_no_nan(reduce_sum(by_label * weights), reduce_sum(weights))

    def interpolate_pr_auc(self):
        """The PR area with precision interpolated between thresholds as
        ``(tp_a + slope * (p - p_a)) / p`` (p: predicted positives), integrated exactly."""
        tp, fp, _, fn = self._counts()
        n = self.num_thresholds
        p = tp + fp
        dtp = tp[: n - 1] - tp[1:]
        dp = p[: n - 1] - p[1:]
        slope = divide_no_nan(dtp, maximum(dp, 0.0))
        intercept = tp[1:] - slope * p[1:]
        both_positive = logical_and(greater(p[: n - 1], 0.0), greater(p[1:], 0.0))
        ratio = where(
            both_positive, divide_no_nan(p[: n - 1], maximum(p[1:], 0.0)), ones_like(p[1:])
        )
        area = divide_no_nan(slope * (dtp + intercept * log(ratio)), maximum(tp[1:] + fn[1:], 0.0))
        return self._by_label(reduce_sum(area, axis=0))

    def result(self):
        if self.curve == "PR" and self.summation_method == "interpolation":
            return self.interpolate_pr_auc()
        tp, fp, tn, fn = self._counts()
        recall = divide_no_nan(tp, tp + fn)
        if self.curve == "ROC":
            x, y = divide_no_nan(fp, fp + tn), recall
        elif self.curve == "PR":
            x, y = recall, divide_no_nan(tp, tp + fp)
        else:
            x, y = _gains(tp, fp, tn, fn)
        n = self.num_thresholds
        if self.summation_method == "interpolation":
            heights = (y[: n - 1] + y[1:]) / 2.0
        elif self.summation_method == "minoring":
            heights = minimum(y[: n - 1], y[1:])
        else:
            heights = maximum(y[: n - 1], y[1:])
        return self._by_label(reduce_sum((x[: n - 1] - x[1:]) * heights, axis=0))

    def reset_state(self):
        if self._built:  # a multi-label AUC without num_labels has no state before its data
            super().reset_state()

    def get_config(self):
        label_weights = self.label_weights
        config = {
            "num_thresholds": self.num_thresholds,
            "curve": self.curve.value,
            "summation_method": self.summation_method.value,
            "multi_label": self.multi_label,
            "num_labels": self.num_labels,
            "label_weights": None if label_weights is None else np.asarray(label_weights).tolist(),
            "from_logits": self._from_logits,
        }
        if self._init_from_thresholds:
            config["thresholds"] = self.thresholds[1:-1]
        return {**super().get_config(), **config}
