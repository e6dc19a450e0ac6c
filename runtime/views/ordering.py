"""The order a function graph runs its stateful ops in, as control edges for the views to show.

A function graph (``FuncGraph``) runs its ops in the order they were made, and
every stateful op even when nothing uses it: ``x.assign_add(1)`` then
``rt.print(x)`` print the new value. Nothing in the ops' inputs says so;
TensorFlow writes this order into its graphs as control inputs (automatic
control dependencies), and the text, DOT and TensorBoard views show it the
same way, as control edges:

- a stateful op runs after the stateful op made before it;
- an op that reads a variable runs after the last op that wrote it;
- an op that writes a variable runs after the ops that read it since.

An edge that the inputs and control inputs already imply (directly, or through
other ops) is left out. A TensorFlow 1 graph run by a ``Session`` has no such
order (``Session.run`` runs only what the fetches need), and gets no edges.

>>> import runtime as rt
>>> v = rt.Variable(1.0)
>>> g = rt.FuncGraph("f")
>>> with g.as_default():
...     _ = v.assign_add(2.0)
...     _ = rt.print(v.read_value())
>>> {op.name: [c.name for c in before] for op, before in order_inputs(g).items()}
{'ReadVariableOp': ['AssignAddVariableOp']}
"""

from __future__ import annotations

from runtime.core import dtypes
from runtime.core.graph import FuncGraph


def order_inputs(graph) -> dict:
    """``{op: [ops it runs after]}`` for the ops of ``graph`` that the order adds edges to."""
    if not isinstance(graph, FuncGraph):
        return {}
    index = {id(op): i for i, op in enumerate(graph._ops)}
    before = []  # per op, a bit set of the ops it already runs after
    added = {}
    last_stateful = None
    last_writer = {}  # id(resource tensor) -> op
    readers = {}  # id(resource tensor) -> ops that read it since its last write
    for op in graph._ops:
        reached = 0
        for earlier in [t.op for t in op.inputs] + list(op.control_inputs):
            j = index.get(id(earlier))
            if j is not None:
                reached |= before[j] | 1 << j
        resources = [id(t) for t in op.inputs if t.dtype == dtypes.resource]
        required = []
        if op.stateful:
            required += [last_stateful] if last_stateful is not None else []
            for r in resources:
                required += readers.get(r, [])
        else:
            required += [last_writer[r] for r in resources if r in last_writer]
        # The latest first: it may imply the earlier ones.
        for earlier in sorted(set(required), key=lambda o: -index[id(o)]):
            j = index[id(earlier)]
            if not reached >> j & 1:
                added.setdefault(op, []).append(earlier)
                reached |= before[j] | 1 << j
        before.append(reached)
        if op.stateful:
            last_stateful = op
            for r in resources:
                last_writer[r], readers[r] = op, []
        else:
            for r in resources:
                readers.setdefault(r, []).append(op)
    return {op: sorted(ops, key=lambda o: index[id(o)]) for op, ops in added.items()}
