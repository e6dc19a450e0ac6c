"""Graph optimisation passes over function graphs: fold, merge, simplify, prune.

Each pass takes a FuncGraph and returns a new one that computes the same
outputs from the same inputs; the graph it was given is never changed, so a
ConcreteFunction's ``graph`` keeps showing what was traced. Passes recurse
into the sub-graphs of ``If`` and ``While`` ops, keeping each sub-graph's
inputs and outputs (their count and order) as they were.

- ``constant_folding``: a pure op whose inputs are all constants runs now;
  a Const holding its result takes its place.
- ``arithmetic_identities``: ``x * 1``, ``x + 0``, ``x - 0``, ``x / 1``
  become ``x`` when that changes neither the result's shape nor its dtype.
- ``common_subexpression_elimination``: pure ops of one type with the same
  inputs and equal attributes are computed once.
- ``dead_code_elimination``: ops that neither an output nor a stateful op
  needs are dropped. Stateful ops always stay, in their order.

``optimize`` runs them in turn and reports the op counts (sub-graphs
included) before and after each; ``options`` switches passes off.

>>> import runtime as rt
>>> from runtime.execution.tracing import trace
>>> def f(x):
...     scale = rt.constant(2) + 1           # folded: the Const 3
...     unused = x * 100                     # dropped: nothing needs it
...     return (x * scale + 0) + (x * scale) * 1
>>> g = trace(f, [rt.TensorSpec([], rt.int32)], "f")
>>> optimized, report = optimize(g)
>>> print(optimized)
add: int32[] = Const(value=3)
mul_1: int32[] = Mul(x, add)
add_2: int32[] = Add(mul_1, mul_1)
>>> report  # (pass, ops before, ops after)
[('constant_folding', 12, 12), ('arithmetic_identities', 12, 10), ('common_subexpression_elimination', 10, 9), ('dead_code_elimination', 9, 4)]
>>> with options(constant_folding=False, dead_code_elimination=False):
...     [name for name, _, _ in optimize(g)[1]]
['arithmetic_identities', 'common_subexpression_elimination']
"""

from __future__ import annotations

import contextlib
import contextvars
import warnings

import numpy as np

from runtime.core.gc_pause import no_cyclic_gc
from runtime.core.graph import CONST, PLACEHOLDER, FuncGraph, Graph, constant_in_graph
from runtime.execution.graph_copy import DROP, transform
from runtime.execution.schedule import function_ops
from runtime.ops import math_ops

MAX_FOLDED_ELEMENTS = 1_000_000
"""Constant folding leaves an op alone when its result would hold more elements than this."""


def count_ops(graph) -> int:
    """The number of ops in ``graph``, counting those of its sub-graphs (recursively)."""
    return sum(1 + sum(count_ops(sub) for sub in op.subgraphs()) for op in graph.get_operations())


# --- what may be touched ------------------------------------------------------------------------


def _is_pure(op) -> bool:
    """Equal inputs give equal outputs and running it has no effect: it may be folded or merged.

    Ops with sub-graphs and ops on opaque values (TensorArray lists, variable
    handles, which change in place) are never treated as pure here.
    """
    opdef = op.opdef
    if not opdef.pure or op.stateful or op.subgraphs() or opdef is PLACEHOLDER or opdef is CONST:
        return False
    for tensors in (op.inputs, op.outputs):
        for t in tensors:  # loops, not any(): this runs for every op of every pass
            if t.dtype.is_opaque:
                return False
    return True


def _constant_value(t):
    """The value of ``t`` if a Const op makes it, else None."""
    return t.op.attrs["value"] if t is not None and t.op.opdef is CONST else None


# --- constant folding ---------------------------------------------------------------------------


def _foldable(op, inputs) -> bool:
    """A pure op with outputs, no control inputs, only constant inputs, and no huge result."""
    return (
        all(t is not None and t.op.opdef is CONST for t in inputs)  # the cheap test first
        and _is_pure(op)
        and bool(op.outputs)
        and not op.control_inputs
        and all((t.shape.num_elements() or 0) <= MAX_FOLDED_ELEMENTS for t in op.outputs)
    )


def _evaluate(op, inputs):
    """The op's output values computed by its kernel now, or None if that fails or is unfit.

    A kernel error leaves the op in the graph, so the error still happens when it runs.
    """
    args = [_constant_value(t) for t in inputs]
    try:
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = op.opdef.kernel(*args, **op.attrs)
    except Exception:
        return None
    if len(op.outputs) == 1:
        values = [out]
    elif isinstance(out, (tuple, list)) and len(out) == len(op.outputs):
        values = list(out)
    else:
        return None
    for value, t in zip(values, op.outputs):
        if not isinstance(value, (np.ndarray, np.generic)):
            return None
        if np.size(value) > MAX_FOLDED_ELEMENTS or not t.shape.is_compatible_with(np.shape(value)):
            return None
    return values


def constant_folding(graph) -> FuncGraph:
    """Pure ops whose inputs are all constants become constants holding their results.

    Folds chains in one pass (a folded op's result is a constant for the next).
    Never folds stateful or impure ops (random draws, variable reads,
    TensorArray ops, placeholders), ops with sub-graphs or control inputs, ops
    whose kernel raises (the error stays for run time), or results of more
    than ``MAX_FOLDED_ELEMENTS`` elements.
    """
    return _sweep(graph, [constant_folding], 0)[0]


# --- arithmetic identities ------------------------------------------------------------------------

# row -> (its neutral constant, whether that may stand on the left too)
_IDENTITIES = {
    math_ops.MUL: (1, True),
    math_ops.ADD: (0, True),
    math_ops.SUB: (0, False),
    math_ops.REAL_DIV: (1, False),
}


def _is_neutral(t, neutral, known) -> bool:
    """Whether ``t`` is a Const whose every element equals ``neutral``; ``known`` remembers the
    answer for each (Const op, neutral): a long graph reads its few constants many times."""
    key = (id(t.op), neutral)
    answer = known.get(key)
    if answer is None:
        value = _constant_value(t)
        if value is None:
            answer = False
        else:
            value = np.asarray(value)
            answer = value.dtype.kind in "iuf" and bool((value == neutral).all())
        known[key] = answer
    return answer


def _broadcast_keeps_shape(x_shape, c_shape) -> bool:
    """Whether broadcasting a tensor of shape ``x_shape`` with one of ``c_shape`` always gives ``x_shape``.

    A scalar always does; otherwise x's rank must be known and not smaller,
    and each of c's dims must be 1 or equal a known dim of x.
    """
    c_dims = tuple(c_shape)
    if not c_dims:
        return True
    x_dims = x_shape.as_tuple()
    if x_dims is None or len(c_dims) > len(x_dims):
        return False
    return all(c == 1 or c == x for c, x in zip(reversed(c_dims), reversed(x_dims)))


def _is_identity(x, c, out) -> bool:
    """Whether ``out`` (x op c, c neutral) is always exactly ``x``: same dtype, same shape."""
    dtype = x.dtype
    return (
        (dtype.is_integer or dtype.is_floating)
        and out.dtype is dtype
        and c.dtype is dtype
        and _broadcast_keeps_shape(x.shape, np.shape(_constant_value(c)))
    )


def _identity_operand(op, inputs, known):
    """The input ``op`` (on ``inputs``) always equals, when it is ``x * 1``, ``x + 0``...; else
    None. ``known``: see ``_is_neutral``."""
    entry = _IDENTITIES.get(op.opdef)
    if entry is None or op.control_inputs or len(inputs) != 2 or len(op.outputs) != 1:
        return None
    neutral, commutative = entry
    a, b = inputs
    if b.op.opdef is CONST and _is_neutral(b, neutral, known) and _is_identity(a, b, op.outputs[0]):
        return a
    if commutative and a.op.opdef is CONST and _is_neutral(a, neutral, known):
        return b if _is_identity(b, a, op.outputs[0]) else None
    return None


def arithmetic_identities(graph) -> FuncGraph:
    """``x * 1``, ``1 * x``, ``x + 0``, ``0 + x``, ``x - 0`` and ``x / 1`` become ``x``.

    Only when the constant is all ones (zeros) of x's dtype and broadcasting
    it cannot change x's shape: ``x * ones([3])`` on a scalar ``x`` stays.
    As in TensorFlow's Grappler, ``-0.0 + 0.0`` then gives ``-0.0`` (equal to
    the ``0.0`` it gave before, but of the other sign).
    """
    return _sweep(graph, [arithmetic_identities], 0)[0]


# --- common subexpression elimination ---------------------------------------------------------------


class _Incomparable(Exception):
    """An attribute that never equals another (a sub-graph)."""


def attr_key(value):
    """A hashable stand-in for an attribute value: equal keys mean equal values.

    Arrays compare by dtype, shape and bytes (so ``0.0`` and ``-0.0`` differ
    and NaN equals NaN), Python numbers by type and value; objects without a
    value comparison (dtypes, variables) by identity. Graphs are never equal:
    raises ``_Incomparable``.

    >>> attr_key(np.float32(1)) == attr_key(np.array(1, np.float32)), attr_key(1) == attr_key(True)
    (True, False)
    """
    if isinstance(value, Graph):
        raise _Incomparable
    if isinstance(value, (np.ndarray, np.generic)):
        arr = np.asarray(value)
        if arr.dtype.kind == "O":
            return ("objects", arr.shape, tuple(attr_key(v) for v in arr.reshape(-1).tolist()))
        return ("array", arr.dtype.str, arr.shape, arr.tobytes())
    if value is None or isinstance(value, (bool, int, str, bytes)):
        return (type(value).__name__, value)
    if isinstance(value, float):
        return ("float", value.hex())
    if isinstance(value, slice):
        return ("slice", attr_key(value.start), attr_key(value.stop), attr_key(value.step))
    if isinstance(value, (list, tuple)) and not hasattr(value, "_fields"):
        return (type(value).__name__, tuple(attr_key(v) for v in value))
    if isinstance(value, dict):
        items = sorted(((repr(k), attr_key(v)) for k, v in value.items()), key=lambda kv: kv[0])
        return ("dict", tuple(items))
    return ("object", id(value))


def _cse_key(op, inputs, controls):
    """What makes two pure ops interchangeable, or None if ``op`` may not be merged."""
    if not (op.opdef is CONST or _is_pure(op)) or not op.outputs:
        return None
    try:
        attrs = attr_key(op.attrs) if op.attrs else ()
    except _Incomparable:
        return None
    return (op.opdef, tuple(map(id, inputs)), frozenset(map(id, controls)), attrs)


def common_subexpression_elimination(graph) -> FuncGraph:
    """Pure ops (and constants) of one type, on the same inputs, with equal attributes, become one.

    The first of them stays; later ones read its outputs. Inputs are compared
    by identity (after earlier merges), control inputs must match, and
    attributes compare by value (see ``attr_key``). Ops with sub-graphs,
    stateful and impure ops are never merged.
    """
    return _sweep(graph, [common_subexpression_elimination], 0)[0]


# --- dead code elimination ----------------------------------------------------------------------


def _kept(graph):
    """The ids of the ops a function graph runs, and of its inputs' placeholders."""
    keep = {id(op) for op in function_ops(graph)}
    keep.update(id(t.op) for t in graph.inputs)
    return keep


def _has_dead_ops(graph) -> bool:
    ops = graph.get_operations()
    return len(_kept(graph)) < len(ops) or any(
        _has_dead_ops(sub) for op in ops for sub in op.subgraphs()
    )


def _dce_rule(graph):
    keep = _kept(graph)

    def rule(op, inputs, controls, copy):
        return None if id(op) in keep else DROP

    return rule


def dead_code_elimination(graph) -> FuncGraph:
    """Drops ops that neither the outputs nor any stateful op need.

    Keeps exactly what a function graph runs (``runtime.execution.compile.ops_to_run``):
    every stateful op, what it needs, and the inputs' placeholders, even unused.
    """
    if not _has_dead_ops(graph):
        return graph
    return transform(graph, _dce_rule)


# --- running the passes -------------------------------------------------------------------------

DEFAULT_PASSES = (
    constant_folding,
    arithmetic_identities,
    common_subexpression_elimination,
    dead_code_elimination,
)
_SWEPT = DEFAULT_PASSES[:3]  # passes that decide op by op: ``optimize`` runs them in one sweep

_switches = contextvars.ContextVar("runtime_optimize_switches", default=None)


@contextlib.contextmanager
def options(**switches):
    """Within the block, ``optimize`` skips the passes switched off; ``enabled=False`` skips all.

    >>> with options(enabled=False):
    ...     optimize(FuncGraph("empty"))[1]
    []
    """
    known = {"enabled", *(p.__name__ for p in DEFAULT_PASSES)}
    unknown = sorted(set(switches) - known)
    if unknown:
        raise TypeError(f"optimize.options: unknown option(s) {unknown}; known: {sorted(known)}")
    token = _switches.set({**(_switches.get() or {}), **{k: bool(v) for k, v in switches.items()}})
    try:
        yield
    finally:
        _switches.reset(token)


def is_enabled(name="enabled") -> bool:
    """Whether ``options`` leaves the pass ``name`` (or, by default, optimisation at all) on."""
    switches = _switches.get() or {}
    return switches.get("enabled", True) and switches.get(name, True)


def optimize(func_graph, passes=DEFAULT_PASSES):
    """Runs ``passes`` in turn: returns ``(optimized_graph, report)``.

    ``report`` lists ``(pass_name, ops_before, ops_after)`` for each pass that
    ran, counting ops of sub-graphs too. Passes switched off by ``options``
    are skipped; with none run, the graph returned is ``func_graph`` itself.
    A pass that fails is skipped with a RuntimeWarning: the graph stays correct.
    """
    graph, report = func_graph, []
    if not is_enabled():
        return graph, report
    with no_cyclic_gc():
        return _optimize(graph, passes, report)


def _optimize(graph, passes, report):
    count = count_ops(graph)
    enabled = [p for p in passes if is_enabled(p.__name__)]
    k = 0
    while k < len(enabled):
        run = [enabled[k]]  # consecutive passes, in the sweep's order, that one sweep does
        while k + len(run) < len(enabled) and _sweeps_after(run[-1], enabled[k + len(run)]):
            run.append(enabled[k + len(run)])
        k += len(run)
        try:
            if run[0] in _SWEPT:
                result, counts = _sweep(graph, run, count)
            else:
                result = run[0](graph)
                counts = [count if result is graph else count_ops(result)]
        except Exception as e:
            names = ", ".join(p.__name__ for p in run)
            warnings.warn(
                f"optimisation pass {names} failed and was skipped: {e!r}",
                RuntimeWarning,
                stacklevel=3,  # the caller of optimize (a with block adds no frame)
            )
            continue
        for optimization, after in zip(run, counts):
            report.append((optimization.__name__, count, after))
            count = after
        graph = result
    return graph, report


# --- folding, identities and merging in one sweep -------------------------------------------------


def _sweeps_after(previous, optimization):
    """Whether ``optimization`` can join the sweep of ``previous``: both swept, in this order."""
    return (
        previous in _SWEPT
        and optimization in _SWEPT
        and _SWEPT.index(previous) < _SWEPT.index(optimization)
    )


def _sweep(graph, run, count):
    """``run`` (folding, identities, merging, in this order, some of them) in one copy of the
    graph, each op meeting them in turn, as if each pass had copied the graph in turn.

    Returns the new graph (``graph`` itself when nothing changes) and the op count
    after each pass of ``run``, as each would have reported it. Each of the three passes
    called by itself is its sweep alone.
    """
    fold, identities, merge = (p in run for p in _SWEPT)
    changes = {"fold": 0, "identities": 0, "merges": 0}

    def make_rule(graph):
        seen, neutral = {}, {}  # CSE keys -> their first op; Const op ids -> their neutrality

        def rule(op, inputs, controls, copy):
            if fold and _foldable(op, inputs):
                values = _evaluate(op, inputs)
                if values is not None:
                    changes["fold"] += len(values) - 1
                    return [_folded(copy, op, v, t.dtype, seen if merge else None, changes)
                            for v, t in zip(values, op.outputs)]  # fmt: skip
            if identities:
                x = _identity_operand(op, inputs, neutral)
                if x is not None:
                    changes["identities"] += 1
                    return [x]
            key = _cse_key(op, inputs, controls) if merge else None
            if key is None:
                return None
            first = seen.get(key)
            if first is not None:
                changes["merges"] += 1
                return list(first.outputs)
            seen[key] = new = copy.copy_op(op, inputs, controls)
            return new

        return rule

    if _would_change(graph, fold, identities, merge):
        graph = transform(graph, make_rule)
    counts = []
    for p, change in zip(_SWEPT, (changes["fold"], -changes["identities"], -changes["merges"])):
        if p in run:
            count += change
            counts.append(count)
    return graph, counts


def _folded(copy, op, value, dtype, seen, changes):
    """A folded value as a Const of the new graph: an equal one merging makes, when merging."""
    if seen is None:
        return constant_in_graph(copy.graph, value, dtype, name=op.name)
    key = (CONST, (), frozenset(), attr_key({"value": value, "dtype": dtype}))
    first = seen.get(key)
    if first is not None:
        changes["merges"] += 1
        return first.outputs[0]
    made = constant_in_graph(copy.graph, value, dtype, name=op.name)
    seen[key] = made.op
    return made


def _would_change(graph, fold, identities, merge):
    """Whether any op of ``graph`` (or of its sub-graphs) is one the sweep would change: each
    change the sweep makes starts at one, so a graph without any is kept as it is (copying
    is most of an optimisation's cost)."""
    seen, neutral = set(), {}
    for op in graph.get_operations():
        if fold and _foldable(op, op.inputs):
            return True
        if identities and _identity_operand(op, op.inputs, neutral) is not None:
            return True
        if merge:
            key = _cse_key(op, op.inputs, op.control_inputs)
            if key is not None:
                if key in seen:
                    return True
                seen.add(key)
        subgraphs = op.subgraphs()
        if subgraphs and any(_would_change(sub, fold, identities, merge) for sub in subgraphs):
            return True
    return False
