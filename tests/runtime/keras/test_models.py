"""Models: Sequential and subclassed models, their layers, summaries, tracing and saving."""

from __future__ import annotations

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


def test_a_sequential_model_without_an_input_shape_builds_at_its_first_call():
    model = keras.Sequential([keras.layers.Dense(3), keras.layers.Dense(1)])
    assert not model.built and model.variables == []
    with pytest.raises(ValueError, match="This model has not yet been built"):
        model.summary()
    x = np.ones((2, 5), np.float32)
    out = model(x)
    first, second = model.layers
    expected = (x @ first.kernel.numpy() + first.bias.numpy()) @ second.kernel.numpy()
    np.testing.assert_allclose(out.numpy(), expected + second.bias.numpy(), rtol=1e-6, atol=1e-6)
    lines = []
    model.summary(print_fn=lines.append)
    assert lines[3].startswith("dense (Dense)                (None, 3)                 18")


def test_sequential_add_pop_and_unique_names():
    model = keras.Sequential([keras.layers.Dense(2, input_shape=(3,))])
    model.add(keras.layers.Dense(5))  # built as soon as it is added on a built model
    assert model.layers[1].built and model.layers[1].kernel.shape == (2, 5)
    model.pop()
    assert [layer.name for layer in model.layers] == ["dense"]
    with pytest.raises(ValueError, match="should have unique names"):
        model.add(keras.layers.Dense(1, name="dense"))
    with pytest.raises(TypeError, match="must be an instance of class Layer"):
        model.add(lambda x: x)


def test_the_summary_counts_in_thousands_with_commas_and_shows_flatten():
    model = keras.Sequential(
        [
            keras.layers.Flatten(input_shape=(28, 28)),
            keras.layers.Dense(128, activation="relu"),
            keras.layers.Dropout(0.2),
            keras.layers.Dense(10),
        ]
    )
    lines = []
    model.summary(print_fn=lines.append)
    rows = [line for line in lines if "(" in line and "Layer" not in line]
    assert [row.split()[2:] for row in rows] == [
        ["(None,", "784)", "0"],
        ["(None,", "128)", "100480"],
        ["(None,", "128)", "0"],
        ["(None,", "10)", "1290"],
    ]
    assert "Total params: 101,770" in lines
    assert all(
        len(line) == 65 for line in lines[1:] if not line.startswith(("Total", "Train", "Non"))
    )


class SequentialModel(keras.Model):
    """Seed 001's model."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.flatten = keras.layers.Flatten(input_shape=(28, 28))
        self.dense_1 = keras.layers.Dense(128, activation="relu")
        self.dropout = keras.layers.Dropout(0.2)
        self.dense_2 = keras.layers.Dense(10)

    def call(self, x):
        x = self.flatten(x)
        x = self.dense_1(x)
        x = self.dropout(x)
        x = self.dense_2(x)
        return x


def test_a_subclassed_model_lists_its_layers_in_assignment_order():
    model = SequentialModel()
    assert model.name == "sequential_model"
    assert [layer.name for layer in model.layers] == ["flatten", "dense", "dropout", "dense_1"]
    assert model.get_layer("dropout") is model.dropout and model.get_layer(index=3) is model.dense_2
    with pytest.raises(ValueError, match="No such layer: nope"):
        model.get_layer("nope")
    model(np.zeros((1, 28, 28), np.float32))
    assert [v.name for v in model.variables] == [
        "dense/kernel:0",
        "dense/bias:0",
        "dense_1/kernel:0",
        "dense_1/bias:0",
    ]
    lines = []
    model.summary(print_fn=lines.append)
    assert lines[0] == 'Model: "sequential_model"'
    assert lines[5] == "dense (Dense)                multiple                  100480    "


def test_a_subclassed_model_runs_the_same_eagerly_and_as_an_ag_function():
    model = SequentialModel()
    data = rt.random.uniform([60, 28, 28])
    graph_model = ag.function(model)
    np.testing.assert_allclose(graph_model(data).numpy(), model(data).numpy(), rtol=1e-5, atol=1e-6)
    # The first trace made the weights; as in TensorFlow, the function is traced again
    # without making any, and that graph is the one that runs from then on.
    assert graph_model.tracing_count == 2
    graph_model(rt.random.uniform([60, 28, 28]))
    assert graph_model.tracing_count == 2


def test_a_model_under_ag_function_takes_an_input_signature():
    model = keras.Sequential([keras.layers.Dense(3, input_shape=(4,))])
    call = ag.function(model, input_signature=[rt.TensorSpec([None, 4])])
    x = np.ones((7, 4), np.float32)
    np.testing.assert_allclose(call(x).numpy(), model(x).numpy(), rtol=1e-6, atol=1e-6)
    with pytest.raises(TypeError, match="not covered by the input_signature"):
        call(x, training=True)


def test_build_with_a_shape_makes_the_weights_of_a_subclassed_model():
    model = SequentialModel()
    model.build((None, 28, 28))
    assert model.built and model.count_params() == 101770


def test_the_functional_api_and_a_missing_call_are_explained():
    # Keras 3: the functional API takes KerasTensors only.
    with pytest.raises(ValueError, match="All `inputs` values must be KerasTensors"):
        keras.Model(inputs=1, outputs=2)

    class NoCall(keras.Model):
        pass

    with pytest.raises(NotImplementedError, match="you should implement a `call\\(\\)` method"):
        NoCall()(np.ones((1, 1), np.float32))


LOADER = """
import sys
import numpy as np
import runtime as rt

path = sys.argv[1]
loaded = rt.saved_model.load(path)
x = np.load(path + "/x.npy")
by_call = loaded(x).numpy()
by_signature = rt.nest.flatten(loaded.signatures["serving_default"](inputs=x))[0].numpy()
# predict's batches and the loaded call are two paths (BLAS may block them differently): close;
# the signature runs the call's own graph on the same rows: the same numbers.
predicted = np.load(path + "/predicted.npy")
print(np.allclose(by_call, predicted, rtol=1e-5, atol=1e-6), np.array_equal(by_call, by_signature))
print(sorted(v.name for v in loaded.variables))
"""


def test_a_trained_model_saves_and_predicts_the_same_in_a_fresh_process(tmp_path):
    rt.random.set_seed(7)
    x = np.random.default_rng(0).normal(size=(32, 5)).astype(np.float32)
    model = keras.Sequential(
        [
            keras.layers.Dense(8, activation="relu", input_shape=(5,)),
            keras.layers.Dropout(0.5),  # inference: the saved call does not drop
            keras.layers.Dense(1),
        ]
    )
    model.compile(optimizer="adam", loss="mse")
    model.fit(x, x.sum(axis=1), epochs=2, verbose=0)
    path = str(tmp_path / "model")
    rt.saved_model.save(model, path)
    np.save(path + "/x.npy", x)
    np.save(path + "/predicted.npy", model.predict(x))
    result = subprocess.run(
        [sys.executable, "-c", LOADER, path], capture_output=True, text=True, check=True
    )
    assert result.stdout.splitlines() == [
        "True True",
        "['dense/bias:0', 'dense/kernel:0', 'dense_1/bias:0', 'dense_1/kernel:0']",
    ]
    assert "signature 'serving_default'" in rt.saved_model.show(path)


def test_model_save_is_saved_model_save_and_a_subclassed_model_saves_too(tmp_path):
    model = SequentialModel()
    data = np.random.default_rng(1).uniform(size=(3, 28, 28)).astype(np.float32)
    expected = model.predict(data)
    model.save(str(tmp_path / "m"))
    loaded = rt.saved_model.load(str(tmp_path / "m"))
    np.testing.assert_allclose(loaded(data).numpy(), expected, rtol=1e-5, atol=1e-6)
    assert loaded.__call__.input_signature[0].shape == (None, 28, 28)


def test_an_unbuilt_model_has_nothing_to_save(tmp_path):
    with pytest.raises(rt.saved_model.SavedModelError, match="Nothing to save"):
        rt.saved_model.save(keras.Sequential([keras.layers.Dense(1)]), str(tmp_path / "m"))


def test_a_models_own_functions_are_saved_and_its_training_steps_are_not(tmp_path):
    class Scaled(keras.Model):
        def __init__(self):
            super().__init__()
            self.dense = keras.layers.Dense(1)

        def call(self, x):
            return self.dense(x)

        @ag.function(input_signature=[rt.TensorSpec([None, 2])])
        def doubled(self, x):
            return 2.0 * self(x)

    x = np.array([[1.0, 2.0], [0.0, -1.0]], np.float32)
    model = Scaled()
    model.compile(optimizer="sgd", loss="mse")
    model.fit(x, np.ones((2, 1), np.float32), verbose=0)
    assert model.train_function is not None
    model.save(str(tmp_path / "m"))
    loaded = rt.saved_model.load(str(tmp_path / "m"))
    np.testing.assert_allclose(
        loaded.doubled(x).numpy(), 2 * model.predict(x), rtol=1e-6, atol=1e-6
    )
    assert not hasattr(loaded, "train_function")
    assert sorted(v.name for v in loaded.variables) == ["dense/bias:0", "dense/kernel:0"]


def test_a_sequential_whose_first_layer_is_a_built_sequential_with_an_input_shape_is_built():
    inner = keras.Sequential([keras.layers.Dense(3, input_shape=(2,)), keras.layers.Dense(2)])
    outer = keras.Sequential([inner, keras.layers.Dense(1)])
    assert outer.built and outer.count_params() == 9 + 8 + 3
    assert [v.name for v in outer.layers[1].weights] == ["dense_2/kernel:0", "dense_2/bias:0"]
    x = np.ones((4, 2), np.float32)
    np.testing.assert_allclose(outer(x).numpy(), outer.layers[1](inner(x)).numpy())
