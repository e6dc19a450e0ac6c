"""The simple Keras layers beyond Keras's own tests: in a model trained by ``fit`` (staged and
eager alike), with gradients, configs as Keras 3 writes them, unknown batch sizes. (Dropout is
left out of the staged-versus-eager model: the two draw different masks.)"""

import numpy as np
import pytest

import autograph as ag
import runtime as rt
from runtime import keras
from runtime.keras import layers


def _model():
    keras.backend.clear_session()
    return keras.Sequential(
        [
            layers.Embedding(7, 4, input_shape=(3,)),
            layers.Reshape((4, 3)),
            layers.Permute((2, 1)),
            layers.Flatten(),
            layers.Dense(6, kernel_regularizer="l2"),
            layers.PReLU(alpha_initializer=keras.initializers.Constant(0.1)),
            layers.RepeatVector(2),
            layers.LeakyReLU(),
            layers.Lambda(lambda x: x[:, 0]),
            layers.Dense(2),
            layers.Softmax(),
        ]
    )


def _trained_weights(run_eagerly, initial):
    model = _model()
    model.build((None, 3))
    model.set_weights(initial)
    model.compile(optimizer=keras.optimizers.SGD(0.1), loss="mse", run_eagerly=run_eagerly)
    x = np.array([[0, 1, 2], [3, 4, 5], [6, 0, 1], [2, 2, 2]], np.int32)
    y = np.array([[1, 0], [0, 1], [1, 0], [0, 1]], np.float32)
    history = model.fit(x, y, epochs=3, batch_size=4, verbose=0)
    return model.get_weights(), history.history["loss"]


def test_staged_and_eager_fit_train_every_layer_alike():
    rt.random.set_seed(0)
    model = _model()
    model.build((None, 3))
    initial = model.get_weights()
    staged, staged_loss = _trained_weights(False, initial)
    eager, eager_loss = _trained_weights(True, initial)
    for before, a, b in zip(initial, staged, eager):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
        assert not np.allclose(a, before)  # every weight learned something
    np.testing.assert_allclose(staged_loss, eager_loss, rtol=1e-5)


def test_embedding_gradient_adds_the_upstream_rows_of_each_index():
    layer = layers.Embedding(5, 2, embeddings_initializer="ones")
    indices = np.array([[0, 3], [3, 3]])
    upstream = np.arange(8.0, dtype=np.float32).reshape(2, 2, 2)
    with rt.GradientTape() as tape:
        loss = rt.reduce_sum(layer(indices) * upstream)
    grad = rt.convert_to_tensor(tape.gradient(loss, layer.embeddings)).numpy()
    expected = np.zeros((5, 2), np.float32)
    np.add.at(expected, indices.ravel(), upstream.reshape(-1, 2))
    np.testing.assert_allclose(grad, expected)


def test_softmax_over_two_axes_has_softmaxs_gradient():
    x = np.random.default_rng(1).normal(size=(2, 3, 4)).astype(np.float32)
    weights = np.random.default_rng(2).normal(size=(2, 3, 4)).astype(np.float32)
    x_t = rt.constant(x)
    with rt.GradientTape() as tape:
        tape.watch(x_t)
        y = layers.Softmax(axis=(1, 2))(x_t)
        loss = rt.reduce_sum(y * weights)
    flat = x.reshape(2, 12)
    p = np.exp(flat - flat.max(1, keepdims=True))
    p /= p.sum(1, keepdims=True)
    w = weights.reshape(2, 12)
    expected = p * (w - (p * w).sum(1, keepdims=True))  # the softmax Jacobian applied to w
    np.testing.assert_allclose(y.numpy().reshape(2, 12), p, rtol=1e-5)
    np.testing.assert_allclose(tape.gradient(loss, x_t).numpy().reshape(2, 12), expected, atol=1e-6)


def test_dropout_noise_shape_with_none_shares_the_mask_inside_a_traced_step():
    layer = layers.Dropout(0.5, noise_shape=(None, 1))
    out = ag.function(lambda x: layer(x, training=True))(np.ones((64, 5), np.float32)).numpy()
    assert set(np.unique(out)) <= {0.0, 2.0}
    assert np.all(out == out[:, :1])  # one draw per example, shared along the features
    assert 0 < out[:, 0].sum() < 128


def test_reshape_infers_minus_one_for_an_unknown_batch():
    layer = layers.Reshape((-1, 2))
    fn = ag.function(layer).get_concrete_function(rt.TensorSpec([None, 3, 4]))
    assert fn.structured_outputs.shape.as_list() == [None, 6, 2]
    np.testing.assert_array_equal(
        fn(rt.constant(np.arange(24.0, dtype=np.float32).reshape(2, 3, 4))).numpy(),
        np.arange(24.0).reshape(2, 6, 2),
    )


def test_reshape_refuses_a_size_that_cannot_hold_the_example():
    with pytest.raises(ValueError, match="total size of the tensor must be unchanged"):
        layers.Reshape((5,))(np.zeros((2, 3, 4)))


# The config Keras 3.x writes for Dense(4, activation="relu") (its keys and values).
KERAS_DENSE_CONFIG = {
    "name": "dense",
    "trainable": True,
    "dtype": {
        "module": "keras",
        "class_name": "DTypePolicy",
        "config": {"name": "float32"},
        "registered_name": None,
    },
    "units": 4,
    "activation": "relu",
    "use_bias": True,
    "kernel_initializer": {
        "module": "keras.initializers",
        "class_name": "GlorotUniform",
        "config": {"seed": None, "input_axes": None, "output_axes": None},  # Keras 3.15
        "registered_name": None,
    },
    "bias_initializer": {
        "module": "keras.initializers",
        "class_name": "Zeros",
        "config": {},
        "registered_name": None,
    },
    "kernel_regularizer": None,
    "bias_regularizer": None,
    "kernel_constraint": None,
    "bias_constraint": None,
    "quantization_config": None,
}


def test_dense_config_is_keras_3s_and_a_keras_config_rebuilds_the_layer():
    keras.backend.clear_session()
    assert layers.Dense(4, activation="relu").get_config() == KERAS_DENSE_CONFIG
    written_by_keras = {**KERAS_DENSE_CONFIG, "name": "my_dense", "units": 3}
    layer = layers.Dense.from_config(written_by_keras)
    assert (layer.name, layer.units, layer.activation) == ("my_dense", 3, keras.activations.relu)
    assert isinstance(layer.kernel_initializer, keras.initializers.GlorotUniform)


@pytest.mark.parametrize(
    "layer",
    [
        layers.Dropout(0.3, noise_shape=(None, 1), seed=2),
        layers.Flatten(data_format="channels_first"),
        layers.Activation("gelu"),
        layers.Softmax(axis=(1, 2)),
        layers.ReLU(max_value=6.0),
        layers.ELU(),
        layers.PReLU(shared_axes=[1]),
        layers.Embedding(10, 3, mask_zero=True, embeddings_regularizer="l1"),
        layers.Reshape((2, -1)),
        layers.Permute((2, 1)),
        layers.RepeatVector(4),
        layers.Identity(),
        layers.Dense(2, kernel_constraint="max_norm", activity_regularizer="l2", input_dim=3),
    ],
    ids=lambda layer: type(layer).__name__,
)
def test_config_rebuilds_an_equal_layer(layer):
    config = layer.get_config()
    assert type(layer).from_config(config).get_config() == config


@pytest.mark.parametrize("run_eagerly", [False, True])
def test_fit_through_a_dropout_with_a_partial_noise_shape(run_eagerly):
    keras.backend.clear_session()
    model = keras.Sequential(
        [layers.Dense(4, input_dim=3), layers.Dropout(0.5, noise_shape=(None, 1)), layers.Dense(1)]
    )
    model.compile(optimizer="sgd", loss="mse", run_eagerly=run_eagerly)
    history = model.fit(np.ones((8, 3), np.float32), np.ones((8, 1)), epochs=2, verbose=0)
    assert np.all(np.isfinite(history.history["loss"]))
