"""Layer losses (``add_loss``, weight and activity regularizers, collected through sublayers as
Keras 3 does) and weight constraints (applied by the optimizer after each update)."""

import numpy as np
import pytest

import autograph as ag
import runtime as rt
from runtime import keras
from runtime.keras import constraints, regularizers

X = np.array([[1.0, -2.0, 0.5], [0.0, 3.0, -1.0]], np.float32)


class Penalized(keras.layers.Layer):
    """Adds sum(inputs) as a loss at every call, and holds a regularized Dense."""

    def __init__(self):
        super().__init__()
        self.dense = keras.layers.Dense(2, kernel_initializer="ones", kernel_regularizer="l1")

    def call(self, inputs):
        self.add_loss(rt.reduce_sum(inputs))
        return self.dense(inputs)


def test_losses_hold_the_last_calls_add_loss_then_the_weight_penalties():
    layer = Penalized()
    layer(X)
    layer(2 * X)  # the outermost call clears the losses of the one before
    losses = [float(v) for v in layer.losses]
    np.testing.assert_allclose(losses, [2 * X.sum(), 0.01 * 3 * 2], rtol=1e-6)


def test_weight_penalties_follow_the_weights_value():
    dense = keras.layers.Dense(
        2, kernel_initializer="ones", kernel_regularizer=regularizers.L2(0.5)
    )
    dense.build((None, 3))
    dense.kernel.assign(np.full((3, 2), 2.0, np.float32))
    np.testing.assert_allclose(float(dense.losses[0]), 0.5 * 4.0 * 6, rtol=1e-6)


def test_activity_regularizer_is_per_example_of_the_outputs_of_the_last_call():
    dense = keras.layers.Dense(
        2, kernel_initializer="ones", use_bias=False, activity_regularizer=regularizers.L1(0.1)
    )
    outputs = X @ np.ones((3, 2), np.float32)
    dense(X)
    np.testing.assert_allclose(float(dense.losses[0]), 0.1 * np.abs(outputs).sum() / 2, rtol=1e-6)
    dense(X[:1])
    assert len(dense.losses) == 1
    np.testing.assert_allclose(float(dense.losses[0]), 0.1 * np.abs(outputs[:1]).sum(), rtol=1e-6)


def test_model_losses_collect_every_layer():
    keras.backend.clear_session()
    model = keras.Sequential(
        [
            keras.layers.Dense(3, input_dim=3, kernel_regularizer="l2", bias_regularizer="l1"),
            keras.layers.Dense(1, activity_regularizer="l2"),
        ]
    )
    model(X)
    assert len(model.losses) == 3
    kernel = model.layers[0].kernel.numpy()
    np.testing.assert_allclose(float(model.losses[1]), 0.01 * (kernel**2).sum(), rtol=1e-5)


def test_add_loss_inside_a_traced_function_gives_the_traced_value():
    layer = Penalized()

    @ag.function
    def step(x):
        layer(x)
        return rt.add_n(layer.losses)

    np.testing.assert_allclose(float(step(X)), X.sum() + 0.06, rtol=1e-6)


def test_add_loss_refuses_what_is_not_a_tensor():
    with pytest.raises(ValueError, match="on a tensor input. Received invalid value: 3"):
        keras.layers.Layer().add_loss(3)


def test_an_optimizer_step_projects_the_constrained_variables_only():
    kept, projected = rt.Variable([-1.0, 2.0]), rt.Variable([-1.0, 2.0])
    projected.constraint = constraints.NonNeg()
    keras.optimizers.SGD(0.5).apply_gradients([([2.0, 0.0], kept), ([2.0, 0.0], projected)])
    np.testing.assert_array_equal(kept.numpy(), [-2.0, 2.0])
    np.testing.assert_array_equal(projected.numpy(), [0.0, 2.0])  # -2 projected to 0


@pytest.mark.parametrize("run_eagerly", [False, True])
def test_fit_keeps_a_constrained_kernel_in_its_set(run_eagerly):
    keras.backend.clear_session()
    rt.random.set_seed(0)
    model = keras.Sequential(
        [keras.layers.Dense(4, input_dim=3, kernel_constraint=constraints.MaxNorm(0.5))]
    )
    model.compile(optimizer=keras.optimizers.SGD(1.0), loss="mse", run_eagerly=run_eagerly)
    x = np.random.default_rng(0).normal(size=(16, 3)).astype(np.float32)
    model.fit(x, 10 * np.ones((16, 4), np.float32), epochs=3, verbose=0)
    norms = np.linalg.norm(model.layers[0].kernel.numpy(), axis=0)
    assert np.all(norms <= 0.5 + 1e-5) and np.all(norms > 0.45)


def test_optimizer_step_applies_the_constraint_after_the_update():
    w = rt.Variable([1.0, 1.0])
    w.constraint = constraints.NonNeg()
    keras.optimizers.SGD(1.0).apply_gradients([(rt.constant([2.0, -1.0]), w)])
    np.testing.assert_array_equal(w.numpy(), [0.0, 2.0])


def test_dense_takes_input_dim_regularizers_and_constraints_by_name():
    keras.backend.clear_session()
    model = keras.Sequential([keras.layers.Dense(2, input_dim=5, kernel_constraint="non_neg")])
    assert model.layers[0].kernel.shape == (5, 2)
    assert isinstance(model.layers[0].kernel.constraint, constraints.NonNeg)
    assert model.layers[0].bias.constraint is None


@pytest.mark.parametrize(
    "make",
    [
        lambda **kw: keras.layers.BatchNormalization(**kw),
        lambda **kw: keras.layers.LayerNormalization(**kw),
        lambda **kw: keras.layers.GroupNormalization(groups=1, **kw),
    ],
    ids=["BatchNormalization", "LayerNormalization", "GroupNormalization"],
)
def test_normalization_layers_regularize_and_constrain_gamma_and_beta(make):
    layer = make(
        gamma_regularizer=regularizers.L2(0.5), beta_regularizer=regularizers.L1(0.25),
        gamma_constraint="non_neg", beta_constraint="max_norm",
    )  # fmt: skip
    layer(X)
    layer.beta.assign(np.array([1.0, -2.0, 0.5], np.float32))
    # Keras' formulas: l2 * sum(w**2), l1 * sum(|w|); gamma starts at ones.
    np.testing.assert_allclose([float(v) for v in layer.losses], [0.5 * 3, 0.25 * 3.5], rtol=1e-6)
    assert isinstance(layer.gamma.constraint, constraints.NonNeg)
    assert isinstance(layer.beta.constraint, constraints.MaxNorm)


@pytest.mark.parametrize("cls", [keras.layers.SimpleRNN, keras.layers.LSTM, keras.layers.GRU])
def test_recurrent_layers_regularize_and_constrain_their_weights(cls):
    layer = cls(
        2, kernel_initializer="ones", recurrent_initializer="ones", bias_initializer="ones",
        kernel_regularizer=regularizers.L2(0.5), recurrent_regularizer=regularizers.L1(0.25),
        bias_regularizer=regularizers.L2(1.0), kernel_constraint="non_neg",
        recurrent_constraint="non_neg", bias_constraint="non_neg",
    )  # fmt: skip
    layer(X[:, :, None])
    cell = layer.cell
    sizes = [int(np.prod(w.shape)) for w in (cell.kernel, cell.recurrent_kernel, cell.bias)]
    expected = [0.5 * sizes[0], 0.25 * sizes[1], 1.0 * sizes[2]]  # every weight is ones
    np.testing.assert_allclose([float(v) for v in layer.losses], expected, rtol=1e-6)
    assert all(
        isinstance(w.constraint, constraints.NonNeg)
        for w in (cell.kernel, cell.recurrent_kernel, cell.bias)
    )


RECURRENT = [keras.layers.SimpleRNN, keras.layers.LSTM, keras.layers.GRU]


@pytest.mark.parametrize("cls", RECURRENT)
def test_recurrent_weights_carry_their_constraints(cls):
    layer = cls(2, kernel_constraint=constraints.NonNeg(), recurrent_constraint="non_neg")
    layer.build((None, 4, 3))
    keras.optimizers.SGD(1.0).apply(
        [np.ones(w.shape, np.float32) for w in layer.trainable_weights], layer.trainable_weights
    )
    assert layer.cell.kernel.numpy().min() >= 0 and layer.cell.recurrent_kernel.numpy().min() >= 0


@pytest.mark.parametrize("cls", RECURRENT)
def test_recurrent_layers_keep_their_activity_regularizer(cls):
    layer = cls(2, activity_regularizer="l2")
    x = np.ones((4, 3, 3), np.float32)
    out = layer(x).numpy()
    assert layer.get_config()["activity_regularizer"]["class_name"] == "L2"
    # Keras: l2 (0.01) of the output, divided by the batch size.
    np.testing.assert_allclose(
        [float(v) for v in layer.losses], [0.01 * (out**2).sum() / 4], rtol=1e-5
    )
