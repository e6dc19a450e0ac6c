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
from autograph.operators.backends import PLAIN_TYPES, staging
from autograph.operators.staging_errors import marking


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
    return None if type(value) in PLAIN_TYPES else staging(value)


def _staged(backend, value, rest, combine, on_true):
    """The rest of an and/or chain after a staged ``value``, as a staged conditional."""

    def go_on():
        return combine(rest[0](), *rest[1:])

    def stop():
        return value

    with marking(go_on):
        return backend.cond(value, go_on, stop) if on_true else backend.cond(value, stop, go_on)


def not_(value):
    backend = _staged_by(value)
    if backend is None:
        return rt.logical_not(value) if isinstance(value, rt.Tensor) else not value
    value = backend.simplified(value)
    return backend.logical_not(value) if backend.is_staged(value) else not value


def if_exp(condition, if_true, if_false):
    """``if_true() if condition else if_false()``; the backend's conditional for a staged condition."""
    backend = _staged_by(condition)
    if backend is not None:
        condition = backend.simplified(condition)
        if backend.is_staged(condition):
            with marking(if_true, if_false):
                return backend.if_exp(condition, if_true, if_false)
    return if_true() if condition else if_false()


def staged_if_exp(condition, if_true, if_false):
    """``x if c else y`` on a symbolic condition: an ``rt.cond`` whose branches must give the
    same structure of the same dtypes."""
    values = []

    def branch(fn):
        def run():
            values.append(fn())
            if len(values) == 2:  # both traced: the second one checks them
                _check_if_exp_values(*values)
            return values[-1]

        return run

    return rt.cond(condition, branch(if_true), branch(if_false))


def _check_if_exp_values(a, b):
    try:
        rt.nest.assert_same_structure(a, b)
    except ValueError:
        raise ValueError(
            "a conditional expression (`x if c else y`) must return the same nested structure "
            f"in both branches, got {rt.nest.describe(a)} and {rt.nest.describe(b)}. If you "
            "only need its side effects, use an `if` statement; otherwise make both branches "
            "return the same structure, or use rt.cond."
        ) from None
    for x, y in zip(rt.nest.flatten(a), rt.nest.flatten(b)):
        if isinstance(x, rt.Tensor) and isinstance(y, rt.Tensor) and x.dtype is not y.dtype:
            raise TypeError(
                f"a conditional expression (`x if c else y`) has dtype {x.dtype.name} in the main "
                f"branch, but dtype {y.dtype.name} in the else branch; cast one of them "
                f"(rt.cast(..., rt.{x.dtype.name}))."
            )
