"""Small callbacks: ``TerminateOnNaN`` and ``LambdaCallback``."""

from __future__ import annotations

import math

from runtime.keras.callbacks.callback import Callback


class TerminateOnNaN(Callback):
    """Stops training at the first batch whose loss is NaN or infinite; with ``raise_error``
    it raises RuntimeError instead.

    >>> import numpy as np, runtime as rt
    >>> model = rt.keras.Sequential([rt.keras.layers.Dense(1, input_shape=(1,))])
    >>> model.compile(optimizer="sgd", loss="mse")
    >>> history = model.fit(np.ones((4, 1)), np.full((4, 1), np.inf), batch_size=2, epochs=3,
    ...                     verbose=0, callbacks=[rt.keras.callbacks.TerminateOnNaN()])
    Batch 0: Invalid loss, terminating training
    >>> history.epoch
    [0]
    """

    def __init__(self, raise_error=False):
        super().__init__()
        self.raise_error = raise_error

    def on_batch_end(self, batch, logs=None):
        loss = (logs or {}).get("loss")
        if loss is None or math.isfinite(loss):
            return
        if self.raise_error:
            raise RuntimeError(
                f"NaN or Inf loss encountered at batch {batch}. Loss value: {loss}. "
                "Terminating training immediately."
            )
        print(f"Batch {batch}: Invalid loss, terminating training")
        self.model.stop_training = True


class LambdaCallback(Callback):
    """A callback made of functions: ``on_epoch_begin(epoch, logs)``, ``on_epoch_end``,
    ``on_train_begin(logs)``, ``on_train_end``, ``on_train_batch_begin(batch, logs)``,
    ``on_train_batch_end``; other keyword arguments become attributes (another hook, say).

    >>> import numpy as np, runtime as rt
    >>> model = rt.keras.Sequential([rt.keras.layers.Dense(1, input_shape=(1,))])
    >>> model.compile(optimizer="sgd", loss="mse")
    >>> show = rt.keras.callbacks.LambdaCallback(on_epoch_end=lambda epoch, logs: print(epoch))
    >>> _ = model.fit(np.ones((2, 1)), np.ones((2, 1)), epochs=2, verbose=0, callbacks=[show])
    0
    1
    """

    _HOOKS = ("on_epoch_begin", "on_epoch_end", "on_train_begin", "on_train_end",
              "on_train_batch_begin", "on_train_batch_end")  # fmt: skip

    def __init__(self, on_epoch_begin=None, on_epoch_end=None, on_train_begin=None,
                 on_train_end=None, on_train_batch_begin=None, on_train_batch_end=None,
                 **kwargs):  # fmt: skip
        super().__init__()
        self.__dict__.update(kwargs)
        given = dict(zip(self._HOOKS, (on_epoch_begin, on_epoch_end, on_train_begin,
                                       on_train_end, on_train_batch_begin, on_train_batch_end)))  # fmt: skip
        for hook, function in given.items():
            if function is not None:
                setattr(self, hook, function)
