"""The values a runtime-staged statement carries: which leaves a graph can return, and stand-ins.

Imported by the runtime backend (``runtime_backend``) and its staged loops.

>>> import runtime as rt
>>> stageable(rt.constant(1)), stageable(3), stageable(object())
(True, True, False)
>>> zeros_like_spec(rt.TensorSpec([None, 2], rt.float32)).shape
TensorShape([0, 2])
"""

from __future__ import annotations

import numpy as np

import runtime as rt

_STAGEABLE = (rt.Tensor, rt.Variable, rt.TensorArray, np.generic, np.ndarray, str, bytes)


def stageable(value) -> bool:
    """Whether a graph conditional can return ``value`` as one of its leaves."""
    return isinstance(value, _STAGEABLE) or type(value) in (bool, int, float)


# A variable a loop creates is learned from one traced iteration only if it holds one of
# these (TensorFlow's rule): a string or numpy value must be defined before the loop.
_LEARNABLE = (rt.Tensor, rt.Variable, rt.TensorArray, bool, int, float)


def learnable(value) -> bool:
    """Whether a loop may create a variable holding ``value``, starting it from a stand-in.

    >>> learnable(rt.constant(1.0)), learnable(2), learnable("s"), learnable(np.float32(1))
    (True, True, False, False)
    """
    return isinstance(value, _LEARNABLE)


def kind_of(value):
    """What two leaves must share to be one graph value: a tensor's dtype, else the type."""
    return value.dtype if isinstance(value, (rt.Tensor, rt.Variable)) else type(value)


def stand_in(value):
    """A value of ``value``'s type made in the graph being built (zeros), or None for a variable
    (it stays itself) and for what a graph cannot hold."""
    if isinstance(value, rt.TensorArray):
        return type(value)(value.dtype, 0, True, value.element_shape)
    if not stageable(value):
        return None
    return zeros_like_spec(value if isinstance(value, rt.Tensor) else rt.convert_to_tensor(value))


def zeros_like_spec(t):
    """A value of ``t``'s dtype and shape (unknown dims 0): zeros, empty strings, or for a
    ``variant`` (a TensorArray's flow) an empty list."""
    dims = [0 if d is None else d for d in t.shape.as_list()] if t.shape.rank is not None else []
    if t.dtype is rt.variant:
        return rt.TensorArray(None, size=0, dynamic_size=True).flow
    if t.dtype is rt.string:
        return rt.fill(dims, rt.constant(b""))
    return rt.zeros(dims, t.dtype)
