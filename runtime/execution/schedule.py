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
    while stack:
        op = stack.pop()
        if id(op) in needed:
            continue
        needed.add(id(op))
        stack.extend(t.op for t in op.inputs if id(t) not in fed_ids)
        stack.extend(op.control_inputs)
    return [op for op in graph._ops if id(op) in needed]


def missing_feed_error(op):
    shape = op.attrs["shape"]
    dims = ",".join("?" if d is None else str(d) for d in shape.as_tuple() or ())
    shape_text = f" and shape [{dims}]" if shape.rank else ""
    return errors.InvalidArgumentError(
        f"You must feed a value for placeholder tensor '{op.name}' with dtype "
        f"{op.attrs['dtype'].name}{shape_text}",
        op,
    )
