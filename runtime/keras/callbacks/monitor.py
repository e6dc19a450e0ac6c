"""``MonitorCallback``: what ``EarlyStopping`` and ``ReduceLROnPlateau`` share, a logged value
watched for improvement.

Whether lower or higher is better is ``mode``: ``"min"``, ``"max"``, or ``"auto"``
(Keras 3's rule: a loss is minimised; a metric the model knows says its own direction
through ``_direction``, and the metrics ``compile`` takes by name go the way Keras' own
go; any other name is an error asking for a mode). An improvement
beats the best value so far by more than ``min_delta``.
"""

from __future__ import annotations

import warnings

from runtime.keras.callbacks.callback import Callback

# The direction of the metrics compile() takes by name, as Keras 3's metric classes declare it.
_HIGHER_IS_BETTER = ("acc", "accuracy", "auc", "precision", "recall", "f1_score", "fbeta_score",
                     "iou", "r2_score")  # fmt: skip
_LOWER_IS_BETTER = ("mse", "mae", "mape", "msle", "hinge", "squared_hinge", "categorical_hinge",
                    "crossentropy", "mean_squared_error", "mean_absolute_error", "logcosh",
                    "log_cosh", "kl_divergence", "kld", "poisson", "cosine_proximity")  # fmt: skip


class MonitorCallback(Callback):
    def __init__(self, monitor="val_loss", mode="auto", baseline=None, min_delta=0):
        super().__init__()
        if mode not in ("auto", "min", "max"):
            warnings.warn(
                f"{type(self).__name__} mode '{mode}' is unknown, fallback to auto mode.",
                stacklevel=3,
            )
            mode = "auto"
        self.monitor = monitor
        self.mode = mode
        self.best = baseline
        self.min_delta = abs(min_delta)
        self._lower_is_better = None

    def _direction(self):
        """True when lower values are better; decided at the first epoch's end, when the
        model's metrics are known."""
        if self._lower_is_better is None:
            self._lower_is_better = self._decide_direction()
        return self._lower_is_better

    def _decide_direction(self):
        if self.mode != "auto":
            return self.mode == "min"
        name = self.monitor.removeprefix("val_")
        if name == "loss":
            return True
        for metric in getattr(self.model, "metrics", None) or ():
            direction = getattr(metric, "_direction", None)
            if getattr(metric, "name", None) == name and direction in ("up", "down"):
                return direction == "down"
        if name.endswith(_HIGHER_IS_BETTER):
            return False
        if name.endswith(_LOWER_IS_BETTER):
            return True
        raise ValueError(
            f"{type(self).__name__} callback received monitor={self.monitor}, but Keras isn't "
            "able to automatically determine whether that metric should be maximized or "
            "minimized. Pass `mode='max'` in order to monitor based on the highest metric "
            "value, or pass `mode='min'` in order to use the lowest value."
        )

    def _is_improvement(self, value, reference):
        if reference is None:
            return True
        if self._direction():
            return value + self.min_delta < reference
        return value - self.min_delta > reference
