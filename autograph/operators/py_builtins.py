"""Builtins that converted code calls instead of Python's, so that they also accept tensors.

>>> import runtime as rt
>>> range_(3)
range(0, 3)
>>> len_(rt.constant([1, 2, 3]))
3
"""

from __future__ import annotations

import builtins

import runtime as rt
from autograph.operators.backends import staging, staging_any
from autograph.operators.control_flow import is_symbolic


def range_(*args):
    """``range``; with a staged argument, the backend's range, so a ``for`` over it is staged."""
    backend = staging_any(args)
    if backend is not None:
        return backend.range(*args)
    return builtins.range(*(int(a) if isinstance(a, rt.Tensor) else a for a in args))


def len_(value):
    """``len``; a symbolic tensor of unknown length gives a tensor, a TensorArray its size."""
    if isinstance(value, rt.TensorArray):
        return value.size()
    if is_symbolic(value):
        first = value.shape[0] if value.shape.rank else None
        return first if first is not None else rt.shape(value)[0]
    return builtins.len(value)


def enumerate_(iterable, start=0):
    backend = staging(iterable)
    if backend is not None:
        return backend.enumerate(iterable, start)
    return builtins.enumerate(iterable, start)


def zip_(*iterables):
    backend = staging_any(iterables)
    if backend is not None:
        return backend.zip(*iterables)
    return builtins.zip(*iterables)


OVERRIDES = {
    builtins.range: range_,
    builtins.len: len_,
    builtins.enumerate: enumerate_,
    builtins.zip: zip_,
}
