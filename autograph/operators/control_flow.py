"""``if``, ``while`` and ``for`` as converted code calls them.

Each decides at run time: on Python values (and eager tensors) the statement
runs as plain Python; on a symbolic tensor it becomes ``rt.cond`` or
``rt.while_loop``. Branches and bodies are functions that read and write the
enclosing function's variables (``nonlocal``); ``get_state``/``set_state`` read
and write the variables the statement carries, named by ``names``.

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
from autograph.operators.variables import UndefinedReturnValue, is_undefined
from runtime.control_flow import build_cond
from runtime.tracing import set_outputs, trace


def is_symbolic(value) -> bool:
    """True for a tensor that only has a value when a graph runs."""
    return isinstance(value, rt.SymbolicTensor)


def _no_state():
    return ()


def _ignore_state(state):
    pass


def _nothing():
    pass


def _refuse_staging(statement, unsupported):
    if unsupported:
        raise NotImplementedError(
            f"A tensor-dependent {statement} is not supported here: {unsupported}"
        )


# --- if ------------------------------------------------------------------------------------------


def if_stmt(
    cond,
    if_true,
    if_false=None,
    get_state=_no_state,
    set_state=_ignore_state,
    names=(),
    unsupported=None,
):
    """Runs ``if_true()`` or ``if_false()``; on a symbolic ``cond``, stages both as an rt.cond."""
    if is_symbolic(cond):
        _refuse_staging("`if`", unsupported)
        _staged_if(cond, if_true, if_false or _nothing, get_state, set_state, names)
    elif cond:
        if_true()
    elif if_false is not None:
        if_false()


def _staged_if(cond, if_true, if_false, get_state, set_state, names):
    initial = tuple(get_state())

    def branch(fn):
        def run():
            set_state(initial)
            fn()
            return tuple(get_state())

        return run

    graph = rt.get_default_graph()
    true_graph = trace(branch(if_true), [], "if_true", graph, convert=False)
    false_graph = trace(branch(if_false), [], "if_false", graph, convert=False)
    true_out, false_out = true_graph.structured_outputs, false_graph.structured_outputs
    # A variable both branches leave as the same object passes through untouched.
    staged = [i for i, (a, b) in enumerate(zip(true_out, false_out)) if a is not b]
    if _probing.depth:
        true_out, false_out = _fill_for_probe(true_out, true_graph, false_out, false_graph, staged)
    for i in staged:
        _check_branch_values(names[i], true_out[i], false_out[i])
    set_outputs(true_graph, [true_out[i] for i in staged])
    set_outputs(false_graph, [false_out[i] for i in staged])
    labels = [f"'{names[i]}'" for i in staged]
    results = build_cond(cond, true_graph, false_graph, labels=labels) if staged else []
    final = list(true_out)
    for i, value in zip(staged, results):
        final[i] = value
    set_state(tuple(final))


def _fill_for_probe(true_out, true_graph, false_out, false_graph, staged):
    """While probing a loop body, a value set in one branch only gets zeros in the other.

    The probe only asks what type a loop variable has after an iteration
    (``return`` inside a loop sets ``retval`` in one branch); its graph is thrown away.
    """
    true_out, false_out = list(true_out), list(false_out)
    for i in staged:
        for this, this_graph, other in (
            (true_out, true_graph, false_out),
            (false_out, false_graph, true_out),
        ):
            if is_undefined(this[i]) and not is_undefined(other[i]) and _stageable(other[i]):
                with this_graph.as_default():
                    spec = (
                        other[i]
                        if isinstance(other[i], rt.Tensor)
                        else rt.convert_to_tensor(other[i])
                    )
                    this[i] = _zeros_like_spec(spec)
    return tuple(true_out), tuple(false_out)


def _zeros_like_spec(t):
    dims = [0 if d is None else d for d in t.shape.as_list()] if t.shape.rank is not None else []
    if t.dtype is rt.string:
        return rt.fill(dims, rt.constant(b""))
    return rt.zeros(dims, t.dtype)


class _Probing(threading.local):
    depth = 0


_probing = _Probing()


def _check_branch_values(name, a, b):
    for value, this, other, other_value in ((a, "true", "false", b), (b, "false", "true", a)):
        if is_undefined(value) and not is_undefined(other_value):
            if isinstance(value, UndefinedReturnValue):
                raise ValueError(
                    f"The function returns a value in the {other} branch of a tensor-dependent `if` "
                    f"but not in the {this} branch: every branch must return a value (or none must)."
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
    for value, which in ((a, "true"), (b, "false")):
        if not _stageable(value):
            raise TypeError(
                f"'{name}' holds a {type(value).__name__} in the {which} branch of a tensor-dependent "
                "`if`, which a graph cannot return; only tensors and numbers can differ between branches."
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


def while_stmt(
    loop_test, loop_body, get_state=_no_state, set_state=_ignore_state, names=(), unsupported=None
):
    """Runs ``while loop_test(): loop_body()``; a symbolic test stages the loop as rt.while_loop.

    A loop that starts with Python values and whose test turns symbolic
    after some iterations is staged from that iteration on.
    """
    test = loop_test()
    while True:
        if is_symbolic(test):
            _refuse_staging("`while` loop", unsupported)
            _staged_while(loop_test, loop_body, get_state, set_state, names)
            return
        if not test:
            return
        loop_body()
        test = loop_test()


def _staged_while(loop_test, loop_body, get_state, set_state, names, index=None):
    """Stages the loop as rt.while_loop over the state (and an ``index``, for ``for`` loops).

    With an index, ``loop_test(i)`` and ``loop_body(i)`` take it. A loop that
    carries nothing still needs one variable: it counts its iterations.
    """
    uses_index = index is not None
    run_body = (lambda extra: loop_body(*extra)) if uses_index else (lambda extra: loop_body())
    values = list(get_state())
    standins = _standins(values, names, set_state, get_state, run_body, uses_index)
    for i, (zeros, _) in standins.items():
        values[i] = zeros
    state = [_loop_value(name, value) for name, value in zip(names, values)]
    extra = [index] if uses_index else ([] if state else [rt.constant(0)])
    labels = (["<loop index>"] if uses_index else ["<iterations>"] if extra else []) + list(names)
    n = len(extra)

    def cond_fn(*values):
        set_state(values[n:])
        return _as_condition(loop_test(*values[:n]) if uses_index else loop_test())

    def body_fn(*values):
        set_state(values[n:])
        run_body(values[:n])
        out = [_loop_value(name, value, after=True) for name, value in zip(names, get_state())]
        return tuple(v + 1 for v in values[:n]) + tuple(out)

    invariants = None
    if standins:  # a stand-in's shape is the one the body gives, not the zeros' own
        invariants = [leaf.shape for v in extra for leaf in rt.nest.flatten(v)]
        for i, v in enumerate(state):
            shapes = [
                leaf.shape if isinstance(leaf, rt.Tensor) else rt.TensorShape(None)
                for leaf in rt.nest.flatten(v)
            ]
            invariants += [standins[i][1]] if i in standins else shapes
    final = rt.while_loop(
        cond_fn, body_fn, tuple(extra) + tuple(state), names=labels, shape_invariants=invariants
    )
    set_state(tuple(final[n:]))


def _standins(values, names, set_state, get_state, run_body, uses_index):
    """Initial values for loop variables that are undefined before the loop: {position: (zeros, shape)}.

    ``retval`` of a ``return`` inside the loop, say, has no value until the
    loop returns. One iteration is traced in a throwaway graph to learn what
    such a variable becomes, and it starts as zeros of that dtype. The flags
    that lowering added make sure the stand-in is never used as a result.
    """
    undefined = [i for i, v in enumerate(values) if is_undefined(v)]
    if not undefined:
        return {}
    probe = rt.FuncGraph("loop_probe", outer_graph=rt.get_default_graph())
    _probing.depth += 1
    try:
        with probe.as_default():
            set_state(tuple(values))
            run_body([probe.add_input(rt.int32, [])] if uses_index else [])
            after = list(get_state())
    except (UnboundLocalError, TypeError, ValueError):
        after = list(values)  # reported by name below, as undefined before the loop
    finally:
        _probing.depth -= 1
        set_state(tuple(values))
    standins = {}
    for i in undefined:
        value = after[i]
        if is_undefined(value) or not isinstance(value, (rt.Tensor, rt.Variable, bool, int, float)):
            continue
        value = rt.convert_to_tensor(value) if not isinstance(value, rt.Tensor) else value
        standins[i] = (_zeros_like_spec(value), value.shape)
    return standins


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
            f"'{name}' is used in a tensor-dependent loop but is not defined before it: a graph "
            "loop may run zero times, so give it a value before the loop."
        )
    if value is None:
        raise ValueError(
            f"'{name}' is None {'after an iteration of' if after else 'before'} a tensor-dependent "
            "loop; loop variables must be tensors, so give it an initial tensor value."
        )
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


def for_stmt(
    iterable,
    extra_test,
    loop_body,
    get_state=_no_state,
    set_state=_ignore_state,
    names=(),
    unsupported=None,
):
    """Runs ``for item in iterable: loop_body(item)`` while ``extra_test()`` holds.

    Over a symbolic tensor (``rt.range(n)`` in a graph, or any tensor) the loop
    is staged as an rt.while_loop over its first dimension; over anything
    else it runs as Python, unrolled when building a graph.
    """
    if is_symbolic(iterable) or isinstance(iterable, _StagedIterable):
        _refuse_staging("`for` loop", unsupported)
        _staged_for(iterable, extra_test, loop_body, get_state, set_state, names)
        return
    if isinstance(iterable, rt.Tensor) and iterable.shape.rank == 0:
        raise TypeError("Cannot iterate over a scalar tensor")
    for item in iterable:
        if extra_test is not None:
            keep_going = extra_test()
            if is_symbolic(keep_going):
                # A tensor-dependent `break` in a Python loop: the rest runs under an rt.cond.
                _staged_if(
                    keep_going,
                    lambda item=item: loop_body(item),
                    _nothing,
                    get_state,
                    set_state,
                    names,
                )
                continue
            if not keep_going:
                break
        loop_body(item)


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


def _staged_for(iterable, extra_test, loop_body, get_state, set_state, names):
    if isinstance(iterable, _StagedIterable):
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

    _staged_while(
        test, lambda i: loop_body(item(i)), get_state, set_state, names, index=rt.constant(0)
    )
