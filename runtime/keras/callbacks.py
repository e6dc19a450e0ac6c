"""Callbacks of ``fit``: ``Callback`` (the hooks), ``History`` (what ``fit`` returns).

>>> import numpy as np, runtime as rt
>>> class Count(rt.keras.callbacks.Callback):
...     def on_epoch_end(self, epoch, logs=None):
...         print("epoch", epoch, sorted(logs))
>>> model = rt.keras.Sequential([rt.keras.layers.Dense(1, input_shape=(2,))])
>>> model.compile(optimizer="sgd", loss="mse")
>>> history = model.fit(np.ones((4, 2)), np.ones((4, 1)), epochs=2, verbose=0,
...                     callbacks=[Count()])
epoch 0 ['loss']
epoch 1 ['loss']
>>> history.epoch, len(history.history["loss"])
([0, 1], 2)
"""

from __future__ import annotations


class Callback:
    """Hooks ``fit`` calls: override those you need. ``self.model`` is the model trained."""

    def __init__(self):
        self.model = None
        self.params = {}

    def set_model(self, model):
        self.model = model

    def set_params(self, params):
        self.params = params

    def on_train_begin(self, logs=None):
        pass

    def on_train_end(self, logs=None):
        pass

    def on_epoch_begin(self, epoch, logs=None):
        pass

    def on_epoch_end(self, epoch, logs=None):
        pass

    def on_train_batch_begin(self, batch, logs=None):
        pass

    def on_train_batch_end(self, batch, logs=None):
        pass


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


class CallbackList:
    """The callbacks of one ``fit``, called in order. Batch hooks are called only on the
    callbacks that override them, so a plain ``fit`` spends nothing on them per batch."""

    def __init__(self, callbacks, model, params):
        self.callbacks = list(callbacks)
        for callback in self.callbacks:
            callback.set_model(model)
            callback.set_params(params)
        self._batch_begin = [c for c in self.callbacks if _overrides(c, "on_train_batch_begin")]
        self._batch_end = [c for c in self.callbacks if _overrides(c, "on_train_batch_end")]
        self.wants_batches = bool(self._batch_begin or self._batch_end)

    def on_train_begin(self):
        for callback in self.callbacks:
            callback.on_train_begin({})

    def on_train_end(self, logs):
        for callback in self.callbacks:
            callback.on_train_end(logs)

    def on_epoch_begin(self, epoch):
        for callback in self.callbacks:
            callback.on_epoch_begin(epoch, {})

    def on_epoch_end(self, epoch, logs):
        for callback in self.callbacks:
            callback.on_epoch_end(epoch, logs)

    def on_batch_begin(self, batch):
        for callback in self._batch_begin:
            callback.on_train_batch_begin(batch, {})

    def on_batch_end(self, batch, logs):
        for callback in self._batch_end:
            callback.on_train_batch_end(batch, logs)


def _overrides(callback, hook):
    return getattr(type(callback), hook) is not getattr(Callback, hook)
