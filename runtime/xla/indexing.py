"""Lowerings of indexing: ``x[...]`` and its gradient, and ``unsorted_segment_sum`` (a scatter,
which numpy writes in place). ``gather`` and ``one_hot`` are their ops' implementations.

XLA clamps an index out of range where numpy raises, so an index known only at
run time is checked (``ctx.check``) with numpy's message, unless it is a loop
counter known to be in range (``ctx.within``). A slice whose bounds are known
only at run time has no shape XLA can compile.
"""

from __future__ import annotations

import jax.numpy as jnp

from runtime.xla.effects import is_static
from runtime.xla.shapes import dims


def index_key(ctx, shape, dynamic, spec):
    """The index ``spec`` stands for on an array of ``shape``: static parts as they are,
    tensor indices checked; UnimplementedError for a slice bound known only at run time."""
    key, dim = [], 0
    consumed = sum(1 for k in spec if k is not None and k is not Ellipsis)
    for k in spec:
        if k is Ellipsis:
            key.append(k)
            dim += len(shape) - consumed
        elif k is None:
            key.append(k)
        elif isinstance(k, slice):
            bounds = [_part(b, dynamic) for b in (k.start, k.stop, k.step)]
            if any(b is not None and not isinstance(b, int) for b in bounds):
                ctx.unimplemented(
                    "a slice whose bounds are known only at run time has no fixed shape"
                )
            key.append(slice(*bounds))
            dim += 1
        else:
            key.append(_checked_index(ctx, _part(k, dynamic), shape[dim], dim))
            dim += 1
    return tuple(key)


def _part(part, dynamic):
    """A bound or index of the spec: an int, None, or the traced value of an index tensor."""
    if not isinstance(part, tuple):
        return part
    value = dynamic[part[1]]
    return int(value) if is_static(value) else value


def _checked_index(ctx, i, size, axis):
    """An index known only at run time is checked as numpy checks it; XLA would clamp it."""
    if isinstance(i, int) or ctx.within(i, -size, size - 1):
        return i  # an int: numpy's own indexing checks it, when compiling
    ctx.check(
        (i < -size) | (i >= size),
        f"IndexError: index {{0}} is out of bounds for axis {axis} with size {size}",
        detail=i,
    )
    return i


def lower_strided_slice(ctx, x, *dynamic, spec):
    x = jnp.asarray(x)
    return x[index_key(ctx, x.shape, dynamic, spec)]


def lower_strided_slice_grad(ctx, shape, grad, *dynamic, spec):
    """``grad`` written at the index into zeros of the sliced tensor's shape."""
    shape = dims(shape)
    grad = jnp.asarray(grad)
    return jnp.zeros(shape, grad.dtype).at[index_key(ctx, shape, dynamic, spec)].set(grad)


def lower_segment_sum(ctx, data, segment_ids, num_segments):
    n = int(num_segments)
    ids = jnp.reshape(segment_ids, -1)
    rows = jnp.reshape(data, (ids.size, *jnp.shape(data)[jnp.ndim(segment_ids) :]))
    ids = jnp.where(ids < 0, n, ids)  # as in TensorFlow, ids out of range are dropped
    return jnp.zeros((n, *rows.shape[1:]), rows.dtype).at[ids].add(rows, mode="drop")
