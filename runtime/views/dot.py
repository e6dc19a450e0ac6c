"""Graphs as Graphviz DOT: ops are nodes, tensors are edges, sub-graphs and name scopes are clusters.

Each op is a node labelled with its name and type (placeholders, constants and
stateful ops drawn differently); each tensor an op reads is an edge labelled
with its dtype and shape, written as the text view writes them
(``float32[?,3]``); a control input is a dashed edge, and so is the order a
function graph runs its stateful ops in (``runtime.views.ordering``). The sub-graphs of an
``If`` or ``While`` op are clusters inside a cluster of their own that holds
the op, which points at each of them with a dotted edge (``then``, ``else``,
``cond``, ``body``); a traced function's graph ends in a ``return`` node. Ops
named ``scope/name`` are drawn inside a cluster per name scope.

>>> import runtime as rt
>>> g = rt.Graph("demo")
>>> with g.as_default():
...     x = rt.placeholder(rt.float32, shape=[None, 3], name="x")
...     with rt.name_scope("layer"):
...         y = x * 2.0
>>> print(g.to_dot())  # doctest: +NORMALIZE_WHITESPACE
digraph "demo" {
  compound=true;
  newrank=true;
  node [shape=box, style="rounded,filled", fillcolor="white", fontname="Helvetica", fontsize=11];
  edge [fontname="Helvetica", fontsize=9];
  "x" [label="x\\nPlaceholder", tooltip="x", shape=ellipse, fillcolor="#dbeafe"];
  subgraph "cluster_layer" {
    label="layer"; style="rounded,dashed"; color="#9ca3af"; fontname="Helvetica"; fontsize=10;
    "layer_Const" [label="layer/Const\\nConst 2", tooltip="layer/Const", fillcolor="#f3f4f6", fontsize=9];
    "layer_mul" [label="layer/mul\\nMul", tooltip="layer/mul"];
  }
  "x" -> "layer_mul" [label="float32[?,3]", tooltip="x"];
  "layer_Const" -> "layer_mul" [label="float32[]", tooltip="layer/Const"];
}

Node and cluster ids are the op names made into identifiers (``/`` and other
punctuation become ``_``), suffixed where two would clash, so they stay unique
across sub-graphs, whose op names repeat those of the graph around them.
"""

from __future__ import annotations

import re

from runtime.core.graph import CONST, PLACEHOLDER, FuncGraph, register_view
from runtime.views.ordering import order_inputs
from runtime.views.text import _attr_text, tensor_ref, type_text

_FONT = "Helvetica"
_STYLES = {
    PLACEHOLDER: 'shape=ellipse, fillcolor="#dbeafe"',
    CONST: 'fillcolor="#f3f4f6", fontsize=9',
}
_STATEFUL_STYLE = 'fillcolor="#fee2e2"'
_CONTROL_FLOW_STYLE = 'fillcolor="#fde68a"'
_MAX_VALUE_TEXT = 24  # a constant's value is shown in its label when its text is this short


def graph_to_dot(graph) -> str:
    """The graph (with its sub-graphs) in Graphviz's DOT language, one statement a line."""
    return _DotWriter().write(graph)


def quote(text) -> str:
    """``text`` as a DOT quoted string: backslashes, quotes and newlines escaped."""
    text = str(text).replace("\\", "\\\\").replace('"', '\\"')
    return '"' + text.replace("\r", "").replace("\n", "\\n") + '"'


def _label(*lines) -> str:
    """A multi-line label: each line escaped, joined by DOT's ``\\n`` (centred line break)."""
    return quote("\n".join(lines))


class _DotWriter:
    def __init__(self):
        self.lines = []
        self.node_ids = {}  # id(op) -> node id
        self.used_ids = set()
        self.edges = []
        self.externals = []

    # --- ids ----------------------------------------------------------------------------------

    def new_id(self, path, prefix=""):
        base = prefix + (re.sub(r"[^A-Za-z0-9_]", "_", path) or "_")
        candidate, i = base, 1
        while candidate.lower() in self.used_ids:
            i += 1
            candidate = f"{base}_{i}"
        self.used_ids.add(candidate.lower())
        return candidate

    def assign_ids(self, graph, prefix):
        for op in graph._ops:
            self.node_ids[id(op)] = self.new_id(prefix + op.name)
            for key, sub in _subgraphs(op):
                self.assign_ids(sub, f"{prefix}{op.name}/{key}/")

    # --- writing ------------------------------------------------------------------------------

    def write(self, graph):
        self.assign_ids(graph, "")
        self.emit(0, f"digraph {quote(graph.graph_name)} {{")
        self.emit(1, "compound=true;")  # lets an edge end at a cluster (an op's sub-graphs)
        self.emit(1, "newrank=true;")
        self.emit(
            1,
            f'node [shape=box, style="rounded,filled", fillcolor="white", '
            f'fontname="{_FONT}", fontsize=11];',
        )
        self.emit(1, f'edge [fontname="{_FONT}", fontsize=9];')
        self.write_graph(graph, 1, "")
        for line in self.externals:
            self.emit(1, line)
        for line in self.edges:
            self.emit(1, line)
        self.emit(0, "}")
        return "\n".join(self.lines) + "\n"

    def emit(self, depth, text):
        self.lines.append("  " * depth + text)

    def write_graph(self, graph, depth, prefix):
        """The graph's ops, grouped by name scope, then its ``return`` node if it has outputs."""
        self.write_scope(_scope_tree(graph._ops), depth, prefix, "")
        self.add_edges(graph)
        if isinstance(graph, FuncGraph):
            ret = self.new_id(prefix + "return")
            self.emit(
                depth,
                f'{quote(ret)} [label="return", shape=box, style="rounded,dashed", '
                f'fillcolor="white"];',
            )
            for t in graph.outputs:
                self.add_tensor_edge(t, ret)
            return ret
        return None

    def write_scope(self, tree, depth, prefix, scope):
        for kind, name, item in tree:
            if kind == "op":
                self.write_op(item, depth, prefix)
                continue
            path = scope + name
            cluster = self.new_id(prefix + path, "cluster_")
            self.emit(depth, f"subgraph {quote(cluster)} {{")
            self.emit(
                depth + 1,
                f'label={quote(name)}; style="rounded,dashed"; color="#9ca3af"; '
                f'fontname="{_FONT}"; fontsize=10;',
            )
            self.write_scope(item, depth + 1, prefix, path + "/")
            self.emit(depth, "}")

    def write_op(self, op, depth, prefix):
        node = self.node_ids[id(op)]
        subgraphs = _subgraphs(op)
        if not subgraphs:
            self.emit(depth, _node_statement(node, op))
            return
        # The op and its sub-graphs, together in one cluster; the op points at each sub-graph.
        outer = self.new_id(f"{prefix}{op.name}", "cluster_")
        self.emit(depth, f"subgraph {quote(outer)} {{")
        self.emit(
            depth + 1, 'label=""; style="rounded,filled"; fillcolor="#fffbeb"; color="#f59e0b";'
        )
        self.emit(depth + 1, _node_statement(node, op))
        for key, sub in subgraphs:
            sub_prefix = f"{prefix}{op.name}/{key}/"
            cluster = self.new_id(sub_prefix.rstrip("/"), "cluster_")
            self.emit(depth + 1, f"subgraph {quote(cluster)} {{")
            self.emit(
                depth + 2,
                f'label={quote(f"{key}: {sub.graph_name}")}; style="rounded,filled"; '
                f'color="#6b7280"; fillcolor="white"; fontname="{_FONT}"; fontsize=10;',
            )
            ret = self.write_graph(sub, depth + 2, sub_prefix)
            if not sub._ops and ret is None:  # an empty graph still gets a node to point at
                ret = self.new_id(sub_prefix + "empty")
                self.emit(depth + 2, f'{quote(ret)} [label="(empty)", shape=plaintext];')
            self.emit(depth + 1, "}")
            # One visible edge from the op to the cluster, and invisible ones to the rest of
            # the sub-graph's sources, so that the whole sub-graph is laid out below its op.
            sources = [
                self.node_ids[id(o)] for o in sub._ops if not o.inputs and not o.control_inputs
            ] or [ret]
            self.edges.append(
                f"{quote(node)} -> {quote(sources[0])} [lhead={quote(cluster)}, "
                f"label={quote(key.removesuffix('_graph'))}, style=dotted, "
                f'color="#b45309", arrowhead=empty];'
            )
            self.edges += [f"{quote(node)} -> {quote(s)} [style=invis];" for s in sources[1:]]
        self.emit(depth, "}")

    # --- edges --------------------------------------------------------------------------------

    def add_edges(self, graph):
        order = order_inputs(graph)
        for op in graph._ops:
            target = self.node_ids[id(op)]
            for t in op.inputs:
                self.add_tensor_edge(t, target)
            for c in op.control_inputs:
                self.edges.append(
                    f'{quote(self.source(c))} -> {quote(target)} [style=dashed, color="#6b7280", '
                    f"tooltip={quote('^' + c.name)}];"
                )
            for c in order.get(op, ()):  # program order: drawn as the control edge it is
                self.edges.append(
                    f'{quote(self.source(c))} -> {quote(target)} [style=dashed, color="#6b7280", '
                    f"tooltip={quote('^' + c.name + ' (program order)')}];"
                )

    def add_tensor_edge(self, t, target):
        label = type_text(t)
        if t.value_index:
            label = f":{t.value_index} {label}"
        self.edges.append(
            f"{quote(self.source(t.op))} -> {quote(target)} "
            f"[label={quote(label)}, tooltip={quote(tensor_ref(t))}];"
        )

    def source(self, op):
        """The node of ``op``; an op of a graph not drawn (an outer graph's) gets a dashed node."""
        node = self.node_ids.get(id(op))
        if node is None:
            node = self.node_ids[id(op)] = self.new_id(op.name, "external_")
            self.externals.append(
                f"{quote(node)} [label={_label(op.name, op.type + ' (outer graph)')}, "
                f"tooltip={quote(op.name)}, "
                f'style="rounded,dashed"];'
            )
        return node


def _subgraphs(op):
    """``(attribute, graph)`` pairs for the graphs an op runs, in attribute order."""
    return [(k, v) for k, v in op.attrs.items() if hasattr(v, "_ops")]


def _node_statement(node, op):
    lines = [op.name, op.type]
    if op.opdef is CONST and "value" in op.attrs:
        value = _attr_text("value", op.attrs["value"]).removeprefix("value=")
        if len(value) <= _MAX_VALUE_TEXT and "\n" not in value:
            lines[1] = f"{op.type} {value}"
    style = _STYLES.get(op.opdef)
    if style is None and _subgraphs(op):
        style = _CONTROL_FLOW_STYLE
    elif style is None and op.stateful:
        style = _STATEFUL_STYLE
    attrs = f"label={_label(*lines)}, tooltip={quote(op.name)}"
    return f"{quote(node)} [{attrs}{', ' + style if style else ''}];"


def _scope_tree(ops):
    """Ops nested by name scope: a list of ``("op", name, op)`` and ``("scope", name, subtree)``.

    Scopes come in the order their first op was made; ops keep creation order within one.
    """
    root = []
    scopes = {(): root}
    for op in ops:
        parts = op.name.split("/")[:-1]
        level = root
        for i, part in enumerate(parts):
            key = tuple(parts[: i + 1])
            child = scopes.get(key)
            if child is None:
                child = scopes[key] = []
                level.append(("scope", part, child))
            level = child
        level.append(("op", op.name, op))
    return root


__all__ = ["graph_to_dot", "quote"]


register_view("dot", graph_to_dot)
