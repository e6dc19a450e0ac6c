"""``cond`` and ``while_loop``: sub-graphs traced once into one ``If`` or ``While`` op.

Eagerly both are plain Python. In a graph, ``cond`` traces each branch into a
sub-graph and adds one ``If`` op; ``while_loop`` traces its test and body once
into sub-graphs and adds one ``While`` op, so the graph does not grow with the
number of iterations.

>>> import runtime as rt
>>> g = rt.Graph()
>>> with g.as_default():
...     x = rt.placeholder(rt.int32, [])
...     y = rt.cond(x > 0, lambda: x * 10, lambda: -x)
...     total, = rt.while_loop(lambda t: t < 100, lambda t: [t * 2], [x])
>>> with rt.Session(g) as sess:
...     sess.run([y, total], {x: 3})
[np.int32(30), np.int32(192)]
"""

from __future__ import annotations

from runtime import errors
from runtime.core import context, dtypes, nest
from runtime.core.graph import Operation
from runtime.core.tensor import SymbolicTensor, Tensor
from runtime.core.tensor_shape import TensorShape, as_shape
from runtime.execution.tracing import trace, unify_captures
from runtime.ops.array_ops import identity
from runtime.ops.constant_ops import convert_to_tensor
from runtime.ops.control_flow_ops import (
    IF,
    WHILE,
    check_branch_count,
    check_predicate,
    control_dependencies,
)
from runtime.ops.registry import bind

# --- cond --------------------------------------------------------------------------------------


def cond(pred, true_fn=None, false_fn=None, name=None):
    """``true_fn()`` if ``pred`` else ``false_fn()``.

    A Python bool or an eager tensor picks a branch at once; a symbolic
    ``pred`` traces both branches, which must return the same structure and
    dtypes, and decides when the graph runs.

    >>> import runtime as rt
    >>> rt.cond(rt.constant(2) > 1, lambda: "yes", lambda: "no")
    'yes'
    """
    if not callable(true_fn) or not callable(false_fn):
        raise TypeError("cond: true_fn and false_fn must be callables taking no arguments")
    if not isinstance(pred, SymbolicTensor):
        if isinstance(pred, Tensor) and pred.shape.rank not in (0, None):
            raise ValueError(f"cond: pred must be a scalar, got shape {pred.shape}")
        return true_fn() if pred else false_fn()
    check_predicate(pred)
    graph = context.building_graph()
    true_graph = trace(lambda: _ops_as_tensors(true_fn(), pred), [], "true_fn", graph)
    false_graph = trace(lambda: _ops_as_tensors(false_fn(), pred), [], "false_fn", graph)
    true_out, false_out = true_graph.structured_outputs, false_graph.structured_outputs
    _check_same_structure(true_out, false_out)
    for i, (a, b) in enumerate(zip(nest.flatten(true_out), nest.flatten(false_out))):
        if (a is None) != (b is None):
            raise ValueError(
                f"rt.cond: output {i} is {_describe_output(a)} from true_fn but "
                f"{_describe_output(b)} from false_fn; both branches must return a value there."
            )
    outputs = build_cond(pred, true_graph, false_graph, name=name)
    return _pack_outputs(nest.join(true_out, false_out), outputs)


def build_cond(pred, true_graph, false_graph, labels=None, name=None):
    """Adds the If op running two traced branches; returns its output tensors.

    The branches' ``outputs`` must match in number and dtype; ``labels`` name
    the outputs in errors (AutoGraph passes variable names).
    """
    named = labels is not None
    labels = labels or [str(i) for i in range(len(true_graph.outputs))]
    check_branch_count(true_graph, false_graph)
    for label, a, b in zip(labels, true_graph.outputs, false_graph.outputs):
        if a.dtype is not b.dtype and named:  # AutoGraph's `if`: TensorFlow's words for it
            raise TypeError(
                f"{label} has dtype {a.dtype.name} in the main branch, but dtype {b.dtype.name} "
                "in the else branch. A variable leaves a tensor-dependent `if` with one dtype: "
                f"cast one of them (rt.cast(..., rt.{a.dtype.name}))."
            )
        if a.dtype is not b.dtype:
            raise TypeError(
                "true_fn and false_fn arguments to rt.cond must have the same types of return "
                f"values: output {label} is {a.dtype.name} from true_fn but {b.dtype.name} from "
                "false_fn."
            )
    captures = unify_captures([true_graph, false_graph])
    attrs = {"then_graph": true_graph, "else_graph": false_graph}
    return list(bind(IF, [pred, *captures], attrs, name or "cond"))


def _ops_as_tensors(result, pred):
    """An op a branch returns becomes ``pred`` after it, as in TensorFlow: fetching the result runs it."""

    def convert(x):
        if isinstance(x, Operation):
            with control_dependencies([x]):
                return identity(pred)
        return x

    return nest.map_structure(convert, result)


def _describe_output(x):
    return "None" if x is None else f"{x.dtype.name} {x.shape}"


def _check_same_structure(true_out, false_out):
    try:
        nest.assert_same_structure(true_out, false_out)
    except ValueError as e:
        raise ValueError(
            "true_fn and false_fn arguments to rt.cond must have the same number, type, and overall "
            f"structure of return values.\n\ntrue_fn output: {nest.describe(true_out)}\n"
            f"false_fn output: {nest.describe(false_out)}\n\nError details:\n{e}"
        ) from None


def _pack_outputs(structure, outputs):
    it = iter(outputs)
    return nest.map_structure(lambda x: None if x is None else next(it), structure)


# --- while_loop ---------------------------------------------------------------------------------


def while_loop(
    cond, body, loop_vars, shape_invariants=None, maximum_iterations=None, name=None, names=None
):
    """Repeats ``loop_vars = body(*loop_vars)`` while ``cond(*loop_vars)``; returns the final vars.

    ``loop_vars`` is a list or tuple (nested structures and TensorArrays
    allowed) and the result has the same structure. A loop variable may not
    change dtype (TypeError) or shape (ValueError) unless ``shape_invariants``
    gives it a less specific shape. ``names`` (one per loop variable) label
    the variables in those errors; AutoGraph passes the Python variable names.

    >>> import runtime as rt
    >>> rt.while_loop(lambda i, s: i < 4, lambda i, s: (i + 1, s + i), (0, 0))
    (<rt.Tensor: shape=(), dtype=int32, numpy=4>, <rt.Tensor: shape=(), dtype=int32, numpy=6>)
    """
    if not callable(cond) or not callable(body):
        raise TypeError("while_loop: cond and body must be callables")
    if not isinstance(loop_vars, (list, tuple)) or not loop_vars:
        raise ValueError("while_loop: loop_vars must be a non-empty list or tuple")
    loop_vars = _loop_vars_as_tensors(loop_vars)
    flat = nest.flatten(loop_vars)
    labels = _labels(loop_vars, flat, names)
    invariants = _invariants(
        flat, _flat_invariants(loop_vars, shape_invariants), labels if names is not None else None
    )
    if maximum_iterations is not None:
        maximum_iterations = convert_to_tensor(maximum_iterations, dtypes.int32)
    graph = context.building_graph()
    if graph is None:
        return _eager_while(
            cond, body, loop_vars, flat, invariants, labels, maximum_iterations, names
        )
    return _graph_while(
        graph, cond, body, loop_vars, flat, invariants, labels, maximum_iterations, name, names
    )


def _loop_vars_as_tensors(loop_vars):
    def convert(path_index, v):
        if v is None:
            raise TypeError(
                f"while_loop: loop variable {path_index} is None; give it an initial value"
            )
        return v if isinstance(v, Tensor) else convert_to_tensor(v)

    flat = nest.flatten(loop_vars)
    return nest.pack_sequence_as(loop_vars, [convert(i, v) for i, v in enumerate(flat)])


def _flat_invariants(loop_vars, shape_invariants):
    """One shape (or None) per leaf of ``loop_vars``, read from ``shape_invariants`` along the
    structure of ``loop_vars``: where a loop variable is a tensor, its invariant is a shape, so
    ``[]`` is a scalar's and ``[None]`` a vector's (never an empty or one-item structure)."""
    if shape_invariants is None:
        return None
    if isinstance(loop_vars, dict) and isinstance(shape_invariants, dict):
        if set(loop_vars) != set(shape_invariants):
            raise ValueError("while_loop: shape_invariants must have the keys of loop_vars")
        return [
            s
            for key in nest.flatten({k: k for k in loop_vars})
            for s in _flat_invariants(loop_vars[key], shape_invariants[key])
        ]
    if isinstance(loop_vars, (list, tuple)):
        if not isinstance(shape_invariants, (list, tuple)) or len(shape_invariants) != len(
            loop_vars
        ):
            raise ValueError(
                f"while_loop: {len(loop_vars)} loop variables but shape_invariants "
                f"{shape_invariants!r} does not have their structure"
            )
        return [s for v, i in zip(loop_vars, shape_invariants) for s in _flat_invariants(v, i)]
    leaves = len(nest.flatten(loop_vars))
    if leaves == 1:
        return [shape_invariants]
    inv = nest.flatten(_shapes_structure(shape_invariants))  # a composite's (a TensorArray's)
    if len(inv) != leaves:
        raise ValueError(f"while_loop: {leaves} loop variables but {len(inv)} shape invariants")
    return inv


def _invariants(flat, inv, names):
    """One shape per flat loop variable (``inv``, from ``_flat_invariants``, or None: their
    own); ``names`` (AutoGraph's labels) choose TensorFlow's AutoGraph wording for errors."""
    if inv is None:
        return [t.shape for t in flat]
    out = []
    for i, (t, s) in enumerate(zip(flat, inv)):
        s = TensorShape(None) if s is None else as_shape(s)
        if not t.shape.is_subtype_of(s) and names is not None:
            raise ValueError(
                f"{names[i]} has shape {t.shape} before the loop, which does not conform with "
                f"the shape invariant {s}."
            )
        if not s.is_compatible_with(t.shape):
            raise ValueError(
                f"while_loop: loop variable {i} has shape {t.shape}, which does not fit its "
                f"shape invariant {s}"
            )
        out.append(s)
    return out


def _shapes_structure(s):
    # A shape given as a list of ints is a leaf, not a structure of dims.
    if isinstance(s, (list, tuple)) and s and all(isinstance(d, int) or d is None for d in s):
        return TensorShape(s)
    if isinstance(s, TensorShape) or s is None:
        return s
    if isinstance(s, (list, tuple)):
        return type(s)(_shapes_structure(x) for x in s) if not hasattr(s, "_fields") else s
    if isinstance(s, dict):
        return {k: _shapes_structure(v) for k, v in s.items()}
    return s


def _normalize_body_result(loop_vars, result, names=None):
    # A body for a single loop variable may return it bare instead of in a list.
    if len(loop_vars) == 1 and not (isinstance(result, (list, tuple)) and len(result) == 1):
        result = type(loop_vars)([result]) if not hasattr(loop_vars, "_fields") else result
    if isinstance(result, (list, tuple)) and not hasattr(result, "_fields"):
        result = type(loop_vars)(result) if not hasattr(loop_vars, "_fields") else result
    if names is not None and len(names) == len(result):
        for name, before, after in zip(names, loop_vars, result):
            try:
                nest.assert_same_structure(before, after)
            except ValueError:
                raise errors.NestedStructureError(
                    f"'{name}' does not have the same nested structure after one iteration: "
                    f"it enters the loop as {nest.describe(before)} and leaves an iteration as "
                    f"{nest.describe(after)}; a graph loop needs the same structure on every "
                    "iteration."
                ) from None
    try:
        nest.assert_same_structure(loop_vars, result)
    except ValueError:
        raise ValueError(
            f"while_loop: body returned {nest.describe(result)} but the loop variables are "
            f"{nest.describe(loop_vars)}; it must return the same structure."
        ) from None
    return result


def _labels(loop_vars, flat, names):
    """How errors name each flat loop variable: ``0 ('Const:0')``, or ``'x'`` given names."""
    if names is None:
        return [f"{i}{_tensor_label(t)}" for i, t in enumerate(flat)]
    labels = []
    for name, var in zip(names, loop_vars):
        parts = len(nest.flatten(var))
        labels.extend(
            [f"'{name}'"] if parts == 1 else [f"'{name}' (part {j})" for j in range(parts)]
        )
    return labels


def _check_loop_var(label, before, after, invariant, named=False):
    """Raises if a loop variable's dtype or shape after an iteration does not fit.

    ``named`` (AutoGraph's loops, whose variables have names) takes TensorFlow's
    AutoGraph wording, then says what to do.
    """
    if after is None:
        raise TypeError(f"Loop variable {label} became None in the loop body")
    if named:
        _check_named_loop_var(label, before, after, invariant)
    if after.dtype is not before.dtype:
        raise TypeError(
            f"Loop variable {label} enters the loop with dtype {before.dtype.name} "
            f"but has dtype {after.dtype.name} after one iteration; its dtype must stay the same."
        )
    if not after.shape.is_subtype_of(invariant):
        raise ValueError(
            f"Loop variable {label} enters the loop with shape {invariant}, but has "
            f"shape {after.shape} after one iteration. To allow the shape to vary across iterations, "
            "use the `shape_invariants` argument of rt.while_loop to specify a less-specific shape."
        )


def _check_named_loop_var(label, before, after, invariant):
    if after.dtype is not before.dtype:
        raise TypeError(
            f"{label} has dtype {before.dtype.name} before the loop, but dtype "
            f"{after.dtype.name} after one iteration. A loop variable keeps its dtype: cast the "
            f"new value (rt.cast(..., rt.{before.dtype.name})) or start from that dtype."
        )
    if after.shape.is_subtype_of(invariant):
        return
    if invariant == before.shape:
        raise ValueError(
            f"{label} has shape {before.shape} before the loop, but shape {after.shape} after "
            "one iteration. Use ag.experimental.set_loop_options to set shape invariants: make "
            "set_loop_options(shape_invariants=[(variable, rt.TensorShape([...]))]) the first "
            "statement of the loop, with None for the dims that vary."
        )
    raise ValueError(
        f"{label} has shape {after.shape} after one iteration, which does not conform with the "
        f"shape invariant {invariant}."
    )


def _tensor_label(t):
    return f" ('{t.name}')" if isinstance(t, SymbolicTensor) else ""


def _eager_while(cond, body, loop_vars, flat, invariants, labels, maximum_iterations, names):
    limit = None if maximum_iterations is None else int(maximum_iterations)
    count = 0
    while (limit is None or count < limit) and cond(*loop_vars):
        result = _normalize_body_result(loop_vars, body(*loop_vars), names)
        result = _loop_vars_as_tensors(result)
        new_flat = nest.flatten(result)
        for label, before, after, inv in zip(labels, flat, new_flat, invariants):
            _check_loop_var(label, before, after, inv, names is not None)
        loop_vars, count = result, count + 1
    return loop_vars


def _graph_while(
    graph, cond, body, loop_vars, flat, invariants, labels, maximum_iterations, name, names
):
    arg_names = [f"loop_var_{i}" for i in range(len(flat))]
    cond_graph = trace(cond, list(loop_vars), "while_cond", graph, arg_names, invariants)
    pred = cond_graph.outputs
    if len(pred) != 1 or pred[0].dtype is not dtypes.bool_ or pred[0].shape.rank not in (0, None):
        got = ", ".join(_describe_output(p) for p in pred) or "nothing"
        raise TypeError(f"while_loop: cond must return a scalar bool tensor, got {got}")
    body_graph = trace(
        lambda *a: _normalize_body_result(loop_vars, body(*a), names),
        list(loop_vars),
        "while_body",
        graph,
        arg_names,
        invariants,
    )
    body_out = nest.flatten(body_graph.structured_outputs)
    for label, before, after, inv in zip(labels, flat, body_out, invariants):
        _check_loop_var(label, before, after, inv, names is not None)
    captures = unify_captures([cond_graph, body_graph])
    inputs = [graph.prepare_input(t) for t in flat] + captures
    if maximum_iterations is not None:
        inputs.append(graph.prepare_input(maximum_iterations))
    attrs = {
        "cond_graph": cond_graph,
        "body_graph": body_graph,
        "num_loop_vars": len(flat),
        "has_maximum_iterations": maximum_iterations is not None,
        "stacked": None,  # until the loop is differentiated
    }
    outputs = bind(WHILE, inputs, attrs, name or "while")
    # TensorArrays come back with what the body learned about their elements, and claim
    # only what holds as they entered too: the loop may run zero times.
    after = nest.join(body_graph.structured_outputs, loop_vars)
    return nest.pack_sequence_as(after, list(outputs))
