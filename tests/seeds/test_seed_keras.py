"""Seeds 001 and 003 in Keras: the Sequential model's summary and freezing (003), and a
layer's Python side effect showing when fit runs Python and when a graph (001)."""

from __future__ import annotations

import pytest

import autograph as ag
import runtime as rt

keras = rt.keras


@pytest.fixture(autouse=True)
def fresh_names():
    keras.backend.clear_session()


def seed_003_model():
    """Seed 003: three Dense layers on inputs of 10 features."""
    model = keras.models.Sequential()
    model.add(keras.layers.Dense(4, input_shape=(10,)))
    model.add(keras.layers.Dense(2))
    model.add(keras.layers.Dense(1))
    return model


SEED_SUMMARY = """\
Model: "sequential"
_________________________________________________________________
Layer (type)                 Output Shape              Param #   
dense (Dense)                (None, 4)                 44        
_________________________________________________________________
dense_1 (Dense)              (None, 2)                 10        
_________________________________________________________________
dense_2 (Dense)              (None, 1)                 3         
Total params: 57
Trainable params: 57
Non-trainable params: 0
_________________________________________________________________
"""  # noqa: W291 (Keras pads each row to 65 characters)


def test_seed_003_sequential_summary_is_the_seeds_text(capsys):
    model = seed_003_model()
    model.summary()
    assert capsys.readouterr().out == SEED_SUMMARY
    assert [layer.count_params() for layer in model.layers] == [44, 10, 3]
    assert model.count_params() == 57


def test_seed_003_freezing_layer_0_leaves_4_of_6_variables_trainable():
    model = seed_003_model()
    assert len(model.variables) == 6
    assert [v.name for v in model.variables[:2]] == ["dense/kernel:0", "dense/bias:0"]
    model.layers[0].trainable = False
    assert model.layers[0].trainable is False
    assert [v.name for v in model.trainable_variables] == [
        "dense_1/kernel:0",
        "dense_1/bias:0",
        "dense_2/kernel:0",
        "dense_2/bias:0",
    ]
    lines = []
    model.summary(print_fn=lines.append)
    assert lines[-4:-1] == [
        "Total params: 57",
        "Trainable params: 13",
        "Non-trainable params: 44",
    ]


def test_seed_003_names_layers_submodules():
    model = seed_003_model()
    assert model.name == "sequential"
    assert [layer.name for layer in model.layers] == ["dense", "dense_1", "dense_2"]
    assert list(model.submodules) == model.layers
    assert keras.Sequential().name == "sequential_1"


def test_seed_001_run_eagerly_runs_python_on_every_batch_and_graph_mode_only_when_tracing(capsys):
    class EagerLayer(keras.layers.Layer):
        def call(self, inputs):
            print("Currently running eagerly")
            return inputs

    class SequentialModel(keras.Model):
        def __init__(self):
            super().__init__()
            self.flatten = keras.layers.Flatten(input_shape=(28, 28))
            self.dense_1 = keras.layers.Dense(128, activation="relu")
            self.dropout = keras.layers.Dropout(0.2)
            self.dense_2 = keras.layers.Dense(10)
            self.eager = EagerLayer()

        def call(self, x):
            x = self.flatten(x)
            x = self.dense_1(x)
            x = self.dropout(x)
            x = self.dense_2(x)
            return self.eager(x)

    model = SequentialModel()
    input_data, labels = rt.random.uniform([60, 28, 28]), rt.random.uniform([60])
    loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    model.compile(run_eagerly=False, loss=loss_fn)
    model.fit(input_data, labels, epochs=3, verbose=0)
    assert capsys.readouterr().out.count("Currently running eagerly") == 2  # the two traces
    model.compile(run_eagerly=True, loss=loss_fn)
    model.fit(input_data, labels, epochs=1, verbose=0)
    assert capsys.readouterr().out.count("Currently running eagerly") == 2  # two batches
    ag.run_functions_eagerly(True)
    try:
        model.compile(loss=loss_fn)
        model.fit(input_data, labels, epochs=1, verbose=0)
    finally:
        ag.run_functions_eagerly(False)
    assert capsys.readouterr().out.count("Currently running eagerly") == 2
