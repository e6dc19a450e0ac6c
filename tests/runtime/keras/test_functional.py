"""The functional API: ``rt.keras.Input``, layers called on KerasTensors,
``rt.keras.Model(inputs, outputs)``: its results against numpy, its training against SGD by
hand, its summary as Keras printed it, its config in Keras 3's format."""

import numpy as np
import pytest

import runtime as rt

keras = rt.keras
layers = rt.keras.layers


@pytest.fixture(autouse=True)
def fresh_names():
    keras.backend.clear_session()


def dense_values(layer, x):
    kernel, bias = (w.numpy() for w in layer.weights)
    return x @ kernel + bias


def test_a_layer_called_on_keras_tensors_gives_keras_tensors_of_its_output_shape():
    x = keras.Input(shape=(5, 3))
    y = layers.Dense(4)(x)
    z = layers.Flatten()(y)
    assert (y.shape, z.shape, z.dtype) == ((None, 5, 4), (None, 20), "float32")
    node = z._keras_history.operation._inbound_nodes[0]
    assert node.input_tensors == [y] and node.outputs == [z]
    assert [v.shape.as_list() for v in y._keras_history.operation.weights] == [[3, 4], [4]]


def test_a_functional_model_computes_its_graph():
    a, b = keras.Input(shape=(3,), name="a"), keras.Input(shape=(3,), name="b")
    shared = layers.Dense(2, activation="relu")
    merged = layers.concatenate([shared(a), shared(b)])
    out = layers.Dense(1)(merged)
    model = keras.Model([a, b], out)
    xa, xb = np.random.rand(4, 3).astype("f"), np.random.rand(4, 3).astype("f")
    head = out._keras_history.operation
    hidden = np.concatenate(
        [np.maximum(dense_values(shared, xa), 0), np.maximum(dense_values(shared, xb), 0)], 1
    )
    np.testing.assert_allclose(model([xa, xb]).numpy(), dense_values(head, hidden), rtol=1e-5)
    assert len(model.weights) == 4  # the shared layer's weights once
    assert [layer.name for layer in model.layers] == ["a", "b", "dense", "concatenate", "dense_1"]
    assert model.input_shape == [(None, 3), (None, 3)]
    assert model.output_shape == (None, 1) and model.output_names == ["dense_1"]


def test_models_nest_as_layers():
    inner_in = keras.Input(shape=(2,))
    inner = keras.Model(inner_in, layers.Dense(3)(inner_in), name="inner")
    stack = keras.Sequential([layers.Dense(2)])
    x = keras.Input(shape=(4,))
    model = keras.Model(x, inner(stack(x)))
    data = np.random.rand(5, 4).astype("f")
    expected = dense_values(inner.layers[1], dense_values(stack.layers[0], data))
    np.testing.assert_allclose(model(data).numpy(), expected, rtol=1e-5)
    assert [type(layer).__name__ for layer in model.layers] == [
        "InputLayer",
        "Sequential",
        "Functional",
    ]


@pytest.mark.parametrize("run_eagerly", [False, True])
def test_fit_is_sgd_by_hand(run_eagerly):
    # One full batch of SGD on the mean squared error from zeros: the gradient of
    # mean((xw + b - y)^2) at w = 0, b = 0 is -2/n x^T y and -2/n sum(y).
    x = np.array([[1.0, 2.0], [0.0, 1.0], [3.0, -1.0], [2.0, 2.0]], np.float32)
    y = np.array([[1.0], [0.5], [2.0], [-1.0]], np.float32)
    inputs = keras.Input(shape=(2,))
    dense = layers.Dense(1, kernel_initializer="zeros")
    model = keras.Model(inputs, dense(inputs))
    model.compile(keras.optimizers.SGD(0.1), "mse", run_eagerly=run_eagerly)
    history = model.fit(x, y, batch_size=4, epochs=1, shuffle=False, verbose=0)
    n = len(x)
    np.testing.assert_allclose(dense.kernel.numpy(), 0.1 * 2 / n * x.T @ y, rtol=1e-6)
    np.testing.assert_allclose(dense.bias.numpy(), 0.1 * 2 / n * y.sum(0), rtol=1e-6)
    np.testing.assert_allclose(history.history["loss"], [np.mean(y**2)], rtol=1e-6)
    np.testing.assert_allclose(model.predict(x), x @ dense.kernel.numpy() + dense.bias.numpy())
    assert model.evaluate(x, y, verbose=0) == pytest.approx(
        np.mean((model.predict(x) - y) ** 2), rel=1e-5
    )


def test_summary_of_a_graph_prints_what_each_layer_is_connected_to(capsys):
    a, b = keras.Input(shape=(3,), name="a"), keras.Input(shape=(4,), name="b")
    x = layers.Concatenate()([layers.Dense(5)(a), layers.Dense(5)(b)])
    keras.Model([a, b], layers.Dense(2)(x), name="two").summary()
    # Keras' table for such models (tf.keras 2.x), without its rows of "=" as the project's.
    rule = "_" * 98
    expected = [
        'Model: "two"',
        rule,
        "Layer (type)                    Output Shape         Param #     Connected to",
        "a (InputLayer)                  (None, 3)            0",
        rule,
        "b (InputLayer)                  (None, 4)            0",
        rule,
        "dense (Dense)                   (None, 5)            20          a[0][0]",
        rule,
        "dense_1 (Dense)                 (None, 5)            25          b[0][0]",
        rule,
        "concatenate (Concatenate)       (None, 10)           0           dense[0][0]",
        "                                                                 dense_1[0][0]",
        rule,
        "dense_2 (Dense)                 (None, 2)            22          concatenate[0][0]",
        "Total params: 67",
        "Trainable params: 67",
        "Non-trainable params: 0",
        rule,
    ]
    printed = [line.rstrip() for line in capsys.readouterr().out.splitlines()]
    assert printed == expected


def test_summary_of_a_chain_has_real_shapes_and_no_connections(capsys):
    x = keras.Input(shape=(10,), name="pixels")
    hidden = layers.Dense(4)(x)
    keras.Model(x, layers.Dense(1)(hidden)).summary()
    printed = [line.rstrip() for line in capsys.readouterr().out.splitlines()]
    assert printed[2:8] == [
        "Layer (type)                 Output Shape              Param #",
        "pixels (InputLayer)          (None, 10)                0",
        "_" * 65,
        "dense (Dense)                (None, 4)                 44",
        "_" * 65,
        "dense_1 (Dense)              (None, 1)                 5",
    ]


@pytest.mark.parametrize("first", ["Input", "InputLayer"])
def test_a_sequential_may_start_with_an_input(first, capsys):
    start = keras.Input(shape=(3,)) if first == "Input" else layers.InputLayer(shape=(3,))
    model = keras.Sequential([start, layers.Dense(2), layers.Dense(1)])
    assert [layer.name for layer in model.layers] == ["dense", "dense_1"]
    assert model.built and model.count_params() == 8 + 3
    model.summary()
    printed = capsys.readouterr().out
    assert "(None, 2)" in printed and "(None, 1)" in printed and "InputLayer" not in printed
    data = np.random.rand(2, 3).astype("f")
    first_dense, second_dense = model.layers
    expected = dense_values(second_dense, dense_values(first_dense, data))
    np.testing.assert_allclose(model(data).numpy(), expected, rtol=1e-5)
    with pytest.raises(ValueError, match="You cannot add a different Input layer"):
        model.add(keras.Input(shape=(3,)))


def test_arithmetic_on_keras_tensors():
    a, b = keras.Input(shape=(2,)), keras.Input(shape=(2,))
    model = keras.Model([a, b], {"sum": a + b, "scaled": 3 * a - b / 2, "first": a[:, 0]})
    xa, xb = np.random.rand(3, 2).astype("f"), np.random.rand(3, 2).astype("f")
    out = model([xa, xb])
    np.testing.assert_allclose(out["sum"].numpy(), xa + xb, rtol=1e-6)
    np.testing.assert_allclose(out["scaled"].numpy(), 3 * xa - xb / 2, rtol=1e-6)
    np.testing.assert_allclose(out["first"].numpy(), xa[:, 0], rtol=1e-6)
    assert len(model.layers) == 2  # the arithmetic is no layer


def test_errors_are_keras_errors():
    x = keras.Input(shape=(3,))
    with pytest.raises(ValueError, match="All `outputs` values must be KerasTensors"):
        keras.Model(x, np.ones((1, 3)))
    y = layers.Dense(2, name="twice")(x)
    z = layers.Dense(2, name="twice")(y)
    with pytest.raises(ValueError, match='The name "twice" is used 2 times in the model'):
        keras.Model(x, z)
    built_for_two = layers.Dense(1)
    built_for_two(keras.Input(shape=(2,)))
    with pytest.raises(ValueError, match="expected axis -1 of input shape to have value 2"):
        built_for_two(x)
    with pytest.raises(ValueError, match="Output with path `1` is not connected to `inputs`"):
        keras.Model(x, [y, layers.Dense(1)(keras.Input(shape=(4,)))])


class Scale(layers.Layer):
    """A custom layer with a config: ``inputs * factor``."""

    def __init__(self, factor, **kwargs):
        super().__init__(**kwargs)
        self.factor = factor

    def call(self, inputs):
        return inputs * self.factor

    def get_config(self):
        return {"name": self.name, "trainable": self.trainable, "factor": self.factor}


def _merging_model():
    a, b = keras.Input(shape=(3,), name="a"), keras.Input(shape=(3,), name="b")
    scaled = Scale(2.0, name="scale")(a)
    out = layers.Concatenate(name="cat")([layers.Add(name="sum")([scaled, b]), b])
    return keras.Model({"a": a, "b": b}, {"out": out, "scaled": scaled}, name="merge")


def test_config_is_keras_3s_format():
    config = _merging_model().get_config()
    tensor = lambda name, shape: {  # noqa: E731
        "class_name": "__keras_tensor__",
        "config": {"shape": shape, "dtype": "float32", "keras_history": [name, 0, 0]},
    }
    assert config["name"] == "merge" and config["trainable"] is True
    # Keras' order: by depth from the outputs, ties as a walk from the outputs first met them.
    assert [entry["name"] for entry in config["layers"]] == ["a", "scale", "b", "sum", "cat"]
    first, scale, add = config["layers"][0], config["layers"][1], config["layers"][3]
    assert first == {
        "module": "keras.layers",
        "class_name": "InputLayer",
        "config": {
            "batch_shape": (None, 3),
            "dtype": "float32",
            "sparse": False,
            "ragged": False,
            "name": "a",
            "optional": False,
        },
        "registered_name": None,
        "name": "a",
        "inbound_nodes": [],
    }
    assert (scale["module"], scale["class_name"], scale["registered_name"]) == (
        __name__,
        "Scale",
        "Scale",
    )
    assert scale["inbound_nodes"] == [{"args": (tensor("a", (None, 3)),), "kwargs": {}}]
    assert (add["module"], add["registered_name"], add["build_config"]) == (
        "keras.layers",
        None,
        {"input_shape": [(None, 3), (None, 3)]},
    )
    assert add["inbound_nodes"] == [
        {"args": ([tensor("scale", (None, 3)), tensor("b", (None, 3))],), "kwargs": {}}
    ]
    assert config["input_layers"] == {"a": ["a", 0, 0], "b": ["b", 0, 0]}
    assert config["output_layers"] == {"out": ["cat", 0, 0], "scaled": ["scale", 0, 0]}


def test_from_config_remakes_the_model():
    model = _merging_model()
    config = model.get_config()
    with pytest.raises(TypeError, match="Could not locate class 'Scale'"):
        keras.Model.from_config(config)
    again = keras.Model.from_config(config, custom_objects={"Scale": Scale})
    assert again.get_config() == config
    data = {"a": np.random.rand(2, 3), "b": np.random.rand(2, 3)}
    for key in ("out", "scaled"):
        np.testing.assert_allclose(again(data)[key].numpy(), model(data)[key].numpy())


def test_a_shared_layer_and_a_nested_model_survive_the_config():
    inner_in = keras.Input(shape=(2,), name="inner_in")
    inner = keras.Model(inner_in, Scale(3.0, name="triple")(inner_in), name="inner")
    x = keras.Input(shape=(2,), name="x")
    twice = Scale(2.0, name="twice")
    out = layers.Add(name="sum")([twice(twice(x)), inner(x)])
    model = keras.Model(x, [out, inner(twice(x))])
    config = model.get_config()
    twice_entry = next(e for e in config["layers"] if e["name"] == "twice")
    assert len(twice_entry["inbound_nodes"]) == 3  # twice(x), twice(twice(x)), twice(x)
    outside = twice(keras.Input(shape=(2,)))  # a call that is not the model's
    assert model.get_config() == config and outside.shape == (None, 2)
    nested = next(e for e in config["layers"] if e["name"] == "inner")
    assert (nested["module"], nested["class_name"]) == ("keras.src.models.functional", "Functional")
    # Keras counts a nested functional model's node from 1: it is made with one.
    assert config["output_layers"] == [["sum", 0, 0], ["inner", 2, 0]]
    again = keras.Model.from_config(config, custom_objects={"Scale": Scale})
    data = np.random.rand(3, 2)
    for got, want in zip(again(data), [4 * data + 3 * data, 6 * data]):
        np.testing.assert_allclose(got.numpy(), want, rtol=1e-6)


@pytest.mark.parametrize(
    "module, class_name", [("os", "system"), ("builtins", "eval"), ("subprocess", "Popen")]
)
def test_from_config_never_imports_what_a_config_names(module, class_name):
    config = {
        "name": "hostile",
        "layers": [
            {
                "module": "keras.layers",
                "class_name": "InputLayer",
                "config": {"batch_shape": [None, 1], "dtype": "float32", "name": "x"},
                "registered_name": None,
                "name": "x",
                "inbound_nodes": [],
            },
            {
                "module": module,
                "class_name": class_name,
                "config": {"args": "echo hi"},
                "registered_name": f"{module}>{class_name}",
                "name": "evil",
                "inbound_nodes": [
                    {
                        "args": [
                            {
                                "class_name": "__keras_tensor__",
                                "config": {
                                    "shape": [None, 1],
                                    "dtype": "float32",
                                    "keras_history": ["x", 0, 0],
                                },
                            }
                        ],
                        "kwargs": {},
                    }
                ],
            },
        ],
        "input_layers": [["x", 0, 0]],
        "output_layers": [["evil", 0, 0]],
    }
    with pytest.raises(TypeError, match=f"Could not locate class '{class_name}'"):
        keras.Model.from_config(config)


def test_a_layer_called_on_a_dict_of_keras_tensors():
    class Weighted(layers.Layer):
        def call(self, inputs, scale=1.0):
            return scale * inputs["a"] - inputs["b"]

    a, b = keras.Input(shape=(2,)), keras.Input(shape=(2,))
    out = Weighted()({"a": a, "b": b}, scale=3.0)
    assert out.shape == (None, 2)
    model = keras.Model({"a": a, "b": b}, out)
    xa, xb = np.random.rand(2, 2), np.random.rand(2, 2)
    got = model({"a": xa, "b": xb}).numpy()
    np.testing.assert_allclose(got, 3.0 * xa - xb, rtol=1e-6)


def test_arithmetic_is_written_as_keras_3s_ops_and_read_back_from_json():
    import json

    a, b = keras.Input(shape=(2,), name="a"), keras.Input(shape=(2,), name="b")
    model = keras.Model([a, b], (2 - a) * b)
    config = model.get_config()
    subtract = next(e for e in config["layers"] if e["name"] == "subtract")
    assert {k: v for k, v in subtract.items() if k != "inbound_nodes"} == {
        "module": "keras.src.ops.numpy",
        "class_name": "Subtract",
        "config": {"name": "subtract"},
        "registered_name": "Subtract",
        "name": "subtract",
    }
    (node,) = subtract["inbound_nodes"]
    assert node["args"][0] == 2 and node["args"][1]["config"]["keras_history"] == ["a", 0, 0]
    # As a JSON file holds it (lists for tuples): made again, the same numbers.
    again = keras.Model.from_config(json.loads(json.dumps(config)))
    xa, xb = np.random.rand(3, 2), np.random.rand(3, 2)
    np.testing.assert_allclose(again([xa, xb]).numpy(), (2 - xa) * xb, rtol=1e-6)
    with pytest.raises(NotImplementedError, match="cannot be serialized"):
        keras.Model(a, a[:, 0]).get_config()


def test_a_model_subclass_may_be_made_from_inputs_and_outputs():
    class Scaled(keras.Model):
        def __init__(self, *args, factor=1.0, **kwargs):
            super().__init__(*args, **kwargs)
            self.factor = factor

        def get_config(self):
            return {**super().get_config(), "factor": self.factor}

    x = keras.Input(shape=(2,), name="x")
    model = Scaled(x, Scale(2.0, name="double")(x), factor=3.0, name="scaled")
    assert isinstance(model, Scaled) and model.factor == 3.0 and model.name == "scaled"
    assert [layer.name for layer in model.layers] == ["x", "double"]
    data = np.random.rand(2, 2)
    np.testing.assert_allclose(model(data).numpy(), 2 * data, rtol=1e-6)
    again = Scaled.from_config(model.get_config(), custom_objects={"Scale": Scale})
    assert isinstance(again, Scaled) and again.factor == 3.0
    np.testing.assert_allclose(again(data).numpy(), 2 * data, rtol=1e-6)
    with pytest.raises(TypeError, match="keyword arguments only"):
        keras.Model(x)


KERAS_TENSOR_OPERATORS = [  # Keras 3's KerasTensor operators, against numpy's
    ("Power", lambda x: x**2, lambda v: v**2),
    ("Power", lambda x: 2.0**x, lambda v: 2.0**v),
    ("Matmul", lambda x: x @ np.eye(3, 2, dtype="float32"), lambda v: v @ np.eye(3, 2)),
    ("Matmul", lambda x: np.eye(2, dtype="float32") @ x, lambda v: np.eye(2) @ v),
    ("Absolute", abs, np.abs),
    ("FloorDivide", lambda x: x // 2, lambda v: v // 2),
    ("FloorDivide", lambda x: 7 // (x + 5), lambda v: 7 // (v + 5)),
    ("Mod", lambda x: x % 2, lambda v: v % 2),
    ("Mod", lambda x: 2 % (x + 5), lambda v: 2 % (v + 5)),
    ("NotEqual", lambda x: x != 0, lambda v: v != 0),
    ("LogicalAnd", lambda x: (x > 0) & (x < 2), lambda v: (v > 0) & (v < 2)),
    ("LogicalOr", lambda x: (x > 1) | (x < 0), lambda v: (v > 1) | (v < 0)),
    ("LogicalXor", lambda x: (x > 0) ^ (x > 1), lambda v: (v > 0) ^ (v > 1)),
    ("LogicalNot", lambda x: ~(x > 0), lambda v: ~(v > 0)),
    ("Round", round, np.round),
    ("Round", lambda x: round(x, 1), lambda v: np.round(v, 1)),
]
V = np.array([[0.5, 1.5, -2.5], [2.25, -0.35, 0.0]], "float32")


@pytest.mark.parametrize("kind, on_keras, on_numpy", KERAS_TENSOR_OPERATORS)
def test_keras_tensor_operators_are_keras_3s_ops(kind, on_keras, on_numpy):
    import json

    x = keras.Input(shape=(3,))
    model = keras.Model(x, on_keras(x))
    assert [e["class_name"] for e in model.get_config()["layers"][1:]][-1] == kind
    # Read back as a JSON file holds it, where the operands are numbers or tensors.
    plain = "Matmul" not in kind
    again = keras.Model.from_config(json.loads(json.dumps(model.get_config()))) if plain else model
    expected = on_numpy(V.astype(np.float64) if kind != "Round" else V)
    for made in (model, again):
        got = made(V).numpy()
        assert got.dtype.kind == np.asarray(expected).dtype.kind
        np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-6)


def test_keras_tensors_compare_by_identity_and_hash():
    x, y = keras.Input(shape=(3,)), keras.Input(shape=(3,))
    assert x == x and (x == y) is False and {x: 1, y: 2}[y] == 2
    assert isinstance(x != 0, type(x))  # an op, not Python's True


def test_input_takes_floatx_by_default():
    keras.backend.set_floatx("float64")
    try:
        x = keras.Input(shape=(3,))
        model = keras.Model(x, layers.Dense(2)(x))
        assert x.dtype == "float64" and model(np.ones((1, 3))).dtype == rt.float64
    finally:
        keras.backend.set_floatx("float32")
    assert keras.Input(shape=(3,)).dtype == "float32"
