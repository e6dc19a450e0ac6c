"""``ModelCheckpoint``: the model, or its weights, saved in Keras 3's files during ``fit``."""

from __future__ import annotations

import os
import warnings

from runtime.keras.callbacks.monitor import MonitorCallback


class ModelCheckpoint(MonitorCallback):
    """Saves the model (or its weights) during ``fit``, every epoch or every ``save_freq``
    batches; with ``save_best_only`` only when ``monitor`` improved (``mode``: ``"min"``,
    ``"max"``, or ``"auto"``: ``MonitorCallback``'s rule). ``filepath`` ends in ``.keras`` (the
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
        super().__init__(monitor, mode, baseline=initial_value_threshold)
        self.filepath = os.fspath(filepath)
        self.verbose = verbose
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
        if self._is_improvement(current, self.best):
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
