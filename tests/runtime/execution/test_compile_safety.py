"""Compiled code holds no text from its graph, whatever the graph's names and attributes hold.

The property, checked on the generated source: it parses to a closed set of
statement and expression kinds; its names are made of ASCII letters, digits and
``_``; the methods and attributes it names are the closed set the forms of the
op table may name (``runtime.core.forms.ATTRIBUTE_NAMES``); its only literals
are None, ``...``, bools and ints; it has no comments. Graphs
are built with hostile strings in every attribute of every row of the op table,
in op names and in graph names; compiling and running them never runs the
payload (a canary file is never created).
"""

import ast
import contextlib
import os
import re
import tempfile

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import autograph as ag
import runtime as rt
from runtime.core.forms import ATTRIBUTE_NAMES
from runtime.core.graph import FuncGraph, placeholder_in_graph
from runtime.core.op_def import OPS
from runtime.core.tensor_shape import TensorShape
from runtime.execution.compile import compile_function, compile_graph

CANARY = os.path.join(tempfile.gettempdir(), "rt_compile_canary")
_CODE = f"open({CANARY!r}, 'w').close()"
PAYLOADS = [
    f"k\n{_CODE}\ndef _z():\n    #",  # a new line out of a comment
    f"'); {_CODE}; ('",  # out of a quoted literal
    f'"); {_CODE}; ("',
    "{0.__class__}{1}{",  # str.format fields
    f"0]; {_CODE}; x = x[0",  # out of a subscript
    f"x\\\n{_CODE}",
    f"\u2028{_CODE}",
    "ﬁle²",  # not an identifier; NFKC merges it with "file2"
    "__builtins__",
    "",
]

_SAFE_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_]*")
_ALLOWED_NODES = (
    ast.Module, ast.FunctionDef, ast.arguments, ast.arg, ast.Assign, ast.AugAssign,
    ast.Return, ast.If, ast.While, ast.Break, ast.Pass, ast.Expr, ast.Call, ast.keyword,
    ast.Name, ast.Constant, ast.Tuple, ast.BinOp, ast.UnaryOp, ast.BoolOp, ast.Compare,
    ast.Subscript, ast.Slice, ast.expr_context, ast.operator, ast.unaryop, ast.boolop,
    ast.cmpop, ast.Attribute,
)  # fmt: skip


def assert_holds_no_text_from_data(source):
    assert "#" not in source  # no comment: and with no string literal, no '#' at all
    for node in ast.walk(ast.parse(source)):
        assert isinstance(node, _ALLOWED_NODES), ast.dump(node)
        if isinstance(node, ast.Constant):
            assert node.value in (None, Ellipsis) or type(node.value) in (bool, int), node.value
        if isinstance(node, ast.Attribute):
            assert node.attr in ATTRIBUTE_NAMES, node.attr
        for name in (getattr(node, "id", None), getattr(node, "arg", None)):
            assert name is None or _SAFE_NAME.fullmatch(name), name
        if isinstance(node, ast.FunctionDef):
            assert _SAFE_NAME.fullmatch(node.name)


@pytest.fixture(autouse=True)
def no_canary():
    if os.path.exists(CANARY):
        os.remove(CANARY)
    yield
    assert not os.path.exists(CANARY), "a payload ran"


texts = st.one_of(st.sampled_from(PAYLOADS), st.text(max_size=30))
hostile_values = st.recursive(
    st.one_of(
        texts,
        texts.map(str.encode),
        texts.map(lambda t: slice(t, None, t)),
        texts.map(lambda t: ("t", t)),
        st.sampled_from([Ellipsis, None, 10**30, -(10**30), 1.5, True]),
    ),
    lambda inner: st.one_of(st.tuples(inner, inner), st.lists(inner, max_size=3)),
    max_leaves=6,
)
ROWS_WITH_ATTRS = sorted((o for o in OPS.values() if o.attrs), key=lambda o: o.type)


def _compile_and_run(graph, inputs, outputs):
    """Compiles; when that works, checks the source and runs it (which may fail, but no
    payload may run)."""
    try:
        program = compile_graph(graph, inputs, outputs)
    except Exception:
        return None
    assert_holds_no_text_from_data(program.source)
    with contextlib.suppress(Exception):
        program(*[np.float32(1.0) for _ in inputs])
    return program


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(opdef=st.sampled_from(ROWS_WITH_ATTRS), data=st.data())
def test_hostile_attribute_values_of_every_row_never_reach_the_source(opdef, data):
    graph = rt.Graph()
    x = placeholder_in_graph(graph, rt.float32, [], "x")
    attrs = {key: data.draw(hostile_values, label=key) for key in opdef.attrs}
    op = graph.create_op(opdef, [x], attrs, "op", [(rt.float32, TensorShape(None))])
    program = _compile_and_run(graph, [x], [op.outputs[0]])
    if program is not None:
        for value in attrs.values():
            for text in _texts_in(value):
                # Generated source is ASCII with no string literals or comments, so a text
                # holding a quote, '#', a backslash or non-ASCII can be in it
                # only if it was pasted there. (A plain word like 'grap' may be part of a
                # name the compiler made; the AST whitelist above covers those.)
                if any(c in text for c in "'\"#\\") or not text.isascii():
                    assert text not in program.source


def _texts_in(value):
    if isinstance(value, str):
        yield value
    elif isinstance(value, bytes):
        yield value.decode("latin-1")
    elif isinstance(value, slice):
        for part in (value.start, value.stop, value.step):
            yield from _texts_in(part)
    elif isinstance(value, (tuple, list)):
        for item in value:
            yield from _texts_in(item)


@pytest.mark.parametrize("payload", PAYLOADS)
@pytest.mark.parametrize("opdef", ROWS_WITH_ATTRS, ids=lambda o: o.type)
def test_every_attribute_of_every_row_holding_a_payload_compiles_to_safe_code(opdef, payload):
    for key in opdef.attrs:
        for value in (payload, payload.encode(), (slice(payload, None, None),), (payload,)):
            graph = rt.Graph()
            x = placeholder_in_graph(graph, rt.float32, [], "x")
            attrs = dict.fromkeys(opdef.attrs, 1)
            attrs[key] = value
            op = graph.create_op(opdef, [x], attrs, "op", [(rt.float32, TensorShape(None))])
            _compile_and_run(graph, [x], [op.outputs[0]])


@pytest.mark.parametrize("payload", PAYLOADS)
def test_a_hostile_attribute_key_is_refused(payload):
    graph = rt.Graph()
    with graph.as_default():
        x = rt.placeholder(rt.float32, [3], name="x")
        total = rt.reduce_sum(x)
    total.op.attrs[payload] = 1  # past create_op, which refuses it too
    with pytest.raises(ValueError, match="does not declare"):
        compile_graph(graph, [x], [total])


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(names=st.lists(texts, min_size=8, max_size=8), graph_name=texts)
def test_hostile_op_and_graph_names_give_safe_code_that_computes_the_same(names, graph_name):
    def build(graph):
        with graph.as_default():
            x = rt.placeholder(rt.int32, [], name="x")
            xs = rt.placeholder(rt.int32, [None], name="xs")
            y = rt.cond(x > 0, lambda: x * 2, lambda: -x)
            (z,) = rt.while_loop(lambda i: i < 50, lambda i: [i * 3 + 1], [y])
            total = rt.reduce_sum(xs[1:]) + xs[x % 2]
        return [x, xs], [z, total]

    plain, hostile = FuncGraph("plain"), FuncGraph(graph_name)
    expected = compile_graph(plain, *build(plain))(np.int32(3), np.arange(4, dtype=np.int32))
    hostile.inputs, hostile.outputs = build(hostile)
    ops = hostile.get_operations()
    for op, name in zip(ops, names * (len(ops) // len(names) + 1)):
        op.name = name  # past create_op's check, as if from a file
    program = compile_function(hostile)
    assert_holds_no_text_from_data(program.source)
    assert program(np.int32(3), np.arange(4, dtype=np.int32)) == expected


def test_the_attacks_of_the_issue_run_nothing():
    # A Sum attribute key with a newline once became lines of code; a StridedSlice bound
    # broke out of its literal through str.format.
    graph = rt.Graph()
    with graph.as_default():
        x = rt.placeholder(rt.float32, [None], name="x")
        y = rt.reduce_sum(x[1:])
    sliced, total = y.op.inputs[0].op, y.op
    sliced.attrs["spec"] = (slice("{0.__class__}" + PAYLOADS[1], None, None),)
    program = _compile_and_run(graph, [x], [y])
    assert program is not None and "__class__" not in program.source
    total.attrs[PAYLOADS[0]] = 1
    with pytest.raises(ValueError, match="attributes its row does not declare"):
        compile_graph(graph, [x], [y])


def test_large_ints_of_an_index_are_bound_not_written():
    graph = rt.Graph()
    with graph.as_default():
        x = rt.placeholder(rt.float32, [None], name="x")
        y = x[2**70 :]
    program = compile_graph(graph, [x], [y])
    assert_holds_no_text_from_data(program.source)
    assert str(2**70) not in program.source
    assert program(np.ones(3, np.float32))[0].shape == (0,)


def test_compiled_source_reads_as_before():
    graph = rt.Graph()
    with graph.as_default():
        x = rt.placeholder(rt.float32, [None, 3], name="x")
        y = rt.reduce_sum(x[1:, ::2], axis=0)
        label = rt.strings.join([rt.constant("a"), rt.constant("b")], separator="-")
    program = compile_graph(graph, [x], [y, label])
    assert program.source.splitlines()[1:3] == [
        "    stridedslice = placeholder[1:, ::2]",
        "    sum_1 = Sum(stridedslice, axis=axis, keepdims=keepdims)",  # sum is a builtin
    ]
    assert program.bound_values["axis"] == (0,) and program.bound_values["separator"] == b"-"


def test_names_of_ops_and_graphs_never_reach_the_source():
    # Even a name made only of letters (which any filter would let through) stays out: the
    # compiler names values after their op's row and numbers them.
    graph = rt.Graph()
    with graph.as_default():
        x = rt.placeholder(rt.float32, [None], name="Xenophon")
        y = rt.identity(rt.square(x, name="Quixotic") + 1.0, name="Zanzibar")
    program = compile_graph(graph, [x], [y])
    for word in ("Xenophon", "Quixotic", "Zanzibar", "xenophon", "quixotic", "zanzibar"):
        assert word not in program.source
    np.testing.assert_array_equal(program(np.float32([2, 3]))[0], [5, 10])

    @ag.function
    def Kilimanjaro(v):
        return v * 2

    concrete = Kilimanjaro.get_concrete_function(rt.TensorSpec([], rt.float32))
    assert "Kilimanjaro" not in concrete._program.source
