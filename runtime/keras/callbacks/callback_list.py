"""``CallbackList``: the callbacks of one ``fit``, ``evaluate`` or ``predict``, called in order."""

from __future__ import annotations

from runtime.keras.callbacks.callback import Callback
from runtime.keras.callbacks.history import History
from runtime.keras.callbacks.progbar_logger import ProgbarLogger


class CallbackList:
    """The callbacks of one ``fit``, ``evaluate`` or ``predict``, called in order. Batch hooks
    are called only on the callbacks that override them, so a plain ``fit`` spends nothing on
    them per batch; ``wants_batches(mode)`` says whether any does. ``add_history`` and
    ``add_progbar`` add a ``History`` and a ``ProgbarLogger`` after the user's, as Keras does,
    unless one is given."""

    def __init__(self, callbacks, model, params, add_history=False, add_progbar=False):
        self.callbacks = list(callbacks or ())
        self.history = next((c for c in self.callbacks if isinstance(c, History)), None)
        if add_history and self.history is None:
            self.history = History()
            self.callbacks.append(self.history)
        if add_progbar and not any(isinstance(c, ProgbarLogger) for c in self.callbacks):
            self.callbacks.append(ProgbarLogger())
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
        """``logs`` may be a function giving them (the loop's, read only when wanted): the
        progress bar calls it when it draws, any other callback gets the dict."""
        given = None
        for callback in self._batch_callbacks[hook]:
            if callable(logs) and type(callback) is not ProgbarLogger:
                given = logs() if given is None else given
                getattr(callback, hook)(batch, given)
            else:
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
        """``on_<mode>_batch_end`` of the callbacks that have one; ``logs`` a dict, or a
        function giving it (``_call_batch_hook``)."""
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
    """Whether ``callback`` has its own version of a hook: its class's, or one set on it (a
    ``LambdaCallback``'s functions)."""
    return any(
        hook in vars(callback) or getattr(type(callback), hook) is not getattr(Callback, hook)
        for hook in hooks
    )
