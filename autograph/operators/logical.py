"""``and``, ``or``, ``not`` and ``x if c else y`` that also work on tensors, short-circuit kept.

The first operand is a value; the others are callables, evaluated only when
needed. On a symbolic tensor the rest becomes an ``rt.cond``.

>>> and_(0, lambda: 1 / 0)
0
>>> or_(2, lambda: 1 / 0)
2
"""

from __future__ import annotations

import runtime as rt
from autograph.operators.backends import staging


def and_(first, *rest):
    value = first
    for i, operand in enumerate(rest):
        backend = _staged_by(value)
        if backend is not None:
            value = backend.simplified(value)  # known on the branch being traced
            if backend.is_staged(value):
                return _staged(backend, value, rest[i:], and_, on_true=True)
        if not value:
            return value
        value = operand()
    return value


def or_(first, *rest):
    value = first
    for i, operand in enumerate(rest):
        backend = _staged_by(value)
        if backend is not None:
            value = backend.simplified(value)
            if backend.is_staged(value):
                return _staged(backend, value, rest[i:], or_, on_true=False)
        if value:
            return value
        value = operand()
    return value


def _staged_by(value):
    return None if type(value) is bool else staging(value)


def _staged(backend, value, rest, combine, on_true):
    """The rest of an and/or chain after a staged ``value``, as a staged conditional."""

    def go_on():
        return combine(rest[0](), *rest[1:])

    def stop():
        return value

    return backend.cond(value, go_on, stop) if on_true else backend.cond(value, stop, go_on)


def not_(value):
    backend = _staged_by(value)
    if backend is None:
        return rt.logical_not(value) if isinstance(value, rt.Tensor) else not value
    value = backend.simplified(value)
    return backend.logical_not(value) if backend.is_staged(value) else not value


def if_exp(condition, if_true, if_false):
    """``if_true() if condition else if_false()``; a staged conditional for a staged condition."""
    backend = _staged_by(condition)
    if backend is not None:
        condition = backend.simplified(condition)
        if backend.is_staged(condition):
            return backend.cond(condition, if_true, if_false)
    return if_true() if condition else if_false()
