"""Layers: lazy building, weights and their names, freezing, and each core layer against numpy."""

from __future__ import annotations

import re

import numpy as np
import pytest

import autograph as ag
import runtime as rt

keras = rt.keras


@pytest.fixture(autouse=True)
def fresh_names():
    keras.backend.clear_session()


X = np.array([[1.0, -2.0, 0.5], [0.0, 3.0, -1.0]], np.float32)


def test_layers_and_models_are_modules():
    assert issubclass(keras.Model, keras.layers.Layer)
    assert issubclass(keras.layers.Layer, rt.Module)
    assert issubclass(keras.Model, rt.Module)
    assert keras.models.Model is keras.Model and keras.models.Sequential is keras.Sequential


def test_a_layer_shows_its_class_where_it_is_defined_and_its_name():
    class Head(keras.Model):
        def call(self, x):
            return x

    assert repr(keras.layers.Dense(1)) == "<rt.keras.layers.Dense 'dense'>"
    assert repr(keras.Sequential()) == "<rt.keras.models.Sequential 'sequential'>"
    expected = f"<{__name__}.test_a_layer_shows_its_class_where_it_is_defined_and_its_name"
    assert repr(Head()) == expected + ".<locals>.Head 'head'>"


def test_names_count_per_class_from_the_second_and_restart_with_clear_session():
    names = [keras.layers.Dense(1).name, keras.layers.Dense(1).name, keras.layers.Dropout(0.1).name]
    assert names == ["dense", "dense_1", "dropout"]
    assert keras.layers.Dense(1, name="head").name == "head"

    class EagerLayer(keras.layers.Layer):
        pass

    assert EagerLayer().name == "eager_layer"
    keras.backend.clear_session()
    assert keras.layers.Dense(1).name == "dense"


def test_a_dense_layer_builds_at_its_first_call_and_names_its_weights():
    layer = keras.layers.Dense(4)
    assert not layer.built and layer.weights == []
    layer(X)
    assert layer.built
    assert [(v.name, v.shape.as_list()) for v in layer.weights] == [
        ("dense/kernel:0", [3, 4]),
        ("dense/bias:0", [4]),
    ]
    assert layer.count_params() == 3 * 4 + 4


def test_dense_computes_the_activation_of_x_times_kernel_plus_bias():
    layer = keras.layers.Dense(2, activation="tanh", bias_initializer="ones")
    out = layer(X).numpy()
    kernel, bias = layer.kernel.numpy(), layer.bias.numpy()
    np.testing.assert_allclose(out, np.tanh(X @ kernel + bias), rtol=1e-6, atol=1e-6)
    assert bias.tolist() == [1.0, 1.0]


def test_dense_on_a_rank_3_input_applies_to_the_last_axis():
    layer = keras.layers.Dense(2, use_bias=False)
    x = np.arange(12, dtype=np.float32).reshape(2, 3, 2)
    np.testing.assert_allclose(layer(x).numpy(), x @ layer.kernel.numpy(), rtol=1e-6, atol=1e-6)
    assert layer.compute_output_shape((None, 3, 2)) == (None, 3, 2)


def test_glorot_uniform_kernels_are_within_the_limit_and_seeded():
    rt.random.set_seed(3)
    a = keras.layers.Dense(50)
    a(np.ones((1, 30), np.float32))
    rt.random.set_seed(3)
    b = keras.layers.Dense(50)
    b(np.ones((1, 30), np.float32))
    kernel = a.kernel.numpy()
    limit = np.sqrt(6 / (30 + 50))
    assert np.abs(kernel).max() <= limit and np.abs(kernel).max() > 0.9 * limit
    np.testing.assert_array_equal(kernel, b.kernel.numpy())
    assert abs(kernel.mean()) < 0.05  # uniform in [-limit, limit]: centred


def test_inputs_are_converted_and_float64_is_cast_to_the_layers_float32():
    layer = keras.layers.Dense(1)
    out = layer(X.astype(np.float64))
    assert out.dtype is rt.float32
    assert layer(X.tolist()).dtype is rt.float32


def test_setting_trainable_false_freezes_the_layer_and_the_layers_inside():
    inner = keras.layers.Dense(2)
    model = keras.Sequential([inner, keras.layers.Dense(1)])
    model(X)
    assert len(model.trainable_variables) == 4
    inner.trainable = False
    assert [v.name for v in model.trainable_variables] == ["dense_1/kernel:0", "dense_1/bias:0"]
    assert [v.name for v in model.non_trainable_variables] == ["dense/kernel:0", "dense/bias:0"]
    # Keras lists trainable weights first: the frozen layer's go last.
    assert [v.name for v in model.weights][-2:] == ["dense/kernel:0", "dense/bias:0"]
    model.trainable = False
    assert model.trainable_variables == [] and not inner.trainable
    model.trainable = True
    assert inner.trainable and len(model.trainable_variables) == 4


def test_a_weight_made_with_trainable_false_is_non_trainable():
    class Counter(keras.layers.Layer):
        def build(self, input_shape):
            self.scale = self.add_weight(name="scale", shape=(), initializer="ones")
            self.calls = self.add_weight(name="calls", initializer="zeros", trainable=False)

        def call(self, inputs):
            self.calls.assign_add(1.0)
            return inputs * self.scale

    layer = Counter()
    layer(X)
    layer(X)
    assert [v.name for v in layer.trainable_weights] == ["counter/scale:0"]
    assert [v.name for v in layer.non_trainable_weights] == ["counter/calls:0"]
    assert float(layer.calls.numpy()) == 2.0


def test_a_subclassed_layer_finds_layers_and_variables_in_its_attributes():
    class Block(keras.layers.Layer):
        def __init__(self):
            super().__init__()
            self.first = keras.layers.Dense(3)
            self.rest = [keras.layers.Dense(2), {"last": keras.layers.Dense(1)}]
            self.offset = rt.Variable(0.5, name="offset")

        def call(self, inputs):
            x = self.rest[0](self.first(inputs))
            return self.rest[1]["last"](x) + self.offset

    block = Block()
    block(X)
    assert [layer.name for layer in block.submodules] == ["dense", "dense_1", "dense_2"]
    names = [v.name for v in block.trainable_variables]
    assert names[0] == "offset:0" and len(names) == 7
    assert block._sublayers() == list(block.submodules)


def test_add_weight_inside_a_traced_function_makes_the_weight_eagerly_once():
    layer = keras.layers.Dense(2)
    call = ag.function(layer)
    out = call(rt.constant(X))
    np.testing.assert_allclose(out.numpy(), layer(X).numpy(), rtol=1e-6, atol=1e-6)
    assert [v.name for v in layer.weights] == ["dense/kernel:0", "dense/bias:0"]
    # the graph names its ops after the layer
    concrete = call.get_concrete_function(rt.TensorSpec([None, 3]))
    assert any(op.name.startswith("dense/MatMul") for op in concrete.graph.get_operations())


def test_flatten_keeps_the_batch_and_joins_the_rest():
    flatten = keras.layers.Flatten()
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    np.testing.assert_array_equal(flatten(x).numpy(), x.reshape(2, 12))
    assert flatten(np.arange(3, dtype=np.float32)).shape == (3, 1)
    assert flatten.compute_output_shape((None, 28, 28)) == (None, 784)
    graph_flatten = ag.function(flatten, input_signature=[rt.TensorSpec([None, None, 4])])
    assert graph_flatten.get_concrete_function().outputs[0].shape == (None, None)
    np.testing.assert_array_equal(graph_flatten(x).numpy(), x.reshape(2, 12))


def test_dropout_is_the_identity_unless_training():
    dropout = keras.layers.Dropout(0.5)
    x = np.ones((4, 1000), np.float32)
    np.testing.assert_array_equal(dropout(x).numpy(), x)
    np.testing.assert_array_equal(dropout(x, training=False).numpy(), x)
    dropped = dropout(x, training=True).numpy()
    kept = dropped != 0
    assert 0.45 < kept.mean() < 0.55
    np.testing.assert_allclose(dropped[kept], 2.0)  # kept values scaled by 1 / (1 - rate)


def test_dropout_in_a_graph_draws_a_new_mask_on_every_run():
    dropout = keras.layers.Dropout(0.3)
    train = ag.function(lambda x: dropout(x, training=True))
    x = rt.ones([200])
    a, b = train(x).numpy(), train(x).numpy()
    assert not np.array_equal(a != 0, b != 0)
    np.testing.assert_allclose(a[a != 0], 1 / 0.7, rtol=1e-6, atol=1e-6)


def test_dropout_takes_a_training_tensor():
    dropout = keras.layers.Dropout(0.9)
    x = rt.ones([100])
    np.testing.assert_array_equal(dropout(x, training=rt.constant(False)).numpy(), x.numpy())
    assert (dropout(x, training=rt.constant(True)).numpy() == 0).sum() > 50


def test_training_reaches_every_layer_inside_whether_or_not_call_names_it():
    seen = []

    class Probe(keras.layers.Layer):
        def call(self, inputs, training=None):
            seen.append(training)
            return inputs

    class Inner(keras.layers.Layer):
        def __init__(self):
            super().__init__()
            self.probe = Probe()
            self.dropout = keras.layers.Dropout(0.99)

        def call(self, inputs):  # does not name training
            return self.dropout(self.probe(inputs))

    class Outer(keras.Model):
        def __init__(self):
            super().__init__()
            self.inner = Inner()

        def call(self, inputs):
            return self.inner(inputs)

    model = Outer()
    x = np.ones((10, 100), np.float32)
    np.testing.assert_array_equal(model(x).numpy(), x)
    assert (model(x, training=True).numpy() == 0).mean() > 0.9
    np.testing.assert_array_equal(model(x, training=False).numpy(), x)
    assert seen == [None, True, False]


def test_an_explicit_training_argument_of_an_inner_call_wins():
    class Model(keras.Model):
        def __init__(self):
            super().__init__()
            self.dropout = keras.layers.Dropout(0.99)

        def call(self, inputs):
            return self.dropout(inputs, training=False)

    x = np.ones((5, 5), np.float32)
    np.testing.assert_array_equal(Model()(x, training=True).numpy(), x)


def test_activation_layers_by_name_and_function():
    x = rt.constant([[-1.0, 0.0, 2.0]])
    expected = {
        "relu": [[0.0, 0.0, 2.0]],
        "sigmoid": 1 / (1 + np.exp(-x.numpy())),
        "tanh": np.tanh(x.numpy()),
        "softmax": np.exp(x.numpy()) / np.exp(x.numpy()).sum(),
        "linear": x.numpy(),
    }
    for name, want in expected.items():
        np.testing.assert_allclose(
            keras.layers.Activation(name)(x).numpy(), want, rtol=1e-6, atol=1e-6
        )
    np.testing.assert_allclose(keras.layers.Activation(rt.abs)(x).numpy(), np.abs(x.numpy()))


def test_bad_arguments_are_refused_with_what_was_received():
    with pytest.raises(ValueError, match="expected a positive integer. Received: units=0"):
        keras.layers.Dense(0)
    with pytest.raises(ValueError, match="Received: rate=1.5"):
        keras.layers.Dropout(1.5)
    with pytest.raises(ValueError, match="Unknown activation function: 'swishy'"):
        keras.layers.Dense(1, activation="swishy")
    with pytest.raises(TypeError, match="Keyword argument not understood: 'unit'"):
        keras.layers.Dense(1, unit=3)
    with pytest.raises(ValueError, match="last dimension of the inputs to a Dense layer"):
        ag.function(keras.layers.Dense(1)).get_concrete_function(rt.TensorSpec([2, None]))
    with pytest.raises(ValueError, match="isn't built"):
        keras.layers.Dense(1).count_params()


def test_a_built_dense_layer_refuses_inputs_of_another_width_in_keras_words():
    model = keras.Sequential([keras.layers.Dense(2, input_shape=(3,))])
    message = (
        'Input 0 of layer "dense" is incompatible with the layer: expected axis -1 of input '
        "shape to have value 3, but received input with shape {}"
    )
    with pytest.raises(ValueError, match=re.escape(message.format("(2, 5)"))):
        model(np.ones((2, 5), np.float32))
    model.compile(optimizer="sgd", loss="mse")
    with pytest.raises(ValueError, match=re.escape(message.format("(None, 4)"))):
        model.fit(np.ones((8, 4), np.float32), np.zeros((8, 2), np.float32), verbose=0)
    assert int(model.optimizer.iterations.numpy()) == 0  # nothing half-done


def test_get_and_set_weights_round_trip():
    layer = keras.layers.Dense(2)
    layer(X)
    values = [np.full((3, 2), 0.5, np.float32), np.array([1.0, -1.0], np.float32)]
    layer.set_weights(values)
    np.testing.assert_allclose(layer(X).numpy(), X @ values[0] + values[1], rtol=1e-6, atol=1e-6)
    assert [w.tolist() for w in layer.get_weights()] == [v.tolist() for v in values]
    with pytest.raises(ValueError, match="expects 2 weights"):
        layer.set_weights(values[:1])


def test_dense_refuses_a_rank_1_input_as_keras_min_ndim_does():
    # Keras' Dense has InputSpec(min_ndim=2): a vector is not a batch of one example.
    model = keras.Sequential([keras.layers.Dense(1, input_shape=(4,))])
    message = (
        'Input 0 of layer "dense" is incompatible with the layer: expected min_ndim=2, '
        "found ndim=1. Full shape received: (4,)"
    )
    with pytest.raises(ValueError, match=re.escape(message)):
        model(np.ones(4, np.float32))
    with pytest.raises(ValueError, match="expected min_ndim=2, found ndim=1"):
        keras.layers.Dense(2)(np.ones(3, np.float32))


def test_dense_casts_integer_inputs_to_its_dtype_as_keras_dense_does():
    ints = np.array([[1, 2, 3], [0, -1, 4]])  # numpy's default int64
    layer = keras.layers.Dense(2, kernel_initializer="ones")
    np.testing.assert_array_equal(layer(ints).numpy(), ints.sum(1, keepdims=True) * [1, 1])
    assert layer(rt.constant(ints.astype(np.int32))).dtype == rt.float32
    model = keras.Sequential([keras.layers.Dense(1, input_shape=(3,))])
    model.compile(optimizer="sgd", loss="mse")
    model.fit(ints, np.zeros((2, 1), np.float32), verbose=0)
    np.testing.assert_allclose(model.predict(ints), model.predict(ints.astype(np.float32)))


def test_a_model_whose_init_forgets_super_init_says_so():
    class Forgetful(keras.Model):
        def __init__(self):
            self.dense = keras.layers.Dense(1)

        def call(self, x):
            return self.dense(x)

    with pytest.raises(RuntimeError, match=re.escape("forgot to call `super().__init__()`")):
        Forgetful()


def test_a_dense_layer_refused_a_vector_at_its_first_call_is_left_unbuilt():
    layer = keras.layers.Dense(2)
    with pytest.raises(ValueError, match="expected min_ndim=2"):
        layer(np.ones(3, np.float32))
    assert layer.weights == []
    assert layer(np.ones((1, 5), np.float32)).shape == (1, 2)  # and builds for a real batch


def test_an_unknown_initializer_is_refused_when_the_layer_is_made_not_half_way_through_build():
    with pytest.raises(ValueError, match="Unknown initializer: 'zeroes'"):
        keras.layers.Dense(2, bias_initializer="zeroes")
    with pytest.raises(ValueError, match="Unknown initializer: 'glorot'"):
        keras.layers.Dense(2, kernel_initializer="glorot")
    layer = keras.layers.Dense(2, kernel_initializer=keras.initializers.Constant(0.5))
    np.testing.assert_allclose(layer(X).numpy(), X.sum(1, keepdims=True) * [0.5, 0.5], rtol=1e-6)


def test_numpy_numbers_are_accepted_for_units_and_rate():
    n_classes = np.int64(3)  # as from labels.max() + 1
    layer = keras.layers.Dense(n_classes)
    assert layer(X).shape == (2, 3) and type(layer.units) is int
    dropout = keras.layers.Dropout(np.float32(0.25))
    assert dropout.rate == 0.25
    assert dropout(np.ones((1, 4000), np.float32), training=True).numpy().max() == np.float32(4 / 3)
    with pytest.raises(ValueError, match="Received: units=2.5"):
        keras.layers.Dense(2.5)


def test_training_can_be_passed_by_position_as_keras_allows():
    class Model(keras.Model):
        def __init__(self):
            super().__init__()
            self.dropout = keras.layers.Dropout(0.5)

        def call(self, x, training=None):
            return self.dropout(x, training)  # positional, as many tutorials write it

    model, x = Model(), np.ones((1, 1000), np.float32)
    assert (model(x, True).numpy() == 0).any()
    assert not (model(x, False).numpy() == 0).any() and not (model(x).numpy() == 0).any()
    assert (keras.layers.Dropout(0.5)(x, True).numpy() == 0).any()
    traced = ag.function(lambda x, t: model(x, t))
    assert (traced(x, rt.constant(True)).numpy() == 0).any()
    assert not (traced(x, rt.constant(False)).numpy() == 0).any()


def test_variables_a_build_makes_are_named_under_the_layers_being_called():
    """Keras 3 builds and calls a layer inside its name scope, nested in its callers': a
    variable made in build() is ``outer/inner/w:0`` (tensorflow.org/guide/intro_to_modules)."""
    keras.backend.clear_session()

    class Inner(keras.layers.Layer):
        def build(self, input_shape):
            self.w = rt.Variable(rt.zeros([input_shape[-1], 2]), name="w")

        def call(self, x):
            return rt.matmul(x, self.w)

    class Outer(keras.Model):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.inner = Inner()

        def call(self, x):
            return self.inner(x)

    alone = Inner()
    alone(np.ones((1, 3), np.float32))
    assert alone.w.name == "inner/w:0"
    outer = Outer(name="outer")
    outer(np.ones((1, 3), np.float32))
    assert outer.inner.w.name == "outer/inner_1/w:0"
    built_by_hand = Inner(name="by_hand")
    built_by_hand.build((1, 4))  # Keras wraps build itself in the layer's scope
    assert built_by_hand.w.name == "by_hand/w:0"
    assert rt.Variable(1.0, name="v").name == "v:0"  # the scopes are left
