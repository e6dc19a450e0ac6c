"""TensorArrays under XLA: a buffer allocated once, written in place with dynamic updates.

The default executor keeps a TensorArray in a buffer that grows; XLA
needs every shape fixed when compiling. So a ``TensorArrayValue`` is a buffer of
``capacity`` elements (allocated at the first write, when the element's dtype
and shape are known) and, for a ``dynamic_size`` array, its length so far.

A fixed-size array's capacity is its size. A dynamic one's capacity is the
largest size it reached when the program was observed running
(``runtime.xla.observe``); a write past it, or a ``stack`` at another size,
makes the call observe again and compile for the new size.

>>> import jax.numpy as jnp
>>> lst = allocate(TensorArrayValue(None, 3, 3, dynamic=False), jnp.int32, ())
>>> lst.buffer.shape, lst.length
((3,), 3)
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from runtime import errors


@jax.tree_util.register_pytree_node_class
class TensorArrayValue:
    """A TensorArray's value: ``buffer`` (``[capacity, *element]``, or None before the first
    write) and ``length`` (an int for a fixed size; an int32 array for a dynamic size)."""

    __slots__ = ("buffer", "length", "capacity", "dynamic")

    def __init__(self, buffer, length, capacity, dynamic):
        self.buffer = buffer
        self.length = length
        self.capacity = capacity
        self.dynamic = dynamic

    def tree_flatten(self):
        if self.dynamic:
            return (self.buffer, self.length), (self.capacity, True, None)
        return (self.buffer,), (self.capacity, False, self.length)

    @classmethod
    def tree_unflatten(cls, aux, children):
        capacity, dynamic, length = aux
        if dynamic:
            return cls(children[0], children[1], capacity, True)
        return cls(children[0], length, capacity, False)

    def element_spec(self):
        """``(dtype, shape)`` of an element, or None before the first write."""
        if self.buffer is None:
            return None
        return self.buffer.dtype, tuple(self.buffer.shape[1:])

    def kind(self):
        """What lax needs the same in both branches of a cond and in a loop's carry."""
        return self.capacity, self.dynamic, None if self.dynamic else self.length


def widened(lst, capacity):
    """``lst`` with room for at least ``capacity`` elements (zeros past its own) and its length
    known at run time: how two branches of a cond give back the lists of two reserve ops as
    one (a call that stacks it at another length than was observed is observed again)."""
    capacity = max(capacity, lst.capacity)
    buffer = None if lst.buffer is None else _widened_buffer(lst.buffer, capacity)
    return TensorArrayValue(buffer, jnp.asarray(lst.length, jnp.int32), capacity, dynamic=True)


def _widened_buffer(buffer, capacity):
    """``buffer`` with zeros after its rows up to ``capacity`` rows."""
    return padded(buffer, (capacity, *buffer.shape[1:]))


def padded(buffer, shape):
    """``buffer`` with zeros after its rows (and its inner lists' rows) up to ``shape``."""
    missing = [(0, max(want - have, 0)) for want, have in zip(shape, buffer.shape)]
    if not any(after for _, after in missing):
        return buffer
    return jnp.pad(buffer, missing)


def allocate(lst, dtype, element_shape):
    """``lst`` with a buffer of zeros for elements of ``dtype`` and ``element_shape``."""
    buffer = jnp.zeros((lst.capacity, *element_shape), dtype)
    return TensorArrayValue(buffer, lst.length, lst.capacity, lst.dynamic)


def lower_reserve(ctx, size, dynamic_size):
    size = int(size)
    if not dynamic_size:
        return TensorArrayValue(None, size, size, dynamic=False)
    capacity = max(ctx.capacity(), size)
    return TensorArrayValue(None, jnp.int32(size), capacity, dynamic=True)


def lower_write(ctx, lst, index, value, dynamic_size):
    value = jnp.asarray(value)
    if lst.buffer is None:
        lst = allocate(lst, value.dtype, value.shape)
    elif lst.element_spec() != (value.dtype, value.shape):
        raise errors.InvalidArgumentError(
            f"TensorArray: cannot stack elements of shapes {sorted({lst.element_spec()[1], value.shape})}"
        )
    if ctx.within(index, 0, lst.capacity - 1):  # a loop's counter below the size: no checks
        buffer = _written(lst.buffer, value, index)
        length = jnp.maximum(lst.length, index + 1) if lst.dynamic else lst.length
        return TensorArrayValue(buffer, length, lst.capacity, lst.dynamic)
    ctx.check(index < 0, "TensorArray: cannot write to negative index {0}", detail=index)
    length = lst.length
    if lst.dynamic:
        ctx.check(
            index >= lst.capacity,
            "TensorArray: a write at index {0} needs more room than was observed",
            detail=index,
            respecialize=True,
        )
        length = jnp.maximum(length, jnp.asarray(index, jnp.int32) + 1)
    else:
        ctx.check(
            index >= lst.capacity,
            "Tried to write to index {0} but array is not resizeable and size is: "
            + str(lst.capacity),
            detail=index,
        )
    return TensorArrayValue(_written(lst.buffer, value, index), length, lst.capacity, lst.dynamic)


def _written(buffer, value, index):
    if buffer.shape[0] == 0:  # no room at all: the write's check fails the call
        return buffer
    return lax.dynamic_update_index_in_dim(buffer, value, index, 0)


def lower_read(ctx, lst, index, element_dtype, element_shape):
    if lst.dynamic or not ctx.within(index, 0, lst.length - 1):
        ctx.check(
            (index < 0) | (index >= lst.length),
            "TensorArray: read index {0} out of range [0, {1})",
            detail=(index, lst.length),
        )
    if lst.buffer is None:
        if element_shape is None or None in element_shape:
            raise errors.InvalidArgumentError(
                "TensorArray: element 0 was never written and its shape is unknown"
            )
        return np.zeros(element_shape, element_dtype.as_numpy_dtype)
    if lst.buffer.shape[0] == 0:  # nothing to read: the check fails the call
        return jnp.zeros(lst.buffer.shape[1:], lst.buffer.dtype)
    return lax.dynamic_index_in_dim(lst.buffer, index, 0, keepdims=False)


def lower_stack(ctx, lst, element_dtype, element_shape, static_size):
    if lst.buffer is None:
        return _never_written(lst, element_dtype, element_shape)
    if not lst.dynamic:
        return lst.buffer
    length = ctx.capacity()  # what it was stacked at when observed: at most its capacity
    ctx.check(
        lst.length != length,
        "TensorArray: stacked at size {0}, not the size it had when observed",
        detail=lst.length,
        respecialize=True,
    )
    if length >= lst.capacity:  # (more, if the stack did not run when observed: a check fails)
        return _widened_buffer(lst.buffer, length)
    return lst.buffer[:length]


def _never_written(lst, element_dtype, element_shape):
    if element_shape is None or None in element_shape:
        if lst.capacity == 0:
            raise errors.InvalidArgumentError(
                "TensorArray: cannot stack an empty array of unknown element shape"
            )
        raise errors.InvalidArgumentError(
            "TensorArray: element 0 was never written and its shape is unknown"
        )
    return np.zeros((lst.capacity, *element_shape), element_dtype.as_numpy_dtype)


def lower_length(ctx, lst):
    if lst.dynamic:
        return lst.length
    return np.int32(lst.length)


def lower_from_tensor(ctx, value):
    n = int(np.shape(value)[0])
    return TensorArrayValue(jnp.asarray(value), n, n, dynamic=False)
