"""``EarlyStopping``: stops ``fit`` when a logged value stops improving."""

from __future__ import annotations

import warnings

from runtime.keras.callbacks.monitor import MonitorCallback


class EarlyStopping(MonitorCallback):
    """Stops training once ``monitor`` has not improved (by more than ``min_delta``) for
    ``patience`` epochs, counting from ``start_from_epoch``. With a ``baseline``, epochs
    that do not beat it count as not improving. ``restore_best_weights`` puts back the
    weights of the best epoch when training ends.

    >>> import numpy as np, runtime as rt
    >>> model = rt.keras.Sequential([rt.keras.layers.Dense(1, input_shape=(1,))])
    >>> model.compile(optimizer=rt.keras.optimizers.SGD(0.0), loss="mse")  # never improves
    >>> stop = rt.keras.callbacks.EarlyStopping(monitor="loss", patience=2)
    >>> history = model.fit(np.ones((4, 1)), np.ones((4, 1)), epochs=10, verbose=0,
    ...                     callbacks=[stop])
    >>> len(history.epoch), stop.stopped_epoch
    (3, 2)
    """

    def __init__(self, monitor="val_loss", min_delta=0, patience=0, verbose=0, mode="auto",
                 baseline=None, restore_best_weights=False, start_from_epoch=0):  # fmt: skip
        super().__init__(monitor, mode, min_delta=min_delta)
        self.patience = patience
        self.verbose = verbose
        self.baseline = baseline
        self.restore_best_weights = restore_best_weights
        self.start_from_epoch = start_from_epoch
        self.wait = 0
        self.stopped_epoch = 0
        self.best_weights = None
        self.best_epoch = 0

    def on_train_begin(self, logs=None):
        self.wait = 0
        self.stopped_epoch = 0
        self.best = None
        self.best_weights = None
        self.best_epoch = 0

    def on_epoch_end(self, epoch, logs=None):
        self._direction()  # a monitor Keras cannot orient fails here, logged or not
        current = self.get_monitor_value(logs)
        if current is None or epoch < self.start_from_epoch:
            return
        if self.restore_best_weights and self.best_weights is None:
            self._keep_best(epoch)
        self.wait += 1
        if self._is_improvement(current, self.best):
            self.best = current
            self._keep_best(epoch)
            if self.baseline is None or self._is_improvement(current, self.baseline):
                self.wait = 0
            return
        if self.wait >= self.patience and epoch > 0:
            self.stopped_epoch = epoch
            self.model.stop_training = True

    def _keep_best(self, epoch):
        self.best_epoch = epoch
        if self.restore_best_weights:
            self.best_weights = self.model.get_weights()

    def on_train_end(self, logs=None):
        if self.stopped_epoch > 0 and self.verbose > 0:
            print(f"Epoch {self.stopped_epoch + 1}: early stopping")
        if self.restore_best_weights and self.best_weights is not None:
            if self.verbose > 0:
                print(
                    "Restoring model weights from the end of the best epoch: "
                    f"{self.best_epoch + 1}."
                )
            self.model.set_weights(self.best_weights)

    def get_monitor_value(self, logs):
        logs = logs or {}
        value = logs.get(self.monitor)
        if value is None:
            warnings.warn(
                f"Early stopping conditioned on metric `{self.monitor}` which is not available. "
                f"Available metrics are: {','.join(logs)}",
                stacklevel=2,
            )
        return value
