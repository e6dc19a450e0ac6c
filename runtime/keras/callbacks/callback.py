"""``Callback``: the hooks ``fit``, ``evaluate`` and ``predict`` call.

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
