"""Keras 3's keras/src/models/functional_test.py, ported to ``rt.keras`` (second part: optional
inputs, input structures, the layers setter, fitting on several inputs, invalid configs).
See test_functional.py for what is left out and why."""

import warnings

import numpy as np
import pytest

import runtime as rt

layers = rt.keras.layers
Input = rt.keras.Input
Model = rt.keras.Model


class OptionalInputLayer(layers.Layer):
    def call(self, x, y=None):
        if y is not None:
            return x + y
        return x

    def compute_output_shape(self, x_shape):
        return x_shape


def test_optional_inputs():
    i1 = Input((2,))
    i2 = Input((2,), optional=True)
    outputs = OptionalInputLayer()(i1, i2)
    model = Model([i1, i2], outputs)
    out = model([np.ones((2, 2)), None])
    np.testing.assert_allclose(out.numpy(), np.ones((2, 2)))


def test_optional_dict_inputs():
    i1 = Input((2,), name="input1")
    i2 = Input((2,), name="input2", optional=True)
    outputs = OptionalInputLayer()(i1, i2)
    model = Model({"input1": i1, "input2": i2}, outputs)
    out = model({"input1": np.ones((2, 2)), "input2": None})
    np.testing.assert_allclose(out.numpy(), np.ones((2, 2)))


def test_unmodified_inputs():
    i1 = Input((2,), name="input1")
    i2 = Input((2,), name="input2")
    o1 = i1 * 2
    o2 = i2
    model = Model({"input1": i1, "input2": i2}, {"output1": o1, "output2": o2})
    out = model({"input1": np.ones((2, 2)), "input2": np.zeros((2, 2))})
    np.testing.assert_allclose(out["output1"].numpy(), np.ones((2, 2)) * 2)
    np.testing.assert_allclose(out["output2"].numpy(), np.zeros((2, 2)))
    out_symbolic = model({"input1": Input((2,)), "input2": Input((2,))})
    assert isinstance(out_symbolic, dict)
    assert out_symbolic["output1"].shape == (None, 2)
    assert out_symbolic["output2"].shape == (None, 2)


def test_unused_inputs():
    i1 = Input((2,), name="input1")
    i2 = Input((2,), name="input2")
    o1 = i1 * 2
    model = Model({"input1": i1, "input2": i2}, o1)
    out = model({"input1": np.ones((2, 2)), "input2": np.zeros((2, 2))})
    np.testing.assert_allclose(out.numpy(), np.ones((2, 2)) * 2)
    out_symbolic = model({"input1": Input((2,)), "input2": Input((2,))})
    assert out_symbolic.shape == (None, 2)


def test_disconnected_output():
    i1 = Input((2,), name="input1")
    i2 = Input((2,), name="input2")
    o1 = i1 * 2
    o2 = i2 * 3
    with pytest.raises(ValueError, match="Output with path `output2` is not connected"):
        Model(i1, {"output1": o1, "output2": o2})


def test_required_input_none_raises():
    i1 = Input((2,), name="input1")
    i2 = Input((2,), name="input2", optional=False)
    outputs = OptionalInputLayer()(i1, i2)
    model = Model({"input1": i1, "input2": i2}, outputs)
    with pytest.raises(ValueError, match="not optional"):
        model({"input1": np.ones((2, 2)), "input2": None})


def test_optional_and_required_mixed_structures():
    i1 = Input((2,), name="input1")
    i2 = Input((2,), name="input2", optional=True)
    outputs = OptionalInputLayer()(i1, i2)
    model = Model({"input1": i1, "input2": i2}, outputs)
    np.testing.assert_allclose(model([np.ones((2, 2)), None]).numpy(), np.ones((2, 2)))
    out = model({"input1": np.ones((2, 2)), "input2": None})
    np.testing.assert_allclose(out.numpy(), np.ones((2, 2)))


@pytest.mark.xfail(
    strict=True,
    reason="fit reads x=[None] as an array of one example (a cardinality error), where Keras "
    "hands None to the model, which refuses it as not optional",
)
def test_required_none_raises_in_fit():
    x = layers.Input((3,), name="x")
    y = layers.Dense(1)(x)
    model = Model(x, y)
    model.compile(optimizer="sgd", loss="mse")
    with pytest.raises(ValueError, match="not optional"):
        model.fit([None], np.ones((4, 1)), epochs=1)


def _is_input_warning(w):
    return str(w.message).startswith(
        "The structure of `inputs` doesn't match the expected structure"
    )


def test_warning_for_mismatched_inputs_structure():
    i1 = Input((2,))
    i2 = Input((2,))
    outputs = layers.Add()([i1, i2])
    model = Model({"i1": i1, "i2": i2}, outputs)
    with pytest.warns(UserWarning) as warning_logs:
        model([np.ones((2, 2)), np.zeros((2, 2))])  # (Keras: model.predict of the list)
    assert len(list(filter(_is_input_warning, warning_logs))) == 1
    # No warning for mismatched tuples and lists.
    model = Model([i1, i2], outputs)
    with warnings.catch_warnings(record=True) as warning_logs:
        warnings.simplefilter("always")
        model((np.ones((2, 2)), np.zeros((2, 2))))
    assert len(list(filter(_is_input_warning, warning_logs))) == 0


def test_layers_setter():
    inputs = Input(shape=(3,), batch_size=2, name="input")
    outputs = layers.Dense(5)(inputs)
    model = Model(inputs, outputs)
    with pytest.raises(AttributeError, match="`Model.layers` attribute is reserved"):
        model.layers = [layers.Dense(4)]


def test_dict_input_to_list_model():
    title = layers.Input(shape=(100,), name="title")
    text_body = layers.Input(shape=(100,), name="text_body")
    tags = layers.Input(shape=(10,), name="tags")
    features = layers.Concatenate()([title, text_body, tags])
    features = layers.Dense(64, activation="relu")(features)
    priority = layers.Dense(1, activation="sigmoid", name="priority")(features)
    department = layers.Dense(3, activation="softmax", name="department")(features)
    model = Model(inputs=[title, text_body, tags], outputs=[priority, department])
    data = [np.random.randint(0, 2, size=(128, n)) for n in (100, 100, 10)]
    targets = [np.random.random(size=(128, 1)), np.random.randint(0, 2, size=(128, 3))]
    model.compile(
        optimizer="adam",
        loss=["mean_squared_error", "categorical_crossentropy"],
        metrics=[["mean_absolute_error"], ["accuracy"]],
    )
    model.fit(data, targets, epochs=1)
    model.evaluate(data, targets)
    model.predict(data)


def test_list_input_with_dict_build():
    x1 = Input((10,), name="IT")
    x2 = Input((10,), name="IS")
    y = layers.subtract([x1, x2])
    model = Model(inputs={"IT": x1, "IS": x2}, outputs=y)
    x1 = rt.ones((1, 10))
    x2 = rt.zeros((1, 10))
    model({"IT": x1, "IS": x2})
    with pytest.raises(
        ValueError, match="The structure of `inputs` doesn't match the expected structure"
    ):
        model([x1, x2])


def test_invalid_config_deserialization_loop():
    config = {
        "name": "infinite_loop_model",
        "layers": [
            {
                "class_name": "InputLayer",
                "name": "input_1",
                "config": {"batch_input_shape": [None, 10], "dtype": "float32", "name": "input_1"},
                "inbound_nodes": [],
            },
            {
                "class_name": "Dense",
                "name": "node_a",
                "config": {"units": 10, "name": "node_a"},
                "inbound_nodes": [[["node_b", 0, 0, {}]]],
            },
            {
                "class_name": "Dense",
                "name": "node_b",
                "config": {"units": 10, "name": "node_b"},
                "inbound_nodes": [[["node_a", 0, 0, {}]]],
            },
        ],
        "input_layers": [["input_1", 0, 0]],
        "output_layers": [["node_b", 0, 0]],
    }
    with pytest.raises(ValueError, match="loop"):
        Model.from_config(config)


def test_invalid_config_deserialization_missing_node():
    config = {
        "name": "infinite_loop_model",
        "layers": [
            {
                "class_name": "InputLayer",
                "name": "input_1",
                "config": {"batch_input_shape": [None, 10], "dtype": "float32", "name": "input_1"},
                "inbound_nodes": [],
            },
            {
                "class_name": "Dense",
                "name": "node_a",
                "config": {"units": 10, "name": "node_a"},
                "inbound_nodes": [[["node_b", 0, 0, {}]]],
            },
        ],
        "input_layers": [["input_1", 0, 0]],
        "output_layers": [["node_a", 0, 0]],
    }
    with pytest.raises(ValueError, match="Missing node: node_b"):
        Model.from_config(config)
