"""Graphs as Graphviz DOT (``rt.Graph.to_dot``, ``runtime.dot.graph_to_dot``)."""

import os
import pathlib
import re
import shutil
import subprocess
import sys

import pytest

import autograph as ag
import runtime as rt
from runtime.core.op_def import OPS
from runtime.views.dot import graph_to_dot, quote

_ID = r'"((?:[^"\\]|\\.)*)"'
_NODE = re.compile(rf"^\s*{_ID} \[(.*)\];$")
_EDGE = re.compile(rf"^\s*{_ID} -> {_ID}(?: \[(.*)\])?;$")
_CLUSTER = re.compile(rf"^\s*subgraph {_ID} \{{$")


class Dot:
    """The statements of a DOT text as written by graph_to_dot, one a line, checked as read."""

    def __init__(self, text):
        self.text = text
        self.nodes = {}  # id -> attribute text
        self.edges = []  # (tail, head, attribute text)
        self.clusters = {}  # id -> (parent cluster id or None, label)
        self.members = {}  # node id -> the innermost cluster it is declared in
        lines = text.splitlines()
        assert lines[0].startswith("digraph ") and lines[0].endswith("{"), lines[0]
        assert lines[-1] == "}"
        stack = []
        for line in lines[1:-1]:
            if m := _CLUSTER.match(line):
                assert m.group(1) not in self.clusters, f"cluster {m.group(1)} declared twice"
                self.clusters[m.group(1)] = [stack[-1] if stack else None, None]
                stack.append(m.group(1))
            elif line.strip() == "}":
                assert stack, "a '}' closes nothing"
                stack.pop()
            elif m := _EDGE.match(line):
                self.edges.append((m.group(1), m.group(2), m.group(3) or ""))
            elif m := _NODE.match(line):
                node = m.group(1)
                assert node not in self.nodes, f"node {node} declared twice"
                self.nodes[node] = m.group(2)
                self.members[node] = stack[-1] if stack else None
            elif re.match(r"^\s*(node|edge) \[.*\];$", line):
                continue  # the defaults for all nodes, all edges
            elif m := re.match(r"^\s*label=(\"(?:[^\"\\]|\\.)*\");", line):
                assert stack, line
                self.clusters[stack[-1]][1] = m.group(1)[1:-1]
            else:
                assert re.match(r"^\s*\w+=.*;$", line), f"unexpected statement: {line!r}"
        assert not stack, f"unclosed clusters: {stack}"

    def node_of(self, op_name):
        """The node whose tooltip (the op's full name) is ``op_name``; exactly one."""
        found = [n for n, a in self.nodes.items() if f"tooltip={quote(op_name)}" in a]
        assert len(found) == 1, (op_name, found)
        return found[0]

    def clusters_around(self, node):
        """The clusters holding ``node``, innermost first."""
        out, cluster = [], self.members[node]
        while cluster is not None:
            out.append(cluster)
            cluster = self.clusters[cluster][0]
        return out

    def labels(self, cluster_ids):
        return [self.clusters[c][1] for c in cluster_ids]


def check(text):
    """Syntactic sanity: balanced braces and quotes, every edge between declared nodes."""
    unquoted = re.sub(r'"(?:[^"\\]|\\.)*"', '""', text)
    assert '"' not in unquoted.replace('""', "")
    assert unquoted.count("{") == unquoted.count("}")
    assert unquoted.count("[") == unquoted.count("]")
    dot = Dot(text)
    for tail, head, _ in dot.edges:
        assert tail in dot.nodes, f"edge from undeclared node {tail}"
        assert head in dot.nodes, f"edge to undeclared node {head}"
    for attrs in dot.edges:
        if m := re.search(r'lhead="([^"]*)"', attrs[2]):
            assert m.group(1) in dot.clusters
            assert m.group(1) in dot.clusters_around(attrs[1]), "lhead must hold the edge's head"
    return dot


def scoped_graph():
    g = rt.Graph("scoped")
    with g.as_default():
        x = rt.placeholder(rt.float32, shape=[None, 3], name="x")
        with rt.name_scope("demo_module"):
            with rt.name_scope("inner"):
                y = rt.reduce_sum(x * 2.0, axis=1)
            p = rt.print(y)
        with rt.control_dependencies([p]):
            rt.identity(y, name="out")
    return g


def control_flow_function():
    @ag.function(
        input_signature=[rt.TensorSpec([None, 3], rt.float32), rt.TensorSpec([], rt.int32)]
    )
    def step(x, n):
        with rt.name_scope("demo_module"):
            if rt.reduce_sum(x) > 0:
                y = x * 2.0
            else:
                y = -x
            i = 0
            while i < n:
                y = y + 1.0
                i += 1
        return y, i

    return step.get_concrete_function().graph


def test_a_small_graph_is_exactly_this_dot_text():
    g = rt.Graph()
    with g.as_default():
        x = rt.placeholder(rt.float32, [2], name="x")
        rt.add(x * 2.0, x, name="y")
    # Written by hand: one node per op in creation order, then one edge per input, each
    # labelled with the dtype and shape it carries.
    assert g.to_dot() == "\n".join(
        [
            'digraph "graph" {',
            "  compound=true;",
            "  newrank=true;",
            '  node [shape=box, style="rounded,filled", fillcolor="white", fontname="Helvetica",'
            " fontsize=11];",
            '  edge [fontname="Helvetica", fontsize=9];',
            '  "x" [label="x\\nPlaceholder", tooltip="x", shape=ellipse, fillcolor="#dbeafe"];',
            '  "Const" [label="Const\\nConst 2", tooltip="Const", fillcolor="#f3f4f6", fontsize=9];',
            '  "mul" [label="mul\\nMul", tooltip="mul"];',
            '  "y" [label="y\\nAdd", tooltip="y"];',
            '  "x" -> "mul" [label="float32[2]", tooltip="x"];',
            '  "Const" -> "mul" [label="float32[]", tooltip="Const"];',
            '  "mul" -> "y" [label="float32[2]", tooltip="mul"];',
            '  "x" -> "y" [label="float32[2]", tooltip="x"];',
            "}\n",
        ]
    )
    assert graph_to_dot(g) == g.to_dot()


_PRINT_CONTROL_FLOW_DOT = (
    "from tests.runtime.views.test_dot import control_flow_function\n"
    "print(control_flow_function().to_dot(), end='')"
)


def test_the_dot_text_does_not_depend_on_the_process():
    # String hashes differ between processes: nothing may be ordered by a set or a hash.
    here = control_flow_function().to_dot()
    root = pathlib.Path(__file__).parents[3]
    for seed in ("1", "2"):
        env = dict(os.environ, PYTHONHASHSEED=seed, PYTHONPATH=str(root))
        result = subprocess.run(
            [sys.executable, "-c", _PRINT_CONTROL_FLOW_DOT],
            capture_output=True,
            text=True,
            env=env,
            cwd=root,
            check=True,
        )
        assert result.stdout == here


def test_ops_are_nodes_labelled_with_name_and_type_styled_by_kind():
    dot = check(scoped_graph().to_dot())
    assert dot.text.startswith('digraph "scoped" {')
    mul = dot.nodes[dot.node_of("demo_module/inner/mul")]
    assert 'label="demo_module/inner/mul\\nMul"' in mul
    placeholder = dot.nodes[dot.node_of("x")]
    const = dot.nodes[dot.node_of("demo_module/inner/Const")]
    assert 'label="x\\nPlaceholder"' in placeholder and "shape=ellipse" in placeholder
    assert "Const 2" in const and "fillcolor" in const
    styles = {placeholder.split("tooltip")[1], const.split("tooltip")[1], mul.split("tooltip")[1]}
    assert len(styles) == 3  # placeholder, constant and other ops look different
    assert "fillcolor" in dot.nodes[dot.node_of("demo_module/PrintV2")]  # stateful


def test_tensors_are_edges_labelled_with_dtype_and_shape():
    dot = check(scoped_graph().to_dot())
    edges = {(t, h): a for t, h, a in dot.edges}
    x, mul = dot.node_of("x"), dot.node_of("demo_module/inner/mul")
    summed = dot.node_of("demo_module/inner/Sum")
    assert 'label="float32[?,3]"' in edges[x, mul]
    assert 'label="float32[?,3]"' in edges[mul, summed]
    assert 'label="float32[?]"' in edges[summed, dot.node_of("out")]
    assert 'label="float32[]"' in edges[dot.node_of("demo_module/inner/Const"), mul]


def test_control_inputs_are_dashed_edges():
    dot = check(scoped_graph().to_dot())
    edges = {(t, h): a for t, h, a in dot.edges}
    control = edges[dot.node_of("demo_module/PrintV2"), dot.node_of("out")]
    assert "style=dashed" in control and "label" not in control
    data = edges[dot.node_of("demo_module/inner/Sum"), dot.node_of("out")]
    assert "dashed" not in data


def test_name_scopes_are_nested_clusters():
    dot = check(scoped_graph().to_dot())
    around = dot.clusters_around(dot.node_of("demo_module/inner/mul"))
    assert dot.labels(around) == ["inner", "demo_module"]
    assert all(c.startswith("cluster_") for c in around)
    assert dot.labels(dot.clusters_around(dot.node_of("demo_module/PrintV2"))) == ["demo_module"]
    assert dot.clusters_around(dot.node_of("x")) == []
    assert dot.clusters_around(dot.node_of("out")) == []


def test_cond_and_while_sub_graphs_are_clusters_under_their_op():
    dot = check(control_flow_function().to_dot())
    by_label = {}
    for cluster, (_, label) in dot.clusters.items():
        by_label.setdefault(label, []).append(cluster)
    for key, name in [
        ("then_graph", "if_true"),
        ("else_graph", "if_false"),
        ("cond_graph", "while_cond"),
        ("body_graph", "while_body"),
    ]:
        (cluster,) = by_label[f"{key}: {name}"]
        owner = "demo_module/cond" if key in ("then_graph", "else_graph") else "demo_module/while"
        op_node = dot.node_of(owner)
        # The op and its sub-graph share a cluster, inside the op's name scope...
        op_cluster = dot.clusters_around(op_node)[0]
        assert dot.clusters[cluster][0] == op_cluster
        assert dot.labels(dot.clusters_around(op_node)[1:]) == ["demo_module"]
        # ...and the op points at the sub-graph's cluster.
        into = [a for t, h, a in dot.edges if t == op_node and f'lhead="{cluster}"' in a]
        assert len(into) == 1 and f'label="{key.removesuffix("_graph")}"' in into[0]
    body = by_label["body_graph: while_body"][0]
    body_nodes = [n for n in dot.nodes if body in dot.clusters_around(n)]
    labels = " ".join(dot.nodes[n] for n in body_nodes)
    assert "loop_var_1\\nPlaceholder" in labels and "add\\nAdd" in labels and "return" in labels


def test_function_graphs_and_sub_graphs_end_in_return_nodes():
    dot = check(control_flow_function().to_dot())
    (ret,) = [n for n, a in dot.nodes.items() if 'label="return"' in a and dot.members[n] is None]
    into = {a for t, h, a in dot.edges if h == ret}
    assert into == {
        'label=":1 float32[?,3]", tooltip="demo_module/while:1"',
        'label="int32[]", tooltip="demo_module/while"',
    }
    assert sum('label="return"' in a for a in dot.nodes.values()) == 5


def test_node_ids_are_unique_and_valid_with_slashes_and_repeated_names():
    g = rt.Graph()
    with g.as_default():
        x = rt.placeholder(rt.int32, [], name="a_b")
        with rt.name_scope("a"):
            y = rt.identity(x, name="b")
        z = rt.cond(y > 0, lambda: y + 1, lambda: y - 1)
        rt.cond(z > 0, lambda: z + 1, lambda: z - 1)  # branches repeat the names Const, add
    dot = check(g.to_dot())
    assert len(dot.nodes) == len(set(dot.nodes))
    assert all(re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", n) for n in dot.nodes)
    assert dot.node_of("a_b") != dot.node_of("a/b")
    assert len([a for a in dot.nodes.values() if 'tooltip="add"' in a]) == 2
    assert len(set(dot.clusters)) == len(dot.clusters)


def test_names_and_values_are_escaped():
    g = rt.Graph('say "hi"')
    with g.as_default():
        rt.constant('a "quoted" \\ value', name="text")
        rt.constant("two\nlines", name="multi")
        rt.constant(1, name="node")  # a DOT keyword: an identifier only when quoted
    text = g.to_dot()
    dot = check(text)
    assert '\n  "node" [' in text
    assert text.startswith('digraph "say \\"hi\\"" {')
    assert 'a \\"quoted\\" \\\\ value' in dot.nodes[dot.node_of("text")]
    assert "\n" not in dot.nodes[dot.node_of("multi")]


def test_empty_sub_graphs_and_effect_only_branches():
    g = rt.Graph()
    with g.as_default():
        x = rt.placeholder(rt.int32, [])
        rt.cond(x > 0, lambda: None, lambda: None)
        rt.cond(x > 0, lambda: rt.print(x), lambda: rt.print(-x))
    check(g.to_dot())


def test_ops_of_graphs_not_drawn_get_a_node_of_their_own():
    outer = rt.Graph("outer")
    with outer.as_default():
        x = rt.placeholder(rt.int32, [], name="x")
    g = rt.Graph("inner")
    g.create_op(OPS["Identity"], [x], {}, "use", [(x.dtype, x.shape)])
    dot = check(g.to_dot())
    external = dot.node_of("x")
    assert "(outer graph)" in dot.nodes[external]


def test_an_empty_graph():
    assert check(rt.Graph("empty").to_dot()).nodes == {}


# Rendering needs Graphviz's dot program (the CI machine has it; .ci/run does not install it). Without it these two tests skip;
# the DOT text itself is checked by the tests above, which need no Graphviz.
needs_dot = pytest.mark.skipif(
    shutil.which("dot") is None, reason="rendering needs Graphviz's dot program"
)


def _render(text):
    return subprocess.run(["dot", "-Tsvg"], input=text, capture_output=True, text=True)


@needs_dot
@pytest.mark.parametrize("make", [scoped_graph, control_flow_function])
def test_graphviz_parses_the_output(make):
    result = _render(make().to_dot())
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    assert "<svg" in result.stdout


@needs_dot
def test_graphviz_parses_escaped_names():
    g = rt.Graph('say "hi"')
    with g.as_default():
        rt.constant('a "quoted" \\ value', name="node")  # 'node' is a DOT keyword
    result = _render(g.to_dot())
    assert result.returncode == 0, result.stderr
