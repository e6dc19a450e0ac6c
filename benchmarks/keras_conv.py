"""Keras: a small convolutional model's training step, against the same step written in
numpy and in JAX.

The model: Conv2D(8, 3, relu) on 28x28x1 images, MaxPooling2D(2), Flatten, Dense(10), a
sparse categorical cross-entropy from logits and SGD, on batches of 60. The numpy step is
what a numpy user would write: the 3x3 windows as a strided view, one matrix product, the
2x2 maxima by a reshape, and the backward pass by hand. The JAX step is the model in
``jax.numpy`` and ``lax``, differentiated by ``jax.grad`` and compiled by ``jax.jit``.

    python -m benchmarks.keras_conv
"""

from __future__ import annotations

import contextlib

import numpy as np

import runtime as rt
from benchmarks.keras import LEARNING_RATE, eager_step
from benchmarks.timing import best_times

_RNG = np.random.default_rng(0)
IMAGES = _RNG.uniform(size=(60, 28, 28, 1)).astype(np.float32)
LABELS = _RNG.integers(0, 10, size=60).astype(np.int32)


def conv_model(run_eagerly=False):
    """The model, compiled with SGD; the same weights for every call."""
    rt.keras.backend.clear_session()
    rt.random.set_seed(0)
    model = rt.keras.Sequential(
        [
            rt.keras.layers.Conv2D(8, 3, activation="relu", input_shape=(28, 28, 1)),
            rt.keras.layers.MaxPooling2D(),
            rt.keras.layers.Flatten(),
            rt.keras.layers.Dense(10),
        ]
    )
    model.compile(
        optimizer=rt.keras.optimizers.SGD(LEARNING_RATE),
        loss=rt.keras.losses.SparseCategoricalCrossentropy(from_logits=True),
        run_eagerly=run_eagerly,
    )
    return model


def _cross_entropy(logits, labels):
    """The mean loss and its gradient with respect to the logits."""
    n = len(labels)
    shifted = logits - logits.max(axis=1, keepdims=True)
    log_probs = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
    rows = np.arange(n)
    d_logits = np.exp(log_probs)
    d_logits[rows, labels] -= 1
    return -log_probs[rows, labels].mean(), d_logits / n


class NumpyStep:
    """The training step by hand in numpy, on a copy of a model's weights."""

    def __init__(self, model):
        self.kernel, self.bias, self.w, self.b = [w.copy() for w in model.get_weights()]

    def __call__(self, images, labels):
        n = len(images)
        windows = np.lib.stride_tricks.sliding_window_view(images[..., 0], (3, 3), axis=(1, 2))
        columns = windows.reshape(n * 26 * 26, 9)  # one 3x3 window a row
        z = (columns @ self.kernel.reshape(9, 8) + self.bias).reshape(n, 26, 26, 8)
        hidden = np.maximum(z, 0)
        blocks = hidden.reshape(n, 13, 2, 13, 2, 8)
        pooled = blocks.max(axis=(2, 4))
        flat = pooled.reshape(n, -1)
        loss, d_logits = _cross_entropy(flat @ self.w + self.b, labels)
        d_pooled = (d_logits @ self.w.T).reshape(n, 13, 1, 13, 1, 8)
        at_max = blocks == pooled.reshape(n, 13, 1, 13, 1, 8)
        d_z = (at_max * d_pooled).reshape(n, 26, 26, 8) * (z > 0)
        self.w -= LEARNING_RATE * (flat.T @ d_logits)
        self.b -= LEARNING_RATE * d_logits.sum(axis=0)
        d_rows = d_z.reshape(-1, 8)
        self.kernel -= LEARNING_RATE * (columns.T @ d_rows).reshape(self.kernel.shape)
        self.bias -= LEARNING_RATE * d_rows.sum(axis=0)
        return loss


def jax_step(model):
    """The step in JAX (``jax.jit`` of ``jax.grad``), on a copy of a model's weights."""
    import jax
    import jax.numpy as jnp
    from jax import lax

    def loss_of(params, images, labels):
        kernel, bias, w, b = params
        z = lax.conv_general_dilated(
            images, kernel, (1, 1), "VALID", dimension_numbers=("NHWC", "HWIO", "NHWC")
        )
        hidden = jax.nn.relu(z + bias)
        pooled = lax.reduce_window(hidden, -jnp.inf, lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID")
        logits = pooled.reshape(len(images), -1) @ w + b
        picked = jnp.take_along_axis(jax.nn.log_softmax(logits), labels[:, None], axis=1)
        return -picked.mean()

    @jax.jit
    def step(params, images, labels):
        loss, grads = jax.value_and_grad(loss_of)(params, images, labels)
        return [p - LEARNING_RATE * g for p, g in zip(params, grads)], loss

    state = {"params": [jnp.asarray(w) for w in model.get_weights()]}

    def run(images, labels):
        state["params"], loss = step(state["params"], images, labels)
        return float(loss)  # waits for the result, as ours does

    return run


def graph_step(model):
    """The model's traced training step (``model.train_function``), called as fit calls it."""
    model.fit(IMAGES, LABELS, batch_size=60, epochs=1, verbose=0, shuffle=False)
    return model.train_function


def _tensors():
    return rt.constant(IMAGES), rt.constant(LABELS)


def check_agreement():
    """One step three ways (graph, eager, numpy): the weights after it must agree."""
    results = []
    for make_step in (graph_step, eager_step):
        model = conv_model()
        before = model.get_weights()
        step = make_step(model)
        model.set_weights(before)  # graph_step's fit took a step: start again
        step(*_tensors())
        results.append(model.get_weights())
    numpy_step = NumpyStep(conv_model())
    numpy_step(IMAGES, LABELS)
    expected = [numpy_step.kernel, numpy_step.bias, numpy_step.w, numpy_step.b]
    for ours in results:
        for a, b in zip(ours, expected):
            if not np.allclose(a, b, rtol=1e-4, atol=1e-6):
                raise AssertionError("the Keras conv step and the numpy step disagree")


def main():
    check_agreement()
    graph_model, eager_model = conv_model(), conv_model(run_eagerly=True)
    candidates = [
        (NumpyStep(graph_model), (IMAGES, LABELS)),
        (graph_step(graph_model), _tensors()),
        (eager_step(eager_model), _tensors()),
    ]
    with contextlib.suppress(ImportError):  # no JAX: the first three only
        candidates.append((jax_step(conv_model()), (IMAGES, LABELS)))
    times = best_times(candidates)
    t_numpy = times[0]
    line = (
        f"Conv2D training step: numpy {t_numpy * 1e6:.0f} us, graph {times[1] / t_numpy:.2f}x, "
        f"eager {times[2] / t_numpy:.2f}x"
    )
    if len(times) > 3:
        line += f", JAX {times[3] / t_numpy:.2f}x"
    print(line)


if __name__ == "__main__":
    main()
