"""The callback hooks ``fit`` (with its validation), ``evaluate`` and ``predict`` call, in Keras 3's
order and with its logs: ``keras/src/trainers`` runs validation as ``evaluate`` with fit's
callbacks, so ``on_test_begin``, ``on_test_batch_begin/end`` and ``on_test_end`` run inside each
epoch, before ``on_epoch_end``."""

from __future__ import annotations

import numpy as np
import pytest

import runtime as rt

keras = rt.keras
RNG = np.random.default_rng(3)
X, Y = RNG.normal(size=(10, 2)).astype(np.float32), RNG.normal(size=(10, 1)).astype(np.float32)
X_VAL, Y_VAL = (
    RNG.normal(size=(6, 2)).astype(np.float32),
    RNG.normal(size=(6, 1)).astype(np.float32),
)
BATCH = 4

HOOKS = [
    "on_train_begin", "on_train_end", "on_epoch_begin", "on_epoch_end",
    "on_train_batch_begin", "on_train_batch_end", "on_test_begin", "on_test_end",
    "on_test_batch_begin", "on_test_batch_end", "on_predict_begin", "on_predict_end",
    "on_predict_batch_begin", "on_predict_batch_end",
]  # fmt: skip


class Recorder(keras.callbacks.Callback):
    """Records every hook: its name, its arguments, and the model's weights at that moment."""

    def __init__(self):
        super().__init__()
        self.calls = []

    def __getattribute__(self, name):
        if name in HOOKS:
            return lambda *args: self._record(name, *args)
        return super().__getattribute__(name)

    def _record(self, name, *args):
        weights = [w.copy() for w in self.model.get_weights()]
        self.calls.append((name, *[dict(a) if isinstance(a, dict) else a for a in args], weights))


for _hook in HOOKS:  # overridden, so that the batch hooks are called on it
    setattr(Recorder, _hook, lambda self, *args: None)


def make_model():
    rt.random.set_seed(1)
    model = keras.Sequential([keras.layers.Dense(1, input_shape=(2,))])
    model.compile(optimizer=keras.optimizers.SGD(0.1), loss="mse")
    return model


def running_losses(weights, x, y):
    """The mean squared error over the examples seen after each batch, in numpy."""
    kernel, bias = weights
    per_example = ((x @ kernel + bias - y) ** 2).mean(axis=-1)
    ends = range(BATCH, len(x) + BATCH, BATCH)
    return [per_example[: min(end, len(x))].mean() for end in ends]


def test_fit_with_validation_data_calls_the_test_hooks_in_keras_order_with_their_logs():
    model, recorder = make_model(), Recorder()
    history = model.fit(X, Y, batch_size=BATCH, epochs=2, verbose=0, shuffle=False,
                        validation_data=(X_VAL, Y_VAL), callbacks=[recorder])  # fmt: skip
    names = [call[0] for call in recorder.calls]
    epoch = (
        ["on_epoch_begin"] + ["on_train_batch_begin", "on_train_batch_end"] * 3
        + ["on_test_begin"] + ["on_test_batch_begin", "on_test_batch_end"] * 2
        + ["on_test_end", "on_epoch_end"]
    )  # fmt: skip
    assert names == ["on_train_begin", *epoch, *epoch, "on_train_end"]

    for epoch_index in range(2):
        at = 1 + epoch_index * len(epoch)
        calls = recorder.calls[at : at + len(epoch)]
        test_begin = calls[7]
        assert test_begin[1] == {}
        batch_begins = [c for c in calls if c[0] == "on_test_batch_begin"]
        assert [(c[1], c[2]) for c in batch_begins] == [(0, {}), (1, {})]
        # the running loss over the validation examples, weights as they are after training
        expected = running_losses(test_begin[-1], X_VAL, Y_VAL)
        batch_ends = [c for c in calls if c[0] == "on_test_batch_end"]
        assert [c[1] for c in batch_ends] == [0, 1]
        for call, value in zip(batch_ends, expected):
            assert sorted(call[2]) == ["loss"]
            np.testing.assert_allclose(call[2]["loss"], value, rtol=1e-5)
        test_end_logs = calls[-2][1]
        np.testing.assert_allclose(test_end_logs["loss"], expected[-1], rtol=1e-5)
        epoch_end = calls[-1]
        assert epoch_end[1] == epoch_index and sorted(epoch_end[2]) == ["loss", "val_loss"]
        np.testing.assert_allclose(epoch_end[2]["val_loss"], expected[-1], rtol=1e-5)
        np.testing.assert_allclose(history.history["val_loss"][epoch_index], expected[-1],
                                   rtol=1e-5)  # fmt: skip


def test_evaluate_calls_the_test_hooks():
    model, recorder = make_model(), Recorder()
    loss = model.evaluate(X_VAL, Y_VAL, batch_size=BATCH, verbose=0, callbacks=[recorder])
    names = [call[0] for call in recorder.calls]
    assert names == ["on_test_begin", "on_test_batch_begin", "on_test_batch_end",
                     "on_test_batch_begin", "on_test_batch_end", "on_test_end"]  # fmt: skip
    expected = running_losses(model.get_weights(), X_VAL, Y_VAL)
    np.testing.assert_allclose(recorder.calls[2][2]["loss"], expected[0], rtol=1e-5)
    np.testing.assert_allclose(recorder.calls[-1][1]["loss"], loss, rtol=1e-6)


def test_predict_calls_the_predict_hooks_with_each_batch_s_outputs():
    model, recorder = make_model(), Recorder()
    predictions = model.predict(X, batch_size=BATCH, callbacks=[recorder])
    names = [call[0] for call in recorder.calls]
    assert names == ["on_predict_begin"] + [
        "on_predict_batch_begin",
        "on_predict_batch_end",
    ] * 3 + ["on_predict_end"]
    outputs = [c[2]["outputs"] for c in recorder.calls if c[0] == "on_predict_batch_end"]
    np.testing.assert_array_equal(np.concatenate(outputs), predictions)


class OldNames(keras.callbacks.Callback):
    def __init__(self):
        super().__init__()
        self.batches = []

    def on_batch_end(self, batch, logs=None):
        self.batches.append(batch)


@pytest.mark.parametrize("validation", [False, True])
def test_on_batch_end_is_keras_older_name_of_the_training_batch_hook(validation):
    old = OldNames()
    extra = {"validation_data": (X_VAL, Y_VAL)} if validation else {}
    make_model().fit(X, Y, batch_size=BATCH, epochs=2, verbose=0, callbacks=[old], **extra)
    assert old.batches == [0, 1, 2, 0, 1, 2]  # training batches only
