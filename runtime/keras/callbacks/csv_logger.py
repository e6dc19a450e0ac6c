"""``CSVLogger``: each epoch's logs as a row of a CSV file."""

from __future__ import annotations

import csv
import os
from collections.abc import Iterable

import numpy as np

from runtime.keras.callbacks.callback import Callback


class CSVLogger(Callback):
    """Writes ``epoch`` and the logs (sorted by name) of every epoch to ``filename``, fields
    parted by ``separator``. The header is the first epoch's keys, with their ``val_``
    versions added when there are none yet (a later epoch may validate); a missing value is
    ``NA``. ``append`` adds to an existing file (without a second header).

    >>> import os, tempfile, numpy as np, runtime as rt
    >>> path = os.path.join(tempfile.mkdtemp(), "log.csv")
    >>> model = rt.keras.Sequential([rt.keras.layers.Dense(1, input_shape=(1,))])
    >>> model.compile(optimizer="sgd", loss="mse")
    >>> _ = model.fit(np.ones((2, 1)), np.ones((2, 1)), epochs=2, verbose=0,
    ...               callbacks=[rt.keras.callbacks.CSVLogger(path)])
    >>> open(path).read().splitlines()[0]
    'epoch,loss,val_loss'
    """

    def __init__(self, filename, separator=",", append=False):
        super().__init__()
        self.sep = separator
        self.filename = os.fspath(filename)
        self.append = append
        self.keys = None
        self.writer = None
        self.csv_file = None
        self.append_header = True

    def on_train_begin(self, logs=None):
        if self.append and os.path.exists(self.filename):
            with open(self.filename) as existing:
                self.append_header = not existing.readline()
        self._close()
        self.csv_file = open(self.filename, "a" if self.append else "w", newline="")  # noqa: SIM115
        self.writer = None
        self.keys = None

    def on_epoch_end(self, epoch, logs=None):
        logs = logs or {}
        if self.keys is None:
            self.keys = sorted(logs)
            if self.keys and not any(key.startswith("val_") for key in self.keys):
                self.keys += [f"val_{key}" for key in self.keys]
        if self.writer is None:
            self.writer = csv.writer(self.csv_file, delimiter=self.sep, lineterminator="\n")
            if self.append_header:
                self.writer.writerow(["epoch", *self.keys])
        self.writer.writerow([epoch, *(_cell(logs.get(key, "NA")) for key in self.keys)])
        self.csv_file.flush()

    def on_train_end(self, logs=None):
        self._close()
        self.writer = None

    def _close(self):
        if self.csv_file is not None and not self.csv_file.closed:
            self.csv_file.close()


def _cell(value):
    """A value as Keras writes it: a list as ``"[a, b]"``, anything else as it is."""
    if isinstance(value, str) or (isinstance(value, np.ndarray) and value.ndim == 0):
        return value
    if isinstance(value, Iterable):
        return f'"[{", ".join(map(str, value))}]"'
    return value
