"""The control flow rows: ``If`` and ``While``, which run traced sub-graphs, and ``NoOp``.

An ``If`` op holds its two branches, a ``While`` op its test and body, as
FuncGraphs in its attributes; ``rt.cond`` and ``rt.while_loop``
(``runtime.functions.control_flow``) trace them. Their gradient rules trace
and differentiate those sub-graphs, so they live above the op table, in
``runtime.gradients.control_flow``, which sets them on these rows when the
gradients package is imported (as TensorFlow registers them apart from the ops).

>>> from runtime.ops.control_flow_ops import IF, WHILE
>>> IF.gradient.__module__, WHILE.gradient.__name__
('runtime.gradients.control_flow', 'while_gradient')
"""

from __future__ import annotations

import contextlib

from runtime.core import attr_kinds as kinds
from runtime.core import context, dtypes, nest
from runtime.core.graph import FUNC_GRAPH, PLACEHOLDER, Operation
from runtime.core.op_def import NO_INPUTS, OpDef
from runtime.core.tensor import EagerTensor, Tensor
from runtime.core.tensor_shape import TensorShape
from runtime.ops.registry import bind_op, no_outputs


def _run_subgraph_kernel(*args, **attrs):
    raise NotImplementedError(
        "If and While ops run through the compiler (runtime.execution.compile)"
    )


def _check_arguments(what, graph, args):
    """``graph`` (a branch, a loop's test or body) takes ``args``: as many, of the same types."""
    if len(graph.inputs) != len(args):
        raise ValueError(f"{what} takes {len(graph.inputs)} inputs but is given {len(args)}")
    for i, (placeholder, arg) in enumerate(zip(graph.inputs, args)):
        if placeholder.op.opdef is not PLACEHOLDER:
            raise ValueError(f"{what}: its input {i} is not a placeholder")
        if placeholder.dtype is not arg.dtype or not placeholder.shape.is_compatible_with(
            arg.shape
        ):
            raise TypeError(
                f"{what}: input {i} is {placeholder.dtype.name} {placeholder.shape} but is "
                f"given {arg.dtype.name} {arg.shape}"
            )


def check_predicate(pred):
    """A staged cond's ``pred`` is a scalar bool tensor (rt.cond checks it before tracing)."""
    if pred.dtype is not dtypes.bool_ or pred.shape.rank not in (0, None):
        raise TypeError(
            f"cond: pred must be a scalar bool tensor, got {pred.dtype.name} {pred.shape}"
        )


def check_branch_count(then_graph, else_graph):
    if len(then_graph.outputs) != len(else_graph.outputs):
        raise ValueError("rt.cond: the branches return different numbers of values")


def _if_infer(inputs, attrs):
    """An If's outputs are its branches' outputs: the same dtypes, the shape both allow."""
    pred, args = inputs[0], inputs[1:]
    check_predicate(pred)
    then_graph, else_graph = attrs["then_graph"], attrs["else_graph"]
    _check_arguments("cond: the true branch", then_graph, args)
    _check_arguments("cond: the false branch", else_graph, args)
    check_branch_count(then_graph, else_graph)
    specs = []
    for i, (a, b) in enumerate(zip(then_graph.outputs, else_graph.outputs)):
        if a.dtype is not b.dtype:
            raise TypeError(
                f"rt.cond: output {i} is {a.dtype.name} in one branch, {b.dtype.name} in the other"
            )
        specs.append((a.dtype, a.shape.most_specific_compatible_shape(b.shape)))
    return specs


def _while_infer(inputs, attrs):
    """A While's outputs are its loop variables, each of the shape its body's input allows.

    A loop being differentiated (``stacked`` is not None: ``runtime.gradients``)
    also returns its count of iterations, then one list (``variant``) per extra
    output of its body, holding that output's value on every iteration.
    """
    n, cond_graph, body_graph = attrs["num_loop_vars"], attrs["cond_graph"], attrs["body_graph"]
    stacked = attrs["stacked"]
    if stacked is not None and stacked < 0:
        raise ValueError(f"while_loop: stacked must be None or >= 0, got {stacked}")
    if attrs["has_maximum_iterations"]:
        limit, inputs = inputs[-1], inputs[:-1]
        if limit.dtype is not dtypes.int32 or limit.shape.rank not in (0, None):
            raise TypeError(
                f"while_loop: maximum_iterations must be an int32 scalar, got {limit.dtype.name}"
            )
    if not 0 < n <= len(inputs):
        raise ValueError(f"while_loop: {n} loop variables, but the op has {len(inputs)} inputs")
    _check_arguments("while_loop: cond", cond_graph, inputs)
    _check_arguments("while_loop: body", body_graph, inputs)
    pred = cond_graph.outputs
    if len(pred) != 1 or pred[0].dtype is not dtypes.bool_ or pred[0].shape.rank not in (0, None):
        raise TypeError("while_loop: cond must return a scalar bool tensor")
    if len(body_graph.outputs) != n + (stacked or 0):
        raise ValueError(
            f"while_loop: body returns {len(body_graph.outputs)} values for {n} loop variables"
            + ("" if stacked is None else f" and {stacked} stacked values")
        )
    specs = []
    for i, (before, after) in enumerate(zip(body_graph.inputs, body_graph.outputs[:n])):
        if after.dtype is not before.dtype or not after.shape.is_subtype_of(before.shape):
            raise TypeError(
                f"while_loop: loop variable {i} is {before.dtype.name} {before.shape} but the "
                f"body makes it {after.dtype.name} {after.shape}"
            )
        specs.append((before.dtype, before.shape))
    if stacked is not None:
        specs.append((dtypes.int32, TensorShape([])))
        specs.extend([(dtypes.variant, TensorShape([]))] * stacked)
    return specs


# The gradients of If and While: runtime.gradients.control_flow sets them (see above).
IF = OpDef(
    "If",
    _run_subgraph_kernel,
    _if_infer,
    default_name="cond",
    attrs={"then_graph": FUNC_GRAPH, "else_graph": FUNC_GRAPH},
)
WHILE = OpDef(
    "While",
    _run_subgraph_kernel,
    _while_infer,
    default_name="while",
    attrs={
        "cond_graph": FUNC_GRAPH,
        "body_graph": FUNC_GRAPH,
        "num_loop_vars": kinds.INT,
        "has_maximum_iterations": kinds.BOOL,
        "stacked": kinds.OPTIONAL_INT,
    },
)


# --- ordering -------------------------------------------------------------------------------------


def _as_ops(items):
    ops = []
    for item in nest.flatten(items) if items is not None else []:
        if item is None or isinstance(item, EagerTensor):
            continue
        if hasattr(item, "_as_tensor") and not isinstance(item, (Tensor, Operation)):
            continue  # a variable: nothing to wait for
        if hasattr(item, "_nest_components"):
            continue
        op = item if isinstance(item, Operation) else getattr(item, "op", None)
        if op is None:
            raise TypeError(f"Cannot depend on {item!r}: not a tensor or an operation")
        ops.append(op)
    return ops


def control_dependencies(control_inputs):
    """Ops created inside the block run only after ``control_inputs`` (ops or tensors) have run.

    Eagerly, everything already ran in order, so this does nothing.
    """
    graph = context.building_graph()
    if graph is None:
        return contextlib.nullcontext()
    ops = [op for op in _as_ops(control_inputs) if op.graph is graph]
    return graph.control_dependencies(ops)


NO_OP = OpDef("NoOp", lambda: None, no_outputs, gradient=NO_INPUTS)


def no_op(name=None):
    """An op that does nothing: a point to hang control dependencies on."""
    return bind_op(NO_OP, [], name=name or "NoOp")


def group(*inputs, name=None):
    """An op that runs after all of ``inputs`` (None eagerly).

    >>> import runtime as rt
    >>> g = rt.Graph()
    >>> with g.as_default():
    ...     v = rt.Variable(0)
    ...     both = rt.group(v.assign_add(1), v.assign_add(2))
    >>> with rt.Session(g) as sess:
    ...     sess.run(both)
    >>> v.numpy()
    np.int32(3)
    """
    graph = context.building_graph()
    if graph is None:
        return None
    with graph.control_dependencies([op for op in _as_ops(list(inputs)) if op.graph is graph]):
        return no_op(name=name or "group_deps")
