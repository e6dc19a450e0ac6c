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
    """Hooks ``fit``, ``evaluate`` and ``predict`` call, as Keras 3 calls them: override those
    you need. ``self.model`` is the model trained. During ``fit``'s validation (and in
    ``evaluate``) the test hooks run: ``on_test_begin``, ``on_test_batch_begin``,
    ``on_test_batch_end`` with the running logs (``{"loss": ...}``, no ``val_`` prefix),
    ``on_test_end`` with the final ones. ``on_batch_begin``/``on_batch_end`` are Keras' old
    names for the training batch hooks: the base ``on_train_batch_*`` call them."""

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

    def on_batch_begin(self, batch, logs=None):
        """Keras' older name of ``on_train_batch_begin``."""

    def on_batch_end(self, batch, logs=None):
        """Keras' older name of ``on_train_batch_end``."""

    def on_train_batch_begin(self, batch, logs=None):
        self.on_batch_begin(batch, logs=logs)

    def on_train_batch_end(self, batch, logs=None):
        self.on_batch_end(batch, logs=logs)

    def on_test_begin(self, logs=None):
        pass

    def on_test_end(self, logs=None):
        pass

    def on_test_batch_begin(self, batch, logs=None):
        pass

    def on_test_batch_end(self, batch, logs=None):
        pass

    def on_predict_begin(self, logs=None):
        pass

    def on_predict_end(self, logs=None):
        pass

    def on_predict_batch_begin(self, batch, logs=None):
        pass

    def on_predict_batch_end(self, batch, logs=None):
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
    """The callbacks of one ``fit``, ``evaluate`` or ``predict``, called in order. Batch hooks
    are called only on the callbacks that override them, so a plain ``fit`` spends nothing on
    them per batch; ``wants_batches(mode)`` says whether any does."""

    def __init__(self, callbacks, model, params):
        self.callbacks = list(callbacks)
        for callback in self.callbacks:
            callback.set_model(model)
            callback.set_params(params)
        self._batch_callbacks = {
            hook: [c for c in self.callbacks if _overrides(c, *aliases)]
            for hook, aliases in _BATCH_HOOKS.items()
        }

    def wants_batches(self, mode):
        """Whether a callback has a batch hook of ``mode`` (``"train"``, ``"test"``,
        ``"predict"``)."""
        return any(self._batch_callbacks[f"on_{mode}_batch_{when}"] for when in ("begin", "end"))

    def _call_all(self, hook, *args):
        for callback in self.callbacks:
            getattr(callback, hook)(*args)

    def _call_batch_hook(self, hook, batch, logs):
        for callback in self._batch_callbacks[hook]:
            getattr(callback, hook)(batch, logs)

    def on_train_begin(self, logs=None):
        self._call_all("on_train_begin", logs or {})

    def on_train_end(self, logs=None):
        self._call_all("on_train_end", logs or {})

    def on_epoch_begin(self, epoch, logs=None):
        self._call_all("on_epoch_begin", epoch, logs or {})

    def on_epoch_end(self, epoch, logs=None):
        self._call_all("on_epoch_end", epoch, logs or {})

    def on_test_begin(self, logs=None):
        self._call_all("on_test_begin", logs or {})

    def on_test_end(self, logs=None):
        self._call_all("on_test_end", logs or {})

    def on_predict_begin(self, logs=None):
        self._call_all("on_predict_begin", logs or {})

    def on_predict_end(self, logs=None):
        self._call_all("on_predict_end", logs or {})

    def on_batch_begin(self, mode, batch, logs=None):
        """``on_<mode>_batch_begin`` of the callbacks that have one."""
        self._call_batch_hook(f"on_{mode}_batch_begin", batch, logs or {})

    def on_batch_end(self, mode, batch, logs=None):
        """``on_<mode>_batch_end`` of the callbacks that have one."""
        self._call_batch_hook(f"on_{mode}_batch_end", batch, logs or {})


# Each batch hook, and the hooks whose overriding means a callback wants it called (a training
# batch hook calls its old name).
_BATCH_HOOKS = {
    "on_train_batch_begin": ("on_train_batch_begin", "on_batch_begin"),
    "on_train_batch_end": ("on_train_batch_end", "on_batch_end"),
    "on_test_batch_begin": ("on_test_batch_begin",),
    "on_test_batch_end": ("on_test_batch_end",),
    "on_predict_batch_begin": ("on_predict_batch_begin",),
    "on_predict_batch_end": ("on_predict_batch_end",),
}


def _overrides(callback, *hooks):
    return any(getattr(type(callback), hook) is not getattr(Callback, hook) for hook in hooks)
