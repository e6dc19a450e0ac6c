"""``if`` and ``while`` as converted code calls them (``for``: ``for_loops``).

Each decides at run time: on Python values (and eager tensors) the statement
runs as plain Python; on a symbolic tensor it becomes ``rt.cond`` or
``rt.while_loop``. Branches and bodies are functions that read and write the
enclosing function's variables (``nonlocal``); the variables the statement
carries, named by ``names``, are read and written through their closures
(``State``) when it is staged.

>>> import runtime as rt
>>> x = 0
>>> def if_true():
...     global x
...     x = 1
>>> if_stmt(rt.constant(True), if_true)
>>> x
1
"""

from __future__ import annotations

import numpy as np

import runtime as rt
from autograph.operators import loop_checks, loop_options, side_effects, unset
from autograph.operators.backends import PLAIN_TYPES, staging
from autograph.operators.data_structures import TensorList, contents, is_container, set_contents
from autograph.operators.runtime_values import zeros_like_spec
from autograph.operators.staged_if import probing
from autograph.operators.staging_errors import marking
from autograph.operators.state import State
from autograph.operators.variables import UndefinedReturnValue, is_undefined
from runtime.ops.constant_ops import RANGE, constant_value

_SymbolicTensor = rt.SymbolicTensor


def is_symbolic(value) -> bool:
    """True for a tensor that only has a value when a graph runs."""
    return isinstance(value, _SymbolicTensor)


def nothing():
    pass


def refuse_staging(statement, unsupported):
    if unsupported:
        raise NotImplementedError(
            f"A tensor-dependent {statement} is not supported here: {unsupported}"
        )


# --- if ------------------------------------------------------------------------------------------


def if_stmt(cond, if_true, if_false=None, names=(), unsupported=None, optional=()):
    """Runs ``if_true()`` or ``if_false()``; on a symbolic ``cond``, stages both as an rt.cond.

    ``names`` are the variables the branches carry (see ``State``).
    """
    backend = None if type(cond) in PLAIN_TYPES else staging(cond)
    if backend is not None:
        cond = backend.simplified(cond)
    if backend is not None and backend.is_staged(cond):
        refuse_staging("`if`", unsupported)
        state = State(names, if_true, if_false, optional=optional)
        watch = side_effects.watching("if", (if_true, if_false), state.names)
        with watch, marking(if_true, if_false):
            backend.stage_if(cond, if_true, if_false or nothing, state)
    elif cond:
        if_true()
    elif if_false is not None:
        if_false()


# --- while -------------------------------------------------------------------------------------


def while_stmt(loop_test, loop_body, names=(), unsupported=None, optional=(), options=None):
    """Runs ``while loop_test(): loop_body()``; a symbolic test stages the loop as rt.while_loop.

    A loop that starts with Python values and whose test turns symbolic
    after some iterations is staged from that iteration on, unless the graph loop could never
    end (``loop_checks.refuse_a_loop_that_never_ends``). ``names`` are the
    variables the loop carries (see ``State``); ``options`` those of ``set_loop_options``.
    """
    test = _first_test(loop_test, tuple(names) + tuple(optional), loop_body)
    iterations = 0  # run as Python
    while True:
        backend = None if type(test) in PLAIN_TYPES else staging(test)
        if backend is not None:
            test = backend.simplified(test)
        if backend is not None and backend.is_staged(test):
            refuse_staging("`while` loop", unsupported)
            state = State(names, loop_test, loop_body, optional=optional)
            watch = side_effects.watching("loop", (loop_test, loop_body), state.names)
            with watch, marking(loop_test, loop_body):
                backend.stage_while(loop_test, loop_body, state, options=options)
            if iterations:
                loop_checks.refuse_a_loop_that_never_ends(state.get(), iterations)
            return
        if not test:
            return
        loop_body()
        iterations += 1
        test = loop_test()


def _first_test(loop_test, names, loop_body):
    """The loop's first test. In a graph it is evaluated in a throwaway graph, so that
    deciding whether to stage leaves no dangling ops behind (a staged loop traces it again)."""
    if rt.executing_eagerly():
        return loop_test()
    state = State(names, loop_test, loop_body)
    before = state.save()
    with rt.FuncGraph("first_test", outer_graph=rt.get_default_graph()).as_default():
        test = loop_test()
    if is_symbolic(test):
        state.restore(before)  # nothing the throwaway graph computed may stay in the variables
    return test


def staged_while(loop_test, loop_body, state, index=None, options=None):
    """Stages the loop as rt.while_loop over the state (and an ``index``, for ``for`` loops).

    With an index, ``loop_test(i)`` and ``loop_body(i)`` take it. A loop that
    carries nothing still needs one variable: it counts its iterations.
    """
    restoring_on_error(state, _stage_while, loop_test, loop_body, state, index, options)


def restoring_on_error(state, stage, *args):
    """Runs ``stage(*args, initial)``; if it fails, the variables are left as they were before.

    Tracing runs the user's bodies, which write the variables (and create
    attributes, and change lists) as they go.
    """
    saved = state.save()
    try:
        stage(*args, saved[0])
    except BaseException:
        state.restore(saved)
        raise


def _stage_while(loop_test, loop_body, state, index, options, initial):
    uses_index = index is not None
    run_body = (lambda extra: loop_body(*extra)) if uses_index else (lambda extra: loop_body())
    names = state.names
    values = list(initial)
    standins, untouched, list_types = _standins(values, state, run_body, uses_index)
    # An optional variable with no value before the loop, or one no loop variable can hold
    # (a list of objects), is left as it was.
    for i, name in enumerate(names):
        if name in state.optional and (is_undefined(values[i]) or not _carriable(values[i])):
            untouched.add(i)
            standins.pop(i, None)
    carried = [i for i in range(len(values)) if i not in untouched]
    # What the traces of the body do to a container the loop does not carry is undone.
    held = [(values[i], contents(values[i])) for i in untouched if is_container(values[i])]
    # A variable that only the loop gives a value has none if it runs zero times: a flag
    # that says whether it is set lets the graph say so where the program reads it, as
    # Python would, instead of using the stand-in (operators.unset). One that an enclosing
    # loop may not have set yet keeps its flag.
    created = [i for i in standins if not loop_checks.guarded(values[i])]
    inherited = {i: unset.flag_of(values[i]) for i in carried}
    inherited = {i: flag for i, flag in inherited.items() if flag is not None}
    tracked = created + list(inherited)
    for i, (zeros, _) in standins.items():
        values[i] = zeros
    first_values = [_loop_value(names[i], values[i], list_types.get(i)) for i in carried]
    extra = [index] if uses_index else ([] if first_values else [rt.constant(0)])
    labels = ["<loop index>"] if uses_index else ["<iterations>"] if extra else []
    n = len(extra)
    extra += [inherited.get(i, rt.constant(False)) for i in tracked]
    labels += [f"<{names[i]} set>" for i in tracked]
    labels += [names[i] for i in carried]
    counted = len(extra)
    tracked_at = [counted + carried.index(i) for i in tracked]  # where their values are

    def set_carried(carried_values):
        full = list(values)
        for i, value in zip(carried, carried_values):
            full[i] = value
        state.set(full)

    def cond_fn(*loop_values):
        set_carried(loop_values[counted:])
        return as_condition(loop_test(*loop_values[:n]) if uses_index else loop_test())

    def body_fn(*loop_values):
        set_carried(loop_values[counted:])
        flags = loop_values[n:counted]
        for i, k, flag in zip(tracked, tracked_at, flags):
            unset.mark(loop_values[k], flag, names[i])
        run_body(loop_values[:n])
        now = state.get()
        flags = [
            unset.flag_after(now[i], loop_values[k], f)
            for i, k, f in zip(tracked, tracked_at, flags)
        ]
        out = [
            _loop_value(names[i], _kept(names[i], now[i], before, state), after=True)
            for i, before in zip(carried, loop_values[counted:])
        ]
        for i, before, after in zip(carried, loop_values[counted:], out):
            loop_checks.check_same_structure(names[i], before, after)
        loop_options.check_invariants(options, initial, carried, names, out)
        return tuple(v + 1 for v in loop_values[:n]) + tuple(flags) + tuple(out)

    invariants = None
    if standins:  # a stand-in's shape is the one the body gives, not the zeros' own
        invariants = [leaf.shape for v in extra for leaf in rt.nest.flatten(v)]
        for i, v in zip(carried, first_values):
            if i in standins:
                invariants += standins[i][1]
            else:
                invariants += [loop_options.leaf_shape(leaf) for leaf in rt.nest.flatten(v)]
    invariants = loop_options.shape_invariants(
        options, invariants, initial, carried, extra, first_values
    )
    loop_vars = tuple(extra) + tuple(first_values)
    final = list(
        rt.while_loop(
            cond_fn,
            body_fn,
            loop_vars,
            names=labels,
            shape_invariants=loop_options.laid_out(loop_vars, invariants),
            maximum_iterations=loop_options.maximum_iterations(options),
        )
    )
    for k, i in enumerate(tracked):
        value, flag = final[tracked_at[k]], final[n + k]
        if names[i].isidentifier() and not isinstance(initial[i], UndefinedReturnValue):
            unset.mark(value, flag, names[i])  # checked where the program reads it (ag__.ld)
        else:  # read without ag__.ld (x['a']): checked at once
            described = loop_checks.describe_variable(names[i], initial[i])
            final[tracked_at[k]] = unset.require(value, flag, described)
    set_carried(final[counted:])
    for container, what in held:
        set_contents(container, what)


def _kept(name, value, before, state):
    """An optional variable an iteration leaves unassigned keeps the value it had: nothing
    after the loop reads it (only the loop itself, or a closure, may)."""
    return before if name in state.optional and is_undefined(value) else value


def _probe_input(probe, value):
    if isinstance(value, (rt.Tensor, bool, int, float, np.generic)) and not is_undefined(value):
        t = rt.convert_to_tensor(value)
        return probe.add_input(t.dtype, t.shape)
    if isinstance(value, list):  # a TensorList in the loop; the probe must not change it
        try:
            return TensorList.from_list(value)
        except (TypeError, ValueError):
            return list(value)
    if isinstance(value, (dict, TensorList)):
        return contents(value)
    return value


def _standins(values, state, run_body, uses_index):
    """What to do with loop variables that are undefined before the loop, or empty lists.

    ``retval`` of a ``return`` inside the loop, say, has no value until the
    loop returns; nor has a variable first assigned in the loop (its target,
    ``for i in ...``). As TensorFlow does, one iteration is traced in a throwaway
    graph to learn what such a variable becomes: if a value, it starts as zeros of that type
    (``{position: (zeros, leaf shapes)}``); if the body leaves it undefined, it is not
    carried at all (a set of positions). An empty list learns there the dtype of
    what the loop puts in it (``{position: (dtype, element shape)}``).
    """
    undefined = [i for i, v in enumerate(values) if is_undefined(v)]
    untyped = [i for i, v in enumerate(values) if _untyped_list(v)]
    if not undefined and not untyped:
        return {}, set(), {}
    probe = rt.FuncGraph("loop_probe", outer_graph=rt.get_default_graph())
    saved = state.save()  # lists too: the probe must leave nothing of its graph in them
    probing.depth += 1
    try:
        with probe.as_default():
            # Loop variables are tensors in the real loop: so they are in the probe, or a
            # Python value (i = 0) would take Python paths the staged loop never takes.
            state.set([_probe_input(probe, v) for v in values])
            run_body([probe.add_input(rt.int32, [])] if uses_index else [])
            after = state.get()
    except side_effects.HiddenChangeError:
        raise  # about the program, whatever the probe finds
    except (UnboundLocalError, TypeError, ValueError):
        return {}, set(), {}  # the loop reports the undefined variables by name
    finally:
        probing.depth -= 1
        state.restore(saved)
    types = {
        i: (after[i].dtype, after[i].element_shape)
        for i in untyped
        if isinstance(after[i], TensorList) and after[i].dtype is not None
    }
    standins, untouched = {}, set()
    for i in undefined:
        value = after[i]
        if value is values[i]:
            untouched.add(i)
            continue
        leaves = rt.nest.flatten(value)
        if is_undefined(value) or not all(
            isinstance(leaf, (rt.Tensor, rt.Variable, bool, int, float)) for leaf in leaves
        ):
            continue
        tensors = [rt.convert_to_tensor(leaf) for leaf in leaves]
        zeros = rt.nest.pack_sequence_as(value, [zeros_like_spec(t) for t in tensors])
        standins[i] = (zeros, [t.shape for t in tensors])
    return standins, untouched, types


def _carriable(value):
    try:
        with rt.FuncGraph("carriable", outer_graph=rt.get_default_graph()).as_default():
            _loop_value("", value)
    except (TypeError, ValueError):
        return False
    return True


def _untyped_list(value):
    return (type(value) is list and not value) or (
        isinstance(value, TensorList) and value.dtype is None
    )


def as_condition(test):
    if isinstance(test, rt.Tensor):
        return test
    return rt.constant(bool(test))


def _loop_value(name, value, list_type=None, after=False):
    """A state value as a loop variable: defined, not None, a tensor or a TensorArray."""
    loop_checks.require_value(name, value, after)
    if isinstance(value, TensorList) and value.dtype is None and list_type is not None:
        value = TensorList.from_list([], *list_type)  # an empty one: its type learned
    if isinstance(value, (tuple, dict)):  # a structure: each part is a loop variable
        return rt.nest.map_structure(lambda part: _loop_value(name, part, after=after), value)
    if isinstance(value, list):
        try:
            return TensorList.from_list(value, *(list_type or ()))
        except (TypeError, ValueError) as e:
            raise TypeError(
                f"'{name}' is a Python list that a tensor-dependent loop changes, so in the graph "
                f"it is a TensorList, of tensors of one dtype and shape; but it holds {value!r}: "
                f"{e}"
            ) from None
    if isinstance(value, (rt.Tensor, rt.TensorArray)):
        return value
    try:
        return rt.convert_to_tensor(value)
    except (TypeError, ValueError):
        raise TypeError(
            f"'{name}' holds a {type(value).__name__}, which cannot be a variable of a "
            "tensor-dependent loop; only tensors, numbers and lists of tensors can."
        ) from None


# --- for: what it iterates over -------------------------------------------------------------


class StagedIterable:
    """``enumerate``/``zip`` over symbolic tensors, for ``for_stmt`` to stage: ``length()``
    (built before the loop), then ``item(i)`` (in its body)."""

    def __init__(self, kind, tensors, start=0):
        self.kind, self.tensors, self.start = kind, tensors, start
        self._items = None

    def length(self):
        parts = [iteration_of(t) for t in self.tensors]
        self._items = [item for _, item in parts]
        return rt.reduce_min(rt.stack([length for length, _ in parts]))

    def item(self, i):
        items = tuple(item(i) for item in self._items)
        return (i + self.start, items[0]) if self.kind == "enumerate" else items


def iteration_of(t):
    """``(length, item)`` of a ``for`` over the tensor ``t``: a range's items are computed, so
    it is never built (its size may be known only at run time, which XLA cannot compile);
    another tensor's are its slices."""
    parts = _range_parts(t)
    if parts is not None:
        return parts
    first = t.shape[0] if t.shape.rank else None
    return rt.constant(first) if first is not None else rt.shape(t)[0], t.__getitem__


def _range_parts(iterable):
    """``(length, item)`` for a ``for`` over ``rt.range`` of ints with a constant step: the
    items are computed (start + i * step), so the range is never built nor sliced."""
    if not (
        isinstance(iterable, rt.SymbolicTensor)
        and iterable.op.opdef is RANGE
        and iterable.dtype.is_integer
    ):
        return None
    start, limit, delta = iterable.op.inputs
    step = constant_value(delta)
    if step is None or step == 0:
        return None
    step = int(step)
    # The common rt.range(n) (start 0, step 1) needs no arithmetic: only the ops it needs
    # are traced, so there is less to trace, optimise and compile.
    from_zero = _is_constant(start, 0)
    if step > 0:
        span = limit if from_zero else limit - start
    else:
        span = -limit if from_zero else start - limit
    if abs(step) != 1:
        span = (span + (abs(step) - 1)) // abs(step)
    length = rt.maximum(span, 0)
    if length.dtype is not rt.int32:
        length = rt.cast(length, rt.int32)

    def item(i):
        value = i if iterable.dtype is rt.int32 else rt.cast(i, iterable.dtype)
        if step != 1:
            value = value * step
        return value if from_zero else start + value

    return length, item


def _is_constant(t, number):
    value = constant_value(t)
    return value is not None and np.ndim(value) == 0 and value == number
