"""A JAX-staged ``if``'s primitives: each branch traced once into a jaxpr, joined by ``lax.cond``.

The ``if`` itself is the shared one (``staged_if``): it decides which variables
the conditional carries, and checks what the branches leave in them. Here each
branch is traced once, into a jaxpr (``jax.make_jaxpr``); ``lax.cond`` then
replays the two jaxprs, giving the leaves the statement asks for (which must
agree in dtype and shape, or the error names the variable, as the default
executor's does): the user's code runs once per branch, so nested ``if``s cost
what they contain, not twice as much per level.

>>> import jax
>>> from autograph.operators.jax_backend import JAX_BACKEND
>>> def magnitude_or_zero(x):
...     return JAX_BACKEND.cond(x > 0, lambda: x * 2, lambda: 0.0 * x)
>>> [float(jax.jit(magnitude_or_zero)(v)) for v in (3.0, -3.0)]
[6.0, -0.0]
"""

from __future__ import annotations

import contextlib
import functools
import sys
import threading

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

import runtime as rt
from autograph.operators.jax_values import as_array, as_predicate, is_array, spec_of
from autograph.operators.staged_if import StandIn, join, resolved
from autograph.operators.variables import is_undefined


def cond(backend, pred, true_fn, false_fn):
    """``true_fn() if pred else false_fn()``, staged: the value of a conditional expression."""
    (value,) = join(backend, pred, lambda: [true_fn()], lambda: [false_fn()], _EXPRESSION)
    return value


_EXPRESSION = ("the conditional's value",)


def trace_branch(run, name):
    """``(jaxpr, values)``: ``run`` traced once (one level deeper), and what it returned."""
    with _deeper():
        jaxpr, out = _trace(run)
    return _Branch(jaxpr, out), out


class _Branch:
    """A traced branch: its jaxpr (of the arrays among what it returned), and what it returned."""

    __slots__ = ("jaxpr", "out")

    def __init__(self, jaxpr, out):
        self.jaxpr, self.out = jaxpr, out


def cond_branches(backend, pred, true_branch, false_branch, true_leaves, false_leaves, labels):
    """The results of ``lax.cond`` (or ``jnp.where``) giving the leaves of the two branches;
    a leaf that is the same object in both is no result, but itself."""
    pred = as_predicate(pred)
    plan, results = [], []  # plan: per staged leaf, its sources in the two branches
    for label, a, b in zip(labels, true_leaves, false_leaves):
        if a is b:
            results.append(a)
            continue
        results.append(_Result(len(plan)))
        plan.append((a, b, _common_dtype(label, a, b)))
    on_true = _replay(backend, true_branch, [(p[0], p[2]) for p in plan])
    on_false = _replay(backend, false_branch, [(p[1], p[2]) for p in plan])
    if _selectable(true_branch.jaxpr, false_branch.jaxpr, plan):
        staged = [jnp.where(pred, t, f) for t, f in zip(on_true(), on_false())]
    else:
        staged = lax.cond(pred, on_true, on_false)
    return [staged[r.index] if isinstance(r, _Result) else r for r in results]


class _Result:
    """The place of a staged leaf among the results of ``lax.cond``."""

    __slots__ = ("index",)

    def __init__(self, index):
        self.index = index


class _Depth(threading.local):
    value = 0


_depth = _Depth()
_FRAMES_PER_LEVEL = 80  # Python frames of one traced branch: ours, the converted code's, JAX's
# Each level also takes some 4 KB of the C stack (JAX's tracing calls back into Python), so
# with no cap a recursion that a tensor decides (fib(n - 1) under `if n < 2`) would trace on
# until the C stack overflows and the process dies, about 2,000 levels in on an 8 MB stack.
MAX_NESTING = 400


@contextlib.contextmanager
def _deeper():
    """One more level of nested branches. Tracing one takes some 80 Python frames (most of
    them JAX's), so a chain of 100 ``elif``s would pass Python's default recursion limit of
    1000: it is raised as the nesting needs, and put back when the outermost ``if`` is done.
    Deeper than ``MAX_NESTING`` levels is Python's ``RecursionError``, as a recursion that
    never ends gives without a tensor."""
    if _depth.value >= MAX_NESTING:
        raise RecursionError(
            f"maximum recursion depth exceeded: more than {MAX_NESTING} tensor-dependent `if`s "
            "traced inside each other; a recursive function whose recursion stops on a tensor "
            "condition is traced for ever, since tracing takes both branches (recurse on Python "
            "values, or write the recursion as a loop)"
        )
    _depth.value += 1
    limit = sys.getrecursionlimit()
    needed = 1000 + _depth.value * _FRAMES_PER_LEVEL
    if needed > limit:
        sys.setrecursionlimit(needed)
    try:
        yield
    finally:
        _depth.value -= 1
        if needed > limit:
            sys.setrecursionlimit(limit)


_SELECT_AT_MOST = 8  # equations in each branch


def _selectable(true_jaxpr, false_jaxpr, plan):
    """Whether both branches may run, and ``jnp.where`` pick: a few pure scalar integer or bool
    equations each (the flags of ``break``, ``continue`` and ``return``), as a hand-written loop
    would test them. A ``lax.cond`` inside a loop costs more than such a branch. Floats always
    get a ``lax.cond``: running the branch not taken could make a NaN in a gradient."""
    for _, _, dtype in plan:
        if dtype.kind not in "biu":
            return False
    for closed in (true_jaxpr, false_jaxpr):
        jaxpr = closed.jaxpr
        if jaxpr.effects or len(jaxpr.eqns) > _SELECT_AT_MOST:
            return False
        for eqn in jaxpr.eqns:
            if eqn.primitive.name in _NOT_SELECTED:
                return False
            for var in eqn.outvars:
                aval = var.aval
                if aval.shape != () or np.dtype(aval.dtype).kind not in "biu":
                    return False
    return True


# Integer ops whose result on the branch not taken could fail or cost: they stay in lax.cond.
_NOT_SELECTED = frozenset({"cond", "while", "scan", "pjit", "jit", "div", "rem", "custom_jvp_call"})


def _trace(run):
    """``run`` traced once: its jaxpr (of the arrays among what it returns) and what it returned.

    The arrays returned are the trace's own (their shapes and dtypes are what
    is used of them); the jaxpr gives them again when ``lax.cond`` replays it.
    """
    returned = []

    def traced():
        out = run()
        returned.append(out)
        return [leaf for leaf in _leaves(out) if is_array(leaf)]

    return jax.make_jaxpr(traced)(), returned[0]


def fail_when_run(error):
    """The branch being traced raises ``error`` when the program takes it (a JAX callback)."""
    jax.debug.callback(functools.partial(_raise, error))


def _raise(error):
    raise error


def _leaves(values):
    for value in values:
        if not is_undefined(value):
            yield from rt.nest.flatten(value)


def _replay(backend, branch, sources):
    """The branch function for lax.cond: the traced branch again, giving the planned leaves."""
    positions = {}
    arrays = [leaf for leaf in _leaves(branch.out) if is_array(leaf)]
    for k, leaf in enumerate(arrays):
        positions.setdefault(id(leaf), k)
    jaxpr = branch.jaxpr

    def run():
        arrays = jax.core.eval_jaxpr(jaxpr.jaxpr, jaxpr.consts)
        return [
            as_array(
                arrays[positions[id(leaf)]] if is_array(leaf) else resolved(backend, leaf), dtype
            )
            for leaf, dtype in sources
        ]

    return run


def _spec(leaf):
    return spec_of(leaf.like) if isinstance(leaf, StandIn) else spec_of(leaf)


def _common_dtype(label, a, b):
    (a_shape, a_dtype), (b_shape, b_dtype) = _spec(a), _spec(b)
    if a_dtype != b_dtype:
        raise TypeError(
            f"{label} has dtype {a_dtype.name} in the main branch, but dtype {b_dtype.name} in "
            "the else branch. A variable leaves a tensor-dependent `if` with one dtype: cast one "
            f"of them (.astype(jnp.{a_dtype.name}))."
        )
    if a_shape != b_shape:
        raise ValueError(
            f"{label} has shape {a_shape} in the main branch, but shape {b_shape} in the else "
            "branch. Under JAX a variable leaves a tensor-dependent `if` with one shape."
        )
    return a_dtype
