"""Keras 3's trainer tests (keras/src/trainers/trainer_test.py), ported: the same programs and
expected values, public API only.

Keras' ``ExampleModel`` (a Dense layer mixed with its Trainer: 3 units, no bias, a kernel
of ones) is a subclassed model holding that Dense; ``metrics.MeanSquaredError()`` is named
as ``compile`` takes it by name (its logs key, ``mean_squared_error``, and its values are the
same). ``compile(jit_compile=...)`` is passed when ``compile`` takes it, else set as the
model's ``jit_compile`` (Keras' ``test_predict_flow`` sets that attribute itself). Cases on
tf.data, PyDataset, sparse tensors, steps_per_execution, loss scaling, JAX state and the
backends' internals have no counterpart here and are not ported.
"""

from __future__ import annotations

import numpy as np
import pytest

import runtime as rt

keras = rt.keras
layers = keras.layers
Callback = keras.callbacks.Callback

MODES = [(True, False), (False, False), (False, True)]
MODE_IDS = ["eager", "graph_fn", "jit"]


@pytest.fixture(autouse=True)
def fresh_names():
    keras.backend.clear_session()


def compile_model(model, jit_compile=False, **kwargs):
    if jit_compile:
        pytest.importorskip("jax")
    try:
        model.compile(jit_compile=jit_compile, **kwargs)
    except TypeError:  # compile() without jit_compile: the attribute fit reads
        model.compile(**kwargs)
        model.jit_compile = jit_compile


class ExampleModel(keras.Model):
    def __init__(self, units):
        super().__init__()
        self.dense = layers.Dense(units, use_bias=False, kernel_initializer="ones")

    def call(self, x):
        return self.dense(x)


class StructModel(keras.Model):
    def __init__(self, units):
        super().__init__()
        self.dense_1 = layers.Dense(units, use_bias=False, kernel_initializer="ones")
        self.dense_2 = layers.Dense(units, use_bias=False, kernel_initializer="ones")

    def call(self, x):
        return {"y_one": self.dense_1(x["x_one"]), "y_two": self.dense_2(x["x_two"])}


class ListInputModel(keras.Model):
    def __init__(self, units):
        super().__init__()
        self.dense_1 = layers.Dense(units, use_bias=False, kernel_initializer="ones")
        self.dense_2 = layers.Dense(units, use_bias=False, kernel_initializer="ones")

    def call(self, x):
        if not isinstance(x, (list, tuple)):
            raise ValueError("x must be a list or tuple")
        return self.dense_1(x[0]) + self.dense_2(x[1])


class ListOutputModel(keras.Model):
    def __init__(self, units):
        super().__init__()
        self.dense_1 = layers.Dense(units, use_bias=False, kernel_initializer="ones")
        self.dense_2 = layers.Dense(units, use_bias=False, kernel_initializer="ones")

    def call(self, x):
        return [self.dense_1(x), self.dense_2(x)]


class TrainingTestingLayer(keras.Model):
    def call(self, x, training=False):
        if training:
            return x
        return x * 0


class EpochAgnosticMeanSquaredError(keras.metrics.MeanSquaredError):
    """Keras' metric that is never reset: its value runs on across epochs."""

    def __init__(self):
        super().__init__(name="mse")
        super().reset_state()

    def reset_state(self):
        pass  # not at each epoch's start


class StepObserver(Callback):
    def __init__(self):
        super().__init__()
        self.begin_count = self.end_count = 0
        self.epoch_begin_count = self.epoch_end_count = 0
        self.batch_loss_history = []

    def on_epoch_begin(self, epoch, logs=None):
        self.epoch_begin_count += 1

    def on_epoch_end(self, epoch, logs=None):
        self.epoch_end_count += 1

    def on_batch_begin(self, batch, logs=None):
        self.begin_count += 1

    def on_batch_end(self, batch, logs=None):
        self.end_count += 1
        self.batch_loss_history.append(logs["mse"])


def sgd_mse(model, run_eagerly=False, jit_compile=False):
    compile_model(
        model, optimizer=keras.optimizers.SGD(), loss=keras.losses.MeanSquaredError(),
        metrics=["mean_squared_error"], run_eagerly=run_eagerly, jit_compile=jit_compile,
    )  # fmt: skip
    return model


@pytest.mark.parametrize("use_steps_per_epoch", [False, True], ids=["epochs", "steps_per_epoch"])
@pytest.mark.parametrize(("run_eagerly", "jit_compile"), MODES, ids=MODE_IDS)
def test_fit_flow(run_eagerly, jit_compile, use_steps_per_epoch, capsys):
    model = sgd_mse(ExampleModel(units=3), run_eagerly, jit_compile)
    x, y = np.ones((100, 4)), np.zeros((100, 3))
    history = model.fit(x, y, batch_size=20, steps_per_epoch=7 if use_steps_per_epoch else None,
                        epochs=3).history  # fmt: skip
    assert "loss" in history and "mean_squared_error" in history
    np.testing.assert_allclose(history["mean_squared_error"], [14.5, 11.5, 8.5], atol=1.0)


@pytest.mark.parametrize("use_steps_per_epoch", [False, True], ids=["epochs", "steps_per_epoch"])
@pytest.mark.parametrize(("run_eagerly", "jit_compile"), MODES, ids=MODE_IDS)
def test_fit_with_val_split(run_eagerly, jit_compile, use_steps_per_epoch, capsys):
    model = sgd_mse(ExampleModel(units=3), run_eagerly, jit_compile)
    steps = 7 if use_steps_per_epoch else None
    for x, y in ((np.ones((100, 4)), np.zeros((100, 3))), (rt.ones((100, 4)), rt.zeros((100, 3)))):
        history = model.fit(x, y, batch_size=20, steps_per_epoch=steps, epochs=3,
                            validation_split=0.2).history  # fmt: skip
        assert "loss" in history and "val_loss" in history


@pytest.mark.parametrize(("run_eagerly", "jit_compile"), MODES, ids=MODE_IDS)
def test_evaluate_flow(run_eagerly, jit_compile, capsys):
    model = sgd_mse(ExampleModel(units=3), run_eagerly, jit_compile)
    x, y = np.ones((100, 4)), np.zeros((100, 3))
    np.testing.assert_allclose(model.evaluate(x, y, batch_size=16), [16.0, 16.0])
    output = model.evaluate(x, y, batch_size=16, return_dict=True)
    assert isinstance(output, dict) and "loss" in output
    np.testing.assert_allclose(output["mean_squared_error"], 16.0)


@pytest.mark.parametrize(("run_eagerly", "jit_compile"), MODES, ids=MODE_IDS)
def test_predict_flow(run_eagerly, jit_compile, capsys):
    if jit_compile:
        pytest.importorskip("jax")
    model = ExampleModel(units=3)
    model.run_eagerly = run_eagerly
    model.jit_compile = jit_compile
    outputs = model.predict(np.ones((100, 4)), batch_size=16)
    np.testing.assert_allclose(outputs, 4 * np.ones((100, 3)))


@pytest.mark.parametrize(("run_eagerly", "jit_compile"), MODES, ids=MODE_IDS)
def test_predict_flow_struct(run_eagerly, jit_compile, capsys):
    if jit_compile:
        pytest.importorskip("jax")
    model = StructModel(units=3)
    model.run_eagerly = run_eagerly
    model.jit_compile = jit_compile
    outputs = model.predict({"x_one": np.ones((100, 4)), "x_two": np.ones((100, 4))}, batch_size=16)
    assert isinstance(outputs, dict) and len(outputs) == 2
    np.testing.assert_allclose(outputs["y_one"], 4 * np.ones((100, 3)))
    np.testing.assert_allclose(outputs["y_two"], 4 * np.ones((100, 3)))


@pytest.mark.parametrize("mode", ["eager", "non_jit", "jit"])
def test_predict_generator(mode):
    if mode == "jit":
        pytest.importorskip("jax")
    batch_size = 2

    def generate_batches():
        iterator = iter(range(10))
        while True:
            try:
                batch = np.array([next(iterator) for _ in range(batch_size)])
            except StopIteration:
                break
            yield (batch,)

    class Identity(keras.Model):  # Keras: Sequential([InputLayer(shape=()), Identity()])
        def call(self, x):
            return x

    model = Identity()
    compile_model(model, loss="mse", optimizer="sgd", run_eagerly=mode == "eager",
                  jit_compile=mode == "jit")  # fmt: skip
    preds = model.predict(x=generate_batches(), verbose=0)
    np.testing.assert_array_equal(preds, np.concatenate(list(generate_batches()), axis=1)[0])


@pytest.mark.parametrize("mode", ["eager", "non_jit", "jit"])
@pytest.mark.parametrize(
    "steps_per_epoch_test",
    [
        "match_one_epoch",
        "match_multi_epoch",
        "not_match_too_low",
        "not_match_but_high_enough",
    ],
)
def test_steps_per_epoch(steps_per_epoch_test, mode):
    batch_size, epochs, num_batches = 8, 4, 10
    steps_per_epoch = {
        "match_one_epoch": num_batches,
        "match_multi_epoch": num_batches // (epochs // 2),
        "not_match_too_low": num_batches - 1,
        "not_match_but_high_enough": num_batches + 1,
    }[steps_per_epoch_test]
    x, y = np.ones((num_batches * batch_size, 4)), np.ones((num_batches * batch_size, 1))

    def make():
        model = ExampleModel(units=1)
        compile_model(model, loss="mse", optimizer="sgd", metrics=[EpochAgnosticMeanSquaredError()],
                      run_eagerly=mode == "eager", jit_compile=mode == "jit")  # fmt: skip
        return model

    model, step_observer = make(), StepObserver()
    with pytest.warns() if steps_per_epoch_test.startswith("not_match") else _no_check():
        model.fit(x=x, y=y, batch_size=batch_size, epochs=epochs, steps_per_epoch=steps_per_epoch,
                  callbacks=[step_observer], verbose=0)  # fmt: skip
    if steps_per_epoch_test != "not_match_too_low":
        training_batch_count = epochs * min(steps_per_epoch, num_batches)
    else:
        complete, remaining = divmod(num_batches, steps_per_epoch)
        training_batch_count = sum(([complete * steps_per_epoch, remaining] * epochs)[:epochs])
    assert step_observer.begin_count == training_batch_count
    assert step_observer.end_count == step_observer.begin_count
    assert step_observer.epoch_begin_count == epochs
    assert step_observer.epoch_end_count == step_observer.epoch_begin_count
    if steps_per_epoch_test == "not_match_too_low":
        return
    model_2, step_observer_2 = make(), StepObserver()
    model_2_epochs = (
        epochs // (num_batches // steps_per_epoch)
        if steps_per_epoch_test == "match_multi_epoch"
        else epochs
    )
    model_2.fit(x=x, y=y, batch_size=batch_size, epochs=model_2_epochs, callbacks=[step_observer_2],
                verbose=0)  # fmt: skip
    np.testing.assert_allclose(
        step_observer.batch_loss_history, step_observer_2.batch_loss_history, rtol=1e-6
    )
    for a, b in zip(model.get_weights(), model_2.get_weights()):
        np.testing.assert_allclose(a, b, rtol=1e-6)
    np.testing.assert_allclose(
        model.predict(x, batch_size=batch_size),
        model_2.predict(x, batch_size=batch_size),
        rtol=1e-6,
    )
    np.testing.assert_allclose(
        model.evaluate(x, y, verbose=0), model_2.evaluate(x, y, verbose=0), rtol=1e-6
    )


class _no_check:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def test_fit_with_different_batch_size_same_loss(capsys):
    x, y = np.random.rand(100, 4), np.ones((100, 1))
    model = ExampleModel(units=1)
    model.trainable = False
    model.compile(loss="mse")
    loss1 = model.fit(x, y, batch_size=80).history["loss"]
    loss2 = model.fit(x, y, batch_size=100).history["loss"]
    np.testing.assert_allclose(loss1, loss2, rtol=1e-6)


def test_evaluate_with_different_batch_size_same_loss(capsys):
    x, y = np.random.rand(100, 4), np.ones((100, 1))
    model = ExampleModel(units=1)
    model.compile(loss="mse")
    np.testing.assert_allclose(
        model.evaluate(x, y, batch_size=80), model.evaluate(x, y, batch_size=100), rtol=1e-6
    )


def test_training_arg(capsys):
    model = TrainingTestingLayer()
    model.compile(optimizer="rmsprop", loss="mse")
    x, y = np.ones((128, 1)), np.zeros((128, 1))
    np.testing.assert_allclose(model.fit(x, y, batch_size=32).history["loss"], [1.0])
    np.testing.assert_allclose(model.evaluate(x, y, batch_size=32), 0.0)
    np.testing.assert_allclose(model.predict(x), np.zeros((128, 1)))


@pytest.mark.parametrize(("run_eagerly", "jit_compile"), MODES, ids=MODE_IDS)
def test_on_batch_methods(run_eagerly, jit_compile):
    model = sgd_mse(ExampleModel(units=3), run_eagerly, jit_compile)
    x, y = np.ones((100, 4)), np.zeros((100, 3))
    sw = np.arange(100).reshape((100,)).astype("float32") / 50.0

    logs = model.train_on_batch(x, y)
    assert isinstance(logs, list) and len(logs) == 2
    np.testing.assert_allclose(logs[0], 16.0, rtol=1e-6)
    logs = model.train_on_batch(x, y, return_dict=True)
    assert isinstance(logs, dict) and len(logs) == 2
    np.testing.assert_allclose(logs["loss"], 15.158, atol=1e-3)
    logs = model.test_on_batch(x, y)
    assert isinstance(logs, list) and len(logs) == 2
    np.testing.assert_allclose(logs[0], 14.360, atol=1e-3)
    logs = model.test_on_batch(x, y, return_dict=True)
    assert isinstance(logs, dict) and len(logs) == 2
    np.testing.assert_allclose(logs["loss"], 14.360, atol=1e-3)
    output = model.predict_on_batch(x)
    assert isinstance(output, np.ndarray)
    np.testing.assert_allclose(output[0], [3.789511] * 3, rtol=1e-5)

    logs = model.train_on_batch(x, y, sw)
    np.testing.assert_allclose(logs[0], 14.217, atol=1e-3)
    logs = model.test_on_batch(x, y, sw)
    np.testing.assert_allclose(logs[0], 13.476, atol=1e-3)
    np.testing.assert_allclose(model.predict_on_batch(x)[0], [3.689468] * 3, rtol=1e-5)

    logs = model.train_on_batch(x, y, class_weight={1: 0.3, 0: 0.2})
    np.testing.assert_allclose(logs[0], 2.722, atol=1e-3)


@pytest.mark.parametrize(("run_eagerly", "jit_compile"), MODES, ids=MODE_IDS)
def test_on_batch_methods_without_training(run_eagerly, jit_compile):
    model = ExampleModel(units=3)
    compile_model(model, loss=keras.losses.MeanSquaredError(), metrics=["mean_squared_error"],
                  run_eagerly=run_eagerly, jit_compile=jit_compile)  # fmt: skip
    x, y = np.ones((100, 4)), np.zeros((100, 3))
    output = model.predict_on_batch(x)
    assert isinstance(output, np.ndarray)
    np.testing.assert_allclose(output[0], [4.0, 4.0, 4.0])
    logs = model.test_on_batch(x, y)
    assert isinstance(logs, list) and len(logs) == 2
    np.testing.assert_allclose(logs[0], 16.0)
    logs = model.test_on_batch(x, y, return_dict=True)
    assert isinstance(logs, dict) and len(logs) == 2
    np.testing.assert_allclose(logs["loss"], 16.0)


def test_nested_input_predict(capsys):
    class TupleInputModel(keras.Model):
        def call(self, inputs):
            a, b = inputs
            return a + b

    x1, x2 = np.random.rand(2, 3, 4)
    assert TupleInputModel().predict((x1, x2)).shape == (3, 4)

    class DictInputModel(keras.Model):
        def call(self, inputs):
            return inputs["a"] + inputs["b"]

    assert DictInputModel().predict({"a": x1, "b": x2}).shape == (3, 4)


def test_callback_methods_keys(capsys):
    seen = {}

    class CustomCallback(Callback):
        def __getattribute__(self, name):
            if name.startswith("on_") and name not in ("on_batch_begin", "on_batch_end"):
                return lambda *args: seen.setdefault(name, set()).add(tuple(sorted(args[-1])))
            return super().__getattribute__(name)

    for hook in ("on_train_batch_begin", "on_train_batch_end", "on_test_batch_begin",
                 "on_test_batch_end", "on_predict_batch_begin", "on_predict_batch_end"):  # fmt: skip
        setattr(CustomCallback, hook, lambda self, batch, logs=None: None)  # batch hooks wanted
    model = ExampleModel(units=3)
    model.compile(optimizer="adam", loss="mse", metrics=["mean_absolute_error"])
    x, y = np.ones((16, 4)), np.zeros((16, 3))
    model.fit(x, y, callbacks=[CustomCallback()], batch_size=4, validation_data=(x, y))
    model.evaluate(x, y, batch_size=4, callbacks=[CustomCallback()])
    model.predict(x, batch_size=4, callbacks=[CustomCallback()])
    both = ("loss", "mean_absolute_error")
    assert seen == {
        "on_train_begin": {()}, "on_epoch_begin": {()}, "on_train_batch_begin": {()},
        "on_train_batch_end": {both}, "on_test_begin": {()}, "on_test_batch_begin": {()},
        "on_test_batch_end": {both}, "on_test_end": {both},
        "on_epoch_end": {both + ("val_loss", "val_mean_absolute_error")},
        "on_train_end": {both + ("val_loss", "val_mean_absolute_error")},
        "on_predict_begin": {()}, "on_predict_batch_begin": {()},
        "on_predict_batch_end": {("outputs",)}, "on_predict_end": {()},
    }  # fmt: skip


def test_evaluate_return_list_respect_metrics_order(capsys):
    def metrics_zero(y_true, y_pred):
        return 0.0

    def metrics_one(y_true, y_pred):
        return 1.0

    model = ExampleModel(units=3)
    for first, second in ((metrics_zero, metrics_one), (metrics_one, metrics_zero)):
        model.compile(optimizer="sgd", loss="mse", metrics=[first, second])
        eval_out = model.evaluate(np.ones((3, 2)), np.ones((3, 3)))
        assert len(eval_out) == 3
        assert [eval_out[1], eval_out[2]] == [first(None, None), second(None, None)]


def test_nested_inputs(capsys):
    model = ListInputModel(units=2)
    inputs, targets = [np.ones((3, 2)), np.ones((3, 3))], np.ones((3, 2))
    assert tuple(model([rt.ones((3, 2)), rt.ones((3, 3))]).shape) == (3, 2)
    model.compile(optimizer="sgd", loss="mse", metrics=["mse"])
    np.testing.assert_allclose(model.fit(inputs, targets).history["loss"], 16.0, rtol=1e-5)
    np.testing.assert_allclose(model.train_on_batch(inputs, targets)[0], 14.44, atol=1e-1)
    np.testing.assert_allclose(model.evaluate(inputs, targets)[0], 13.0321, atol=1e-2)
    np.testing.assert_allclose(model.test_on_batch(inputs, targets)[0], 13.0321, atol=1e-2)
    assert model.predict(inputs).shape == (3, 2)
    assert model.predict_on_batch(inputs).shape == (3, 2)


def test_validation_data_infinite_generator(capsys):
    model = ExampleModel(units=3)
    model.compile(optimizer="sgd", loss="mse", metrics=["mse"])

    class Recorder(keras.callbacks.Callback):
        def __init__(self):
            self.train_counter = 0
            self.val_counter = 0

        def on_train_batch_end(self, *args, **kwargs):
            self.train_counter += 1

        def on_test_batch_end(self, *args, **kwargs):
            self.val_counter += 1

    def infinite_gen():
        while True:
            yield np.ones((2, 2)), np.ones((2, 3))

    recorder = Recorder()
    model.fit(infinite_gen(), validation_data=infinite_gen(), steps_per_epoch=3, validation_steps=4,
              epochs=1, shuffle=False, callbacks=[recorder])  # fmt: skip
    assert (recorder.train_counter, recorder.val_counter) == (3, 4)


@pytest.mark.parametrize(
    ("method", "method_gerund", "on_end_name"),
    [
        ("fit", "training", "train"),
        ("evaluate", "evaluating", "test"),
        ("predict", "predicting", "predict"),
    ],
)
def test_stop_loop(method, method_gerund, on_end_name, capsys):
    model = ExampleModel(units=3)
    model.compile(optimizer="sgd", loss="mse", metrics=["mse"])

    class Stopper(keras.callbacks.Callback):
        def __init__(self, stop_count):
            self.stop_count = stop_count
            self.counter = 0
            setattr(self, f"on_{on_end_name}_batch_end", self.batch_end)

        def batch_end(self, *args, **kwargs):
            self.counter += 1
            if self.counter == self.stop_count:
                setattr(self.model, f"stop_{method_gerund}", True)

    def infinite_gen():
        while True:
            x, y = np.ones((2, 2)), np.ones((2, 3))
            yield (x,) if method == "predict" else (x, y)

    stopper = Stopper(5)
    getattr(model, method)(infinite_gen(), callbacks=[stopper])
    assert stopper.counter == 5
