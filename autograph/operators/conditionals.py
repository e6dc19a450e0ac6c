"""A staged ``if``: both branches traced into sub-graphs, joined by one ``rt.cond``.

``if_stmt`` (in ``control_flow``) calls ``staged_if`` when the condition is a
symbolic tensor. The variables the branches carry are read and restored
through their functions' closures (``State``); what each branch leaves in them
is staged: the cond returns their tensors, and the variables hold its results.

>>> import runtime as rt
>>> from autograph.operators.state import State
>>> def f(x):
...     def if_true():
...         nonlocal y
...         y = x * 2
...     def if_false():
...         nonlocal y
...         y = -x
...     y = 0
...     staged_if(x > 0, if_true, if_false, State(("y",), if_true, if_false))
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

import numpy as np

import runtime as rt
from autograph.operators import unset
from autograph.operators.data_structures import (
    Held,
    check_list_lengths,
    contents,
    is_container,
    like_tensor_list,
    set_contents,
    unchanged,
    unwrap_held,
)
from autograph.operators.known import assuming
from autograph.operators.variables import Undefined, UndefinedReturnValue, is_undefined
from runtime.execution.tracing import set_outputs, trace
from runtime.functions.control_flow import build_cond


def staged_if(cond, if_true, if_false, state):
    restoring_on_error(state, _stage_if, cond, if_true, if_false, state)


def restoring_on_error(state, stage, *args):
    """Runs ``stage(*args, initial)``; if it fails, the variables are left as they were before.

    Tracing runs the user's branches and bodies, which write the variables (and
    create attributes, and change lists) as they go.
    """
    saved = state.save()
    try:
        stage(*args, saved[0])
    except BaseException:
        state.restore(saved)
        raise


def _stage_if(cond, if_true, if_false, state, initial):
    names = state.names
    # A list or dict the branches change in place is staged by its contents: each branch
    # starts from what it held, and gives what it leaves in it.
    containers = {i: (v, contents(v)) for i, v in enumerate(initial) if is_container(v)}

    def restore():
        state.set(initial)
        for container, held in containers.values():
            set_contents(container, held)

    def branch(fn, taken):
        def run():
            restore()
            with assuming(cond, taken):
                fn()
            out = list(state.get())
            for i, (container, _) in containers.items():
                if out[i] is container:
                    out[i] = Held(container)
            return tuple(out)

        return run

    graph = rt.get_default_graph()
    true_graph = _traced(branch(if_true, True), "if_true", graph)
    false_graph = _traced(branch(if_false, False), "if_false", graph)
    # A branch that reads a variable it cannot have (a return before it, say, skips it in
    # Python) fails when the graph takes it, as Python would, not while tracing it. While a
    # loop's first iteration is traced to learn what its new variables become, the error
    # goes to the loop: a variable whose next value depends on one it does not have yet
    # must be defined before the loop, as TensorFlow says.
    failed = [g for g in (true_graph, false_graph) if isinstance(g, UnboundLocalError)]
    if failed and (probing.depth or len(failed) == 2):
        raise failed[0]
    # What a failing branch gives: the variables as they were, where the other branch left
    # them so too, else stand-ins of what the other branch gives.
    before = [Held.of(held) for _, held in containers.values()]
    before = tuple(before.pop(0) if i in containers else v for i, v in enumerate(initial))
    if isinstance(true_graph, UnboundLocalError):
        true_graph = _failing(true_graph, false_graph, before, restore, "if_true", graph)
    if isinstance(false_graph, UnboundLocalError):
        false_graph = _failing(false_graph, true_graph, before, restore, "if_false", graph)
    true_held, false_held = true_graph.structured_outputs, false_graph.structured_outputs
    true_out, false_out = unwrap_held(true_held), unwrap_held(false_held)
    # A variable both branches leave as the same object (a container holding the same
    # objects) passes through untouched.
    staged = [i for i, (a, b) in enumerate(zip(true_out, false_out)) if not unchanged(a, b)]
    # An optional variable the branches leave in ways a graph cannot join is left undefined.
    dropped = {
        i for i in staged if names[i] in state.optional and not _agree(true_out[i], false_out[i])
    }
    staged = [i for i in staged if i not in dropped]
    true_out, false_out = list(true_out), list(false_out)
    for i in staged:
        # A list that one branch made a TensorList (in a staged loop) is one in both.
        with true_graph.as_default():
            true_out[i] = like_tensor_list(true_out[i], false_out[i])
        with false_graph.as_default():
            false_out[i] = like_tensor_list(false_out[i], true_out[i])
        check_list_lengths(names[i], true_out[i], false_out[i])
    true_out, false_out = _fill_missing(
        true_out, true_graph, false_out, false_graph, staged, only_guarded=not probing.depth
    )
    # Each staged variable may be a structure (a tuple, a TensorArray): the cond returns its leaves.
    true_leaves, false_leaves, labels, layout = [], [], [], []
    for i in staged:
        a, b = true_out[i], false_out[i]
        _check_branch_values(names[i], a, b)
        a_leaves, b_leaves = rt.nest.flatten(a), rt.nest.flatten(b)
        layout.append((i, len(a_leaves)))
        true_leaves += a_leaves
        false_leaves += b_leaves
        labels += [f"'{names[i]}'"] * len(a_leaves)
    # A value a loop may not have set (see operators.unset) takes its flag along.
    flagged = [
        i
        for i in staged
        if unset.flag_of(true_out[i]) is not None or unset.flag_of(false_out[i]) is not None
    ]
    for i in flagged:
        for leaves, value, branch_graph in (
            (true_leaves, true_out[i], true_graph),
            (false_leaves, false_out[i], false_graph),
        ):
            with branch_graph.as_default():
                flag = unset.flag_of(value)
                leaves.append(rt.constant(True) if flag is None else flag)
        labels.append(f"<{names[i]} set>")
    set_outputs(true_graph, true_leaves)
    set_outputs(false_graph, false_leaves)
    # With nothing to return, the cond still runs the effects (prints, assignments) of its branches.
    needed = staged or true_graph.is_stateful or false_graph.is_stateful
    results = build_cond(cond, true_graph, false_graph, labels=labels) if needed else []
    final, start = list(true_out), 0
    for i, count in layout:
        # What the result may be: either branch's (a TensorArray's size, if they agree).
        template = rt.nest.join(true_out[i], false_out[i])
        final[i] = rt.nest.pack_sequence_as(template, results[start : start + count])
        start += count
    for i, flag in zip(flagged, results[start:]):
        unset.mark(final[i], flag, names[i])
    for i in dropped:
        final[i] = Undefined(names[i])
    if failed:
        # A return value no path gave yet: unless later code gives it one, the function
        # fails as the failing branch does (see variables.returned).
        for i, value in enumerate(final):
            if isinstance(value, UndefinedReturnValue) and value.guarded and value.failure is None:
                final[i] = UndefinedReturnValue(guarded=True, failure=failed[0])
    for i, (container, held) in containers.items():
        if i in dropped:  # nothing reads it later: it stays, as it was (later code may change it)
            set_contents(container, held)
            final[i] = container
        elif isinstance(true_held[i], Held) and isinstance(false_held[i], Held):
            set_contents(container, final[i])  # the same object, holding the results
            final[i] = container
        else:  # a branch gave the variable another object: this one is left as it was
            set_contents(container, held)
    state.set(final)


def _traced(run, name, graph):
    """The branch ``run`` traced, or the UnboundLocalError it raised."""
    try:
        return trace(run, [], name, graph, convert=False)
    except UnboundLocalError as error:
        return error


def _failing(error, other_graph, before, restore, name, graph):
    """A branch that raises ``error`` when the graph runs it, and gives what ``other_graph``
    gives (stand-ins of the same types, never used)."""

    def run():
        restore()
        rt.Assert(rt.constant(False), [f"{type(error).__name__}: {error}"])
        return tuple(
            was if unchanged(_held(other), _held(was)) else _stand_in_like(other)
            for other, was in zip(other_graph.structured_outputs, before)
        )

    return trace(run, [], name, graph, convert=False)


def _held(value):
    return value.contents if isinstance(value, Held) else value


def _stand_in_like(value):
    if isinstance(value, Held):
        return Held.of(_stand_in_like(value.contents))
    if isinstance(value, rt.TensorArray):
        return type(value)(value.dtype, 0, True, value.element_shape)
    if isinstance(value, (list, tuple)):
        return type(value)(_stand_in_like(v) for v in value)
    if isinstance(value, dict):
        return {k: _stand_in_like(v) for k, v in value.items()}
    if _stageable(value) and not isinstance(value, rt.Variable):
        return _zeros_like_value(value)
    return value  # the same object, as the other branch left it: not staged


def _agree(a, b, leaves_agree=None):
    """Whether one graph value can stand for what two branches left in a variable: both
    defined, the same structure, and each pair of leaves ``leaves_agree`` (the runtime's, by
    default: both stageable, of one dtype)."""
    if is_undefined(a) or is_undefined(b) or (a is None) != (b is None):
        return False
    try:
        rt.nest.assert_same_structure(a, b)
    except (TypeError, ValueError):
        return False
    leaves_agree = leaves_agree or _leaves_agree
    return all(leaves_agree(x, y) for x, y in zip(rt.nest.flatten(a), rt.nest.flatten(b)))


def _leaves_agree(x, y):
    return _stageable(x) and _stageable(y) and _kind(x) == _kind(y)


def _kind(value):
    return value.dtype if isinstance(value, (rt.Tensor, rt.Variable)) else type(value)


def _fill_missing(true_out, true_graph, false_out, false_graph, staged, only_guarded=False):
    """A value set in one branch only gets zeros of its type in the other.

    Two cases need this. While probing a loop body, only the type a loop
    variable has after an iteration matters (the probe's graph is thrown
    away). And a ``retval`` guarded by a ``do_return`` flag may be unset in a
    branch that has not returned yet: the flag makes sure the zeros are never used.
    """
    true_out, false_out = list(true_out), list(false_out)
    for i in staged:
        for this, this_graph, other in (
            (true_out, true_graph, false_out),
            (false_out, false_graph, true_out),
        ):
            if only_guarded and not (isinstance(this[i], UndefinedReturnValue) and this[i].guarded):
                continue
            leaves = rt.nest.flatten(other[i])
            if (
                is_undefined(this[i])
                and not is_undefined(other[i])
                and all(
                    _stageable(leaf) and not isinstance(leaf, rt.TensorArray) for leaf in leaves
                )
            ):
                with this_graph.as_default():
                    this[i] = rt.nest.map_structure(_zeros_like_value, other[i])
    return tuple(true_out), tuple(false_out)


def _zeros_like_value(value):
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


class _Probing(threading.local):
    depth = 0


probing = _Probing()


def _check_branch_values(name, a, b, stageable=None):
    """What two branches leave in ``name`` can be joined: defined on both paths or neither, the same
    structure, leaves the framework can return (``stageable``: the runtime's, by default)."""
    stageable = stageable or _stageable
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


_STAGEABLE = (rt.Tensor, rt.Variable, rt.TensorArray, np.generic, np.ndarray, str, bytes)


def _stageable(value):
    return isinstance(value, _STAGEABLE) or type(value) in (bool, int, float)
