"""Gradients flow through a loaded function to the loaded variables, as in TensorFlow, so a
loaded model can be fine-tuned. Expected gradients: the original model's, and central
differences of the loaded function itself."""

import numpy as np
import pytest

import autograph as ag
import runtime as rt


class Regression(rt.Module):
    def __init__(self):
        super().__init__()
        self.w = rt.Variable([[0.5], [-1.0]], name="w")
        self.b = rt.Variable([0.25], name="b")
        self.frozen = rt.Variable(3.0, trainable=False, name="frozen")

    @ag.function(autograph=False)
    def __call__(self, x):
        return rt.tanh(rt.matmul(x, self.w) + self.b) * self.frozen


X = np.array([[1.0, 2.0], [-0.5, 0.3], [0.2, -1.5]], np.float32)
Y = np.array([[0.1], [-0.4], [0.9]], np.float32)


def _loss(model, x=X):
    return rt.reduce_mean((model(rt.constant(x)) - Y) ** 2)


def _cycles(obj, tmp_path, n):
    for i in range(n):
        path = str(tmp_path / f"cycle{i}")
        rt.saved_model.save(obj, path)
        obj = rt.saved_model.load(path)
    return obj


def _gradients(model):
    """``{variable name: gradient of the loss}`` for the model's trainable variables."""
    with rt.GradientTape() as tape:
        loss = _loss(model)
    grads = tape.gradient(loss, model.trainable_variables)
    return {v.name: g.numpy() for v, g in zip(model.trainable_variables, grads, strict=True)}


@pytest.mark.parametrize("cycles", [1, 2, 3])
def test_the_gradients_of_a_loaded_function_are_the_originals(tmp_path, cycles):
    original = Regression()
    original(rt.constant(X))
    expected = _gradients(original)
    loaded = _cycles(original, tmp_path, cycles)
    assert [v.name for v in loaded.trainable_variables] == [
        v.name for v in original.trainable_variables
    ]
    got = _gradients(loaded)
    assert got.keys() == expected.keys() == {"w:0", "b:0"}
    for name in expected:
        np.testing.assert_allclose(got[name], expected[name], rtol=1e-5, atol=1e-7)


def test_the_gradients_of_a_loaded_function_match_central_differences(tmp_path):
    original = Regression()
    original(rt.constant(X))
    loaded = _cycles(original, tmp_path, 1)
    dw = _gradients(loaded)["w:0"]
    eps = 1e-3
    w = loaded.w.numpy().astype(np.float64)
    numeric = np.zeros_like(w)
    for i in range(w.shape[0]):
        for sign in (1, -1):
            shifted = w.copy()
            shifted[i, 0] += sign * eps
            loaded.w.assign(shifted.astype(np.float32))
            numeric[i, 0] += sign * float(_loss(loaded).numpy()) / (2 * eps)
    loaded.w.assign(w.astype(np.float32))
    np.testing.assert_allclose(dw, numeric, rtol=2e-2, atol=1e-4)


def test_the_gradient_with_respect_to_a_watched_input_reaches_it(tmp_path):
    original = Regression()
    original(rt.constant(X))
    loaded = _cycles(original, tmp_path, 1)
    x = rt.constant(X)
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = rt.reduce_sum(loaded(x))
    # d/dx sum(tanh(x @ w + b) * 3) = 3 (1 - tanh^2) w^T, row by row
    pre = X @ original.w.numpy() + original.b.numpy()
    expected = 3.0 * (1 - np.tanh(pre) ** 2) @ original.w.numpy().T
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), expected, rtol=1e-5, atol=1e-6)


def test_a_loaded_model_fine_tunes_with_an_optimizer(tmp_path):
    original = Regression()
    original(rt.constant(X))
    loaded = _cycles(original, tmp_path, 1)
    before = _loss(loaded).numpy()
    w0, b0 = loaded.w.numpy(), loaded.b.numpy()
    grads = _gradients(loaded)
    dw, db = grads["w:0"], grads["b:0"]
    optimizer = rt.keras.optimizers.SGD(learning_rate=0.1)
    with rt.GradientTape() as tape:
        loss = _loss(loaded)
    grads = tape.gradient(loss, loaded.trainable_variables)
    optimizer.apply_gradients(zip(grads, loaded.trainable_variables))
    np.testing.assert_allclose(loaded.w.numpy(), w0 - 0.1 * dw, rtol=1e-6)  # SGD's formula
    np.testing.assert_allclose(loaded.b.numpy(), b0 - 0.1 * db, rtol=1e-6)
    for _ in range(20):
        with rt.GradientTape() as tape:
            loss = _loss(loaded)
        grads = tape.gradient(loss, loaded.trainable_variables)
        optimizer.apply_gradients(zip(grads, loaded.trainable_variables))
    assert _loss(loaded).numpy() < before
    assert loaded.frozen.numpy() == 3.0  # not trainable: untouched


def test_a_function_saved_with_an_input_signature_is_differentiable_too(tmp_path):
    class Signed(rt.Module):
        def __init__(self):
            super().__init__()
            self.w = rt.Variable(1.5)

        @ag.function(input_signature=[rt.TensorSpec([None], rt.float32)], autograph=False)
        def __call__(self, x):
            return rt.reduce_sum(x * x * self.w)

    loaded = _cycles(Signed(), tmp_path, 1)
    x = np.array([1.0, 2.0], np.float32)
    with rt.GradientTape() as tape:
        y = loaded(x)
    (dw,) = tape.gradient(y, loaded.trainable_variables)
    np.testing.assert_allclose(dw.numpy(), np.sum(x * x))  # d/dw sum(x² w) = sum(x²)
