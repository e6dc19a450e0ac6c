"""``cond`` as ONNX ``If`` and ``while_loop`` as ONNX ``Loop``.

``If``: its branches are sub-graphs without inputs; they read the values of the
enclosing graph by name, so a branch's placeholders (the cond's captures) are
bound to the enclosing graph's names.

``Loop(M, cond, v...)`` runs ``cond, v... = body(iteration, cond, v...)`` while
``iteration < M and cond``. The runtime's loop tests before each iteration,
``cond(v)`` then ``v = body(v)``, and ``maximum_iterations`` before the test.
So the test runs once in the enclosing graph on the initial values
(``while/test/...``), and again at the end of each body on the new ones
(``while/body/test/...``); ``maximum_iterations`` becomes ``M``.
A loop whose test is false at once runs its body zero times, as it should.

A variable that a branch or the loop assigns leaves it as an extra output of
the ``If`` or an extra loop-carried value of the ``Loop``.
"""

from __future__ import annotations

from runtime.core import dtypes
from runtime.core.tensor_shape import TensorShape
from runtime.execution.interpreter import CONTROL_FLOW_RULES
from runtime.export.onnx_types import ValueType

_SCALAR = TensorShape([])
_BOOL = ValueType(dtypes.bool_, _SCALAR)


def branch(b, op, cond):
    """If's primitive (``cond``: its ``IfParts``): an ONNX ``If``, whose branches read the
    operands by name."""
    branches = {"then": cond.then_graph, "else": cond.else_graph}
    assigned = b.assigned_variables(list(branches.values()))
    protos = {}
    for label, graph in branches.items():
        scope = b.child(label)
        results = scope.emit(graph, cond.operands)
        outputs = [(name, b.type_of(t)) for name, t in zip(results, graph.outputs)]
        outputs += [(scope.read_variable(v), b.type_of_variable(v)) for v in assigned]
        protos[label] = scope.graph_proto(f"{op.name}_{label}", outputs)
    results = b.node(
        "If",
        [cond.pred],
        len(op.outputs) + len(assigned),
        then_branch=protos["then"],
        else_branch=protos["else"],
    )
    for variable, name in zip(assigned, results[len(op.outputs) :]):
        b.assign_variable(variable, name)
    return results[: len(op.outputs)]


def loop(b, op, parts):
    """While's primitive (``parts``: its ``WhileParts``): an ONNX ``Loop``; the test runs
    before it and at the end of each body; ``maximum_iterations`` is the Loop's trip count."""
    if parts.stacked is not None:
        raise b.unsupported(
            "a differentiated while_loop stacks values in Python lists, which have no ONNX form"
        )
    n, initial, captured = len(parts.initial), parts.initial, parts.captured
    for name in initial:
        if not isinstance(name, str):
            raise b.unsupported("a variable's handle cannot be a loop variable in ONNX")
    assigned = b.assigned_variables([parts.cond_graph, parts.body_graph])
    (first_test,) = b.emit(parts.cond_graph, initial + captured, label=f"{op.name}/test/")
    carried_types = [b.type_of(t) for t in op.outputs] + [b.type_of_variable(v) for v in assigned]

    body = b.child("body")
    body.add_input("iteration", ValueType(dtypes.int64, _SCALAR))
    body.add_input("cond", _BOOL)
    carried = [body.add_input(f"loop_var_{i}", kind) for i, kind in enumerate(carried_types)]
    for variable, name in zip(assigned, carried[n:]):
        body.assign_variable(variable, name)
    new_values = body.emit(parts.body_graph, carried[:n] + captured)
    (test,) = body.emit(parts.cond_graph, new_values + captured, label="test/")
    new_values += [body.read_variable(v) for v in assigned]
    graph = body.graph_proto(
        f"{op.name}_body", [(test, _BOOL), *zip(new_values, carried_types, strict=True)]
    )

    limit = b.cast(parts.limit, dtypes.int64) if parts.limit is not None else ""
    starts = initial + [b.read_variable(v) for v in assigned]
    results = b.node("Loop", [limit, first_test, *starts], len(starts), body=graph)
    for variable, name in zip(assigned, results[n:]):
        b.assign_variable(variable, name)
    return results[:n]


# The one If and While rules: their primitives are Scope.branch and Scope.loop, above.
CONTROL_FLOW_LOWERINGS = CONTROL_FLOW_RULES
