"""The workloads: each written for our runtime and, by hand, in numpy, with the same result.

Each workload gives ``graph`` (an ``ag.function``), ``eager`` (the same Python
function on eager tensors) and ``numpy`` (what one would write by hand), plus
the arguments for each; the suite checks that all three agree before timing.
"""

from __future__ import annotations

import numpy as np

import autograph as ag
import runtime as rt


def collatz(n):
    steps = 0
    while n > 1:
        if n % 2 == 0:
            n = n // 2
        else:
            n = 3 * n + 1
        steps += 1
    return steps


def collatz_numpy(n):
    steps = np.int32(0)
    while n > 1:
        n = n // 2 if n % 2 == 0 else 3 * n + 1
        steps += np.int32(1)
    return steps


def vector_loop(x, n):
    acc = rt.zeros_like(x)
    for i in rt.range(n):
        acc = acc + x * rt.cast(i, rt.float32)
    return acc


def vector_loop_numpy(x, n):
    acc = np.zeros_like(x)
    for i in range(n):
        acc = acc + x * np.float32(i)
    return acc


def nested_loops(n):
    total = 0
    for i in rt.range(n):
        if i % 3 == 0:
            continue
        for j in rt.range(i):
            if j > 5:
                break
            total += i * j
    return total


def nested_loops_numpy(n):
    total = np.int32(0)
    for i in range(n):
        if i % 3 == 0:
            continue
        for j in range(i):
            if j > 5:
                break
            total += np.int32(i * j)
    return total


_RNG = np.random.default_rng(0)
W1 = _RNG.standard_normal((784, 128)).astype(np.float32)
B1 = np.zeros(128, np.float32)
W2 = _RNG.standard_normal((128, 10)).astype(np.float32)
B2 = np.zeros(10, np.float32)


def dense(images):
    x = rt.reshape(images, [-1, 784])
    x = rt.nn.relu(rt.matmul(x, W1) + B1)
    return rt.matmul(x, W2) + B2


def dense_numpy(images):
    x = images.reshape(-1, 784)
    x = np.maximum(x @ W1 + B1, 0)
    return x @ W2 + B2


def dense_gradients(images, targets):
    """One training step's gradients of the dense model (a squared error)."""
    w1, w2 = rt.constant(W1), rt.constant(W2)
    with rt.GradientTape() as tape:
        tape.watch([w1, w2])
        x = rt.reshape(images, [-1, 784])
        hidden = rt.nn.relu(rt.matmul(x, w1) + B1)
        loss = rt.reduce_mean(rt.square(rt.matmul(hidden, w2) + B2 - targets))
    dw1, dw2 = tape.gradient(loss, [w1, w2])
    return rt.reduce_sum(dw1) + rt.reduce_sum(dw2)


def dense_gradients_numpy(images, targets):
    x = images.reshape(-1, 784)
    z = x @ W1 + B1
    hidden = np.maximum(z, 0)
    error = hidden @ W2 + B2 - targets
    d_out = 2 * error / error.size
    dw2 = hidden.T @ d_out
    dw1 = x.T @ ((d_out @ W2.T) * (z > 0))
    return dw1.sum() + dw2.sum()


def tensor_array_squares(n):
    squares = rt.TensorArray(rt.int32, size=n)
    i = 0
    while i < n:
        squares = squares.write(i, i * i)
        i += 1
    return squares.stack()


def tensor_array_squares_numpy(n):
    squares = np.empty(n, np.int32)
    i = 0
    while i < n:
        squares[i] = i * i
        i += 1
    return squares


def tiny(x):
    return x * x + 2


def tiny_numpy(x):
    return x * x + 2


WX = (_RNG.standard_normal((32, 64)) / 8).astype(np.float32)
WH = (_RNG.standard_normal((64, 64)) / 8).astype(np.float32)
BH = np.zeros(64, np.float32)


def rnn(xs):
    h = rt.zeros([xs.shape[1], 64])
    for t in rt.range(xs.shape[0]):
        h = rt.tanh(rt.matmul(xs[t], WX) + rt.matmul(h, WH) + BH)
    return h


def rnn_numpy(xs):
    h = np.zeros((xs.shape[1], 64), np.float32)
    for t in range(xs.shape[0]):
        h = np.tanh(xs[t] @ WX + h @ WH + BH)
    return h


IMAGES = _RNG.uniform(size=(60, 28, 28)).astype(np.float32)
SEQUENCE = _RNG.standard_normal((50, 16, 32)).astype(np.float32)
VECTOR = _RNG.standard_normal(1000).astype(np.float32)
BIG_VECTOR = _RNG.standard_normal(1_000_000).astype(np.float32)
SMALL_VECTOR = _RNG.standard_normal(100).astype(np.float32)
TARGETS = _RNG.standard_normal((60, 10)).astype(np.float32)


def workloads():
    """name -> (python function, numpy function, runtime arguments, numpy arguments)."""
    return {
        "collatz steps (scalar while/if)": (collatz, collatz_numpy, (rt.constant(27),), (np.int32(27),)),
        "vector loop, 1000 iterations": (vector_loop, vector_loop_numpy, (rt.constant(VECTOR), rt.constant(1000)),
                                         (VECTOR, 1000)),
        "nested loops with break/continue": (nested_loops, nested_loops_numpy, (rt.constant(40),), (40,)),
        "dense model forward (60x28x28)": (dense, dense_numpy, (rt.constant(IMAGES),), (IMAGES,)),
        "dense model gradients (60x28x28)": (dense_gradients, dense_gradients_numpy,
                                             (rt.constant(IMAGES), rt.constant(TARGETS)),
                                             (IMAGES, TARGETS)),
        "while_loop writing a TensorArray (1000)": (tensor_array_squares, tensor_array_squares_numpy,
                                                    (rt.constant(1000),), (1000,)),
        "tiny function x * x + 2 (per call)": (tiny, tiny_numpy, (rt.constant(SMALL_VECTOR),),
                                               (SMALL_VECTOR,)),
        "dense model forward (batch 1)": (dense, dense_numpy, (rt.constant(IMAGES[:1]),), (IMAGES[:1],)),
        "vector loop, 100 steps over 10^6": (vector_loop, vector_loop_numpy,
                                             (rt.constant(BIG_VECTOR), rt.constant(100)), (BIG_VECTOR, 100)),
        "RNN loop, 50 steps (16x32 -> 64)": (rnn, rnn_numpy, (rt.constant(SEQUENCE),), (SEQUENCE,)),
    }  # fmt: skip


def graph_version(fn):
    return ag.function(fn)


def eager_version(fn):
    return ag.to_graph(fn)


def jit_version(fn):
    return ag.function(fn, jit_compile=True)
