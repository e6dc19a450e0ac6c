"""Which ops a run needs, in an order they can run in; and the error for a missing feed."""

from __future__ import annotations

from runtime import errors


def ops_to_run(graph, targets, fed_ids, run_all_stateful):
    """The ops of ``graph`` that ``targets`` (tensors or ops) need, in creation order.

    Traversal stops at fed tensors. With ``run_all_stateful`` (function
    graphs), every stateful op runs too, whether or not anything uses it.
    """
    stack = [
        t if not hasattr(t, "value_index") else t.op
        for t in targets
        if not (hasattr(t, "value_index") and id(t) in fed_ids)
    ]
    if run_all_stateful:
        stack.extend(op for op in graph._ops if op.stateful)
    needed = set()
    push = stack.append
    while stack:
        op = stack.pop()
        if id(op) in needed:
            continue
        needed.add(id(op))
        for t in op.inputs:  # a loop, not a generator: this runs for every op of a graph
            if id(t) not in fed_ids and id(t.op) not in needed:
                push(t.op)
        if op.control_inputs:
            stack.extend(op.control_inputs)
    return [op for op in graph._ops if id(op) in needed]


def function_ops(graph):
    """``ops_to_run`` for a function graph: from its inputs to its outputs, stateful ops all in.

    Kept on the graph until it changes (its version, its inputs or outputs): optimising
    a graph and compiling it both need this, and the sub-graphs of its loops too.
    """
    key = (graph.version, [id(t) for t in graph.inputs], [id(t) for t in graph.outputs])
    cached = getattr(graph, "_function_ops", None)
    if cached is not None and cached[0] == key:
        return cached[1]
    ops = ops_to_run(graph, graph.outputs, {id(t) for t in graph.inputs}, run_all_stateful=True)
    graph._function_ops = (key, ops)
    return ops


def missing_feed_error(op):
    shape = op.attrs["shape"]
    dims = ",".join("?" if d is None else str(d) for d in shape.as_tuple() or ())
    shape_text = f" and shape [{dims}]" if shape.rank else ""
    return errors.InvalidArgumentError(
        f"You must feed a value for placeholder tensor '{op.name}' with dtype "
        f"{op.attrs['dtype'].name}{shape_text}",
        op,
    )
