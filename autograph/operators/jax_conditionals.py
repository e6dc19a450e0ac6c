"""A JAX-staged ``if`` (and ``x if c else y``): both branches traced once, joined by ``lax.cond``.

Each branch is traced once, into a jaxpr (``jax.make_jaxpr``), with the
variables as the statement found them. What the two leave in each variable
decides what the conditional returns: a variable both leave alone (the same
object) is not staged; the others must agree in structure, dtype and shape, or
the error names the variable, as the default executor's does. ``lax.cond``
then replays the two jaxprs: the user's code runs once per branch, so nested
``if``s cost what they contain, not twice as much per level.

>>> import jax, jax.numpy as jnp
>>> from autograph.operators.state import State
>>> def f(x):
...     def if_true():
...         nonlocal y
...         y = x * 2
...     def if_false():
...         nonlocal y
...         y = -x
...     y = 0.0
...     staged_if(x > 0, if_true, if_false, State(("y",), if_true, if_false))
...     return y
>>> [float(jax.jit(f)(v)) for v in (3.0, -3.0)]
[6.0, 3.0]
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
from autograph.operators.conditionals import _agree, _check_branch_values
from autograph.operators.data_structures import (
    check_list_lengths,
    contents,
    is_container,
    set_contents,
    unchanged,
)
from autograph.operators.jax_values import (
    as_array,
    as_predicate,
    assuming,
    is_array,
    spec_of,
    stageable,
    zeros_like_leaf,
)
from autograph.operators.variables import Undefined, UndefinedReturnValue, is_undefined


def staged_if(cond, if_true, if_false, state):
    """The variables of ``state`` hold what ``lax.cond`` gives for them after the two branches."""
    saved = state.save()
    initial = saved[0]
    containers = {i: v for i, v in enumerate(initial) if is_container(v)}

    def branch(fn, taken):
        def run():
            state.restore(saved)
            with assuming(cond, taken):
                fn()
            out = list(state.get())
            for i, container in containers.items():
                if out[i] is container:  # changed in place (or not at all): its contents
                    out[i] = contents(container)
            return out

        return run

    try:
        joined = join(
            cond,
            branch(if_true, True),
            branch(if_false, False),
            state.names,
            state.optional,
            held_before={i: contents(c) for i, c in containers.items()},
            before=[contents(v) if i in containers else v for i, v in enumerate(initial)],
        )
    finally:
        state.restore(saved)
    final = list(joined)
    for i, container in containers.items():
        if isinstance(final[i], Undefined):
            # An optional container the branches change unalike: nothing reads it later, but
            # later code may change it: it stays, as it was (as with the runtime).
            final[i] = container
        elif is_container(final[i]) and type(final[i]) is type(container):
            set_contents(container, final[i])  # the same object, holding the results
            final[i] = container
    state.set(final)


def cond(pred, true_fn, false_fn):
    """``true_fn() if pred else false_fn()``, staged: the value of a conditional expression."""
    (value,) = join(
        pred, lambda: [true_fn()], lambda: [false_fn()], ("the conditional's value",), frozenset()
    )
    return value


def join(pred, true_run, false_run, names, optional, held_before=None, before=None):
    """The values (one per name) after ``lax.cond(pred, ...)`` of what the two runs return.

    ``held_before``: per position, what a variable held before (a container's
    contents), so that branches that leave it so do not stage it. With
    ``before`` (the variables' values before an ``if`` statement), a branch
    that reads a variable it cannot have (a ``return`` before it, say, skips
    it in Python) fails when the program takes it, as Python would, not while tracing.
    """
    pred = as_predicate(pred)
    with _deeper():
        true_jaxpr, true_out = _trace(true_run, before is not None)
        false_jaxpr, false_out = _trace(false_run, before is not None)
        if isinstance(true_jaxpr, UnboundLocalError):
            if isinstance(false_jaxpr, UnboundLocalError):
                raise true_jaxpr
            true_jaxpr, true_out = _failing(true_jaxpr, false_out, before)
        elif isinstance(false_jaxpr, UnboundLocalError):
            false_jaxpr, false_out = _failing(false_jaxpr, true_out, before)
    held_before = held_before or {}
    final, plan = [], []  # plan: per staged leaf, its sources in the two branches
    for i, name in enumerate(names):
        a, b = true_out[i], false_out[i]
        if a is b or (
            i in held_before and unchanged(a, held_before[i]) and unchanged(b, held_before[i])
        ):
            final.append(a)
            continue
        if name in optional and not _agree(a, b, _leaves_agree):
            final.append(Undefined(name))
            continue
        a, b = _fill_guarded(a, b), _fill_guarded(b, a)
        check_list_lengths(name, a, b)
        _check_branch_values(name, a, b, _stageable)
        leaves = []
        for a_leaf, b_leaf in zip(rt.nest.flatten(a), rt.nest.flatten(b)):
            if a_leaf is b_leaf:
                leaves.append(a_leaf)
                continue
            dtype = _common_dtype(name, a_leaf, b_leaf)
            leaves.append(_Result(len(plan)))
            plan.append((a_leaf, b_leaf, dtype))
        final.append(_Joined(a, leaves))
    on_true = _replay(true_jaxpr, true_out, [(p[0], p[2]) for p in plan])
    on_false = _replay(false_jaxpr, false_out, [(p[1], p[2]) for p in plan])
    if _selectable(true_jaxpr, false_jaxpr, plan):
        results = [jnp.where(pred, t, f) for t, f in zip(on_true(), on_false())]
    else:
        results = lax.cond(pred, on_true, on_false)
    out = []
    for value in final:
        if isinstance(value, _Joined):
            leaves = [results[k.index] if isinstance(k, _Result) else k for k in value.leaves]
            value = rt.nest.pack_sequence_as(value.template, leaves)
        out.append(value)
    return out


class _Result:
    """The place of a staged leaf among the results of ``lax.cond``."""

    __slots__ = ("index",)

    def __init__(self, index):
        self.index = index


class _Joined:
    """A staged value: its structure, and per leaf the leaf itself or a ``_Result``."""

    __slots__ = ("template", "leaves")

    def __init__(self, template, leaves):
        self.template, self.leaves = template, leaves


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


def _trace(run, may_fail=False):
    """``run`` traced once: its jaxpr (of the arrays among what it returns) and what it returned.

    The arrays returned are the trace's own (their shapes and dtypes are what
    is used of them); the jaxpr gives them again when ``lax.cond`` replays it.
    ``may_fail``: an UnboundLocalError is given back (as the jaxpr), not raised.
    """
    returned = []

    def traced():
        out = run()
        returned.append(out)
        return [leaf for leaf in _leaves(out) if is_array(leaf)]

    try:
        return jax.make_jaxpr(traced)(), returned[0]
    except UnboundLocalError as error:
        if not may_fail:
            raise
        return error, None


def _failing(error, other_out, before):
    """A branch that raises ``error`` when the program runs it (a JAX callback), and gives
    what the other branch gives: the values as they were where it left them so, else zeros
    of the same types (never used)."""

    def run():
        jax.debug.callback(functools.partial(_raise, error))
        return [
            was if unchanged(other, was) or is_undefined(other) else _stand_in(other)
            for other, was in zip(other_out, before)
        ]

    return _trace(run)


def _raise(error):
    raise error


def _stand_in(value):
    if value is None:
        return None
    return rt.nest.map_structure(
        lambda leaf: zeros_like_leaf(leaf) if stageable(leaf) else leaf, value
    )


def _leaves(values):
    for value in values:
        if not is_undefined(value):
            yield from rt.nest.flatten(value)


def _replay(jaxpr, out, sources):
    """The branch function for lax.cond: the traced branch again, giving the planned leaves."""
    positions = {}
    arrays = [leaf for leaf in _leaves(out) if is_array(leaf)]
    for k, leaf in enumerate(arrays):
        positions.setdefault(id(leaf), k)

    def run():
        arrays = jax.core.eval_jaxpr(jaxpr.jaxpr, jaxpr.consts)
        return [
            as_array(arrays[positions[id(leaf)]] if is_array(leaf) else leaf, dtype)
            if not isinstance(leaf, _Zeros)
            else leaf.make(dtype)
            for leaf, dtype in sources
        ]

    return run


class _Zeros:
    """A stand-in leaf: zeros shaped like ``like`` (what the other branch gives)."""

    def __init__(self, like):
        self.like = like

    def make(self, dtype):
        return as_array(zeros_like_leaf(self.like), dtype)


def _fill_guarded(value, other):
    """A return value a ``do_return`` flag guards may be unset on one path: zeros stand in."""
    if isinstance(value, UndefinedReturnValue) and value.guarded and not is_undefined(other):
        leaves = rt.nest.flatten(other)
        if all(stageable(leaf) for leaf in leaves):
            return rt.nest.pack_sequence_as(other, [_Zeros(leaf) for leaf in leaves])
    return value


def _stageable(leaf):
    return isinstance(leaf, _Zeros) or stageable(leaf)


def _spec(leaf):
    return spec_of(leaf.like) if isinstance(leaf, _Zeros) else spec_of(leaf)


def _common_dtype(name, a, b):
    (a_shape, a_dtype), (b_shape, b_dtype) = _spec(a), _spec(b)
    if a_dtype != b_dtype:
        raise TypeError(
            f"'{name}' has dtype {a_dtype.name} in the main branch, but dtype {b_dtype.name} in "
            "the else branch. A variable leaves a tensor-dependent `if` with one dtype: cast one "
            f"of them (.astype(jnp.{a_dtype.name}))."
        )
    if a_shape != b_shape:
        raise ValueError(
            f"'{name}' has shape {a_shape} in the main branch, but shape {b_shape} in the else "
            "branch. Under JAX a variable leaves a tensor-dependent `if` with one shape."
        )
    return a_dtype


def _leaves_agree(x, y):
    """Whether one staged leaf can stand for two (an optional variable's, see ``_agree``)."""
    return stageable(x) and stageable(y) and _spec(x) == _spec(y)
