"""The gradients of ``If`` and ``While`` ops (the rows' ``gradient`` rules).

The gradient of a cond is a cond: an ``If`` on the same predicate whose
branches are the gradients of the forward branches. The gradient of a loop
is a loop: a ``While`` that runs the forward body's gradient once per forward
iteration, last iteration first.

Both differentiate a sub-graph whose tensors live inside the forward op. A
rule that reads such a tensor (``exp``'s reads its output) is given it as the
gradient graph captures it (``GradientGraph``):

- an input of the sub-graph that the op captured from outside (loop
  invariant) comes from outside again; a constant is copied;
- any other tensor of a branch becomes one more output of the forward ``If``
  (the other branch outputs a dummy), which the gradient branch reads;
- any other tensor of a loop body is *stacked*: one more output of the
  forward body, which the ``While`` op appends to a list on every iteration
  and returns as one more output, and which the backward body reads back
  with ``StackGet`` at its iteration.

So the forward op grows outputs when it is differentiated, and a loop's
memory grows with its iterations (one entry per stacked value per
iteration), never its graph.

::

    forward While (iterations N)                 backward While (i = N-1 .. 0)
    ┌──────────────────────────────┐            ┌────────────────────────────────┐
    │ x_k+1 = body(x_k)            │  stacks    │ x_i = StackGet(stack, i)       │
    │ stack.append(x_k) ───────────┼──────────► │ g   = body'(x_i) · g           │
    │ iterations += 1              │            │ i   = i - 1                    │
    └──────────────────────────────┘            └────────────────────────────────┘
"""

from __future__ import annotations

from runtime.core import context, dtypes
from runtime.core.graph import CONST, FuncGraph, constant_in_graph
from runtime.core.tensor import SymbolicTensor
from runtime.core.tensor_shape import TensorShape
from runtime.core.tensor_spec import TensorSpec
from runtime.execution.tracing import trace, unify_captures
from runtime.gradients.backprop import backward, is_trainable
from runtime.ops.array_ops import zeros_like
from runtime.ops.broadcast_ops import zeros
from runtime.ops.constant_ops import convert_to_tensor
from runtime.ops.control_flow_ops import IF, WHILE
from runtime.ops.list_gradient_ops import (
    grad_list_add,
    grad_list_empty,
    grad_list_get,
    stack_get,
)
from runtime.ops.math_ops import add, greater_equal, subtract
from runtime.ops.registry import bind


class GradientGraph(FuncGraph):
    """A graph built while differentiating ``forward`` (a branch or a loop body).

    Gradient rules of ``forward``'s ops read its tensors; ``resolve(t)`` gives
    the tensor of this graph standing for ``t``. Tensors of other graphs that
    no graph around this one holds are asked of the graph around it (itself
    perhaps a gradient graph that knows how to reach them).
    """

    def __init__(self, name, outer_graph, forward, resolve):
        super().__init__(name, outer_graph=outer_graph)
        self.forward = forward
        self._resolve = resolve
        self._resolved = {}

    def capture(self, t):
        inner = self._resolved.get(id(t))
        if inner is not None:
            return inner
        if t.graph is self.forward:
            inner = self._resolve(self, t)
        elif not is_within(self, t.graph) and self.outer_graph is not None:
            inner = super().capture(self.outer_graph.capture(t))
        else:
            return super().capture(t)
        self._resolved[id(t)] = inner
        return inner

    def capture_from_around(self, t):
        """``t`` of a graph around this one (or reachable from it), captured as it is: its
        placeholder knows the shape ``t`` has, no more, so a saved gradient's sub-graph inputs
        never claim more than their ops give them (``runtime.saving.sub_graph_inputs``)."""
        return super().capture(t if is_within(self, t.graph) else self.outer_graph.capture(t))

    def copy_constant(self, t):
        with self.no_control_dependencies():
            return constant_in_graph(
                self, t.op.attrs["value"], t.dtype, t.op.name.replace("/", "_")
            )


def is_within(graph, other):
    """Whether ``graph`` is ``other`` or nested in it (so captures ``other``'s tensors)."""
    while graph is not None:
        if graph is other:
            return True
        graph = graph.outer_graph
    return False


def _zeros_for(t, like=None):
    """The zero gradient of ``t``: zeros of its shape, or an empty gradient list."""
    if t.dtype is dtypes.variant:
        return grad_list_empty()
    if t.dtype is dtypes.resource:  # a variable's handle: zeros shaped like its gradient
        return zeros(like.shape.as_list(), like.dtype)
    return zeros_like(t)


def _grow(op):
    """Gives ``op`` (a forward If or While whose sub-graphs or ``stacked`` just grew for its
    gradient) the outputs its row's infer now makes; returns the last. The infer is the one
    truth about an op's outputs: a saved model is checked against it when it is loaded."""
    for dtype, shape in op.opdef.infer(op.inputs, op.attrs)[len(op.outputs) :]:
        op.outputs = (*op.outputs, SymbolicTensor(op, len(op.outputs), dtype, shape))
    op.graph.version += 1
    return op.outputs[-1]


# --- cond -----------------------------------------------------------------------------------------


def _dummy_like(t):
    """A stand-in for ``t`` in the branch that does not compute it: never read."""
    if t.dtype is dtypes.variant or t.dtype is dtypes.resource:
        return grad_list_empty()
    dims = [0 if d is None else d for d in t.shape.as_list()] if t.shape.rank is not None else []
    return zeros(dims, t.dtype)


def _exposed(op, branch, t):
    """The output of the forward If ``op`` giving ``t`` of ``branch`` (added if need be)."""
    then_graph, else_graph = op.attrs["then_graph"], op.attrs["else_graph"]
    for i, out in enumerate(branch.outputs):
        if out is t:
            return op.outputs[i]
    other = else_graph if branch is then_graph else then_graph
    with other.as_default():
        dummy = _dummy_like(t)
    branch.outputs.append(t)
    other.outputs.append(dummy)
    return _grow(op)


def _cond_resolver(op):
    n_explicit = 1  # the predicate

    def resolve(grad_graph, t):
        branch = grad_graph.forward
        if t.op.opdef is CONST:
            return grad_graph.copy_constant(t)
        for j, placeholder in enumerate(branch.inputs):
            if placeholder is t:
                return grad_graph.capture_from_around(op.inputs[n_explicit + j])
        return grad_graph.capture_from_around(_exposed(op, branch, t))

    return resolve


def if_gradient(op, *grads):
    """The gradient of an If: an If on the same predicate over the branches' gradients."""
    graph = context.building_graph()
    live = [i for i, g in enumerate(grads) if g is not None]
    captured = op.inputs[1:]
    branch_graphs, branch_grads = [], []
    resolve = _cond_resolver(op)
    for key in ("then_graph", "else_graph"):
        branch = op.attrs[key]
        grad_graph = GradientGraph(f"{branch.graph_name}_grad", graph, branch, resolve)
        with grad_graph.as_default():
            output_grads = [grad_graph.prepare_input(grads[i]) for i in live]  # captured
            targets = [branch.outputs[i] for i in live]
            in_grads = backward(branch.get_operations(), targets, output_grads, branch.inputs)
        branch_graphs.append(grad_graph)
        branch_grads.append(in_grads)
    kept = [j for j in range(len(captured)) if any(g[j] is not None for g in branch_grads)]
    for grad_graph, in_grads in zip(branch_graphs, branch_grads):
        other = branch_grads[1] if in_grads is branch_grads[0] else branch_grads[0]
        with grad_graph.as_default():
            outputs = []
            for j in kept:
                g = in_grads[j]
                if g is None:
                    g = _zeros_for(grad_graph.capture_from_around(captured[j]), other[j])
                outputs.append(g)
            grad_graph.outputs = [grad_graph.prepare_input(g) for g in outputs]
    then_grad, else_grad = branch_graphs
    outer = unify_captures(branch_graphs)
    attrs = {"then_graph": then_grad, "else_graph": else_grad}
    grad_outputs = bind(op.opdef, [op.inputs[0], *outer], attrs, "cond_grad")
    result = [None] * len(op.inputs)
    for out, j in zip(grad_outputs, kept):
        result[1 + j] = out
    return result


# --- while ----------------------------------------------------------------------------------------


def _iterations(op):
    """The forward While's count of iterations, the first output it grows when differentiated."""
    n = op.attrs["num_loop_vars"]
    if op.attrs["stacked"] is None:
        op.attrs["stacked"] = 0
        _grow(op)
    return op.outputs[n]


def _stacked(op, t):
    """The output of the forward While ``op`` listing ``t`` (of its body) on every iteration."""
    n = op.attrs["num_loop_vars"]
    _iterations(op)
    body = op.attrs["body_graph"]
    for s, out in enumerate(body.outputs[n:]):
        if out is t:
            return op.outputs[n + 1 + s]
    body.outputs.append(t)
    op.attrs["stacked"] += 1
    return _grow(op)


def _while_resolver(op):
    n = op.attrs["num_loop_vars"]

    def resolve(grad_graph, t):
        body = grad_graph.forward
        if t.op.opdef is CONST:
            return grad_graph.copy_constant(t)
        for j, placeholder in enumerate(body.inputs[n:], n):
            if placeholder is t:  # captured by the loop: the same on every iteration
                return grad_graph.capture_from_around(op.inputs[j])
        stack = grad_graph.capture_from_around(_stacked(op, t))
        with grad_graph.as_default():
            return stack_get(stack, grad_graph.iteration, t.dtype, t.shape)

    return resolve


def while_gradient(op, *grads):
    """The gradient of a While: a While running the body's gradient backwards, iteration by
    iteration, reading what the forward loop stacked."""
    graph = context.building_graph()
    n = op.attrs["num_loop_vars"]
    body = op.attrs["body_graph"]
    n_inputs = len(op.inputs) - (1 if op.attrs["has_maximum_iterations"] else 0)
    carried = [k for k in range(n) if is_trainable(op.outputs[k].dtype)]
    stack_grads = [
        (n + s, g) for s, g in enumerate(grads[n + 1 :]) if g is not None
    ]  # second order: gradients of what the loop stacked
    iterations = _iterations(op)
    grad_body = GradientGraph(f"{body.graph_name}_grad", graph, body, _while_resolver(op))
    with grad_body.as_default():
        grad_body.iteration = grad_body.add_input(dtypes.int32, TensorShape([]), "iteration")
        carried_grads = [
            grad_body.add_input(op.outputs[k].dtype, body.inputs[k].shape, f"grad_{k}")
            for k in carried
        ]
        targets = [body.outputs[k] for k in carried]
        target_grads = list(carried_grads)
        for position, stack_grad in stack_grads:
            value = body.outputs[position]
            inner = grad_body.capture_from_around(stack_grad)
            targets.append(value)
            target_grads.append(
                grad_list_get(inner, grad_body.iteration, value.shape.as_list(), value.dtype)
            )
        in_grads = backward(body.get_operations(), targets, target_grads, body.inputs[:n_inputs])
        next_grads = [
            in_grads[k] if in_grads[k] is not None else _zeros_for(g)
            for k, g in zip(carried, carried_grads)
        ]
        summed = [j for j in range(n, n_inputs) if in_grads[j] is not None]
        totals = [
            grad_body.add_input(in_grads[j].dtype, in_grads[j].shape, f"grad_capture_{j}")
            for j in summed
        ]
        new_totals = [
            grad_list_add(t, in_grads[j]) if t.dtype is dtypes.variant else add(t, in_grads[j])
            for t, j in zip(totals, summed)
        ]
        outputs = [subtract(grad_body.iteration, 1), *next_grads, *new_totals]
        grad_body.outputs = [grad_body.prepare_input(t) for t in outputs]
    explicit = [grad_body.iteration, *carried_grads, *totals]
    grad_body.inputs = explicit + [inner for _, inner in grad_body.captures]
    cond_graph = trace(
        lambda i, *rest: greater_equal(i, 0),
        [TensorSpec(t.shape, t.dtype) for t in explicit],
        "while_grad_cond",
        graph,
    )
    outer = unify_captures([cond_graph, grad_body])
    initial = [subtract(iterations, 1)]
    initial += [grads[k] if grads[k] is not None else _zeros_for(op.outputs[k]) for k in carried]
    initial += [_zeros_for(op.inputs[j], in_grads[j]) for j in summed]
    # The forward count is also the backward loop's maximum_iterations: it stops at i < 0 on
    # that iteration anyway, but so its bound is the forward loop's, which lets a second-order
    # gradient (differentiating this loop, stacking its values) compile under XLA.
    inputs = [convert_to_tensor(t) for t in initial] + list(outer) + [iterations]
    attrs = {
        "cond_graph": cond_graph,
        "body_graph": grad_body,
        "num_loop_vars": len(explicit),
        "has_maximum_iterations": True,
        "stacked": None,  # until this loop is differentiated in turn
    }
    grad_outputs = bind(op.opdef, inputs, attrs, "while_grad")
    result = [None] * len(op.inputs)
    for k, out in zip(carried, grad_outputs[1:]):
        result[k] = out
    for j, out in zip(summed, grad_outputs[1 + len(carried) :]):
        result[j] = out
    return result


# The If and While rows live in the op table (runtime.ops.control_flow_ops), a layer below the
# tracing and the backward pass these rules use: so the rules are set on the rows here, when the
# gradients package loads (its __init__ imports this module).
IF.gradient = if_gradient
WHILE.gradient = while_gradient
