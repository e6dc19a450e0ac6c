"""``ProgbarLogger``: the progress bar of ``fit``, ``evaluate`` and ``predict`` (``verbose``)."""

from __future__ import annotations

from runtime.keras.callbacks.callback import Callback
from runtime.keras.progbar import Progbar


class ProgbarLogger(Callback):
    """Prints ``Epoch i/n`` and a bar per epoch in ``fit`` (its final line with the epoch's
    logs, validation included), and a bar for ``evaluate`` and ``predict``; ``verbose`` and
    the number of steps come from the loop's params. ``fit``, ``evaluate`` and ``predict``
    add one when ``verbose`` is not 0 and none is given."""

    def __init__(self):
        super().__init__()
        self.verbose = 1
        self.epochs = 1
        self.target = None
        self._bar = None
        self._in_fit = False
        self._seen = 0

    def set_params(self, params):
        super().set_params(params)
        self.verbose = params.get("verbose", 1)
        self.epochs = params.get("epochs", 1)
        self.target = params.get("steps")

    def _start(self):
        self._bar = Progbar(self.target, self.verbose) if self.verbose else None
        self._seen = 0

    def _update(self, batch, logs):
        self._seen = batch + 1
        if self._bar is not None:
            self._bar.update(self._seen, logs or {})

    def _finish(self, logs):
        if self._bar is not None:
            self._bar.target = self._bar.target or self._seen  # a generator's length, now known
            self._bar.update(self._bar.target, logs or {}, finalize=True)
        self._bar = None

    def on_train_begin(self, logs=None):
        self._in_fit = True

    def on_train_end(self, logs=None):
        self._in_fit = False

    def on_epoch_begin(self, epoch, logs=None):
        if self.verbose:
            print(f"Epoch {epoch + 1}/{self.epochs}")
        self._start()

    def on_train_batch_end(self, batch, logs=None):
        self._update(batch, logs)

    def on_epoch_end(self, epoch, logs=None):
        self._finish(logs)

    # evaluate and predict have a bar of their own; fit's validation has none
    def on_test_begin(self, logs=None):
        if not self._in_fit:
            self._start()

    def on_test_batch_end(self, batch, logs=None):
        if not self._in_fit:
            self._update(batch, logs)

    def on_test_end(self, logs=None):
        if not self._in_fit:
            self._finish(logs)

    def on_predict_begin(self, logs=None):
        self._start()

    def on_predict_batch_end(self, batch, logs=None):
        self._update(batch, {})

    def on_predict_end(self, logs=None):
        self._finish({})
