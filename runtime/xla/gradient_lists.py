"""A loop's stacks and a TensorArray's gradient lists under XLA: dense, preallocated arrays.

The default executor keeps what a differentiated loop stacks in a Python
list that grows by one entry per iteration, and a gradient list in a dict by
index. XLA needs every shape fixed when compiling, so:

- a *stack* is a ``Stack``: arrays with one row per iteration the loop can
  run, known when lowering (its ``maximum_iterations``, or a counter its test
  bounds). The forward loop writes iteration ``i``'s values at row ``i`` with
  a dynamic update; the backward loop reads them back at ``i``. A loop inside
  a differentiated loop stacks its stacks: rows of rows.
- a *gradient list* is a ``GradientList``: no buffer while it is all zeros,
  else a dense ``[capacity, *element]`` array. A gradient of a whole
  TensorArray (``stack``'s) is dense already; the gradient of one element read
  (``GradientListElement``) is written into zeros with room for every index the
  read can have: a loop's counter below a known bound, an index known when
  compiling, or else the largest index seen when the program was observed
  running. Getting, dropping and adding are dynamic slices and updates; adding
  lists of two capacities pads the smaller with zeros. The gradient of a stack of an
  inner loop's stacks (a second-order gradient through nested loops) is a list of lists:
  one more leading dim, and a get with ``element_dtype`` variant gives the inner list.

>>> import jax.numpy as jnp
>>> g = lower_from_tensor(None, jnp.arange(6.0).reshape(3, 2))
>>> lower_get(None, lower_drop(None, g, 1), 1, (2,), jnp.float32).tolist()
[0.0, 0.0]
>>> lower_add(None, g, GradientList(jnp.ones((4, 2)))).buffer[:, 0].tolist()
[1.0, 3.0, 5.0, 1.0]
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from runtime.core import dtypes
from runtime.xla.shapes import dims
from runtime.xla.tensor_lists import TensorArrayValue, padded

# --- stacks ---------------------------------------------------------------------------------------


@jax.tree_util.register_pytree_node_class
class Stack:
    """What a differentiated loop stacked: ``rows``, its values with a leading dim of
    ``capacity`` (a pytree: an inner loop's stacks stack as arrays one dim deeper), or None
    before the first push is traced. ``bounds``, not part of the pytree: the ``(lowest,
    highest)`` every pushed value was known to be within (a loop's counter), or None."""

    __slots__ = ("rows", "capacity", "bounds")

    def __init__(self, rows, capacity, bounds=None):
        self.rows = rows
        self.capacity = capacity
        self.bounds = bounds

    def tree_flatten(self):
        return (self.rows,), self.capacity

    @classmethod
    def tree_unflatten(cls, capacity, children):
        return cls(children[0], capacity)

    def element_spec(self):
        """The shapes and dtypes of one iteration's values (a pytree), or None."""
        if self.rows is None:
            return None
        return jax.tree_util.tree_map(
            lambda r: jax.ShapeDtypeStruct(r.shape[1:], r.dtype), self.rows
        )


def stack_spec(stack):
    """``stack`` with the shapes and dtypes of its rows in place of them (kept across traces)."""
    return jax.tree_util.tree_map(lambda r: jax.ShapeDtypeStruct(r.shape, r.dtype), stack)


def zeros_like_stack(spec):
    """A stack of zeros of ``spec`` (``stack_spec``)."""
    return jax.tree_util.tree_map(lambda s: jnp.zeros(s.shape, s.dtype), spec)


def empty_stack(capacity):
    """A stack with room for ``capacity`` iterations (allocated when its first push is traced)."""
    return Stack(None, capacity)


def allocate_stack(stack, spec):
    """``stack`` with rows of zeros for values of ``spec`` (``Stack.element_spec``)."""
    rows = jax.tree_util.tree_map(lambda s: jnp.zeros((stack.capacity, *s.shape), s.dtype), spec)
    return Stack(rows, stack.capacity)


def push(ctx, stack, value, iteration):
    """``stack`` with ``value`` at ``iteration`` (below its capacity: the loop's bound)."""
    if isinstance(value, (TensorArrayValue, GradientList)):
        ctx.unimplemented("a differentiated loop that stacks a TensorArray or its gradient")
    if not isinstance(value, Stack):
        value = jnp.asarray(value)
    if stack.rows is None:
        stack = allocate_stack(stack, _spec(value))
    if stack.capacity == 0:
        return stack
    rows = jax.tree_util.tree_map(
        lambda r, v: lax.dynamic_update_index_in_dim(r, jnp.asarray(v, r.dtype), iteration, 0),
        stack.rows,
        value,
    )
    return Stack(rows, stack.capacity)


def _spec(value):
    return jax.tree_util.tree_map(lambda v: jax.ShapeDtypeStruct(v.shape, v.dtype), value)


def lower_stack_get(ctx, stack, index, element_dtype, element_shape):
    """The value the forward loop stacked on iteration ``index`` (the backward loop's count:
    always one the forward loop ran)."""
    if stack.rows is None:  # never pushed to: nothing reads it
        return np.zeros(element_shape.as_list(), element_dtype.as_numpy_dtype)
    if stack.capacity == 0:  # the loop cannot run: nothing reads it
        return jax.tree_util.tree_map(lambda r: jnp.zeros(r.shape[1:], r.dtype), stack.rows)
    value = jax.tree_util.tree_map(
        lambda r: lax.dynamic_index_in_dim(r, index, 0, keepdims=False), stack.rows
    )
    if stack.bounds is not None:  # a counter stacked: its value read back keeps its range
        ctx.bound(value, *stack.bounds)
    return value


# --- gradient lists -------------------------------------------------------------------------------


@jax.tree_util.register_pytree_node_class
class GradientList:
    """The gradient of a TensorArray: ``buffer`` ``[capacity, *element]``, or None for zeros."""

    __slots__ = ("buffer",)

    def __init__(self, buffer):
        self.buffer = buffer

    def tree_flatten(self):
        return (self.buffer,), None

    @classmethod
    def tree_unflatten(cls, aux, children):
        return cls(children[0])

    def element_spec(self):
        """The buffer's shape and dtype (capacity first), or None while it is all zeros."""
        if self.buffer is None:
            return None
        return jax.ShapeDtypeStruct(self.buffer.shape, self.buffer.dtype)


def fitted(items, spec):
    """``items`` with a buffer of ``spec`` (``GradientList.element_spec``; zeros where
    ``items`` has none): how a loop carries a gradient list that its body fills or widens."""
    if items.buffer is None:
        return GradientList(jnp.zeros(spec.shape, spec.dtype))
    return GradientList(padded(items.buffer, spec.shape))


def wider(a, b):
    """The spec with room for both specs (None counts as no room). Dims after the first are
    the element's, the same for both, except in a list of lists (the gradient of a loop's
    stacks of an inner loop's stacks), whose inner lists may have other capacities."""
    if a is None or b is None:
        return a or b
    return jax.ShapeDtypeStruct(_widest(a.shape, b.shape), a.dtype)


def _widest(a, b):
    return tuple(max(m, n) for m, n in zip(a, b))


def lower_empty(ctx):
    return GradientList(None)


def lower_element(ctx, index, value):
    """The gradient list holding ``value`` at ``index`` (the gradient of one read): zeros with
    room for every index the read can have."""
    if isinstance(value, GradientList):  # a list of lists: one more leading dim
        if value.buffer is None:
            return value
        value = value.buffer
    value = jnp.asarray(value)
    known = ctx.bounds(index)
    if known is not None and known[0] >= 0:
        capacity = known[1] + 1
    else:  # the largest index observed; a larger one is observed again
        capacity = ctx.capacity()
        ctx.check(
            jnp.asarray(index) >= capacity,
            "GradientListElement: index {0} is past the indices observed",
            detail=index,
            respecialize=True,
        )
        ctx.check(jnp.asarray(index) < 0, "GradientListElement: negative index {0}", detail=index)
    buffer = jnp.zeros((capacity, *value.shape), value.dtype)
    if capacity == 0:  # the read never ran when observed: nothing to hold
        return GradientList(buffer)
    return GradientList(lax.dynamic_update_index_in_dim(buffer, value, index, 0))


def lower_from_tensor(ctx, value):
    return GradientList(jnp.asarray(value))


def lower_add(ctx, a, b):
    if a.buffer is None:
        return b
    if b.buffer is None:
        return a
    shape = _widest(a.buffer.shape, b.buffer.shape)
    return GradientList(padded(a.buffer, shape) + padded(b.buffer, shape))


def lower_get(ctx, items, index, shape, element_dtype):
    if element_dtype is dtypes.variant:  # a list of lists: the inner list at ``index``
        if items.buffer is None or items.buffer.shape[0] == 0:
            return GradientList(None)
        return GradientList(_row(items.buffer, index))
    if items.buffer is None:
        return np.zeros(dims(shape), element_dtype.as_numpy_dtype)
    if items.buffer.shape[0] == 0:  # room for no index (a loop that cannot run): all zeros
        return jnp.zeros(items.buffer.shape[1:], items.buffer.dtype)
    return _row(items.buffer, index)


def _row(buffer, index):
    """``buffer[index]``, zeros for an index it has no room for (a missing one is zeros)."""
    index = jnp.asarray(index, jnp.int32)
    inside = (index >= 0) & (index < buffer.shape[0])
    value = lax.dynamic_index_in_dim(buffer, index, 0, keepdims=False)
    return jnp.where(inside, value, jnp.zeros_like(value))


def lower_drop(ctx, items, index):
    if items.buffer is None or items.buffer.shape[0] == 0:
        return items
    index = jnp.asarray(index, jnp.int32)
    row = lax.dynamic_index_in_dim(items.buffer, index, 0, keepdims=True)
    inside = (index >= 0) & (index < items.buffer.shape[0])
    zeroed = lax.dynamic_update_index_in_dim(items.buffer, jnp.zeros_like(row), index, 0)
    return GradientList(jnp.where(inside, zeroed, items.buffer))


def lower_stack(ctx, items, shape, element_dtype):
    shape = dims(shape)
    if items.buffer is None:
        return np.zeros(shape, element_dtype.as_numpy_dtype)
    buffer = items.buffer
    rows = min(shape[0], buffer.shape[0])
    out = jnp.zeros(shape, buffer.dtype)
    return out.at[:rows].set(buffer[:rows])
