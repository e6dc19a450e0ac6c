"""Keras 3's normalization tests (keras/src/layers/normalization/{batch,layer}_normalization_test.py)
on ``rt.keras``, and the training behaviour they rely on: the moving statistics updated in a
staged ``fit`` and with ``run_eagerly``, by Keras's rule."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import autograph as ag
import runtime as rt
from tests.runtime.gradients.grad_harness import check_gradient
from tests.runtime.keras.keras3.run_layer import run_layer_test

layers = rt.keras.layers

# --- BatchNormalization: batch_normalization_test.py ----------------------------------------


def test_bn_basics_vector():
    run_layer_test(
        layers.BatchNormalization,
        init_kwargs={"center": True, "scale": True},
        call_kwargs={"training": True},
        input_shape=(2, 3),
        expected_output_shape=(2, 3),
        expected_num_trainable_weights=2,
        expected_num_non_trainable_weights=2,
    )
    run_layer_test(
        layers.BatchNormalization,
        init_kwargs={"center": False, "scale": False},
        call_kwargs={"training": True},
        input_shape=(2, 3),
        expected_output_shape=(2, 3),
        expected_num_trainable_weights=0,
        expected_num_non_trainable_weights=2,
    )


def test_bn_basics_image_with_regularizers():
    run_layer_test(
        layers.BatchNormalization,
        init_kwargs={
            "center": True,
            "scale": True,
            "beta_regularizer": "l2",
            "gamma_regularizer": "l2",
        },
        call_kwargs={"training": True},
        input_shape=(2, 4, 4, 3),
        expected_output_shape=(2, 4, 4, 3),
        expected_num_trainable_weights=2,
        expected_num_non_trainable_weights=2,
        expected_num_losses=2,
    )


@pytest.mark.parametrize(
    "axis, input_shape, moving_mean_initializer, moving_variance_initializer",
    list(
        itertools.product((-1, 1), ((5, 2, 3), (5, 3, 3, 2)), ("zeros", "ones"), ("zeros", "ones"))
    ),
)
def test_bn_correctness(axis, input_shape, moving_mean_initializer, moving_variance_initializer):
    layer = layers.BatchNormalization(
        axis=axis,
        momentum=0,
        moving_mean_initializer=moving_mean_initializer,
        moving_variance_initializer=moving_variance_initializer,
    )
    x = np.random.default_rng(0).normal(loc=5.0, scale=10.0, size=input_shape)
    out = x
    for _ in range(3):
        out = layer(out, training=True)
    broadcast_shape = [1] * len(input_shape)
    broadcast_shape[axis] = input_shape[axis]
    out = out.numpy() - np.reshape(layer.beta.numpy(), broadcast_shape)
    out = out / np.reshape(layer.gamma.numpy(), broadcast_shape)
    reduction_axes = list(range(len(input_shape)))
    del reduction_axes[axis]
    np.testing.assert_allclose(np.mean(out, axis=tuple(reduction_axes)), 0.0, atol=1e-3)
    np.testing.assert_allclose(np.std(out, axis=tuple(reduction_axes)), 1.0, atol=1e-3)
    np.testing.assert_allclose(layer.moving_mean.numpy(), 0.0, atol=1e-3)
    np.testing.assert_allclose(layer.moving_variance.numpy(), 1.0, atol=1e-3)

    # Inference done before training shouldn't match.
    inference_out = layer(x, training=False).numpy()
    training_out = layer(x, training=True).numpy()
    assert not np.allclose(inference_out, training_out, atol=1e-6)
    # Since momentum is zero, inference after training should match.
    training_out = layer(x, training=True).numpy()
    inference_out = layer(x, training=False).numpy()
    np.testing.assert_allclose(inference_out, training_out, atol=1e-5)

    # Masked (Keras's Masking layer gives mask = any(x != 0, axis=-1)): the same in inference,
    # different in training.
    x[:, 1, :] = 0.0
    mask = np.any(x != 0, axis=-1)
    np.testing.assert_allclose(
        layer(x, training=False).numpy(), layer(x, training=False, mask=mask).numpy()
    )
    unmasked_out = layer(x, training=False).numpy()
    assert not np.allclose(unmasked_out, layer(x, training=True, mask=mask).numpy(), atol=1e-6)


def test_bn_input_fully_masked():
    norm = layers.BatchNormalization(scale=False, center=False)
    x = np.zeros((4, 5))
    y = norm(x, mask=np.zeros((4,), dtype=np.float32), training=True)
    np.testing.assert_allclose(y.numpy(), np.zeros_like(x, dtype=np.float32))


@pytest.mark.xfail(strict=True, reason="needs Input/Masking/Model and mask propagation")
def test_bn_ignore_masked_values():
    inputs = layers.Input((None, 2))
    masked = layers.Masking(mask_value=0.0)(inputs)
    model = rt.keras.Model(inputs, layers.BatchNormalization(momentum=0.0)(masked))
    del model


def test_bn_trainable_behavior():
    layer = layers.BatchNormalization(axis=-1, momentum=0.8, epsilon=1e-7)
    layer.build((1, 4, 4, 3))
    layer.trainable = False
    assert len(layer.weights) == 4
    assert len(layer.trainable_weights) == 0
    assert len(layer.non_trainable_weights) == 4
    x = np.random.default_rng(1).normal(loc=5.0, scale=10.0, size=(200, 4, 4, 3))
    np.testing.assert_allclose(layer(x, training=True).numpy(), x, rtol=1e-5, atol=1e-4)

    layer.trainable = True
    assert len(layer.weights) == 4
    assert len(layer.trainable_weights) == 2
    assert len(layer.non_trainable_weights) == 2
    for _ in range(10):
        out = layer(x, training=True)
    out = (out.numpy() - layer.beta.numpy()) / layer.gamma.numpy()
    np.testing.assert_allclose(np.mean(out, axis=(0, 1, 2)), 0.0, atol=1e-3)
    np.testing.assert_allclose(np.std(out, axis=(0, 1, 2)), 1.0, atol=1e-3)


def test_bn_masked_broadcast_normalization():
    layer = layers.BatchNormalization(axis=-1, momentum=0.0, epsilon=1e-3)
    y = layer(np.ones((1, 2, 3, 4)), training=True, mask=np.ones((1, 2, 1)))
    np.testing.assert_allclose(y.numpy().mean(axis=(0, 1, 2)), np.zeros(4), atol=1e-6)
    np.testing.assert_allclose(y.numpy(), np.zeros((1, 2, 3, 4)), atol=1e-6)
    np.testing.assert_allclose(layer.moving_mean.numpy(), np.ones(4), atol=1e-6)
    np.testing.assert_allclose(layer.moving_variance.numpy(), np.zeros(4), atol=1e-6)


@pytest.mark.parametrize(
    "renorm_clipping, input_shape",
    [(None, (2, 3)), ({"rmax": 3.0, "rmin": 0.3, "dmax": 5.0}, (2, 4, 4, 3))],
)
def test_bn_renorm_basics(renorm_clipping, input_shape):
    run_layer_test(
        layers.BatchNormalization,
        init_kwargs={"center": True, "scale": True, "renorm": True,
                     "renorm_clipping": renorm_clipping},
        call_kwargs={"training": True},
        input_shape=input_shape,
        expected_output_shape=input_shape,
        expected_num_trainable_weights=2,
        expected_num_non_trainable_weights=5,  # moving mean, variance, stddev; renorm mean, stddev
    )  # fmt: skip


def test_bn_renorm_invalid_clipping_keys():
    with pytest.raises(ValueError, match="Received invalid keys"):
        layers.BatchNormalization(renorm=True, renorm_clipping={"random_key": 1.0})
    with pytest.raises(ValueError, match="rmax should be"):
        layers.BatchNormalization(renorm=True, renorm_clipping={"rmax": 0.0, "rmin": 1.0})
    with pytest.raises(ValueError, match="dmax should be non-negative"):
        layers.BatchNormalization(renorm=True, renorm_clipping={"rmax": 1.0, "dmax": -1.0})


def test_bn_renorm_stddev_initializer():
    layer = layers.BatchNormalization(
        renorm=True, moving_variance_initializer=rt.keras.initializers.Constant(4.0)
    )
    layer.build((None, 5))
    np.testing.assert_allclose(layer.moving_stddev.numpy(), np.full((5,), 2.0), atol=1e-6)
    np.testing.assert_allclose(layer.renorm_stddev.numpy(), np.full((5,), 2.0), atol=1e-6)


def test_bn_renorm_inference():
    bn, bn_renorm = layers.BatchNormalization(), layers.BatchNormalization(renorm=True)
    bn.build((None, 10))
    bn_renorm.build((None, 10))
    rng = np.random.default_rng(10)
    for attr in ["gamma", "beta", "moving_mean", "moving_variance"]:
        getattr(bn, attr).assign(rng.normal(size=(10,)).astype("float32"))
        getattr(bn_renorm, attr).assign(getattr(bn, attr).numpy())
    x = rng.normal(size=(4, 10))
    np.testing.assert_allclose(
        bn(x, training=False).numpy(), bn_renorm(x, training=False).numpy(), atol=1e-5, rtol=1e-5
    )


def test_bn_renorm_correctness():
    epsilon, momentum, renorm_momentum = 1e-3, 0.9, 0.8
    layer = layers.BatchNormalization(
        axis=-1, epsilon=epsilon, momentum=momentum, renorm=True, renorm_momentum=renorm_momentum
    )
    layer.build((None, 3))
    rng = np.random.default_rng(1337)
    init_moving_mean = rng.normal(0.0, 1.0, size=3)
    init_moving_var = np.abs(rng.normal(1.0, 0.5, size=3))
    init_moving_stddev = np.sqrt(init_moving_var)
    init_renorm_mean = rng.normal(0.0, 1.0, size=3)
    init_renorm_stddev = np.abs(rng.normal(1.0, 0.5, size=3))
    init_gamma = rng.normal(1.0, 0.1, size=3)
    init_beta = rng.normal(0.0, 0.1, size=3)
    for name, value in [
        ("moving_mean", init_moving_mean), ("moving_variance", init_moving_var),
        ("moving_stddev", init_moving_stddev), ("renorm_mean", init_renorm_mean),
        ("renorm_stddev", init_renorm_stddev), ("gamma", init_gamma), ("beta", init_beta),
    ]:  # fmt: skip
        getattr(layer, name).assign(value.astype("float32"))
    x = np.array([[4.0, 6.0, 2.0], [8.0, -2.0, 5.0], [6.0, 4.0, 3.0]], dtype="float32")
    batch_mean, batch_var = x.mean(axis=0), x.var(axis=0)
    batch_stddev = np.sqrt(batch_var + epsilon)
    r = batch_stddev / init_renorm_stddev
    d = (batch_mean - init_renorm_mean) / init_renorm_stddev
    expected = (((x - batch_mean) / batch_stddev) * r + d) * init_gamma + init_beta
    np.testing.assert_allclose(layer(x, training=True).numpy(), expected, atol=1e-5)

    def close(name, want):
        np.testing.assert_allclose(getattr(layer, name).numpy(), want, atol=1e-5)

    close("renorm_mean", init_renorm_mean * renorm_momentum + batch_mean * (1 - renorm_momentum))
    close(
        "renorm_stddev",
        init_renorm_stddev * renorm_momentum + batch_stddev * (1 - renorm_momentum),
    )
    close("moving_mean", init_moving_mean * momentum + batch_mean * (1 - momentum))
    expected_moving_stddev = init_moving_stddev * momentum + batch_stddev * (1 - momentum)
    close("moving_stddev", expected_moving_stddev)
    close("moving_variance", expected_moving_stddev**2 - epsilon)


def test_bn_serialization_with_renorm():
    layer = layers.BatchNormalization(
        renorm=True, renorm_clipping={"rmax": 3.0, "rmin": 0.3, "dmax": 5.0}, renorm_momentum=0.95
    )
    config = layer.get_config()
    assert layers.BatchNormalization.from_config(config).get_config() == config


# --- BatchNormalization in training, beyond Keras's file ------------------------------------

BN_CONFIG_KEYS = {  # keras/src/layers/normalization/batch_normalization.py get_config
    "name", "trainable", "dtype", "axis", "momentum", "epsilon", "center", "scale",
    "beta_initializer", "gamma_initializer", "moving_mean_initializer",
    "moving_variance_initializer", "beta_regularizer", "gamma_regularizer", "beta_constraint",
    "gamma_constraint", "synchronized", "renorm", "renorm_clipping", "renorm_momentum",
}  # fmt: skip


def test_bn_config_has_keras_keys_and_rebuilds():
    layer = layers.BatchNormalization(axis=1, momentum=0.9, epsilon=1e-5, center=False)
    config = layer.get_config()
    assert set(config) == BN_CONFIG_KEYS
    assert config["gamma_initializer"]["class_name"] == "Ones"
    rebuilt = layers.BatchNormalization.from_config(config)
    assert (rebuilt.axis, rebuilt.momentum, rebuilt.epsilon, rebuilt.center) == (
        1,
        0.9,
        1e-5,
        False,
    )


def test_bn_weights_in_keras_order():
    layer = layers.BatchNormalization()
    layer.build((None, 3))
    names = [v.name.split("/")[-1] for v in layer.weights]
    assert names == ["gamma:0", "beta:0", "moving_mean:0", "moving_variance:0"]


@pytest.mark.parametrize("run_eagerly", [False, True])
def test_bn_fit_updates_moving_statistics_by_keras_rule(run_eagerly):
    rt.keras.backend.clear_session()
    model = rt.keras.Sequential(
        [layers.Dense(4, kernel_initializer="ones"), layers.BatchNormalization(momentum=0.75)]
    )
    model.compile(optimizer=rt.keras.optimizers.SGD(0.0), loss="mse", run_eagerly=run_eagerly)
    x = np.random.default_rng(2).normal(size=(16, 3)).astype("float32")
    model.fit(x, np.zeros((16, 4), "float32"), batch_size=8, epochs=1, verbose=0, shuffle=False)
    hidden = x @ np.ones((3, 4))
    mean, variance = np.zeros(4), np.ones(4)
    for batch in (hidden[:8], hidden[8:]):  # moving = moving * momentum + batch * (1 - momentum)
        mean = mean * 0.75 + batch.mean(axis=0) * 0.25
        variance = variance * 0.75 + batch.var(axis=0) * 0.25
    bn = model.layers[1]
    np.testing.assert_allclose(bn.moving_mean.numpy(), mean, rtol=1e-5)
    np.testing.assert_allclose(bn.moving_variance.numpy(), variance, rtol=1e-5)
    expected = (hidden - mean) / np.sqrt(variance + 1e-3)  # inference: the moving statistics
    np.testing.assert_allclose(model.predict(x, verbose=0), expected, rtol=1e-4, atol=1e-5)


def test_bn_training_given_as_a_tensor_in_a_function():
    layer = layers.BatchNormalization(momentum=0.0, epsilon=0.0)
    step = ag.function(lambda x, training: layer(x, training=training))
    x = np.array([[1.0], [3.0]], "float32")
    np.testing.assert_allclose(step(x, rt.constant(True)).numpy(), [[-1.0], [1.0]])
    np.testing.assert_allclose(layer.moving_mean.numpy(), [2.0])
    np.testing.assert_allclose(step(x, rt.constant(False)).numpy(), [[-1.0], [1.0]])


def test_bn_gradient_matches_central_differences():
    x = np.random.default_rng(3).normal(size=(4, 3))
    gamma, beta = np.array([1.5, 0.5, -1.0]), np.array([0.1, 0.2, 0.3])

    def bn(x, gamma, beta):
        mean, variance = rt.nn.moments(x, axes=[0])
        return rt.nn.batch_normalization(x, mean, variance, beta, gamma, 1e-3) ** 2

    check_gradient(bn, [x, gamma, beta], rtol=1e-5, atol=1e-7)


def test_bn_trains_in_fit_loss_decreases():
    rt.keras.backend.clear_session()
    rt.random.set_seed(0)
    rng = np.random.default_rng(4)
    x = rng.normal(loc=3.0, scale=5.0, size=(64, 4)).astype("float32")
    y = (x[:, :1] - 3.0) / 5.0
    model = rt.keras.Sequential([layers.BatchNormalization(), layers.Dense(1)])
    model.compile(optimizer=rt.keras.optimizers.SGD(0.1), loss="mse")
    history = model.fit(x, y, batch_size=16, epochs=5, verbose=0)
    assert history.history["loss"][-1] < history.history["loss"][0] / 2


# --- LayerNormalization: layer_normalization_test.py ----------------------------------------


def test_ln_basics_with_regularizers():
    run_layer_test(
        layers.LayerNormalization,
        init_kwargs={"gamma_regularizer": "l2", "beta_regularizer": "l2"},
        input_shape=(3, 4, 2),
        expected_output_shape=(3, 4, 2),
        expected_num_trainable_weights=2,
        expected_num_non_trainable_weights=0,
        expected_num_losses=2,
    )


@pytest.mark.parametrize(
    "init_kwargs, input_shape, trainable",
    [
        ({"gamma_initializer": "ones", "beta_initializer": "ones"}, (3, 4, 2), 2),
        ({"scale": False, "center": False}, (3, 3), 0),
        ({"rms_scaling": True}, (3, 3), 1),
        ({"axis": (-3, -2, -1)}, (2, 8, 8, 3), 2),
        ({}, (1, 0, 10), 2),
    ],
)
def test_ln_basics(init_kwargs, input_shape, trainable):
    run_layer_test(
        layers.LayerNormalization,
        init_kwargs=init_kwargs,
        input_shape=input_shape,
        expected_output_shape=input_shape,
        expected_num_trainable_weights=trainable,
        expected_num_non_trainable_weights=0,
    )


def test_ln_invalid_axis():
    with pytest.raises(
        TypeError, match="Expected an int or a list/tuple of ints for the argument 'axis'"
    ):
        layers.LayerNormalization(axis={"axis": -1})


def test_ln_out_of_bounds_axis():
    x = np.zeros((2, 4), dtype="float32")
    for axis in (2, 99, -3, -99):
        with pytest.raises(ValueError, match="is out of bounds"):
            layers.LayerNormalization(axis=axis)(x)
    with pytest.raises(ValueError, match="is out of bounds"):
        layers.LayerNormalization(axis=[0, 99])(x)
    with pytest.raises(ValueError, match="is out of bounds"):
        layers.LayerNormalization(axis=99).build((2, 4))
    with pytest.raises(ValueError, match="is out of bounds"):
        layers.LayerNormalization(axis=99).compute_output_shape((2, 4))


def test_ln_duplicate_axis():
    x = np.zeros((2, 4), dtype="float32")
    with pytest.raises(ValueError, match="Duplicate axes"):
        layers.LayerNormalization(axis=[-1, 1])(x)
    with pytest.raises(ValueError, match="Duplicate axes"):
        layers.LayerNormalization(axis=[1, 1])(x)


def test_ln_axis_is_canonicalized():
    layer = layers.LayerNormalization(axis=-1)
    layer.build((2, 4))
    assert layer.axis == [1]


def test_ln_correctness():
    layer = layers.LayerNormalization(dtype="float32")
    layer.build(input_shape=(2, 2, 2))
    inputs = np.random.default_rng(5).normal(loc=5.0, scale=10.0, size=(1000, 2, 2, 2))
    out = (layer(inputs.astype("float32")).numpy() - layer.beta.numpy()) / layer.gamma.numpy()
    np.testing.assert_allclose(out.mean(), 0.0, atol=1e-1)
    np.testing.assert_allclose(out.std(), 1.0, atol=1e-1)


def test_ln_output():
    layer = layers.LayerNormalization(
        dtype="float32", beta_initializer="ones", gamma_initializer="ones"
    )
    out = layer(np.arange(5).astype("float32")[None, :])
    np.testing.assert_allclose(out.numpy(), [[-0.41386, 0.29307, 1.0, 1.70693, 2.41386]], rtol=1e-4)


def test_ln_output_with_rms_scaling():
    layer = layers.LayerNormalization(dtype="float32", rms_scaling=True, gamma_initializer="ones")
    out = layer(np.arange(5).astype("float32")[None, :])
    np.testing.assert_allclose(out.numpy(), [[0.0, 0.70693, 1.41386, 2.12079, 2.82772]], rtol=1e-4)


def test_ln_unsorted_axis():
    x = np.random.default_rng(6).normal(size=(2, 3, 4)).astype("float32")
    out_sorted = layers.LayerNormalization(axis=[-2, -1])(x)
    out_unsorted = layers.LayerNormalization(axis=[-1, -2])(x)
    assert out_sorted.shape == (2, 3, 4) and out_unsorted.shape == (2, 3, 4)
    np.testing.assert_allclose(out_sorted.numpy(), out_unsorted.numpy(), rtol=1e-5)


def test_ln_config_has_keras_keys():
    config = layers.LayerNormalization(epsilon=1e-5).get_config()
    assert set(config) == {
        "name", "trainable", "dtype", "axis", "epsilon", "center", "scale", "rms_scaling",
        "beta_initializer", "gamma_initializer", "beta_regularizer", "gamma_regularizer",
        "beta_constraint", "gamma_constraint",
    }  # fmt: skip
    assert layers.LayerNormalization.from_config(config).epsilon == 1e-5


# --- GroupNormalization and UnitNormalization ------------------------------------------------


def test_group_normalization_against_numpy():
    x = np.random.default_rng(7).normal(size=(2, 3, 4)).astype("float32")
    out = layers.GroupNormalization(groups=2, epsilon=1e-3)(x).numpy()
    grouped = x.reshape(2, 3, 2, 2)
    expected = (grouped - grouped.mean(axis=(1, 3), keepdims=True)) / np.sqrt(
        grouped.var(axis=(1, 3), keepdims=True) + 1e-3
    )
    np.testing.assert_allclose(out, expected.reshape(2, 3, 4), rtol=1e-4, atol=1e-5)


def test_unit_normalization_against_numpy():
    x = np.random.default_rng(8).normal(size=(3, 4)).astype("float32")
    out = layers.UnitNormalization()(x).numpy()
    np.testing.assert_allclose(out, x / np.linalg.norm(x, axis=-1, keepdims=True), rtol=1e-5)
    np.testing.assert_allclose(np.linalg.norm(out, axis=-1), 1.0, rtol=1e-5)


# --- GroupNormalization: group_normalization_test.py ----------------------------------------


def test_groupnorm_with_regularizers():
    run_layer_test(
        layers.GroupNormalization,
        init_kwargs={"gamma_regularizer": "l2", "beta_regularizer": "l2"},
        input_shape=(3, 4, 32),
        expected_output_shape=(3, 4, 32),
        expected_num_trainable_weights=2,
        expected_num_non_trainable_weights=0,
        expected_num_losses=2,
    )


def test_groupnorm_basics():
    run_layer_test(
        layers.GroupNormalization,
        init_kwargs={"groups": 4},
        input_shape=(3, 4, 4),
        expected_output_shape=(3, 4, 4),
        expected_num_trainable_weights=2,
        expected_num_non_trainable_weights=0,
    )


def test_groupnorm_undefined_dim_error():
    layer = layers.GroupNormalization()
    with pytest.raises(ValueError, match="input tensor should have a defined dimension"):
        layer.build((None, 2, 2, 2, None))


def test_groupnorm_groups_bigger_than_dim_error():
    with pytest.raises(ValueError, match="cannot be more than the number of channels"):
        layers.GroupNormalization(groups=5)(np.ones(shape=(2, 2, 2, 4)))


def test_groupnorm_groups_not_a_multiple_of_dim_error():
    with pytest.raises(ValueError, match="must be a multiple of the number of channels"):
        layers.GroupNormalization(groups=3)(np.ones(shape=(2, 2, 2, 4)))


def test_groupnorm_groups_rejects_invalid_values():
    for bad in (0, -2, 1.5, "32"):
        with pytest.raises(ValueError, match="argument `groups`"):
            layers.GroupNormalization(groups=bad)
    layers.GroupNormalization(groups=-1)


def test_groupnorm_instance_norm():
    inputs = np.array([[[-1.0, 1.0, 0, 2.0], [1.0, 3.0, -4, -2.0]]])
    one = layers.GroupNormalization(groups=-1, axis=-1, scale=False, center=False)(inputs)
    four = layers.GroupNormalization(groups=4, axis=-1, scale=False, center=False)(inputs)
    np.testing.assert_allclose(one.numpy(), four.numpy())
    np.testing.assert_allclose(
        four.numpy(), [[[-1.0, -1.0, 1.0, 1.0], [1.0, 1.0, -1.0, -1.0]]], atol=1e-3
    )


def test_groupnorm_correctness_1d_and_2d():
    inputs = np.array([[-1.0, -1.0, 1.0, 1.0, 2.0, 2.0, 0, -2.0]])
    one_group = layers.GroupNormalization(groups=1, axis=-1, scale=False, center=False)
    two_groups = layers.GroupNormalization(groups=2, axis=1, scale=False, center=False)
    np.testing.assert_allclose(
        one_group(inputs).numpy(),
        [[-0.898, -0.898, 0.539, 0.539, 1.257, 1.257, -0.180, -1.616]],
        atol=1e-3,
    )
    np.testing.assert_allclose(
        two_groups(inputs).numpy(),
        [[-1.0, -1.0, 1.0, 1.0, 0.904, 0.904, -0.301, -1.507]],
        atol=1e-3,
    )
    inputs = np.array([[[-1.0, -1.0, 2.0, 2.0], [1.0, 1.0, 0, -2.0]]])
    one_group = layers.GroupNormalization(groups=1, axis=-1, scale=False, center=False)
    two_groups = layers.GroupNormalization(groups=2, axis=2, scale=False, center=False)
    np.testing.assert_allclose(
        one_group(inputs).numpy(),
        [[[-0.898, -0.898, 1.257, 1.257], [0.539, 0.539, -0.180, -1.616]]],
        atol=1e-3,
    )
    np.testing.assert_allclose(
        two_groups(inputs).numpy(),
        [[[-1.0, -1.0, 0.904, 0.904], [1.0, 1.0, -0.301, -1.507]]],
        atol=1e-3,
    )


def test_groupnorm_broadcasting_2d_channels_first():
    x = np.arange(16).reshape((1, 4, 2, 2)).astype("float32")
    block = [[-1.5274, -1.0910], [-0.6546, -0.2182]], [[0.2182, 0.6546], [1.0910, 1.5274]]
    np.testing.assert_allclose(
        layers.GroupNormalization(groups=2, axis=1)(x).numpy(), [[*block, *block]], atol=1e-3
    )


# --- UnitNormalization: unit_normalization_test.py ------------------------------------------


@pytest.mark.parametrize("axis, input_shape", [(-1, (2, 3)), ((1, 2), (1, 3, 3))])
def test_un_basics(axis, input_shape):
    run_layer_test(
        layers.UnitNormalization,
        init_kwargs={"axis": axis},
        input_shape=input_shape,
        expected_output_shape=input_shape,
    )


def test_un_invalid_axis():
    with pytest.raises(TypeError, match="Invalid value for `axis` argument: expected an int or a"):
        layers.UnitNormalization(axis={"axis": -1})


def test_un_correctness():
    rng = np.random.default_rng(12)
    outputs = layers.UnitNormalization(axis=-1)(rng.normal(size=(2, 3))).numpy()
    np.testing.assert_allclose(np.sum(outputs**2, axis=1), [1.0, 1.0], rtol=1e-5)
    outputs = layers.UnitNormalization(axis=(1, 2))(rng.normal(size=(2, 3, 3))).numpy()
    np.testing.assert_allclose(np.sum(outputs**2, axis=(1, 2)), [1.0, 1.0], rtol=1e-5)
    outputs = layers.UnitNormalization(axis=1)(rng.normal(size=(2, 3, 2))).numpy()
    np.testing.assert_allclose(np.sum(outputs**2, axis=1), np.ones((2, 2)), rtol=1e-5)
