"""The workloads written by hand with ``jax.jit`` and ``lax``: what ``jit_compile=True`` is held to.

Each reference is what a JAX user would write for the same computation: a
``lax.while_loop`` or ``fori_loop`` for the loops, ``lax.cond`` for the
branches, a preallocated array with ``.at[i].set`` for the TensorArray (its
size a static argument, as JAX needs it). They take the numpy arguments the
numpy versions take and return numpy (``np.asarray``: the call waits for the
result, as ours does).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from benchmarks import workloads


def collatz(n):
    def step(c):
        n, steps = c
        n = lax.cond(n % 2 == 0, lambda: n // 2, lambda: 3 * n + 1)
        return n, steps + 1

    return lax.while_loop(lambda c: c[0] > 1, step, (n, jnp.int32(0)))[1]


def vector_loop(x, n):
    return lax.fori_loop(0, n, lambda i, acc: acc + x * i.astype(jnp.float32), jnp.zeros_like(x))


def nested_loops(n):
    def outer(i, total):
        def inner():
            def step(c):
                j, t = c
                return j + 1, t + i * j

            return lax.while_loop(lambda c: (c[0] < i) & (c[0] <= 5), step, (0, total))[1]

        return lax.cond(i % 3 == 0, lambda: total, inner)

    return lax.fori_loop(0, n, outer, jnp.int32(0))


def dense(images):
    x = images.reshape(-1, 784)
    x = jnp.maximum(x @ workloads.W1 + workloads.B1, 0)
    return x @ workloads.W2 + workloads.B2


def tensor_array_squares(n):
    return lax.fori_loop(0, n, lambda i, buf: buf.at[i].set(i * i), jnp.zeros(n, jnp.int32))


def rnn(xs):
    def step(t, h):
        return jnp.tanh(xs[t] @ workloads.WX + h @ workloads.WH + workloads.BH)

    h = jnp.zeros((xs.shape[1], workloads.WH.shape[0]), jnp.float32)
    return lax.fori_loop(0, xs.shape[0], step, h)


REFERENCES = {
    "collatz": (collatz, ()),
    "vector_loop": (vector_loop, ()),
    "nested_loops": (nested_loops, ()),
    "dense": (dense, ()),
    "tensor_array_squares": (tensor_array_squares, (0,)),
    "rnn": (rnn, ()),
}
"""Python function name of a workload -> (its hand-written JAX version, its static_argnums)."""


def reference(fn):
    """A fresh ``jax.jit`` of the hand-written version of workload ``fn`` (numpy in, numpy out),
    or None when there is none."""
    entry = REFERENCES.get(fn.__name__)
    if entry is None:
        return None
    body, static = entry
    jitted = jax.jit(body, static_argnums=static)
    if static:
        return lambda *args: np.asarray(jitted(*[int(a) for a in args]))
    return lambda *args: np.asarray(jitted(*args))
