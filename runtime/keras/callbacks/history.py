"""``History``: the logs of every epoch, what ``fit`` returns."""

from __future__ import annotations

from runtime.keras.callbacks.callback import Callback


class History(Callback):
    """Records the logs of every epoch: ``history`` maps ``"loss"``, each metric, and their
    ``"val_"`` versions to a list with one value per epoch; ``epoch`` lists the epochs."""

    def __init__(self):
        super().__init__()
        self.history = {}
        self.epoch = []

    def on_train_begin(self, logs=None):
        self.epoch = []

    def on_epoch_end(self, epoch, logs=None):
        self.epoch.append(epoch)
        for key, value in (logs or {}).items():
            self.history.setdefault(key, []).append(value)

    def __repr__(self):
        return f"<rt.keras.callbacks.History epochs={len(self.epoch)}>"
