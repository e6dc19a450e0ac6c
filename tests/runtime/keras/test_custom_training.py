"""A custom training loop: a Keras model, a GradientTape and an optimizer, eagerly and as an
ag.function, checked against the same SGD steps written by hand in numpy, and against fit."""

from __future__ import annotations

import numpy as np
import pytest

import autograph as ag
import runtime as rt

keras = rt.keras


@pytest.fixture(autouse=True)
def fresh_names():
    keras.backend.clear_session()


def regression_data(n=48):
    rng = np.random.default_rng(3)
    x = rng.normal(size=(n, 3)).astype(np.float32)
    y = (np.sin(x[:, :1]) + x[:, 1:2] * x[:, 2:3]).astype(np.float32)
    return x, y


def small_mlp():
    rt.random.set_seed(7)
    return keras.Sequential(
        [keras.layers.Dense(4, activation="tanh", input_shape=(3,)), keras.layers.Dense(1)]
    )


def numpy_sgd(weights, x, y, batch_size, learning_rate, epochs):
    """The same training written by hand: forward, backward of the mean squared error, update."""
    w1, b1, w2, b2 = (w.astype(np.float64) for w in weights)
    for _ in range(epochs):
        for start in range(0, len(x), batch_size):
            xb, yb = x[start : start + batch_size], y[start : start + batch_size]
            h = np.tanh(xb @ w1 + b1)
            p = h @ w2 + b2
            dp = 2.0 * (p - yb) / p.size
            dz = (dp @ w2.T) * (1.0 - h**2)
            w2, b2 = w2 - learning_rate * (h.T @ dp), b2 - learning_rate * dp.sum(0)
            w1, b1 = w1 - learning_rate * (xb.T @ dz), b1 - learning_rate * dz.sum(0)
    return [w1, b1, w2, b2]


def custom_loop(model, x, y, batch_size, epochs, staged):
    optimizer = keras.optimizers.SGD(learning_rate=0.1)
    loss_fn = keras.losses.MeanSquaredError()

    def train_step(xb, yb):
        with rt.GradientTape() as tape:
            loss = loss_fn(yb, model(xb, training=True))
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        return loss

    step = ag.function(train_step) if staged else train_step
    epoch_losses = []
    for _ in range(epochs):
        batches = [
            (x[i : i + batch_size], y[i : i + batch_size]) for i in range(0, len(x), batch_size)
        ]
        epoch_losses.append(
            np.mean([float(step(rt.constant(xb), rt.constant(yb))) for xb, yb in batches])
        )
    return step, epoch_losses


@pytest.mark.parametrize("staged", [False, True], ids=["eager", "ag.function"])
def test_a_custom_loop_takes_the_same_steps_as_numpy(staged):
    x, y = regression_data()
    model = small_mlp()
    expected = numpy_sgd(model.get_weights(), x, y, batch_size=16, learning_rate=0.1, epochs=3)
    step, losses = custom_loop(model, x, y, batch_size=16, epochs=3, staged=staged)
    for got, want in zip(model.get_weights(), expected):
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)
    assert losses[-1] < losses[0]
    if staged:  # batches of one shape, and every variable made before (SGD's with the
        assert step.tracing_count == 1  # optimizer, as in Keras 3): traced once


def test_a_custom_loop_and_fit_train_to_the_same_weights():
    x, y = regression_data()
    custom, fitted = small_mlp(), small_mlp()
    np.testing.assert_array_equal(custom.get_weights()[0], fitted.get_weights()[0])
    custom_loop(custom, x, y, batch_size=16, epochs=2, staged=True)
    fitted.compile(optimizer=keras.optimizers.SGD(learning_rate=0.1), loss="mse")
    fitted.fit(x, y, batch_size=16, epochs=2, shuffle=False, verbose=0)
    for a, b in zip(custom.get_weights(), fitted.get_weights()):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
