"""The JAX backend: converted code under ``jax.jit`` builds ``lax.cond`` and ``lax.while_loop``.

A value is staged when it is a JAX tracer whose value is not known while
tracing (inside ``jax.jit``, ``lax.cond``, ``vmap``...): an ``if`` on it becomes
``lax.cond`` (the shared ``staged_if``, over ``jax_conditionals``' primitives), a ``while`` ``lax.while_loop`` and a ``for``
over an array or a ``range`` of one ``lax.fori_loop`` (``jax_loops``). A tracer
with a known value (``jax.grad`` outside ``jit``) is a Python value, as JAX
itself treats it. ``autograph.operators.backends`` loads this module only once
JAX is imported.

>>> import jax, jax.numpy as jnp
>>> import autograph as ag
>>> def clip_steps(x, n):
...     for i in range(n):
...         if x > 10.0:
...             break
...         x = x * 2.0
...     return x
>>> float(jax.jit(ag.to_graph(clip_steps))(3.0, 5))
12.0
"""

from __future__ import annotations

import builtins
import functools

import jax
import jax.numpy as jnp
import numpy as np

from autograph.operators import jax_conditionals, jax_loops, jax_values
from autograph.operators.backend_protocol import Backend
from autograph.operators.jax_values import as_predicate, is_array, remember_negation, value_of
from autograph.operators.kinds import IterationKind


class JaxBackend(Backend):
    """The operators' ``Backend`` for JAX."""

    name = "jax"

    def is_staged(self, value):
        if isinstance(value, _Iteration):
            return True
        if not isinstance(value, jax.core.Tracer):
            return False
        return value.to_concrete_value() is None

    def simplified(self, value):
        if isinstance(value, jax.core.Tracer):
            known = value_of(value)
            if known is not None:
                return known
        return value

    # --- a staged `if`: jaxprs, and lax.cond ---------------------------------------------

    assuming = staticmethod(jax_values.assuming)
    trace_branch = staticmethod(jax_conditionals.trace_branch)
    cond_branches = jax_conditionals.cond_branches
    fail_when_run = staticmethod(jax_conditionals.fail_when_run)
    stageable = staticmethod(jax_values.stageable)
    kind_of = staticmethod(jax_values.spec_of)

    def stand_in(self, leaf):
        return jax_values.zeros_like_leaf(leaf) if jax_values.stageable(leaf) else None

    cond = if_exp = jax_conditionals.cond

    # --- loops: lax.while_loop, lax.fori_loop ---------------------------------------------

    probe_fails_on_unbound = False
    checks_created_parts = False
    carries_contents = True  # a list keeps its length, and is changed in place
    # Loop options (set_loop_options) are the runtime's: lax loops have no shape invariants.
    while_loop = staticmethod(jax_loops.while_loop)
    probe = staticmethod(jax_loops.probe)
    loop_value = staticmethod(jax_loops.loop_value)
    loop_variable_kinds = jax_loops.LOOP_VARIABLE_KINDS
    predicate = staticmethod(as_predicate)
    require_set = staticmethod(jax_loops.require_set)

    def iteration(self, iterable):
        if not isinstance(iterable, _Iteration):
            iterable = _Iteration(IterationKind.OVER, [_iterable(iterable)])
        return iterable.length(), iterable.item

    # --- values --------------------------------------------------------------------------

    def logical_not(self, value):
        result = jnp.logical_not(value)
        remember_negation(result, value)
        return result

    def logical_and(self, a, b):
        return jnp.logical_and(a, b)

    def range(self, *args):
        if len(args) == 3 and type(args[2]) is int and args[2] == 0:
            raise ValueError("range() arg 3 must not be zero")
        return _Iteration(IterationKind.RANGE, [jnp.asarray(a) for a in args])

    def print(self, objects, sep, end, file):
        # Each time the program runs, in program order; the arrays as numpy prints them.
        arrays = [o for o in objects if is_array(o)]

        def write(*values):
            values = iter(values)
            shown = [np.asarray(next(values)) if is_array(o) else o for o in objects]
            builtins.print(*shown, sep=sep, end=end, file=file)

        jax.debug.callback(write, *arrays, ordered=True)

    def assert_(self, test, message):
        jax.debug.callback(functools.partial(_check, message=message), as_predicate(test))

    def enumerate(self, iterable, start=0):
        return _Iteration(IterationKind.ENUMERATE, [_iterable(iterable)], start)

    def zip(self, *iterables):
        return _Iteration(IterationKind.ZIP, [_iterable(t) for t in iterables])


def _check(test, message):
    if not test:
        raise AssertionError(message)


def _iterable(value):
    """A part of an enumerate or zip: an iteration, or an array over its first dimension."""
    if isinstance(value, _Iteration):
        return value
    value = jnp.asarray(value)
    if value.ndim == 0:
        raise TypeError("iteration over a 0-d array")
    return value


class _Iteration:
    """What a staged ``for`` iterates over: an array's rows, a range, an enumerate or a zip
    (of arrays, ranges, or other iterations)."""

    def __init__(self, kind, parts, start=0):
        self.kind, self.parts, self.start = kind, parts, start

    def length(self):
        """How many items: a Python int for arrays (known while tracing), else a tracer."""
        if self.kind == IterationKind.RANGE:
            start, stop, step = _range_bounds(self.parts)
            if step is None:  # step 1: as many as stop - start (none if negative, to fori_loop)
                return stop if start is None else stop - start
            # ceil((stop - start) / step), for either sign of step; none if negative
            start = 0 if start is None else start
            return jnp.maximum(-((start - stop) // step), 0).astype(jnp.int32)
        lengths = [
            part.length() if isinstance(part, _Iteration) else part.shape[0] for part in self.parts
        ]
        if all(type(n) is int for n in lengths):
            return min(lengths)
        return functools.reduce(jnp.minimum, lengths)

    def item(self, i):
        if self.kind == IterationKind.RANGE:
            start, _, step = _range_bounds(self.parts)
            if step is None:
                return i if start is None else start + i
            return (0 if start is None else start) + i * step
        items = tuple(
            part.item(i) if isinstance(part, _Iteration) else part[i] for part in self.parts
        )
        if self.kind == IterationKind.OVER:
            return items[0]
        return (i + self.start, items[0]) if self.kind == IterationKind.ENUMERATE else items


def _range_bounds(args):
    """``(start, stop, step)``; None for a start or step not given (0, 1)."""
    if len(args) == 1:
        return None, args[0], None
    if len(args) == 2:
        return args[0], args[1], None
    return tuple(args)


JAX_BACKEND = JaxBackend()
