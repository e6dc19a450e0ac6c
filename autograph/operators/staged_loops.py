"""Staged ``while`` and ``for`` loops, written once for every backend: the variables a loop carries.

``while_stmt`` and ``for_stmt`` call ``backend.stage_while`` / ``stage_for``
(this module's) when the test or the iterable is staged. The loop carries the
variables its statement names (``State``), each a structure of leaves, through
the backend's loop primitive (``Backend.while_loop``); what an iteration leaves
in each is checked against what entered, and errors name the variable:

- a variable with no value before the loop (first assigned in the body, or the
  return value of a ``return`` inside it) is learned from one iteration traced
  once (``Backend.probe``, as TensorFlow does): it enters as a stand-in of that
  type, with a flag saying whether an iteration set it, so that reading it after
  a loop that ran zero times fails as Python would (``operators.unset``);
- an optional variable (one only closures read) that has no value, or that the
  backend cannot carry, is left as it is;
- a ``for`` loop is a loop over an index: ``Backend.iteration`` says how many
  items, and the item at an index.

>>> import runtime as rt
>>> from autograph.operators.runtime_backend import RUNTIME
>>> from autograph.operators.state import State
>>> def count_halvings(x):
...     n = 0
...     def loop_test():
...         return x > 1
...     def loop_body():
...         nonlocal x, n
...         x = x / 2
...         n += 1
...     RUNTIME.stage_while(loop_test, loop_body, State(("x", "n"), loop_body))
...     return n
>>> g = rt.Graph()
>>> with g.as_default():
...     x = rt.placeholder(rt.float32, [])
...     n = count_halvings(x)
>>> rt.Session(g).run(n, {x: 40.0})
np.int32(6)
"""

from __future__ import annotations

import runtime as rt
from autograph.operators import loop_checks
from autograph.operators.data_structures import (
    contents,
    is_container,
    same_contents,
    set_contents,
)
from autograph.operators.staged_if import probing
from autograph.operators.variables import UndefinedReturnValue, is_undefined


class Loop:
    """What a backend's ``while_loop`` is given besides the test and the body.

    ``values``: the loop variables' first values (structures), ``labels`` their
    names in errors; the first ``carried_from`` are the loop's own ("set" flags),
    the others the statement's variables, of which ``before`` are the values
    before the loop and ``learned`` (None, or one per variable) what one probed
    iteration made of a variable the loop creates (its stand-in is in ``values``).
    ``index_label``: None, or the loop counts its iterations from 0 (the backend
    carries that index, and passes it to the test and the body first), named so
    in errors. ``length``: with it, the loop runs ``length`` times (a ``for`` with
    no ``break``; its test is ``index < length``). ``options``: those of
    ``ag.experimental.set_loop_options`` (a dict), or None.
    """

    __slots__ = (
        "values", "labels", "carried_from", "before", "learned", "index_label", "length", "options"
    )  # fmt: skip

    def __init__(
        self, *, values, labels, carried_from, before, learned, index_label, length, options
    ):
        self.values, self.labels, self.carried_from = values, labels, carried_from
        self.before, self.learned, self.index_label = before, learned, index_label
        self.length, self.options = length, options


def stage_while(backend, loop_test, loop_body, state, options=None):
    """``Backend.stage_while``: ``while loop_test(): loop_body()`` over the variables of ``state``."""
    stage_loop(backend, loop_test, loop_body, state, options=options)


def stage_for(backend, iterable, extra_test, loop_body, state, options=None):
    """``Backend.stage_for``: a loop over an index, for each item of ``iterable``, while
    ``extra_test()`` holds (None: always)."""
    length, item = backend.iteration(iterable)

    def body(i):
        loop_body(item(i))

    test = None
    if extra_test is not None:

        def test(i):
            more = i < length
            return backend.logical_and(more, backend.predicate(extra_test()))

    stage_loop(backend, test, body, state, counted=True, length=length, options=options)


def stage_loop(backend, loop_test, loop_body, state, counted=False, length=None, options=None):
    """``while loop_test(): loop_body()`` staged as one loop of the backend over the variables.

    ``counted``: ``loop_test(i)`` and ``loop_body(i)`` take the index of the
    iteration; with no ``loop_test`` (None) the loop runs ``length`` times. A
    loop that carries nothing still needs one variable: it counts its iterations.
    """
    saved = state.save()
    try:
        _stage(backend, loop_test, loop_body, state, counted, length, options, saved)
    except BaseException:
        state.restore(saved)
        raise


class _Variables:
    """The statement's variables as the loop reads and writes them: a list or dict by its
    contents, changed in place, where the backend carries containers so (as Python does)."""

    def __init__(self, backend, state, initial):
        self.state = state
        self.containers = {
            i: v for i, v in enumerate(initial) if backend.carries_contents and is_container(v)
        }
        self.values = [contents(v) if i in self.containers else v for i, v in enumerate(initial)]

    def write(self, values):
        values = list(values)
        for i, container in self.containers.items():
            if not is_undefined(values[i]) and values[i] is not container:
                set_contents(container, values[i])
                values[i] = container
        self.state.set(values)

    def read(self):
        now = list(self.state.get())
        for i, container in self.containers.items():
            if now[i] is container:
                now[i] = contents(container)
        return now

    def write_carried(self, carried, carried_values):
        """The ``carried`` positions at ``carried_values``, the others at ``self.values``."""
        full = list(self.values)
        for i, value in zip(carried, carried_values):
            full[i] = value
        self.write(full)


def _stage(backend, loop_test, loop_body, state, counted, length, options, saved):
    initial, names = saved[0], state.names
    variables = _Variables(backend, state, initial)
    values = variables.values

    def run_body(index):
        loop_body(index) if counted else loop_body()

    standins, learned, untouched, likes = _learn(backend, variables, saved, run_body, counted)
    # An optional variable with no value before the loop, or one the loop cannot carry (a
    # list of objects), is left as it was: only closures read it.
    for i, name in enumerate(names):
        if name in state.optional and (is_undefined(values[i]) or not backend.carriable(values[i])):
            untouched.add(i)
            standins.pop(i, None)
    carried = [i for i in range(len(values)) if i not in untouched]
    # A variable that only the loop gives a value has none if it runs zero times: a flag
    # that says whether it is set lets the program say so where it reads it, as Python
    # would, instead of using the stand-in (operators.unset). One that an enclosing loop
    # may not have set yet keeps its flag.
    created = [i for i in standins if not loop_checks.guarded(values[i])]
    inherited = {i: backend.unset_flag(values[i]) for i in carried}
    inherited = {i: flag for i, flag in inherited.items() if flag is not None}
    tracked = created + list(inherited)
    for i, zeros in standins.items():
        values[i] = zeros
    first = [backend.loop_value(names[i], values[i], like=likes.get(i)) for i in carried]
    start = len(tracked)  # the loop variables: the "set" flags, then the carried variables
    tracked_at = [start + carried.index(i) for i in tracked]  # where their values are

    def cond_fn(index, *loop_values):
        variables.write_carried(carried, loop_values[start:])
        return loop_test(index) if counted else loop_test()

    def body_fn(index, *loop_values):
        variables.write_carried(carried, loop_values[start:])
        flags = loop_values[:start]
        for i, k, flag in zip(tracked, tracked_at, flags):
            backend.mark_unset(loop_values[k], flag, names[i])
        run_body(index)
        now = variables.read()
        for i in untouched:  # left alone because it cannot be carried: so the body must not
            before, after = values[i], now[i]  # rebind it (even to a value it could carry)
            if is_undefined(before) or is_undefined(after):
                continue
            if i in variables.containers:  # read back as a copy of its contents
                rebound = not same_contents(after, before)
            else:
                rebound = after is not before
            if rebound:
                backend.loop_value(names[i], before)  # the error naming what it holds
                backend.loop_value(names[i], after, after=True)
        flags = [
            _flag_after(backend, now[i], loop_values[k], f)
            for i, k, f in zip(tracked, tracked_at, flags)
        ]
        out = []
        for i, before in zip(carried, loop_values[start:]):
            after = _kept(names[i], now[i], before, state)
            after = backend.loop_value(names[i], after, after=True, before=before)
            loop_checks.check_same_structure(names[i], before, after)
            out.append(after)
        return tuple(flags) + tuple(out)

    if loop_test is None:  # a `for` with no `break`: as many iterations as items
        loop_test = lambda i: i < length  # noqa: E731
    else:
        length = None
    loop = Loop(
        values=tuple(inherited.get(i, False) for i in tracked) + tuple(first),
        labels=[f"<{names[i]} set>" for i in tracked] + [names[i] for i in carried],
        carried_from=start,
        before=[initial[i] for i in carried],
        learned=[learned.get(i) for i in carried] if standins else None,
        # A loop that carries nothing still needs one variable: it counts its iterations.
        index_label="<loop index>" if counted else "<iterations>" if not first else None,
        length=length,
        options=options,
    )
    final = list(backend.while_loop(loop, cond_fn, body_fn))
    state.restore(saved)  # what the traces of the body did to what the loop does not carry
    for k, i in enumerate(tracked):
        final[tracked_at[k]] = _unset_checked(
            backend, final[tracked_at[k]], final[k], names[i], initial[i]
        )
    variables.write_carried(carried, final[start:])


def _unset_checked(backend, value, flag, name, before):
    """A loop's result for a variable it created, marked so that reading it checks ``flag``."""
    if name.isidentifier() and not isinstance(before, UndefinedReturnValue):
        backend.check_unset(value, flag, name)  # where the program reads it (ag__.ld)
        return value
    if not name.isidentifier() and not backend.checks_created_parts:
        return value  # x['a'], x.a: left unchecked (see Backend.checks_created_parts)
    # Read without ag__.ld (x['a'], the return value): checked at once.
    return backend.require_set(value, flag, loop_checks.describe_variable(name, before))


def _learn(backend, variables, saved, run_body, counted):
    """What to do with loop variables that are undefined before the loop, or untyped.

    ``retval`` of a ``return`` inside the loop, say, has no value until the loop
    returns; nor has a variable first assigned in the loop (its target, ``for i in
    ...``). As TensorFlow does, one iteration is traced once (``Backend.probe``) to
    learn what such a variable becomes. Returns ``(standins, learned, untouched,
    likes)``: per position a stand-in of the type it becomes, and what the probe
    gave for it; the positions the body leaves undefined (not carried); and what
    the probe made of values whose type only an iteration tells (an empty list).
    """
    values, state = variables.values, variables.state
    undefined = [i for i, v in enumerate(values) if is_undefined(v)]
    untyped = [i for i, v in enumerate(values) if backend.untyped(v)]
    if not undefined and not untyped:
        return {}, {}, set(), {}

    def one_iteration(inputs, index):
        state.restore(saved)
        variables.write(inputs)
        run_body(index)
        return variables.read()

    probing.depth += 1
    try:
        after = backend.probe(one_iteration, values, counted)
    finally:
        probing.depth -= 1
        state.restore(saved)
    if after is None:
        return {}, {}, set(), {}  # the loop reports the undefined variables by name
    standins, learned, untouched = {}, {}, set()
    for i in undefined:
        value = after[i]
        if value is values[i]:
            untouched.add(i)
            continue
        if is_undefined(value):
            continue
        leaves = rt.nest.flatten(value)
        zeros = [backend.stand_in(leaf) if backend.learnable(leaf) else None for leaf in leaves]
        if any(z is None for z in zeros):
            continue
        standins[i] = rt.nest.pack_sequence_as(value, zeros)
        learned[i] = value
    return standins, learned, untouched, {i: after[i] for i in untyped}


def _flag_after(backend, value, before, flag):
    """Whether a variable is set after an iteration that began with it at ``before`` (whose flag
    was ``flag``): as it was if the iteration left it, set if the iteration assigned it."""
    if value is before:
        return flag
    inner = backend.unset_flag(value)
    return True if inner is None else inner


def _kept(name, value, before, state):
    """An optional variable an iteration leaves unassigned keeps the value it had: nothing
    after the loop reads it (only the loop itself, or a closure, may)."""
    return before if name in state.optional and is_undefined(value) else value
