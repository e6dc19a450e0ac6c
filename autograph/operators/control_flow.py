"""``if``, ``while`` and ``for`` as converted code calls them.

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

import threading

import numpy as np

import runtime as rt
from autograph.operators import loop_options
from autograph.operators.state import State
from autograph.operators.variables import UndefinedReturnValue, is_undefined
from runtime.execution.tracing import set_outputs, trace
from runtime.ops.constant_ops import constant_value
from runtime.ops.control_flow_ops import build_cond

_SymbolicTensor = rt.SymbolicTensor


def is_symbolic(value) -> bool:
    """True for a tensor that only has a value when a graph runs."""
    return isinstance(value, _SymbolicTensor)


def _nothing():
    pass


def _refuse_staging(statement, unsupported):
    if unsupported:
        raise NotImplementedError(
            f"A tensor-dependent {statement} is not supported here: {unsupported}"
        )


# --- if ------------------------------------------------------------------------------------------


def if_stmt(cond, if_true, if_false=None, names=(), unsupported=None):
    """Runs ``if_true()`` or ``if_false()``; on a symbolic ``cond``, stages both as an rt.cond.

    ``names`` are the variables the branches carry (see ``State``).
    """
    if isinstance(cond, _SymbolicTensor):
        _refuse_staging("`if`", unsupported)
        _staged_if(cond, if_true, if_false or _nothing, State(names, if_true, if_false))
    elif cond:
        if_true()
    elif if_false is not None:
        if_false()


def _staged_if(cond, if_true, if_false, state):
    _restoring_on_error(state, _stage_if, cond, if_true, if_false, state)


def _restoring_on_error(state, stage, *args):
    """Runs ``stage(*args, initial)``; if it fails, the variables are left as they were before.

    Tracing runs the user's branches and bodies, which write the variables (and
    create attributes) as they go.
    """
    initial = state.get()
    try:
        stage(*args, initial)
    except BaseException:
        state.set(initial)
        raise


def _stage_if(cond, if_true, if_false, state, initial):
    names = state.names

    def branch(fn):
        def run():
            state.set(initial)
            fn()
            return state.get()

        return run

    graph = rt.get_default_graph()
    true_graph = trace(branch(if_true), [], "if_true", graph, convert=False)
    false_graph = trace(branch(if_false), [], "if_false", graph, convert=False)
    true_out, false_out = true_graph.structured_outputs, false_graph.structured_outputs
    # A variable both branches leave as the same object passes through untouched.
    staged = [i for i, (a, b) in enumerate(zip(true_out, false_out)) if a is not b]
    true_out, false_out = _fill_missing(
        true_out, true_graph, false_out, false_graph, staged, only_guarded=not _probing.depth
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
    set_outputs(true_graph, true_leaves)
    set_outputs(false_graph, false_leaves)
    # With nothing to return, the cond still runs the effects (prints, assignments) of its branches.
    needed = staged or true_graph.is_stateful or false_graph.is_stateful
    results = build_cond(cond, true_graph, false_graph, labels=labels) if needed else []
    final, start = list(true_out), 0
    for i, count in layout:
        template = _template(true_out[i], false_out[i])
        final[i] = rt.nest.pack_sequence_as(template, results[start : start + count])
        start += count
    state.set(final)


def _template(a, b):
    """The structure to rebuild a staged value with: the branch that knows more (a written TensorArray)."""
    if isinstance(a, rt.TensorArray) and a.dtype is None:
        return b
    return a


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
    return _zeros_like_spec(value if isinstance(value, rt.Tensor) else rt.convert_to_tensor(value))


def _probe_input(probe, value):
    if isinstance(value, (rt.Tensor, bool, int, float, np.generic)) and not is_undefined(value):
        t = rt.convert_to_tensor(value)
        return probe.add_input(t.dtype, t.shape)
    return value


def _zeros_like_spec(t):
    dims = [0 if d is None else d for d in t.shape.as_list()] if t.shape.rank is not None else []
    if t.dtype is rt.string:
        return rt.fill(dims, rt.constant(b""))
    return rt.zeros(dims, t.dtype)


class _Probing(threading.local):
    depth = 0


_probing = _Probing()


def _check_branch_values(name, a, b):
    # TensorFlow's words first ("main" and "else" branch), then what to do.
    for value, this, other, other_value in ((a, "main", "else", b), (b, "else", "main", a)):
        if is_undefined(value) and not is_undefined(other_value):
            if isinstance(value, UndefinedReturnValue):
                raise ValueError(
                    f"the {this} branch must also have a return statement: the function returns "
                    f"a value in the {other} branch of a tensor-dependent `if`, and every branch "
                    "must return a value (or none must)."
                )
            raise ValueError(
                f"'{name}' must also be initialized in the {this} branch: it is assigned in the "
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
            if not _stageable(leaf):
                raise TypeError(
                    f"'{name}' holds a {type(leaf).__name__} in the {which} branch of a "
                    "tensor-dependent `if`, which a graph cannot return; only tensors and numbers "
                    "can differ between branches."
                )


def _stageable(value):
    return isinstance(
        value,
        (
            rt.Tensor,
            rt.Variable,
            rt.TensorArray,
            bool,
            int,
            float,
            np.generic,
            np.ndarray,
            str,
            bytes,
        ),
    )


# --- while -------------------------------------------------------------------------------------


def while_stmt(loop_test, loop_body, names=(), unsupported=None, options=None):
    """Runs ``while loop_test(): loop_body()``; a symbolic test stages the loop as rt.while_loop.

    A loop that starts with Python values and whose test turns symbolic
    after some iterations is staged from that iteration on. ``names`` are the
    variables the loop carries (see ``State``); ``options`` those of ``set_loop_options``.
    """
    test = _first_test(loop_test, names, loop_body)
    while True:
        if isinstance(test, _SymbolicTensor):  # is_symbolic, without a call per iteration
            _refuse_staging("`while` loop", unsupported)
            _staged_while(loop_test, loop_body, State(names, loop_test, loop_body), options=options)
            return
        if not test:
            return
        loop_body()
        test = loop_test()


def _first_test(loop_test, names, loop_body):
    """The loop's first test. In a graph it is evaluated in a throwaway graph, so that
    deciding whether to stage leaves no dangling ops behind (a staged loop traces it again)."""
    if rt.executing_eagerly():
        return loop_test()
    state = State(names, loop_test, loop_body)
    before = state.get()
    with rt.FuncGraph("first_test", outer_graph=rt.get_default_graph()).as_default():
        test = loop_test()
    if is_symbolic(test):
        state.set(before)  # nothing the throwaway graph computed may stay in the variables
    return test


def _staged_while(loop_test, loop_body, state, index=None, options=None):
    """Stages the loop as rt.while_loop over the state (and an ``index``, for ``for`` loops).

    With an index, ``loop_test(i)`` and ``loop_body(i)`` take it. A loop that
    carries nothing still needs one variable: it counts its iterations.
    """
    _restoring_on_error(state, _stage_while, loop_test, loop_body, state, index, options)


def _stage_while(loop_test, loop_body, state, index, options, initial):
    uses_index = index is not None
    run_body = (lambda extra: loop_body(*extra)) if uses_index else (lambda extra: loop_body())
    names = state.names
    values = list(initial)
    standins, untouched = _standins(values, state, run_body, uses_index)
    carried = [i for i in range(len(values)) if i not in untouched]
    for i, (zeros, _) in standins.items():
        values[i] = zeros
    first_values = [_loop_value(names[i], values[i]) for i in carried]
    extra = [index] if uses_index else ([] if first_values else [rt.constant(0)])
    labels = ["<loop index>"] if uses_index else ["<iterations>"] if extra else []
    labels += [names[i] for i in carried]
    n = len(extra)

    def set_carried(carried_values):
        full = list(values)
        for i, value in zip(carried, carried_values):
            full[i] = value
        state.set(full)

    def cond_fn(*loop_values):
        set_carried(loop_values[n:])
        return _as_condition(loop_test(*loop_values[:n]) if uses_index else loop_test())

    def body_fn(*loop_values):
        set_carried(loop_values[n:])
        run_body(loop_values[:n])
        now = state.get()
        out = [_loop_value(names[i], now[i], after=True) for i in carried]
        loop_options.check_invariants(options, initial, carried, names, out)
        return tuple(v + 1 for v in loop_values[:n]) + tuple(out)

    invariants = None
    if standins:  # a stand-in's shape is the one the body gives, not the zeros' own
        invariants = [leaf.shape for v in extra for leaf in rt.nest.flatten(v)]
        for i, v in zip(carried, first_values):
            shapes = [
                leaf.shape if isinstance(leaf, rt.Tensor) else rt.TensorShape(None)
                for leaf in rt.nest.flatten(v)
            ]
            invariants += standins[i][1] if i in standins else shapes
    invariants = loop_options.shape_invariants(
        options, invariants, initial, carried, extra, first_values
    )
    final = rt.while_loop(
        cond_fn,
        body_fn,
        tuple(extra) + tuple(first_values),
        names=labels,
        shape_invariants=invariants,
        maximum_iterations=loop_options.maximum_iterations(options),
    )
    set_carried(final[n:])


def _standins(values, state, run_body, uses_index):
    """What to do with loop variables that are undefined before the loop.

    ``retval`` of a ``return`` inside the loop, say, has no value until the
    loop returns; nor has a variable first assigned in the loop (its target,
    ``for i in ...``). As TensorFlow does, one iteration is traced in a throwaway
    graph to learn what such a variable becomes: if a value, it starts as zeros of that type
    (``{position: (zeros, leaf shapes)}``; the flags that lowering added make sure the
    stand-in is never used as a result); if the body leaves it undefined, it
    is not carried at all (returned as a set of positions).
    """
    undefined = [i for i, v in enumerate(values) if is_undefined(v)]
    if not undefined:
        return {}, set()
    probe = rt.FuncGraph("loop_probe", outer_graph=rt.get_default_graph())
    _probing.depth += 1
    try:
        with probe.as_default():
            # Loop variables are tensors in the real loop: so they are in the probe, or a
            # Python value (i = 0) would take Python paths the staged loop never takes.
            state.set([_probe_input(probe, v) for v in values])
            run_body([probe.add_input(rt.int32, [])] if uses_index else [])
            after = state.get()
    except (UnboundLocalError, TypeError, ValueError):
        return {}, set()  # the loop reports the undefined variables by name
    finally:
        _probing.depth -= 1
        state.set(values)
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
        zeros = rt.nest.pack_sequence_as(value, [_zeros_like_spec(t) for t in tensors])
        standins[i] = (zeros, [t.shape for t in tensors])
    return standins, untouched


def _as_condition(test):
    if isinstance(test, rt.Tensor):
        return test
    return rt.constant(bool(test))


def _loop_value(name, value, after=False):
    """A state value as a loop variable: defined, not None, a tensor or a TensorArray."""
    if is_undefined(value):
        if after:
            raise ValueError(f"'{name}' is undefined after an iteration of a tensor-dependent loop")
        raise ValueError(
            f"'{name}' must be defined before the loop: it is used in a tensor-dependent loop, "
            "which a graph may run zero times, so give it a value before the loop."
        )
    if value is None:
        raise ValueError(
            f"'{name}' is None {'after an iteration of' if after else 'before'} a tensor-dependent "
            "loop; loop variables must be tensors, so give it an initial tensor value."
        )
    if isinstance(value, (tuple, dict)):  # a structure: each part is a loop variable
        return rt.nest.map_structure(lambda part: _loop_value(name, part, after), value)
    if isinstance(value, list):
        array = rt.TensorArray(_list_dtype(value), size=0, dynamic_size=True)
        for i, item in enumerate(value):
            array = array.write(i, item)
        return array
    if isinstance(value, (rt.Tensor, rt.TensorArray)):
        return value
    try:
        return rt.convert_to_tensor(value)
    except (TypeError, ValueError):
        raise TypeError(
            f"'{name}' holds a {type(value).__name__}, which cannot be a variable of a "
            "tensor-dependent loop; only tensors, numbers and lists of tensors can."
        ) from None


def _list_dtype(items):
    return rt.convert_to_tensor(items[0]).dtype if items else None


# --- for ---------------------------------------------------------------------------------------


def for_stmt(iterable, loop_body, names=(), stop_on=(), unsupported=None, options=None):
    """Runs ``for item in iterable: loop_body(item)`` until one of the flags ``stop_on`` is set.

    Over a symbolic tensor (``rt.range(n)`` in a graph, or any tensor) the loop
    is staged as an rt.while_loop over its first dimension; over anything
    else it runs as Python, unrolled when building a graph. ``names`` are the
    variables the loop carries (see ``State``); ``stop_on`` are those of them
    that a ``break`` or a ``return`` in the loop sets; ``options`` those of ``set_loop_options``.
    """
    extra_test = _none_set(stop_on, loop_body) if stop_on else None
    if is_symbolic(iterable) or isinstance(iterable, _StagedIterable):
        _refuse_staging("`for` loop", unsupported)
        _staged_for(iterable, extra_test, loop_body, State(names, loop_body), options)
        return
    if isinstance(iterable, rt.Tensor) and iterable.shape.rank == 0:
        raise TypeError("Cannot iterate over a scalar tensor")
    for item in iterable:
        if extra_test is not None:
            keep_going = extra_test()
            if is_symbolic(keep_going):
                # A tensor-dependent `break` in a Python loop: the rest runs under an rt.cond.
                _refuse_staging("`break` out of a Python loop", unsupported)
                _staged_if(
                    keep_going, lambda item=item: loop_body(item), _nothing, State(names, loop_body)
                )
                continue
            if not keep_going:
                break
        loop_body(item)


def _none_set(flags, loop_body):
    """``not flag and not other_flag ...`` for the loop to test before each iteration.

    The flags are read through the loop body's cells, as the loop's state is.
    """
    state = State(flags, loop_body)

    def none_set():
        keep_going = True
        for flag in state.get():
            if isinstance(flag, _SymbolicTensor):
                not_set = rt.logical_not(flag)
                keep_going = not_set if keep_going is True else rt.logical_and(keep_going, not_set)
            elif flag:
                return False
        return keep_going

    return none_set


class _StagedIterable:
    """``enumerate``/``zip`` over symbolic tensors, for ``for_stmt`` to stage."""

    def __init__(self, kind, tensors, start=0):
        self.kind, self.tensors, self.start = kind, tensors, start

    def length(self):
        return rt.reduce_min(rt.stack([_length(t) for t in self.tensors]))

    def item(self, i):
        items = tuple(t[i] for t in self.tensors)
        return (i + self.start, items[0]) if self.kind == "enumerate" else items


def _length(t):
    first = t.shape[0] if t.shape.rank else None
    return rt.constant(first) if first is not None else rt.shape(t)[0]


def _range_parts(iterable):
    """``(length, item)`` for a ``for`` over ``rt.range`` of ints with a constant step: the
    items are computed (start + i * step), so the range is never built nor sliced."""
    if not (
        isinstance(iterable, rt.SymbolicTensor)
        and iterable.op.type == "Range"
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


def _staged_for(iterable, extra_test, loop_body, state, options=None):
    parts = _range_parts(iterable)
    if parts is not None:
        length, item = parts
    elif isinstance(iterable, _StagedIterable):
        length, item = iterable.length(), iterable.item
    else:
        if iterable.shape.rank == 0:
            raise TypeError("Cannot iterate over a scalar tensor")
        length, item = _length(iterable), iterable.__getitem__

    def test(i):
        more = i < length
        if extra_test is None:
            return more
        keep_going = extra_test()
        return rt.logical_and(more, _as_condition(keep_going))

    _staged_while(test, lambda i: loop_body(item(i)), state, index=rt.constant(0), options=options)
