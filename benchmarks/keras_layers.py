"""Keras training steps with the stateful and recurrent layers, beside the same step elsewhere:

- Dense(64) -> BatchNormalization -> Dense(10), SGD on a sparse cross-entropy, batches of 60
  images, beside the step written by hand in numpy (forward, the batch statistics, backward,
  the update, the moving statistics);
- LSTM(32) -> Dense(1), SGD on a mean squared error, batches of 32 sequences of 20 steps,
  beside the same model in JAX (``jax.grad`` of a hand-written LSTM, jitted): backpropagation
  through time written by hand in numpy would be a long page of its own.

    python -m benchmarks.keras_layers
"""

from __future__ import annotations

import numpy as np

import runtime as rt
from benchmarks.timing import best_times

LEARNING_RATE = 0.01
MOMENTUM, EPSILON = 0.99, 1e-3
_RNG = np.random.default_rng(0)
IMAGES = _RNG.uniform(size=(60, 784)).astype(np.float32)
LABELS = _RNG.integers(0, 10, size=60).astype(np.int32)
SEQUENCES = _RNG.normal(size=(32, 20, 8)).astype(np.float32)
TARGETS = _RNG.normal(size=(32, 1)).astype(np.float32)


def _staged_step(model, x, y):
    """The model's traced training step, as ``fit`` calls it."""
    model.fit(x, y, batch_size=len(x), epochs=1, verbose=0, shuffle=False)
    return model.train_function


def bn_model():
    rt.keras.backend.clear_session()
    rt.random.set_seed(0)
    model = rt.keras.Sequential(
        [
            rt.keras.layers.Dense(64),
            rt.keras.layers.BatchNormalization(momentum=MOMENTUM, epsilon=EPSILON),
            rt.keras.layers.Dense(10),
        ]
    )
    model.compile(
        optimizer=rt.keras.optimizers.SGD(LEARNING_RATE),
        loss=rt.keras.losses.SparseCategoricalCrossentropy(from_logits=True),
    )
    return model


class NumpyBatchNormStep:
    """Dense -> BatchNormalization (training) -> Dense, forward and backward, by hand."""

    def __init__(self, model):
        w = [v.numpy().copy() for v in model.weights]
        self.w1, self.b1, self.gamma, self.beta, self.w2, self.b2 = w[:6]
        self.mean, self.var = w[6], w[7]

    def __call__(self, x, labels):
        n = len(x)
        h = x @ self.w1 + self.b1
        mu, var = h.mean(0), h.var(0)
        inv = 1.0 / np.sqrt(var + EPSILON)
        xhat = (h - mu) * inv
        y = xhat * self.gamma + self.beta
        logits = y @ self.w2 + self.b2
        shifted = logits - logits.max(1, keepdims=True)
        log_probs = shifted - np.log(np.exp(shifted).sum(1, keepdims=True))
        rows = np.arange(n)
        loss = -log_probs[rows, labels].mean()
        d_logits = np.exp(log_probs)
        d_logits[rows, labels] -= 1
        d_logits /= n
        d_y = d_logits @ self.w2.T
        d_xhat = d_y * self.gamma
        # the batch-norm backward: through xhat, the mean and the variance together
        d_h = inv * (d_xhat - d_xhat.mean(0) - xhat * (d_xhat * xhat).mean(0))
        self.w2 -= LEARNING_RATE * (y.T @ d_logits)
        self.b2 -= LEARNING_RATE * d_logits.sum(0)
        self.gamma -= LEARNING_RATE * (d_y * xhat).sum(0)
        self.beta -= LEARNING_RATE * d_y.sum(0)
        self.w1 -= LEARNING_RATE * (x.T @ d_h)
        self.b1 -= LEARNING_RATE * d_h.sum(0)
        self.mean = self.mean * MOMENTUM + mu * (1 - MOMENTUM)
        self.var = self.var * MOMENTUM + var * (1 - MOMENTUM)
        return loss


def check_bn_agreement():
    """One step both ways from the same weights: the weights after it must agree."""
    model = bn_model()
    step = _staged_step(model, IMAGES, LABELS)
    numpy_step = NumpyBatchNormStep(model)
    step(rt.constant(IMAGES), rt.constant(LABELS))
    numpy_step(IMAGES, LABELS)
    expected = [numpy_step.w1, numpy_step.b1, numpy_step.gamma, numpy_step.beta]
    expected += [numpy_step.w2, numpy_step.b2, numpy_step.mean, numpy_step.var]
    for ours, theirs in zip([v.numpy() for v in model.weights], expected):
        if not np.allclose(ours, theirs, rtol=1e-3, atol=1e-5):
            raise AssertionError("the Keras BatchNormalization step and the numpy step disagree")


def lstm_model():
    rt.keras.backend.clear_session()
    rt.random.set_seed(0)
    model = rt.keras.Sequential([rt.keras.layers.LSTM(32), rt.keras.layers.Dense(1)])
    model.compile(optimizer=rt.keras.optimizers.SGD(LEARNING_RATE), loss="mse")
    return model


def jax_lstm_step(model):
    """The same LSTM step in JAX: a Python loop over the steps inside ``jax.jit``."""
    import jax
    import jax.numpy as jnp

    params = [jnp.asarray(w) for w in model.get_weights()]

    def loss_fn(params, x, y):
        kernel, recurrent, bias, w, b = params
        units = recurrent.shape[0]
        h = c = jnp.zeros((x.shape[0], units), x.dtype)
        for t in range(x.shape[1]):
            z = x[:, t] @ kernel + h @ recurrent + bias
            i, f, g, o = jnp.split(z, 4, axis=1)
            c = jax.nn.sigmoid(f) * c + jax.nn.sigmoid(i) * jnp.tanh(g)
            h = jax.nn.sigmoid(o) * jnp.tanh(c)
        return jnp.mean((h @ w + b - y) ** 2)

    @jax.jit
    def step(params, x, y):
        loss, grads = jax.value_and_grad(loss_fn)(params, x, y)
        return [p - LEARNING_RATE * g for p, g in zip(params, grads)], loss

    state = {"params": params}

    def run(x, y):
        state["params"], loss = step(state["params"], x, y)
        return loss.block_until_ready()

    return run


def main():
    check_bn_agreement()
    bn = bn_model()
    graph_bn = _staged_step(bn, IMAGES, LABELS)
    t_numpy, t_graph = best_times(
        [
            (NumpyBatchNormStep(bn), (IMAGES, LABELS)),
            (graph_bn, (rt.constant(IMAGES), rt.constant(LABELS))),
        ]
    )
    print(f"BatchNormalization step: numpy {t_numpy * 1e6:.0f} us, graph {t_graph / t_numpy:.2f}x")
    lstm = lstm_model()
    graph_lstm = _staged_step(lstm, SEQUENCES, TARGETS)
    jax_step = jax_lstm_step(lstm)
    t_jax, t_graph = best_times(
        [
            (jax_step, (SEQUENCES, TARGETS)),
            (graph_lstm, (rt.constant(SEQUENCES), rt.constant(TARGETS))),
        ]
    )
    print(f"LSTM step: JAX {t_jax * 1e6:.0f} us, graph {t_graph / t_jax:.2f}x")


if __name__ == "__main__":
    main()
