"""Callbacks that set the optimizer's learning rate: ``LearningRateScheduler`` (a schedule of
the epoch) and ``ReduceLROnPlateau`` (lowered when a logged value stops improving). Both log
``learning_rate`` at each epoch's end."""

from __future__ import annotations

import warnings

import numpy as np

from runtime.keras.callbacks.callback import Callback
from runtime.keras.callbacks.monitor import MonitorCallback


def current_learning_rate(optimizer):
    if not hasattr(optimizer, "learning_rate"):
        raise ValueError('Optimizer must have a "learning_rate" attribute.')
    rate = optimizer.learning_rate
    return float(rate.numpy() if hasattr(rate, "numpy") else rate)


def log_learning_rate(model, logs):
    if logs is not None:
        logs["learning_rate"] = current_learning_rate(model.optimizer)


class LearningRateScheduler(Callback):
    """Sets the learning rate at each epoch's start to ``schedule(epoch, lr)`` (or
    ``schedule(epoch)``, for a schedule of one argument), which must be a float.

    >>> import numpy as np, runtime as rt
    >>> model = rt.keras.Sequential([rt.keras.layers.Dense(1, input_shape=(1,))])
    >>> model.compile(optimizer=rt.keras.optimizers.SGD(0.1), loss="mse")
    >>> halve = rt.keras.callbacks.LearningRateScheduler(lambda epoch, lr: lr / 2)
    >>> history = model.fit(np.ones((2, 1)), np.ones((2, 1)), epochs=3, verbose=0,
    ...                     callbacks=[halve])
    >>> np.round(history.history["learning_rate"], 4).tolist()
    [0.05, 0.025, 0.0125]
    """

    def __init__(self, schedule, verbose=0):
        super().__init__()
        self.schedule = schedule
        self.verbose = verbose

    def on_epoch_begin(self, epoch, logs=None):
        optimizer = self.model.optimizer
        try:
            rate = self.schedule(epoch, current_learning_rate(optimizer))
        except TypeError:  # a schedule of the epoch alone (Keras' older form)
            rate = self.schedule(epoch)
        if not isinstance(rate, (float, np.float32, np.float64)):
            raise ValueError(
                f"The output of the `schedule` function should be a float. Got: {rate}"
            )
        optimizer.learning_rate = rate
        if self.verbose > 0:
            print(f"\nEpoch {epoch + 1}: LearningRateScheduler setting learning rate to {rate}.")

    def on_epoch_end(self, epoch, logs=None):
        log_learning_rate(self.model, logs)


class ReduceLROnPlateau(MonitorCallback):
    """Multiplies the learning rate by ``factor`` (never below ``min_lr``) once ``monitor``
    has not improved by more than ``min_delta`` for ``patience`` epochs; then waits
    ``cooldown`` epochs before counting again."""

    def __init__(self, monitor="val_loss", factor=0.1, patience=10, verbose=0, mode="auto",
                 min_delta=1e-4, cooldown=0, min_lr=0.0, **kwargs):  # fmt: skip
        super().__init__(monitor, mode, min_delta=min_delta)
        if factor >= 1.0:
            raise ValueError(
                f"ReduceLROnPlateau does not support a factor >= 1.0. Received factor={factor}"
            )
        self.factor = factor
        self.min_lr = min_lr
        self.patience = patience
        self.verbose = verbose
        self.cooldown = cooldown
        self.cooldown_counter = 0
        self.wait = 0

    def on_train_begin(self, logs=None):
        self.best = None
        self.cooldown_counter = 0
        self.wait = 0

    def in_cooldown(self):
        return self.cooldown_counter > 0

    def on_epoch_end(self, epoch, logs=None):
        self._direction()  # a monitor Keras cannot orient fails here, logged or not
        logs = logs if logs is not None else {}
        log_learning_rate(self.model, logs)
        current = logs.get(self.monitor)
        if current is None:
            warnings.warn(
                f"Learning rate reduction is conditioned on metric `{self.monitor}` which is not "
                f"available. Available metrics are: {','.join(logs)}.",
                stacklevel=2,
            )
            return
        if self.in_cooldown():
            self.cooldown_counter -= 1
            self.wait = 0
        if self._is_improvement(current, self.best):
            self.best = current
            self.wait = 0
        elif not self.in_cooldown():
            self.wait += 1
            if self.wait >= self.patience and self._reduce(epoch):
                self.cooldown_counter = self.cooldown
                self.wait = 0

    def _reduce(self, epoch):
        """Lowers the rate unless it is at ``min_lr`` already; says whether it did."""
        old = current_learning_rate(self.model.optimizer)
        if old <= np.float32(self.min_lr):
            return False
        new = max(old * self.factor, self.min_lr)
        self.model.optimizer.learning_rate = new
        if self.verbose > 0:
            print(f"\nEpoch {epoch + 1}: ReduceLROnPlateau reducing learning rate to {new}.")
        return True
