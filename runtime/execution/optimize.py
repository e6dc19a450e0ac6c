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
[('constant_folding', 13, 13), ('arithmetic_identities', 13, 11), ('common_subexpression_elimination', 11, 9), ('dead_code_elimination', 9, 4)]
>>> with options(constant_folding=False, dead_code_elimination=False):
...     [name for name, _, _ in optimize(g)[1]]
['arithmetic_identities', 'common_subexpression_elimination']
"""

from __future__ import annotations

import contextlib
import contextvars
import warnings

import numpy as np

from runtime.core import nest
from runtime.core.graph import FuncGraph, Graph, Operation, constant_in_graph
from runtime.core.tensor import SymbolicTensor
from runtime.execution.compile import ops_to_run

MAX_FOLDED_ELEMENTS = 1_000_000
"""Constant folding leaves an op alone when its result would hold more elements than this."""

_DROP = object()  # a rule's answer: leave the op out of the new graph


# --- copying a graph op by op ---------------------------------------------------------------------


class _Copy:
    """One graph being copied into a new FuncGraph, with what each old tensor and op became.

    ``make_rule(graph)`` gives the rule deciding each op's fate, called as
    ``rule(op, inputs, controls, copy)`` with the op's inputs and control inputs
    already mapped into the new graph. It answers None (copy the op as is),
    a list of new tensors standing for the op's outputs, an Operation of the
    new graph standing for the op, or ``_DROP``.
    """

    def __init__(self, graph, make_rule, outer=None):
        self.old = graph
        self.make_rule = make_rule
        self.outer = outer  # the _Copy of the enclosing graph, when copying a sub-graph
        outer_graph = outer.graph if outer is not None else graph.outer_graph
        self.graph = FuncGraph(graph.graph_name, outer_graph=outer_graph)
        self.tensors = {}  # id(old tensor) -> new tensor
        self.ops = {}  # id(old op) -> the new ops it became (control inputs point at these)

    def run(self) -> FuncGraph:
        rule = self.make_rule(self.old)
        for op in self.old.get_operations():
            inputs = [self.tensors.get(id(t)) for t in op.inputs]
            controls = self._controls(op)
            self._record(op, inputs, controls, rule(op, inputs, controls, self))
        self._finish()
        return self.graph

    def _controls(self, op):
        """The new ops ``op``'s control inputs became; constants need no waiting for."""
        controls = []
        for c in op.control_inputs:
            for new in self.ops.get(id(c), ()):
                if new.type != "Const" and new not in controls:
                    controls.append(new)
        return controls

    def _record(self, op, inputs, controls, result):
        if result is _DROP:
            self.ops[id(op)] = []
            return
        if result is None:
            result = self.copy_op(op, inputs, controls)
        if isinstance(result, Operation):
            self.ops[id(op)] = [result]
            result = result.outputs
        else:
            self.ops[id(op)] = _unique(t.op for t in result)
        for old, new in zip(op.outputs, result):
            self.tensors[id(old)] = new

    def copy_op(self, op, inputs, controls) -> Operation:
        """``op`` recreated in the new graph on ``inputs``, its sub-graphs copied by the same rule."""
        if any(t is None for t in inputs):
            raise ValueError(f"op {op.name!r} reads a tensor that was dropped")
        attrs = {
            key: _Copy(value, self.make_rule, self).run() if isinstance(value, Graph) else value
            for key, value in op.attrs.items()
        }
        specs = [(t.dtype, t.shape) for t in op.outputs]
        new = self.graph.create_op(
            op.opdef, inputs, attrs, op.name, specs, control_inputs=controls, source=op._source
        )
        if op.type == "VarHandleOp":
            self.graph.variable_handles[id(op.attrs["variable"])] = new.outputs[0]
        return new

    def _finish(self):
        """Inputs, outputs, structured outputs and captures, mapped into the new graph."""
        old, new = self.old, self.graph
        new.inputs = [self.tensors[id(t)] for t in old.inputs]
        new.outputs = [self.tensors[id(t)] for t in old.outputs]
        new.structured_outputs = nest.map_structure(self._map_leaf, old.structured_outputs)
        outer_tensors = self.outer.tensors if self.outer is not None else {}
        for outer, inner in old.captures:
            outer = outer_tensors.get(id(outer), outer)
            new.captures.append((outer, self.tensors[id(inner)]))
            new._capture_map[id(outer)] = self.tensors[id(inner)]

    def _map_leaf(self, x):
        if isinstance(x, SymbolicTensor) and x.graph is self.old:
            return self.tensors.get(id(x), x)
        if isinstance(x, Operation) and x.graph is self.old:
            new = self.ops.get(id(x), [])
            return new[0] if len(new) == 1 else None
        return x


def _unique(items):
    out = []
    for x in items:
        if x not in out:
            out.append(x)
    return out


def transform(graph, make_rule) -> FuncGraph:
    """A new FuncGraph made from ``graph`` op by op, sub-graphs included, as ``make_rule`` decides.

    See ``_Copy`` for what a rule is. ``copy_graph`` is the rule that keeps every op.
    """
    return _Copy(graph, make_rule).run()


def copy_graph(graph) -> FuncGraph:
    """An op-for-op copy of ``graph`` (sub-graphs copied too).

    >>> import runtime as rt
    >>> from runtime.execution.tracing import trace
    >>> g = trace(lambda x: x + 1, [rt.TensorSpec([], rt.int32)], "f")
    >>> c = copy_graph(g)
    >>> c is g, str(c) == str(g), [t.name for t in c.outputs]
    (False, True, ['add:0'])
    """
    return transform(graph, lambda g: lambda op, inputs, controls, copy: None)


def _any_op(graph, predicate) -> bool:
    """Whether ``predicate(op)`` holds for an op of ``graph`` or of its sub-graphs.

    Each pass asks first whether it would change anything, and returns the
    graph itself if not: copying is most of an optimisation's cost.
    """
    return any(
        predicate(op) or any(_any_op(sub, predicate) for sub in op.subgraphs())
        for op in graph.get_operations()
    )


def count_ops(graph) -> int:
    """The number of ops in ``graph``, counting those of its sub-graphs (recursively)."""
    return sum(1 + sum(count_ops(sub) for sub in op.subgraphs()) for op in graph.get_operations())


# --- what may be touched ------------------------------------------------------------------------


def _is_pure(op) -> bool:
    """Equal inputs give equal outputs and running it has no effect: it may be folded or merged.

    Ops with sub-graphs and ops on opaque values (TensorArray lists, variable
    handles, which change in place) are never treated as pure here.
    """
    return (
        op.opdef.pure
        and not op.stateful
        and not op.subgraphs()
        and op.type not in ("Placeholder", "Const")
        and not any(t.dtype.is_opaque for t in (*op.inputs, *op.outputs))
    )


def _constant_value(t):
    """The value of ``t`` if a Const op makes it, else None."""
    return t.op.attrs["value"] if t is not None and t.op.type == "Const" else None


# --- constant folding ---------------------------------------------------------------------------


def _foldable(op, inputs) -> bool:
    """A pure op with outputs, no control inputs, only constant inputs, and no huge result."""
    return (
        _is_pure(op)
        and bool(op.outputs)
        and not op.control_inputs
        and all(t is not None and t.op.type == "Const" for t in inputs)
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


def _fold_rule(graph):
    def rule(op, inputs, controls, copy):
        if not _foldable(op, inputs):
            return None
        values = _evaluate(op, inputs)
        if values is None:
            return None
        return [
            constant_in_graph(copy.graph, value, t.dtype, name=op.name)
            for value, t in zip(values, op.outputs)
        ]

    return rule


def constant_folding(graph) -> FuncGraph:
    """Pure ops whose inputs are all constants become constants holding their results.

    Folds chains in one pass (a folded op's result is a constant for the next).
    Never folds stateful or impure ops (random draws, variable reads,
    TensorArray ops, placeholders), ops with sub-graphs or control inputs, ops
    whose kernel raises (the error stays for run time), or results of more
    than ``MAX_FOLDED_ELEMENTS`` elements.
    """
    if not _any_op(graph, lambda op: _foldable(op, op.inputs)):
        return graph
    return transform(graph, _fold_rule)


# --- arithmetic identities ------------------------------------------------------------------------

# op type -> (the neutral constant, whether it may stand on the left too)
_IDENTITIES = {"Mul": (1, True), "Add": (0, True), "Sub": (0, False), "RealDiv": (1, False)}


def _is_neutral(t, neutral) -> bool:
    """Whether ``t`` is a Const whose every element equals ``neutral``."""
    value = _constant_value(t)
    if value is None:
        return False
    value = np.asarray(value)
    return value.dtype.kind in "iuf" and bool(np.all(value == neutral))


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


def _identity_operand(op, inputs):
    """The input ``op`` (on ``inputs``) always equals, when it is ``x * 1``, ``x + 0``...; else None."""
    entry = _IDENTITIES.get(op.type)
    if entry is None or op.control_inputs or len(inputs) != 2 or len(op.outputs) != 1:
        return None
    neutral, commutative = entry
    a, b = inputs
    pairs = [(a, b), (b, a)] if commutative else [(a, b)]
    for x, c in pairs:
        if _is_neutral(c, neutral) and _is_identity(x, c, op.outputs[0]):
            return x
    return None


def _identity_rule(graph):
    def rule(op, inputs, controls, copy):
        x = _identity_operand(op, inputs)
        return None if x is None else [x]

    return rule


def arithmetic_identities(graph) -> FuncGraph:
    """``x * 1``, ``1 * x``, ``x + 0``, ``0 + x``, ``x - 0`` and ``x / 1`` become ``x``.

    Only when the constant is all ones (zeros) of x's dtype and broadcasting
    it cannot change x's shape: ``x * ones([3])`` on a scalar ``x`` stays.
    As in TensorFlow's Grappler, ``-0.0 + 0.0`` then gives ``-0.0`` (equal to
    the ``0.0`` it gave before, but of the other sign).
    """
    if not _any_op(graph, lambda op: _identity_operand(op, op.inputs) is not None):
        return graph
    return transform(graph, _identity_rule)


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
    if not (_is_pure(op) or op.type == "Const") or not op.outputs:
        return None
    try:
        attrs = attr_key(op.attrs)
    except _Incomparable:
        return None
    return (op.type, tuple(id(t) for t in inputs), frozenset(id(c) for c in controls), attrs)


def _cse_rule(graph):
    seen = {}

    def rule(op, inputs, controls, copy):
        key = _cse_key(op, inputs, controls)
        if key is None:
            return None
        first = seen.get(key)
        if first is not None:
            return list(first.outputs)
        seen[key] = new = copy.copy_op(op, inputs, controls)
        return new

    return rule


def common_subexpression_elimination(graph) -> FuncGraph:
    """Pure ops (and constants) of one type, on the same inputs, with equal attributes, become one.

    The first of them stays; later ones read its outputs. Inputs are compared
    by identity (after earlier merges), control inputs must match, and
    attributes compare by value (see ``attr_key``). Ops with sub-graphs,
    stateful and impure ops are never merged.
    """
    if not _has_duplicates(graph):
        return graph
    return transform(graph, _cse_rule)


def _has_duplicates(graph) -> bool:
    seen = set()
    for op in graph.get_operations():
        key = _cse_key(op, op.inputs, op.control_inputs)
        if key is not None:
            if key in seen:
                return True
            seen.add(key)
        if any(_has_duplicates(sub) for sub in op.subgraphs()):
            return True
    return False


# --- dead code elimination ----------------------------------------------------------------------


def _kept(graph):
    """The ids of the ops a function graph runs, and of its inputs' placeholders."""
    fed = {id(t) for t in graph.inputs}
    keep = {id(op) for op in ops_to_run(graph, graph.outputs, fed, run_all_stateful=True)}
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
        return None if id(op) in keep else _DROP

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
    count = None
    for optimization in passes:
        name = optimization.__name__
        if not is_enabled(name):
            continue
        before = count if count is not None else count_ops(graph)
        try:
            result = optimization(graph)
        except Exception as e:
            warnings.warn(
                f"optimisation pass {name} failed and was skipped: {e!r}",
                RuntimeWarning,
                stacklevel=2,
            )
            continue
        count = count_ops(result)
        report.append((name, before, count))
        graph = result
    return graph, report
