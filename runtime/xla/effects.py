"""Lowerings of the ops with effects: printing, asserting, random numbers, variables.

Printing and an assert's message go through JAX's ordered host callbacks, and
reuse the default executor's own formatting, so the text is the same; the
program's host side (``runtime.xla.program``) collects the printed text and
writes it, in order, before the call returns. Variables and the random key are
entries of the program's state (``runtime.xla.state``).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from runtime import errors
from runtime.ops import logging_ops
from runtime.xla.shapes import dims


def is_static(value):
    """Known when compiling: a numpy value rather than a JAX array being traced."""
    return isinstance(value, (np.ndarray, np.generic))


def _split(values):
    """The values as (static ones by position, the positions of the others)."""
    static = {i: v for i, v in enumerate(values) if is_static(v)}
    return static, [i for i in range(len(values)) if i not in static]


def _rejoin(count, static, positions, dynamic):
    values = [None] * count
    for i, v in static.items():
        values[i] = v
    for i, v in zip(positions, dynamic):
        values[i] = v
    return values


def lower_print(ctx, *values, template, sep, end, stream, summarize):
    """The text of the default executor's PrintV2, written when the call returns."""
    static, positions = _split(values)  # strings are static: XLA has none
    host, count = ctx.host, len(values)

    def emit(*dynamic):
        full = _rejoin(count, static, positions, dynamic)
        host.printed(stream, logging_ops.print_text(full, template, sep, end, summarize))

    ctx.callback(emit, *[values[i] for i in positions])


def lower_assert(ctx, condition, *data, summarize):
    """Fails the call with the kernel's own message, formatted on the host when it fails."""
    if is_static(condition) and bool(np.all(condition)):
        return
    failed = not bool(np.all(condition)) if is_static(condition) else ~jnp.all(condition)
    code, first = ctx.check(failed, None)
    static, positions = _split(data)
    host, count = ctx.host, len(data)

    def record(*dynamic):
        full = _rejoin(count, static, positions, dynamic)
        try:
            logging_ops.ASSERT.kernel(np.bool_(False), *full, summarize=summarize)
        except errors.InvalidArgumentError as e:
            host.assertion_failed(code, e.message)

    ctx.callback_when(first, record, *[data[i] for i in positions])


def lower_normal(ctx, shape, mean, stddev, dtype, state):
    draw = jax.random.normal(ctx.draw_key(), dims(shape), dtype=dtype.as_numpy_dtype)
    return (draw * stddev + mean).astype(dtype.as_numpy_dtype)


def lower_uniform(ctx, shape, minval, maxval, dtype, state):
    key, sizes, np_type = ctx.draw_key(), dims(shape), dtype.as_numpy_dtype
    if dtype.is_integer:
        if minval >= maxval:
            raise errors.InvalidArgumentError("ValueError: low >= high")
        return jax.random.randint(key, sizes, minval, maxval, dtype=np_type)
    draw = jax.random.uniform(key, sizes, dtype=np_type)
    return (draw * (maxval - minval) + minval).astype(np_type)


def lower_read(ctx, handle, variable):
    return ctx.state[variable]


def assigner(combine):
    """The lowering of an assign op: the variable's new value, unless the call already failed."""

    def rule(ctx, handle, value, variable):
        old = ctx.state[variable]
        new = combine(old, value)
        if jnp.shape(new) != jnp.shape(old):
            raise errors.InvalidArgumentError(
                f"Cannot assign a value of shape {jnp.shape(new)} to variable "
                f"{variable.name!r} of shape {jnp.shape(old)}"
            )
        new = ctx.gate(new, old)
        ctx.state[variable] = new
        return new

    return rule
