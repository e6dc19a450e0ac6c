"""What a gradient is taken with respect to: tensors and variables, and their zero gradients."""

from __future__ import annotations

from runtime.core.tensor import Tensor
from runtime.gradients.backprop import is_trainable
from runtime.ops.array_ops import zeros_like
from runtime.ops.broadcast_ops import zeros
from runtime.state.variables import Variable


def as_source_key(source, graph):
    """What the backward pass knows ``source`` by: the tensor itself; a variable eagerly, or its
    handle in ``graph``. A source that can have no gradient (integer, never read) gets a key
    nothing reaches."""
    if isinstance(source, Variable):
        if not is_trainable(source.dtype):
            return _Unreachable()
        if graph is None:
            return source
        handle = graph.variable_handles.get(id(source))
        return _Unreachable() if handle is None else handle
    if isinstance(source, Tensor):
        return source if is_trainable(source.dtype) else _Unreachable()
    raise TypeError(
        f"Cannot take a gradient with respect to {source!r}: sources must be tensors or "
        "rt.Variables (or structures of them)"
    )


class _Unreachable:
    """A key no op's input matches: its gradient is None."""

    __slots__ = ()


def zeros_for_source(source):
    """The gradient of ``source`` when nothing depends on it, for ``unconnected_gradients="zero"``."""
    if isinstance(source, Variable):
        return zeros(source.shape.as_list(), source.dtype)
    return zeros_like(source)
