"""``Graph.as_graph_def()``: a graph's nodes as TensorFlow's GraphDef lists them.

Each node has TensorFlow's fields ``name``, ``op`` (the op type), ``input`` (``"op"`` for
an op's first output, ``"op:1"`` for its second, ``"^op"`` for a control input) and
``device``. A function graph returns each of its outputs through an ``Identity`` node,
as TensorFlow's function graphs do; the graph itself hands its outputs back directly,
so those nodes are added here. A cond's or loop's body is a node of its own (``If``,
``While``), its nodes are not listed (TensorFlow keeps them in the GraphDef's function
library). It is plain Python: no protobuf, no TensorBoard (``runtime.views.tensorboard``
writes TensorBoard's protos).

>>> import runtime as rt
>>> graph = rt.Graph()
>>> with graph.as_default():
...     a = rt.compat.v1.placeholder(rt.float32, [], name="a")
...     b = rt.add(a, a, name="b")
>>> for node in graph.as_graph_def().node:
...     print(f"{node.input} -> {node.name}")
[] -> a
['a', 'a'] -> b
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class NodeDef:
    """One node: its name, op type, inputs (``op``, ``op:1``, ``^op``) and device."""

    name: str
    op: str
    input: list = field(default_factory=list)
    device: str = ""


@dataclass
class GraphDef:
    """A graph's nodes in creation order (a valid order to run them in)."""

    node: list = field(default_factory=list)


def graph_def_of(graph) -> GraphDef:
    """The GraphDef of ``graph`` (a function graph's outputs each through an ``Identity``)."""
    nodes = [
        NodeDef(op.name, op.type, _inputs(op), op.device or "") for op in graph.get_operations()
    ]
    taken = {node.name for node in nodes}
    for output in getattr(graph, "outputs", ()):
        name = _unused("Identity", taken)
        nodes.append(NodeDef(name, "Identity", [_input_name(output)]))
    return GraphDef(nodes)


def _inputs(op):
    return [_input_name(t) for t in op.inputs] + ["^" + c.name for c in op.control_inputs]


def _input_name(tensor):
    name = tensor.op.name
    return name if tensor.value_index == 0 else f"{name}:{tensor.value_index}"


def _unused(base, taken):
    """``base``, else ``base_1``, ``base_2``... : the first name no node has (then taken)."""
    name, n = base, 0
    while name in taken:
        n += 1
        name = f"{base}_{n}"
    taken.add(name)
    return name
