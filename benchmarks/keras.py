"""Keras: the seed's MLP training step against the same step written in numpy, and what
``fit`` costs per batch beyond the step.

The model is seed 001's: Flatten (28x28), Dense(128, relu), Dropout(0.2), Dense(10), a sparse
categorical cross-entropy from logits and SGD, on batches of 60 images. The hand-written
numpy step does the same work: forward, the dropout mask, backward, the update.

    python -m benchmarks.keras

It ends with a small convolutional model's step (``benchmarks.keras_conv``), beside numpy
and JAX.
"""

from __future__ import annotations

import time

import numpy as np

import runtime as rt
from benchmarks import keras_layers
from benchmarks.timing import best_times

LEARNING_RATE = 0.01
RATE = 0.2
_RNG = np.random.default_rng(0)
IMAGES = _RNG.uniform(size=(60, 28, 28)).astype(np.float32)
LABELS = _RNG.integers(0, 10, size=60).astype(np.int32)


def seed_mlp(rate=RATE, run_eagerly=False):
    """Seed 001's model, compiled with SGD; the same weights for the same seed."""
    rt.keras.backend.clear_session()
    rt.random.set_seed(0)
    model = rt.keras.Sequential(
        [
            rt.keras.layers.Flatten(input_shape=(28, 28)),
            rt.keras.layers.Dense(128, activation="relu"),
            rt.keras.layers.Dropout(rate),
            rt.keras.layers.Dense(10),
        ]
    )
    model.compile(
        optimizer=rt.keras.optimizers.SGD(LEARNING_RATE),
        loss=rt.keras.losses.SparseCategoricalCrossentropy(from_logits=True),
        run_eagerly=run_eagerly,
    )
    return model


class NumpyStep:
    """The training step written by hand in numpy, on a copy of a model's weights."""

    def __init__(self, model, rate=RATE):
        self.w1, self.b1, self.w2, self.b2 = [w.copy() for w in model.get_weights()]
        self.rate = rate
        self.generator = np.random.default_rng(1)

    def __call__(self, images, labels):
        n = len(images)
        x = images.reshape(n, -1)
        z = x @ self.w1 + self.b1
        hidden = np.maximum(z, 0)
        keep = (self.generator.random(hidden.shape) >= self.rate) / np.float32(1 - self.rate)
        dropped = hidden * keep
        logits = dropped @ self.w2 + self.b2
        shifted = logits - logits.max(axis=1, keepdims=True)
        log_probs = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
        rows = np.arange(n)
        loss = -log_probs[rows, labels].mean()
        d_logits = np.exp(log_probs)
        d_logits[rows, labels] -= 1
        d_logits /= n
        d_hidden = (d_logits @ self.w2.T) * keep * (z > 0)
        self.w2 -= LEARNING_RATE * (dropped.T @ d_logits)
        self.b2 -= LEARNING_RATE * d_logits.sum(axis=0)
        self.w1 -= LEARNING_RATE * (x.T @ d_hidden)
        self.b1 -= LEARNING_RATE * d_hidden.sum(axis=0)
        return loss


def _tensors():
    return rt.constant(IMAGES), rt.constant(LABELS)


def graph_step(model):
    """The model's traced training step (``model.train_function``), called as fit calls it."""
    model.fit(IMAGES, LABELS, batch_size=60, epochs=1, verbose=0, shuffle=False)
    return model.train_function


def eager_step(model):
    return lambda x, y: model.train_step((x, y))


def check_agreement():
    """One step without dropout, three ways: the weights after it must agree."""
    results = []
    for make_step in (graph_step, eager_step):
        model = seed_mlp(rate=0.0)
        before = model.get_weights()
        step = make_step(model)
        model.set_weights(before)  # graph_step's fit took a step: start again
        step(*_tensors())
        results.append(model.get_weights())
    numpy_step = NumpyStep(seed_mlp(rate=0.0), rate=0.0)
    numpy_step(IMAGES, LABELS)
    expected = [numpy_step.w1, numpy_step.b1, numpy_step.w2, numpy_step.b2]
    for ours in results:
        for a, b in zip(ours, expected):
            if not np.allclose(a, b, rtol=1e-4, atol=1e-6):
                raise AssertionError("the Keras step and the numpy step disagree")


def step_workload():
    """(numpy step, graph step, eager step), each with its arguments."""
    check_agreement()
    graph_model, eager_model = seed_mlp(), seed_mlp(run_eagerly=True)
    return (
        (NumpyStep(graph_model), (IMAGES, LABELS)),
        (graph_step(graph_model), _tensors()),
        (eager_step(eager_model), _tensors()),
    )


def fit_overhead_per_batch(batches=200, repeat=7, shuffle=True):
    """Seconds ``fit`` spends per batch beyond the step: one epoch of ``batches`` batches of
    the seed's images (verbose=0) with the traced step swapped for one that returns its
    result at once, so what is timed is fit's own work (shuffling, slicing, wrapping the
    batches, calling the step, averaging the logs). Best of ``repeat``."""
    model = seed_mlp()
    x, y = np.repeat(IMAGES, batches, axis=0), np.repeat(LABELS, batches)
    model.fit(x[:60], y[:60], batch_size=60, verbose=0)  # traced here
    result = model.train_function(*_tensors())
    for key in model._staged_steps:
        model._staged_steps[key] = lambda x, y: result
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        model.fit(x, y, batch_size=60, epochs=1, verbose=0, shuffle=shuffle)
        times.append(time.perf_counter() - start)
    return min(times) / batches


def main():
    (np_fn, np_args), (g_fn, g_args), (e_fn, e_args) = step_workload()
    t_numpy, t_graph, t_eager = best_times([(np_fn, np_args), (g_fn, g_args), (e_fn, e_args)])
    print(
        f"MLP training step: numpy {t_numpy * 1e6:.0f} us, graph {t_graph / t_numpy:.2f}x, "
        f"eager {t_eager / t_numpy:.2f}x"
    )
    print(
        f"fit overhead per batch: {fit_overhead_per_batch() * 1e6:.1f} us "
        f"({fit_overhead_per_batch(shuffle=False) * 1e6:.1f} us without shuffling)"
    )
    from benchmarks import keras_conv  # it builds on this module's steps

    keras_conv.main()
    keras_layers.main()  # BatchNormalization beside numpy, LSTM beside JAX


if __name__ == "__main__":
    main()
