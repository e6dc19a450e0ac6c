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

import operator
import os
import warnings


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


# --- ModelCheckpoint (self-contained: it moves to its own module with the callbacks package) ---

# Metrics whose larger values are better, by a part of their name: what ``mode="auto"`` reads
# when a metric object does not say (Keras's metrics carry a direction).
_HIGHER_IS_BETTER = ("acc", "auc", "precision", "recall", "f1", "iou")
_LOWER_IS_BETTER = ("loss", "error", "mse", "mae", "mape", "msle", "crossentropy", "hinge",
                    "divergence", "poisson", "logcosh")  # fmt: skip


class ModelCheckpoint(Callback):
    """Saves the model (or its weights) during ``fit``, every epoch or every ``save_freq``
    batches; with ``save_best_only`` only when ``monitor`` improved (``mode``: ``"min"``,
    ``"max"``, or ``"auto"`` from the metric's name). ``filepath`` ends in ``.keras`` (the
    whole model) or, with ``save_weights_only``, ``.weights.h5``; it may hold ``{epoch}`` and
    any key of the logs: ``"ckpt-{epoch:02d}-{val_loss:.2f}.keras"``.

    >>> import runtime as rt
    >>> checkpoint = rt.keras.callbacks.ModelCheckpoint("ckpt-{epoch:02d}-{val_loss:.2f}.keras")
    >>> rt.keras.callbacks.ModelCheckpoint("model.h5")
    Traceback (most recent call last):
        ...
    ValueError: The filepath provided must end in `.keras` (Keras model format). Received: filepath=model.h5
    """

    def __init__(
        self,
        filepath,
        monitor="val_loss",
        verbose=0,
        save_best_only=False,
        save_weights_only=False,
        mode="auto",
        save_freq="epoch",
        initial_value_threshold=None,
    ):
        super().__init__()
        if mode not in ("auto", "min", "max"):
            warnings.warn(
                f"ModelCheckpoint mode '{mode}' is unknown, fallback to auto mode.", stacklevel=2
            )
            mode = "auto"
        self.filepath = os.fspath(filepath)
        self.monitor, self.mode, self.verbose = monitor, mode, verbose
        self.best = initial_value_threshold
        self.monitor_op = None
        self.save_best_only = save_best_only
        self.save_weights_only = save_weights_only
        self.save_freq = save_freq
        self._batches_seen_since_last_saving = 0
        self._last_batch_seen = None
        self._current_epoch = 0
        if save_freq != "epoch" and (not isinstance(save_freq, int) or isinstance(save_freq, bool)):
            raise ValueError(
                f"Unrecognized save_freq: {save_freq}. Expected save_freq are 'epoch' or "
                "integer values"
            )
        if save_weights_only and not self.filepath.endswith(".weights.h5"):
            raise ValueError(
                "When using `save_weights_only=True` in `ModelCheckpoint`, the filepath provided "
                "must end in `.weights.h5` (Keras weights format). Received: "
                f"filepath={self.filepath}"
            )
        if not save_weights_only and not self.filepath.endswith(".keras"):
            raise ValueError(
                "The filepath provided must end in `.keras` (Keras model format). Received: "
                f"filepath={self.filepath}"
            )

    def on_epoch_begin(self, epoch, logs=None):
        self._current_epoch = epoch

    def on_train_batch_end(self, batch, logs=None):
        if self._should_save_on_batch(batch):
            self._save_model(self._current_epoch, batch, logs)

    def on_epoch_end(self, epoch, logs=None):
        if self.monitor_op is None:
            self._set_monitor_op()
        if self.save_freq == "epoch":
            self._save_model(epoch, None, logs)

    def _should_save_on_batch(self, batch):
        if self.save_freq == "epoch":
            return False
        if self._last_batch_seen is None or batch <= self._last_batch_seen:  # a new epoch
            added = batch + 1
        else:
            added = batch - self._last_batch_seen
        self._batches_seen_since_last_saving += added
        self._last_batch_seen = batch
        if self._batches_seen_since_last_saving >= self.save_freq:
            self._batches_seen_since_last_saving = 0
            return True
        return False

    def _set_monitor_op(self):
        if self.mode != "auto":
            self.monitor_op = operator.lt if self.mode == "min" else operator.gt
            return
        name = self.monitor.removeprefix("val_")
        direction = next(
            (m._direction for m in getattr(self.model, "metrics", None) or []
             if getattr(m, "name", None) == name and hasattr(m, "_direction")),
            None,
        )  # fmt: skip
        if direction is None and name != "loss":
            direction = _direction_by_name(name)
        if name == "loss" or direction == "down":
            self.monitor_op = operator.lt
        elif direction == "up":
            self.monitor_op = operator.gt
        else:
            raise ValueError(
                f"ModelCheckpoint callback received monitor={self.monitor}, but Keras isn't able "
                "to automatically determine whether that metric should be maximized or "
                "minimized. Pass `mode='max'` in order to monitor based on the highest metric "
                "value, or pass `mode='min'` in order to use the lowest value."
            )

    def _should_save_model(self, epoch, logs, filepath):
        if not self.save_best_only:
            if self.verbose > 0:
                print(f"\nEpoch {epoch + 1}: saving model to {filepath}")
            return True
        current = (logs or {}).get(self.monitor)
        if current is None:
            warnings.warn(f"Can save best model only with {self.monitor} available.", stacklevel=3)
            return True
        best = "None" if self.best is None else f"{self.best:.5f}"
        if self.best is None or self.monitor_op(current, self.best):
            if self.verbose > 0:
                print(
                    f"\nEpoch {epoch + 1}: {self.monitor} improved from {best} to "
                    f"{current:.5f}, saving model to {filepath}"
                )
            self.best = current
            return True
        if self.verbose > 0:
            print(f"\nEpoch {epoch + 1}: {self.monitor} did not improve from {best}")
        return False

    def _save_model(self, epoch, batch, logs):
        logs = dict(logs or {})
        filepath = self._get_file_path(epoch, batch, logs)
        if os.path.isdir(filepath):
            raise OSError(
                "Please specify a non-directory filepath for ModelCheckpoint. Filepath used is an "
                f"existing directory: {filepath}"
            )
        if not self._should_save_model(epoch, logs, filepath):
            return
        directory = os.path.dirname(filepath)
        if directory:
            os.makedirs(directory, exist_ok=True)
        if self.save_weights_only:
            self.model.save_weights(filepath, overwrite=True)
        else:
            self.model.save(filepath, overwrite=True)

    def _get_file_path(self, epoch, batch, logs):
        """``filepath`` with ``{epoch}`` (from 1), ``{batch}`` (from 1) and the logs filled in."""
        values = dict(logs)
        if batch is not None and "batch" not in logs:
            values["batch"] = batch + 1
        try:
            return self.filepath.format(epoch=epoch + 1, **values)
        except KeyError as e:
            raise KeyError(
                f'Failed to format this callback filepath: "{self.filepath}". Reason: {e}'
            ) from None


def _direction_by_name(name):
    """``"up"``, ``"down"`` or None: a metric's better direction, told by its name."""
    lowered = name.lower()
    if any(part in lowered for part in _LOWER_IS_BETTER):
        return "down"
    if any(part in lowered for part in _HIGHER_IS_BETTER):
        return "up"
    return None
