"""The workloads written by hand with ``jax.jit`` and ``lax``: what ``jit_compile=True`` is held to.

Each reference is what a JAX user would write for the same computation: a
``lax.while_loop`` or ``fori_loop`` for the loops, ``lax.cond`` for the
branches, a preallocated array with ``.at[i].set`` for the TensorArray. They
take the same numpy arguments as the numpy versions and return numpy values
(``np.asarray``: the call waits for the result, as ours does).
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from benchmarks import workloads


@jax.jit
def _collatz(n):
    def step(c):
        n, steps = c
        n = lax.cond(n % 2 == 0, lambda: n // 2, lambda: 3 * n + 1)
        return n, steps + 1

    return lax.while_loop(lambda c: c[0] > 1, step, (n, jnp.int32(0)))[1]


@jax.jit
def _vector_loop(x, n):
    return lax.fori_loop(0, n, lambda i, acc: acc + x * i.astype(jnp.float32), jnp.zeros_like(x))


@jax.jit
def _nested_loops(n):
    def outer(i, total):
        def inner():
            def step(c):
                j, t = c
                return j + 1, t + i * j

            return lax.while_loop(lambda c: (c[0] < i) & (c[0] <= 5), step, (0, total))[1]

        return lax.cond(i % 3 == 0, lambda: total, inner)

    return lax.fori_loop(0, n, outer, jnp.int32(0))


@jax.jit
def _dense(images):
    x = images.reshape(-1, 784)
    x = jnp.maximum(x @ workloads.W1 + workloads.B1, 0)
    return x @ workloads.W2 + workloads.B2


@functools.partial(jax.jit, static_argnums=0)
def _tensor_array_squares(n):
    return lax.fori_loop(0, n, lambda i, buf: buf.at[i].set(i * i), jnp.zeros(n, jnp.int32))


@jax.jit
def _rnn(xs):
    def step(t, h):
        return jnp.tanh(xs[t] @ workloads.WX + h @ workloads.WH + workloads.BH)

    h = jnp.zeros((xs.shape[1], workloads.WH.shape[0]), jnp.float32)
    return lax.fori_loop(0, xs.shape[0], step, h)


def _fetched(fn):
    """``fn``'s result as numpy: the time of a call includes waiting for it."""
    return lambda *args: np.asarray(fn(*args))


REFERENCES = {
    "collatz": _fetched(_collatz),
    "vector_loop": _fetched(_vector_loop),
    "nested_loops": _fetched(_nested_loops),
    "dense": _fetched(_dense),
    "tensor_array_squares": _fetched(lambda n: _tensor_array_squares(int(n))),
    "rnn": _fetched(_rnn),
}
"""Python function name of a workload -> its hand-written JAX version."""


def reference(fn):
    """The hand-written JAX version of workload function ``fn``, or None."""
    return REFERENCES.get(fn.__name__)


def first_call_seconds(rounds=10):
    """JAX's own trace + compile + first run of the small function ``benchmarks.first_call``
    measures for us, written by hand."""
    import statistics
    import time

    times = []
    for _ in range(rounds):

        def small(x, n):
            def step(i, total):
                return lax.cond(i % 2 == 0, lambda: total + x, lambda: total - 1)

            return lax.fori_loop(0, n, step, x * 0)

        jitted = jax.jit(small)
        start = time.perf_counter()
        np.asarray(jitted(np.int32(3), np.int32(10)))
        times.append(time.perf_counter() - start)
    return statistics.median(times)
