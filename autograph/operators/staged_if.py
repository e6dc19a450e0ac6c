"""A staged ``if``, written once for every backend: what the branches leave in the variables, joined.

``if_stmt`` calls ``backend.stage_if`` (this module's ``stage_if``) when the
condition is staged. Each branch runs once, traced by the backend
(``Backend.trace_branch``), from the variables as the statement found them; what
the two leave in each variable decides what the conditional carries:

- a variable both leave as the same object (a list holding the same objects)
  passes through, unstaged;
- an optional variable (one only closures read) they leave unalike is left undefined;
- a value one branch cannot give (a ``return`` value not given yet, or any
  variable while a loop's body is probed) is a stand-in of the other's type;
- the others must agree (defined on both paths, one structure, leaves the backend
  can return), or the error names the variable; their leaves go to the backend's
  conditional (``Backend.cond_branches``), and the variables hold its results.

A list or dict the branches change in place is staged by its contents, and
holds the results afterwards (the same object, as in Python). A branch that
reads a variable it cannot have (a ``return`` before it skips it in Python) is
staged as one that fails when the program takes it, as Python would fail.

>>> import runtime as rt
>>> from autograph.operators.runtime_backend import RUNTIME
>>> from autograph.operators.state import State
>>> def f(x):
...     def if_true():
...         nonlocal y
...         y = x * 2
...     def if_false():
...         nonlocal y
...         y = -x
...     y = 0
...     RUNTIME.stage_if(x > 0, if_true, if_false, State(("y",), if_true, if_false))
...     return y
>>> g = rt.Graph()
>>> with g.as_default():
...     x = rt.placeholder(rt.int32, [])
...     y = f(x)
>>> [rt.Session(g).run(y, {x: v}) for v in (3, -3)]
[np.int32(6), np.int32(3)]
"""

from __future__ import annotations

import threading

import runtime as rt
from autograph.operators.data_structures import (
    check_list_lengths,
    contents,
    is_container,
    set_contents,
    unchanged,
)
from autograph.operators.variables import Undefined, UndefinedReturnValue, is_undefined


class StandIn:
    """A leaf one branch cannot give: the backend makes ``stand_in(like)`` in that branch."""

    __slots__ = ("like",)

    def __init__(self, like):
        self.like = like


def resolved(backend, leaf):
    """``leaf`` as a branch gives it: a ``StandIn`` made by the backend (called in the branch)."""
    if isinstance(leaf, StandIn):
        made = backend.stand_in(leaf.like)
        return leaf.like if made is None else made
    return leaf


class _Probing(threading.local):
    depth = 0


probing = _Probing()
"""``probing.depth``: how many loop bodies are being traced once to learn their variables' types
(``staged_loops``); a value one branch leaves undefined then gets a stand-in, as only its type matters."""


def stage_if(backend, cond, if_true, if_false, state):
    """``Backend.stage_if``: the variables of ``state`` hold what the staged conditional gives.

    A plain function, bound as the method: a chain of 100 ``elif``s nests 100
    staged ``if``s, and every frame counts towards Python's recursion limit.
    """
    saved = state.save()
    initial = saved[0]
    # A list or dict the branches change in place is staged by its contents: each branch
    # starts from what it held, and gives what it leaves in it.
    containers = {i: (v, contents(v)) for i, v in enumerate(initial) if is_container(v)}
    kept = {True: {}, False: {}}  # per branch: where the container is still the variable

    def restore():
        state.set(initial)
        for container, held in containers.values():
            set_contents(container, held)

    def branch(fn, taken):
        def run():
            restore()
            with backend.assuming(cond, taken):
                fn()
            out = list(state.get())
            for i, (container, _) in containers.items():
                kept[taken][i] = out[i] is container
                if out[i] is container:
                    out[i] = contents(container)
            return out

        return run

    before = [containers[i][1] if i in containers else v for i, v in enumerate(initial)]
    try:
        true_run, false_run = branch(if_true, True), branch(if_false, False)
        final = join(
            backend, cond, true_run, false_run, state.names, state.optional, before, restore
        )
        for i, (container, held) in containers.items():
            if isinstance(final[i], Undefined):  # an optional one: nothing reads it later,
                set_contents(container, held)  # but later code may change it: as it was
                final[i] = container
            elif _kept(kept, True, i) and _kept(kept, False, i):
                set_contents(container, final[i])  # the same object, holding the results
                final[i] = container
            else:  # a branch gave the variable another object: this one is left as it was
                set_contents(container, held)
    except BaseException:
        state.restore(saved)
        raise
    state.set(final)


def _kept(kept, branch, i):
    """Whether ``branch`` left the container at ``i`` in its variable; a branch that fails when
    taken (it did not finish) gives what the other one does."""
    return kept[branch].get(i, kept[not branch].get(i, False))


def join(
    backend, pred, true_run, false_run, names, optional=frozenset(), before=None, restore=None
):
    """The values (one per name) after the backend's conditional on ``pred`` of what the two
    runs return (a list each, one value per name).

    With ``before`` (the values before an ``if`` statement, containers by their contents), a
    branch that reads a variable it cannot have fails when the program takes it, as Python
    would, not while it is traced; ``restore()`` then makes the variables as they were.
    """
    true_branch, true_out = _traced(backend, true_run, "if_true", before is not None)
    false_branch, false_out = _traced(backend, false_run, "if_false", before is not None)
    # While a loop's first iteration is traced to learn what its new variables become, the
    # error goes to the loop: a variable whose next value depends on one it does not have
    # yet must be defined before the loop, as TensorFlow says.
    failed = [b for b in (true_branch, false_branch) if isinstance(b, UnboundLocalError)]
    if failed and ((probing.depth and backend.probe_fails_on_unbound) or len(failed) == 2):
        raise failed[0]
    if isinstance(true_branch, UnboundLocalError):
        true_branch, true_out = _failing(
            backend, true_branch, false_out, before, restore, "if_true"
        )
    if isinstance(false_branch, UnboundLocalError):
        false_branch, false_out = _failing(
            backend, false_branch, true_out, before, restore, "if_false"
        )
    true_out, false_out = list(true_out), list(false_out)
    staged = [i for i, (a, b) in enumerate(zip(true_out, false_out)) if not unchanged(a, b)]
    # An optional variable the branches leave in ways one value cannot join is left undefined.
    dropped = {
        i for i in staged if names[i] in optional and not agree(backend, true_out[i], false_out[i])
    }
    staged = [i for i in staged if i not in dropped]
    plan = _Plan(backend, names, staged, true_out, false_out, true_branch, false_branch)
    results = backend.cond_branches(
        pred, true_branch, false_branch, plan.true_leaves, plan.false_leaves, plan.labels
    )
    final = plan.unpacked(results)
    for i in dropped:
        final[i] = Undefined(names[i])
    if failed:
        # A return value no path gave yet: unless later code gives it one, the function
        # fails as the failing branch does (see variables.returned).
        for i, value in enumerate(final):
            if isinstance(value, UndefinedReturnValue) and value.guarded and value.failure is None:
                final[i] = UndefinedReturnValue(guarded=True, failure=failed[0])
    return final


class _Plan:
    """The leaves the conditional gives for the staged variables (at positions ``staged``),
    made to agree; then, from its results, the variables' values."""

    def __init__(self, backend, names, staged, true_out, false_out, true_branch, false_branch):
        self.backend, self.names, self.staged = backend, names, staged
        self.true_out, self.false_out = true_out, false_out  # made to agree, in place
        self.true_leaves, self.false_leaves, self.labels = [], [], []
        # Each staged variable may be a structure (a tuple, a list): the conditional carries
        # its leaves.
        for i in staged:
            a, b = _agreeing(
                backend, names[i], true_out[i], false_out[i], true_branch, false_branch
            )
            true_out[i], false_out[i] = a, b
            a_leaves = rt.nest.flatten(a)
            self.true_leaves += a_leaves
            self.false_leaves += rt.nest.flatten(b)
            self.labels += [f"'{names[i]}'"] * len(a_leaves)
        # A value a loop may not have set (see operators.unset) takes its flag along.
        self.flagged = [
            i
            for i in staged
            if backend.unset_flag(true_out[i]) is not None
            or backend.unset_flag(false_out[i]) is not None
        ]
        for i in self.flagged:
            for leaves, value in (
                (self.true_leaves, true_out[i]),
                (self.false_leaves, false_out[i]),
            ):
                flag = backend.unset_flag(value)
                leaves.append(True if flag is None else flag)
            self.labels.append(f"<{names[i]} set>")

    def unpacked(self, results):
        """The variables' values after the conditional gave ``results`` (one per leaf)."""
        final, start = list(self.true_out), 0
        for i in self.staged:
            # What the result may be: either branch's (a TensorArray's size, if they agree).
            template = rt.nest.join(self.true_out[i], self.false_out[i])
            count = len(rt.nest.flatten(template))
            final[i] = rt.nest.pack_sequence_as(template, results[start : start + count])
            start += count
        for i, flag in zip(self.flagged, results[start:]):
            self.backend.mark_unset(final[i], flag, self.names[i])
        return final


def _traced(backend, run, name, may_fail):
    """``backend.trace_branch(run, name)``, or (with ``may_fail``) the UnboundLocalError it raised."""
    try:
        return backend.trace_branch(run, name)
    except UnboundLocalError as error:
        if not may_fail:
            raise
        return error, None


def _agreeing(backend, name, a, b, a_branch, b_branch):
    """What two branches leave in ``name``, made to agree, or the error that names it."""
    # A list that one branch made a list of the backend's (a staged loop's) is one in both.
    a = backend.like_other_branch(a, b, a_branch)
    b = backend.like_other_branch(b, a, b_branch)
    check_list_lengths(name, a, b)
    # While a loop body is probed, only the types matter; else a `return` value a `do_return`
    # flag guards may be unset on one path: a stand-in of the other's type is never used.
    a, b = _filled(backend, a, b), _filled(backend, b, a)
    check_branch_values(name, a, b, lambda leaf: _stageable(backend, leaf))
    return a, b


def _filled(backend, value, other):
    if not (probing.depth or (isinstance(value, UndefinedReturnValue) and value.guarded)):
        return value
    if is_undefined(value) and not is_undefined(other):
        leaves = rt.nest.flatten(other)
        if all(backend.stageable(leaf) for leaf in leaves):
            return rt.nest.pack_sequence_as(other, [StandIn(leaf) for leaf in leaves])
    return value


def _stageable(backend, leaf):
    return isinstance(leaf, StandIn) or backend.stageable(leaf)


def _failing(backend, error, other_out, before, restore, name):
    """A branch that raises ``error`` when the program takes it, and gives what the other
    branch gives: the values as they were where it left them so, else stand-ins (never used)."""

    def run():
        restore()
        backend.fail_when_run(error)
        return [
            was if unchanged(other, was) else stand_in_like(backend, other)
            for other, was in zip(other_out, before)
        ]

    return backend.trace_branch(run, name)


def stand_in_like(backend, value):
    """A value of ``value``'s structure, its leaves the backend's stand-ins (where it has one)."""
    if is_undefined(value) or value is None:
        return value
    return rt.nest.map_structure(lambda leaf: resolved(backend, StandIn(leaf)), value)


def agree(backend, a, b):
    """Whether one staged value can stand for what two branches left in a variable: both
    defined, the same structure, and each pair of leaves stageable, of one ``kind_of``."""
    if is_undefined(a) or is_undefined(b) or (a is None) != (b is None):
        return False
    try:
        rt.nest.assert_same_structure(a, b)
    except (TypeError, ValueError):
        return False
    return all(
        backend.stageable(x) and backend.stageable(y) and backend.kind_of(x) == backend.kind_of(y)
        for x, y in zip(rt.nest.flatten(a), rt.nest.flatten(b))
    )


def check_branch_values(name, a, b, stageable):
    """What two branches leave in ``name`` can be joined: defined on both paths or neither, the same
    structure, leaves the backend can return (``stageable``)."""
    # TensorFlow's words first ("main" and "else" branch), then what to do.
    if type(a) is Undefined and type(b) is Undefined:  # `del x` in both branches, say
        raise ValueError(
            f"'{name}' must also be initialized in the main and else branches: neither branch of "
            "a tensor-dependent `if` leaves it a value, and it is read after the `if`."
        )
    for value, this, other, other_value in ((a, "main", "else", b), (b, "else", "main", a)):
        if is_undefined(value) and not is_undefined(other_value):
            if isinstance(value, UndefinedReturnValue):
                raise ValueError(
                    f"the {this} branch must also have a return statement: the function returns "
                    f"a value in the {other} branch of a tensor-dependent `if`, and every branch "
                    "must return a value (or none must)."
                )
            raise ValueError(
                f"'{name}' must also be initialized in the {this} branch: it has a value in the "
                f"{other} branch of a tensor-dependent `if`, and a graph needs a value for it on "
                "both paths."
            )
        if value is None and other_value is not None:
            raise ValueError(
                f"'{name}' is None in the {this} branch of a tensor-dependent `if` but a value in the "
                f"{other} branch; a graph needs a tensor on both paths."
            )
    try:
        rt.nest.assert_same_structure(a, b)
    except ValueError:
        raise rt.errors.NestedStructureError(
            f"'{name}' must have the same nested structure in the main and else branches: it is "
            f"{rt.nest.describe(a)} in one and {rt.nest.describe(b)} in the other, and a graph "
            "needs the same on both paths of a tensor-dependent `if`."
        ) from None
    for value, which in ((a, "main"), (b, "else")):
        for leaf in rt.nest.flatten(value):
            if not stageable(leaf):
                raise TypeError(
                    f"'{name}' holds a {type(leaf).__name__} in the {which} branch of a "
                    "tensor-dependent `if`, which a graph cannot return; only tensors and numbers "
                    "can differ between branches."
                )
