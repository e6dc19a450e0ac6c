"""compile, fit, evaluate, predict: training that works both ways, logs, progress, errors."""

from __future__ import annotations

import re
import subprocess
import sys

import numpy as np
import pytest

import autograph as ag
import runtime as rt

keras = rt.keras


@pytest.fixture(autouse=True)
def fresh_names():
    keras.backend.clear_session()


def quadrants(n=400, seed=0):
    """Points of the plane, labelled 1 where x * y > 0: not linearly separable."""
    x = np.random.default_rng(seed).normal(size=(n, 2)).astype(np.float32)
    return x, (x[:, 0] * x[:, 1] > 0).astype(np.int32)


def classifier():
    return keras.Sequential(
        [
            keras.layers.Dense(16, activation="relu", input_shape=(2,)),
            keras.layers.Dropout(0.1),
            keras.layers.Dense(16, activation="relu"),
            keras.layers.Dense(2),
        ]
    )


@pytest.mark.parametrize("run_eagerly", [False, True], ids=["graph", "eager"])
def test_training_reaches_a_target_accuracy_on_a_synthetic_problem(run_eagerly):
    rt.random.set_seed(1)
    x, y = quadrants()
    model = classifier()
    model.compile(
        optimizer=keras.optimizers.Adam(0.02),
        loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
        metrics=["accuracy"],
        run_eagerly=run_eagerly,
    )
    history = model.fit(x, y, batch_size=32, epochs=15, verbose=0)
    assert history.history["accuracy"][-1] > 0.95
    assert history.history["loss"][-1] < history.history["loss"][0] / 3
    x_test, y_test = quadrants(200, seed=1)
    loss, accuracy = model.evaluate(x_test, y_test, verbose=0)
    assert accuracy > 0.93
    predicted = model.predict(x_test).argmax(axis=1)
    assert (predicted == y_test).mean() == pytest.approx(accuracy)
    assert (model.train_function is None) == run_eagerly


def test_eager_and_graph_training_give_the_same_weights_with_the_same_seed():
    # (Without dropout: eager code draws each mask anew, a graph from the op made when tracing.)
    x, y = quadrants(96)
    weights = []
    for run_eagerly in (False, True):
        keras.backend.clear_session()
        rt.random.set_seed(4)
        model = keras.Sequential([keras.layers.Dense(8, activation="tanh"), keras.layers.Dense(2)])
        model.compile(
            optimizer="sgd", loss="sparse_categorical_crossentropy", run_eagerly=run_eagerly
        )
        model.fit(x, y, batch_size=16, epochs=2, verbose=0)
        weights.append(model.get_weights())
    for graph_w, eager_w in zip(*weights):
        np.testing.assert_allclose(graph_w, eager_w, rtol=1e-5, atol=1e-6)


def test_the_step_is_one_ag_function_traced_at_the_first_fit_for_any_batch_size():
    x, y = quadrants(70)
    model = classifier()
    model.compile(optimizer="sgd", loss="sparse_categorical_crossentropy")
    assert model.train_function is None  # compile traces nothing
    model.fit(x, y, batch_size=32, epochs=3, verbose=0)  # batches of 32, 32 and 6
    assert isinstance(model.train_function, ag.Function)
    # One graph, for batches of any size, traced once: the weights and the optimizer's state
    # (made with it, as in Keras 3; plain SGD has no slots) exist before the first trace.
    assert model.train_function.tracing_count == 1
    model.fit(x, y, batch_size=10, epochs=1, verbose=0)
    assert model.train_function.tracing_count == 1
    concrete = model.train_function.get_concrete_function(
        rt.TensorSpec([None, 2]), rt.TensorSpec([None], rt.int32)
    )
    assert concrete.inputs[0].shape == (None, 2)


def test_the_loss_logged_is_the_mean_over_the_examples_seen():
    rt.random.set_seed(0)
    x = np.arange(10, dtype=np.float32).reshape(5, 2)
    y = np.array([[1.0], [0.0], [2.0], [1.0], [3.0]], np.float32)
    model = keras.Sequential([keras.layers.Dense(1, input_shape=(2,))])
    model.compile(optimizer=keras.optimizers.SGD(0.0), loss="mse", metrics=["mae"])
    history = model.fit(x, y, batch_size=2, epochs=1, verbose=0, shuffle=False)
    residual = model.predict(x) - y
    assert history.history["loss"][0] == pytest.approx(float((residual**2).mean()), rel=1e-5)
    assert history.history["mae"][0] == pytest.approx(float(np.abs(residual).mean()), rel=1e-5)
    assert model.evaluate(x, y, batch_size=3, verbose=0, return_dict=True) == pytest.approx(
        {"loss": history.history["loss"][0], "mae": history.history["mae"][0]}, rel=1e-5
    )


def test_validation_data_and_split_add_val_logs():
    rt.random.set_seed(2)
    x, y = quadrants(100)
    model = classifier()
    model.compile(optimizer="adam", loss="sparse_categorical_crossentropy", metrics=["accuracy"])
    history = model.fit(x, y, epochs=2, verbose=0, validation_data=(x[:20], y[:20]))
    assert sorted(history.history) == ["accuracy", "loss", "val_accuracy", "val_loss"]
    assert history.epoch == [0, 1] and all(len(v) == 2 for v in history.history.values())
    loss, accuracy = model.evaluate(x[:20], y[:20], verbose=0)
    assert history.history["val_loss"][-1] == pytest.approx(loss, rel=1e-5)
    split = model.fit(x, y, epochs=1, verbose=0, validation_split=0.25)
    assert "val_loss" in split.history and model.history is split


def test_fit_prints_the_epoch_and_a_bar_of_batches_with_loss_and_metrics(capsys):
    x, y = quadrants(60)
    model = classifier()
    model.compile(optimizer="sgd", loss="sparse_categorical_crossentropy", metrics=["accuracy"])
    model.fit(x, y, epochs=2)
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "Epoch 1/2" and lines[2] == "Epoch 2/2"
    bar = re.compile(
        r"^2/2 \[={30}\] - \d+s \d+(ms|us|s)/step - loss: \d\.\d{4} - accuracy: \d\.\d{4}$"
    )
    assert bar.match(lines[1]) and bar.match(lines[3]), lines
    model.fit(x, y, epochs=1, verbose=2)
    assert re.match(
        r"^2/2 - \d+s - loss: \d\.\d{4} - accuracy: \d\.\d{4}$",
        capsys.readouterr().out.splitlines()[1],
    )
    model.fit(x, y, epochs=1, verbose=0)
    model.predict(x)
    assert capsys.readouterr().out == ""
    model.evaluate(x, y, batch_size=60)
    assert re.match(r"^1/1 \[={30}\] - \d+s \d+\w+/step - loss: ", capsys.readouterr().out)


def test_training_true_reaches_the_dropout_inside_a_call_that_does_not_name_it():
    class Noisy(keras.Model):
        def __init__(self):
            super().__init__()
            self.dense = keras.layers.Dense(1, kernel_initializer="ones", use_bias=False)
            self.dropout = keras.layers.Dropout(0.5)

        def call(self, x):
            return self.dense(self.dropout(x))

    model = Noisy()
    model.compile(optimizer=keras.optimizers.SGD(0.0), loss="mse")
    x, y = np.ones((400, 50), np.float32), np.full((400, 1), 50.0, np.float32)
    # Without dropout the prediction is exactly 50; with it, noisy around 50.
    assert model.evaluate(x, y, verbose=0) == 0.0
    assert model.fit(x, y, epochs=1, verbose=0).history["loss"][0] > 10.0


def test_frozen_layers_keep_their_weights_while_the_others_train():
    x, y = quadrants(64)
    model = classifier()
    model.layers[0].trainable = False
    before = [w.copy() for w in model.layers[0].get_weights()]
    model.compile(optimizer="adam", loss="sparse_categorical_crossentropy")
    model.fit(x, y, epochs=2, verbose=0)
    for old, new in zip(before, model.layers[0].get_weights()):
        np.testing.assert_array_equal(old, new)
    assert not np.array_equal(model.layers[2].kernel.numpy(), before[0][:16, :16])


def test_shuffling_is_reproducible_with_set_seed():
    x, y = quadrants(64)
    losses = []
    for _ in range(2):
        keras.backend.clear_session()
        rt.random.set_seed(11)
        model = classifier()
        model.compile(optimizer="sgd", loss="sparse_categorical_crossentropy")
        losses.append(model.fit(x, y, batch_size=8, epochs=2, verbose=0).history["loss"])
    assert losses[0] == losses[1]


def test_callbacks_see_each_epoch_and_batch():
    events = []

    class Recorder(keras.callbacks.Callback):
        def on_epoch_end(self, epoch, logs=None):
            events.append(("epoch", epoch, sorted(logs)))

        def on_train_batch_end(self, batch, logs=None):
            events.append(("batch", batch))
            if batch == 1:
                self.model.stop_training = True

    x, y = quadrants(30)
    model = classifier()
    model.compile(optimizer="sgd", loss="sparse_categorical_crossentropy")
    history = model.fit(x, y, batch_size=10, epochs=5, verbose=0, callbacks=[Recorder()])
    # Keras 3 ends the epoch at the batch that set stop_training (keras/src/backend/*/trainer.py)
    assert events == [("batch", 0), ("batch", 1), ("epoch", 0, ["loss"])]
    assert history.epoch == [0]


def test_mistakes_are_reported_with_keras_wording():
    model = classifier()
    x, y = quadrants(10)
    with pytest.raises(ValueError, match=r"You must call `compile\(\)` before using the model"):
        model.fit(x, y)
    model.compile(optimizer="sgd")
    with pytest.raises(ValueError, match="No loss to compute"):
        model.fit(x, y)
    model.compile(optimizer="sgd", loss="mse")
    with pytest.raises(ValueError, match="Data cardinality is ambiguous"):
        model.fit(x, y[:5])
    with pytest.raises(ValueError, match="Unknown metric function: 'acuracy'"):
        model.compile(loss="mse", metrics=["acuracy"])
    with pytest.raises(ValueError, match="batch_size must be a positive integer"):
        model.predict(x, batch_size=0)


def test_predict_needs_no_compile_and_returns_numpy_for_any_batch_size():
    model = classifier()
    x, _ = quadrants(45)
    out = model.predict(x, batch_size=20)
    assert isinstance(out, np.ndarray) and out.shape == (45, 2)
    np.testing.assert_allclose(out, model(x).numpy(), rtol=1e-6, atol=1e-6)


NO_AUTOGRAPH = """
import sys
import numpy as np
import runtime as rt

x = np.random.default_rng(0).normal(size=(64, 3)).astype(np.float32)
model = rt.keras.Sequential([rt.keras.layers.Dense(1, input_shape=(3,))])
model.compile(optimizer=rt.keras.optimizers.SGD(0.1), loss="mse")
history = model.fit(x, x @ np.array([[1.0], [2.0], [-1.0]], np.float32), epochs=30, verbose=0)
print("autograph" in sys.modules, type(model.train_function).__name__,
      model.train_function.tracing_count, history.history["loss"][-1] < 1e-3)
"""


def test_a_program_that_imports_runtime_alone_still_trains_with_a_traced_step():
    result = subprocess.run(
        [sys.executable, "-c", NO_AUTOGRAPH], capture_output=True, text=True, check=True
    )
    assert result.stdout.split() == ["False", "TracedFunction", "1", "True"]


def test_fit_and_evaluate_refuse_empty_data_as_predict_does_and_train_nothing():
    model = classifier()
    model.compile(optimizer="sgd", loss=keras.losses.SparseCategoricalCrossentropy(True))
    empty_x, empty_y = np.zeros((0, 2), np.float32), np.zeros((0,), np.int32)
    for run in (
        lambda: model.fit(empty_x, empty_y, verbose=0),
        lambda: model.evaluate(empty_x, empty_y, verbose=0),
        lambda: model.predict(empty_x),
    ):
        with pytest.raises(ValueError, match="Expected input data to be non-empty"):
            run()
    assert int(model.optimizer.iterations.numpy()) == 0 and model.train_function is None
