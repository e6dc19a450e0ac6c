"""The values a JAX-staged statement carries: their leaves as JAX arrays, and what must agree.

A variable's value is a structure (``rt.nest``: tuples, lists, dicts) of leaves.
A leaf JAX can carry is a JAX array or tracer, or a number (Python or numpy),
which becomes an array of the dtype the default executor would give it
(``int`` -> int32, ``float`` -> float32: JAX's own defaults without x64).
Imported only by the JAX backend, once JAX is loaded.

>>> spec_of(3), spec_of(2.5), spec_of(True)
(((), dtype('int32')), ((), dtype('float32')), ((), dtype('bool')))
"""

from __future__ import annotations

import threading

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

_NUMBERS = (bool, int, float)


def is_array(value) -> bool:
    """A JAX array or tracer."""
    return isinstance(value, (jax.Array, jax.core.Tracer))


def is_number(value) -> bool:
    if type(value) in _NUMBERS:
        return True
    return isinstance(value, (np.generic, np.ndarray)) and value.dtype.kind in "biuf"


def stageable(value) -> bool:
    """Whether JAX control flow can carry ``value`` as one of its leaves."""
    return is_array(value) or is_number(value)


def spec_of(value):
    """``(shape, dtype)`` of a leaf as an array: JAX's for arrays, canonical for numbers."""
    if is_array(value):
        return tuple(value.shape), np.dtype(value.dtype)
    return np.shape(value), np.dtype(jax.dtypes.canonicalize_dtype(np.result_type(value)))


def as_array(value, dtype):
    """``value`` as a (not weakly typed) JAX array of ``dtype``."""
    if is_array(value):
        return lax.convert_element_type(value, dtype)
    return jnp.asarray(value, dtype=dtype)


def as_predicate(value):
    """A scalar bool array for a condition (a number is true when nonzero, as in Python)."""
    if type(value) is bool:
        return jnp.asarray(value)
    value = jnp.asarray(value)
    if value.shape != ():
        raise ValueError(
            f"The truth value of an array of shape {value.shape} is ambiguous: a tensor-dependent "
            "condition must be a scalar. Use jnp.any(...) or jnp.all(...)."
        )
    return value if value.dtype == jnp.bool_ else value != 0


def zeros_like_leaf(value):
    shape, dtype = spec_of(value)
    return jnp.zeros(shape, dtype)


# --- what tracing one branch knows: its condition's value --------------------------------------


class _Facts(threading.local):
    def __init__(self):
        self.known = {}  # id(tracer) -> (tracer, its value on the path being traced)
        self.negations = {}  # id(not x) -> (not x, x), for the nots the operators made


_facts = _Facts()


def remember_negation(result, operand):
    """``result`` is ``not operand``: what is known of one is known of the other."""
    _facts.negations[id(result)] = (result, operand)


class assuming:
    """While tracing the branch where the staged ``condition`` is ``value`` (see ``known``).

    If ``condition`` is ``not x`` (made by the operators), ``x`` is known too.
    """

    def __init__(self, condition, value):
        self.entries = [(condition, value)]
        link = _facts.negations.get(id(condition))
        while link is not None and link[0] is condition:
            condition, value = link[1], not value
            self.entries.append((condition, value))
            link = _facts.negations.get(id(condition))

    def __enter__(self):
        self.previous = [_facts.known.get(id(c)) for c, _ in self.entries]
        for condition, value in self.entries:
            _facts.known[id(condition)] = (condition, value)

    def __exit__(self, *exc):
        for (condition, _), previous in zip(self.entries, self.previous):
            if previous is None:
                del _facts.known[id(condition)]
            else:
                _facts.known[id(condition)] = previous
        if not _facts.known:
            _facts.negations.clear()  # the traces they belong to are over


def value_of(tracer):
    """True or False where ``tracer`` is known on the path being traced, else None."""
    negated = False
    while True:
        entry = _facts.known.get(id(tracer))
        if entry is not None and entry[0] is tracer:
            return entry[1] != negated
        link = _facts.negations.get(id(tracer))
        if link is None or link[0] is not tracer:
            return None
        tracer, negated = link[1], not negated
