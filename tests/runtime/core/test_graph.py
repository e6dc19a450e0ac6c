"""Tests for TF1-style graphs: default graphs, op naming, name scopes, control deps, printing."""

import io
import re

import numpy as np
import pytest

import runtime as rt


def _run(graph, fetches, feed_dict=None):
    with rt.Session(graph=graph) as sess:
        return sess.run(fetches, feed_dict)


def _names(graph):
    return [op.name for op in graph.get_operations()]


# --- default graph and eager mode ----------------------------------------------------------------


def test_executing_eagerly_outside_any_graph():
    assert rt.executing_eagerly()
    assert isinstance(rt.constant(1).numpy(), np.int32)


def test_as_default_switches_to_graph_mode():
    g = rt.Graph()
    with g.as_default() as entered:
        assert entered is g
        assert not rt.executing_eagerly()
        assert rt.get_default_graph() is g
        t = rt.constant(1)
        assert t.graph is g
    assert rt.executing_eagerly()
    assert rt.get_default_graph() is not g


def test_nested_as_default_restores_outer_graph():
    outer, inner = rt.Graph(), rt.Graph()
    with outer.as_default():
        with inner.as_default():
            assert rt.get_default_graph() is inner
            a = rt.constant(1)
        assert rt.get_default_graph() is outer
        b = rt.constant(2)
    assert a.graph is inner
    assert b.graph is outer
    assert _names(inner) == ["Const"]
    assert _names(outer) == ["Const"]


def test_as_default_restored_after_exception():
    g = rt.Graph()
    with pytest.raises(RuntimeError, match="boom"), g.as_default():
        raise RuntimeError("boom")
    assert rt.executing_eagerly()


def test_get_default_graph_eagerly_is_stable_graph():
    g = rt.get_default_graph()
    assert isinstance(g, rt.Graph)
    assert rt.get_default_graph() is g


def test_eager_ops_do_not_touch_graphs():
    g = rt.Graph()
    with g.as_default():
        pass
    rt.constant(1) + rt.constant(2)
    assert g.get_operations() == []


def test_placeholder_in_eager_mode_raises():
    with pytest.raises(RuntimeError, match="eager"):
        rt.placeholder(rt.float32, shape=[2])


# --- op names ------------------------------------------------------------------------------------


def test_unique_names_add_add_1():
    g = rt.Graph()
    with g.as_default():
        x = rt.placeholder(rt.int32, [], name="x")
        a = x + x
        b = x + x
        c = rt.add(x, x)
    assert [a.op.name, b.op.name, c.op.name] == ["add", "add_1", "add_2"]
    assert [a.name, b.name, c.name] == ["add:0", "add_1:0", "add_2:0"]


def test_default_const_names():
    g = rt.Graph()
    with g.as_default():
        consts = [rt.constant(i) for i in range(3)]
    assert [c.op.name for c in consts] == ["Const", "Const_1", "Const_2"]


def test_explicit_names_are_made_unique():
    g = rt.Graph()
    with g.as_default():
        a = rt.constant(1, name="c")
        b = rt.constant(2, name="c")
        p = rt.placeholder(rt.int32, [], name="c")
    assert [a.op.name, b.op.name, p.op.name] == ["c", "c_1", "c_2"]


def test_explicit_name_skips_taken_suffixes():
    g = rt.Graph()
    with g.as_default():
        rt.constant(1, name="v_1")
        first = rt.constant(2, name="v")
        second = rt.constant(3, name="v")
    assert first.op.name == "v"
    assert second.op.name == "v_2"


def test_invalid_op_name_raises():
    g = rt.Graph()
    with g.as_default(), pytest.raises(ValueError):
        rt.constant(1, name="bad name!")


def test_names_are_independent_per_graph():
    g1, g2 = rt.Graph(), rt.Graph()
    with g1.as_default():
        rt.constant(1)
        rt.constant(1)
    with g2.as_default():
        t = rt.constant(1)
    assert t.op.name == "Const"


# --- name scopes ---------------------------------------------------------------------------------


def test_name_scope_prefixes_op_names():
    g = rt.Graph()
    with g.as_default():
        x = rt.placeholder(rt.int32, [], name="x")
        with rt.name_scope("layer") as scope:
            y = x + 1
        z = x + 1
    assert scope == "layer/"
    assert y.op.name == "layer/add"
    assert y.name == "layer/add:0"
    assert z.op.name == "add"


def test_nested_name_scopes():
    g = rt.Graph()
    with g.as_default():
        with rt.name_scope("outer") as outer_scope:
            a = rt.constant(1)
            with rt.name_scope("inner") as inner_scope:
                b = rt.constant(2)
            c = rt.constant(3)
        d = rt.constant(4)
    assert outer_scope == "outer/"
    assert inner_scope == "outer/inner/"
    assert a.op.name == "outer/Const"
    assert b.op.name == "outer/inner/Const"
    assert c.op.name == "outer/Const_1"
    assert d.op.name == "Const"


def test_reentered_scope_name_is_made_unique():
    g = rt.Graph()
    with g.as_default():
        with rt.name_scope("block") as s1:
            a = rt.constant(1)
        with rt.name_scope("block") as s2:
            b = rt.constant(1)
        with rt.name_scope("outer"):
            with rt.name_scope("inner") as i1:
                pass
            with rt.name_scope("inner") as i2:
                pass
    assert (s1, s2) == ("block/", "block_1/")
    assert a.op.name == "block/Const"
    assert b.op.name == "block_1/Const"
    assert (i1, i2) == ("outer/inner/", "outer/inner_1/")


def test_scope_with_trailing_slash_reenters_exactly():
    g = rt.Graph()
    with g.as_default():
        with rt.name_scope("block"):
            a = rt.constant(1)
        with rt.name_scope("block/") as again:
            b = rt.constant(1)
    assert again == "block/"
    assert a.op.name == "block/Const"
    assert b.op.name == "block/Const_1"


def test_scope_and_op_names_share_one_namespace():
    g = rt.Graph()
    with g.as_default():
        x = rt.placeholder(rt.int32, [], name="x")
        with rt.name_scope("add"):
            pass
        y = x + 1
        z = rt.constant(0, name="s")
        with rt.name_scope("s") as scope:
            pass
    assert y.op.name == "add_1"
    assert z.op.name == "s"
    assert scope == "s_1/"


def test_scope_restored_after_exception():
    g = rt.Graph()
    with g.as_default():
        with pytest.raises(KeyError), rt.name_scope("broken"):
            raise KeyError("x")
        t = rt.constant(1)
    assert t.op.name == "Const"


# --- reading a graph -----------------------------------------------------------------------------


def test_get_operations_in_creation_order():
    g = rt.Graph()
    with g.as_default():
        x = rt.placeholder(rt.float32, [2], name="x")
        y = x * 2.0
        z = y + x
        rt.no_op(name="done")
    assert _names(g) == ["x", "Const", "mul", "add", "done"]
    assert [op.type for op in g.get_operations()] == ["Placeholder", "Const", "Mul", "Add", "NoOp"]
    assert g.get_operations()[3] is z.op


def test_get_operations_is_a_snapshot():
    g = rt.Graph()
    with g.as_default():
        rt.constant(1)
    ops = g.get_operations()
    ops.clear()
    assert _names(g) == ["Const"]


def test_get_tensor_by_name():
    g = rt.Graph()
    with g.as_default():
        x = rt.placeholder(rt.int32, [], name="x")
        y = x + 1
        with rt.name_scope("s"):
            z = y * 3
    assert g.get_tensor_by_name("add:0") is y
    assert g.get_tensor_by_name("x:0") is x
    assert g.get_tensor_by_name("s/mul:0") is z


def test_get_tensor_by_name_errors():
    g = rt.Graph()
    with g.as_default():
        rt.placeholder(rt.int32, [], name="x")
    with pytest.raises(KeyError):
        g.get_tensor_by_name("missing:0")
    with pytest.raises(KeyError):
        g.get_tensor_by_name("x:1")
    with pytest.raises(ValueError):
        g.get_tensor_by_name("x")


def test_op_name_type_inputs_outputs():
    g = rt.Graph()
    with g.as_default():
        a = rt.placeholder(rt.float32, [3], name="a")
        b = rt.constant([1.0, 2.0, 3.0], name="b")
        c = rt.multiply(a, b, name="prod")
    op = c.op
    assert op.name == "prod"
    assert op.type == "Mul"
    assert len(op.inputs) == 2
    assert op.inputs[0] is a
    assert op.inputs[1] is b
    assert len(op.outputs) == 1
    assert op.outputs[0] is c
    assert op.graph is g
    assert a.op.type == "Placeholder"
    assert list(a.op.inputs) == []
    assert b.op.type == "Const"


def test_eager_tensor_input_becomes_const_op():
    g = rt.Graph()
    eager = rt.constant([10, 20])
    with g.as_default():
        x = rt.placeholder(rt.int32, [2], name="x")
        y = x + eager
    const_op = y.op.inputs[1].op
    assert const_op.type == "Const"
    assert const_op.graph is g
    np.testing.assert_array_equal(_run(g, y, {x: [1, 2]}), [11, 22])


# --- identity, no_op, group, control dependencies ------------------------------------------------


def test_identity_adds_an_op_with_same_value():
    g = rt.Graph()
    with g.as_default():
        x = rt.placeholder(rt.int32, [2], name="x")
        y = rt.identity(x, name="same")
    assert y.op.type == "Identity"
    assert y.op.name == "same"
    assert y.op.inputs[0] is x
    assert y is not x
    assert y.shape == (2,)
    assert y.dtype is rt.int32
    np.testing.assert_array_equal(_run(g, y, {x: [4, 5]}), [4, 5])


def test_identity_eagerly():
    t = rt.identity(rt.constant([1, 2]))
    np.testing.assert_array_equal(t.numpy(), [1, 2])


def test_no_op():
    g = rt.Graph()
    with g.as_default():
        op = rt.no_op(name="nothing")
    assert op.type == "NoOp"
    assert op.name == "nothing"
    assert list(op.outputs) == []
    assert list(op.inputs) == []
    assert _run(g, op) is None


def test_control_dependencies_recorded_on_new_ops():
    g = rt.Graph()
    with g.as_default():
        a = rt.constant(1, name="a")
        b = rt.constant(2, name="b")
        with rt.control_dependencies([a, b.op]):
            c = rt.identity(rt.placeholder(rt.int32, [], name="p"), name="c")
        d = rt.constant(3, name="d")
    assert set(c.op.control_inputs) == {a.op, b.op}
    assert list(d.op.control_inputs) == []


def test_nested_control_dependencies_accumulate():
    g = rt.Graph()
    with g.as_default():
        a = rt.no_op(name="a")
        b = rt.no_op(name="b")
        with rt.control_dependencies([a]):
            with rt.control_dependencies([b]):
                inner = rt.no_op(name="inner")
            outer = rt.no_op(name="outer")
    assert set(inner.control_inputs) == {a, b}
    assert set(outer.control_inputs) == {a}


def test_control_dependencies_run_before_dependent_op():
    buf = io.StringIO()
    g = rt.Graph()
    with g.as_default():
        x = rt.placeholder(rt.int32, [], name="x")
        printed = rt.print("side effect", x, output_stream=buf)
        with rt.control_dependencies([printed]):
            y = rt.identity(x * 2)
    assert _run(g, y, {x: 5}) == 10
    assert buf.getvalue() == "side effect 5\n"


def test_control_dependency_on_failing_assert_blocks_result():
    g = rt.Graph()
    with g.as_default():
        x = rt.placeholder(rt.int32, [], name="x")
        check = rt.debugging.assert_equal(x, 0)
        with rt.control_dependencies([check]):
            y = x + 1
    assert _run(g, y, {x: 0}) == 1
    with pytest.raises(rt.errors.InvalidArgumentError):
        _run(g, y, {x: 3})


def test_control_dependencies_eagerly_is_harmless():
    with rt.control_dependencies([rt.constant(1)]):
        t = rt.constant(2) + 1
    assert t.numpy() == 3


def test_group_runs_all_inputs():
    buf = io.StringIO()
    g = rt.Graph()
    with g.as_default():
        p1 = rt.print("one", output_stream=buf)
        p2 = rt.print("two", output_stream=buf)
        both = rt.group(p1, p2)
    assert both.type == "NoOp"
    assert set(both.control_inputs) == {p1, p2}
    assert list(both.outputs) == []
    assert _run(g, both) is None
    assert sorted(buf.getvalue().splitlines()) == ["one", "two"]


def test_group_accepts_tensors():
    g = rt.Graph()
    with g.as_default():
        a = rt.constant(1)
        b = rt.constant(2)
        grouped = rt.group(a, b, name="grouped")
    assert grouped.name == "grouped"
    assert set(grouped.control_inputs) == {a.op, b.op}


# --- printing --------------------------------------------------------------------------------------


def _top_level_lines(text):
    return [line for line in text.splitlines() if line and not line[0].isspace() and line != "}"]


def test_str_graph_one_op_per_line():
    g = rt.Graph()
    with g.as_default():
        x = rt.placeholder(rt.int32, [None], name="x")
        y = x + 1
        rt.reduce_sum(y, name="total")
        rt.no_op(name="nop")
    lines = str(g).splitlines()
    ops = g.get_operations()
    assert len(lines) == len(ops)
    for line, op in zip(lines, ops):
        assert re.match(rf"{re.escape(op.name)}\b", line), (line, op.name)
        assert op.type in line
    add_line = lines[2]
    assert "x" in add_line.split("=", 1)[1]
    assert "int32" in lines[0]


def test_str_empty_graph():
    assert str(rt.Graph()) == ""


def test_str_graph_shows_control_inputs():
    g = rt.Graph()
    with g.as_default():
        a = rt.no_op(name="first")
        with rt.control_dependencies([a]):
            rt.no_op(name="second")
    second_line = str(g).splitlines()[1]
    assert second_line.startswith("second")
    assert "first" in second_line


def test_str_graph_contains_cond_branches():
    g = rt.Graph()
    with g.as_default():
        x = rt.placeholder(rt.int32, [], name="x")
        rt.cond(x > 0, lambda: x * 2, lambda: x - 1)
    text = str(g)
    top = _top_level_lines(text)
    assert [re.match(r"[\w/.\-]+", line).group(0) for line in top] == _names(g)
    assert "Mul" not in [op.type for op in g.get_operations()]
    nested = [line for line in text.splitlines() if line[:1].isspace()]
    assert any("Mul(" in line for line in nested)
    assert any("Sub(" in line for line in nested)


def test_str_graph_contains_while_body_and_condition():
    g = rt.Graph()
    with g.as_default():
        n = rt.placeholder(rt.int32, [], name="n")
        rt.while_loop(lambda i: i < n, lambda i: [i * 3], [rt.constant(1)])
    text = str(g)
    top = _top_level_lines(text)
    assert [re.match(r"[\w/.\-]+", line).group(0) for line in top] == _names(g)
    nested = [line for line in text.splitlines() if line[:1].isspace()]
    assert any("Less(" in line for line in nested)
    assert any("Mul(" in line for line in nested)


def test_graph_repr_mentions_op_count():
    g = rt.Graph()
    with g.as_default():
        rt.constant(1)
        rt.constant(2)
    assert "2" in repr(g)


# --- mixing graphs -----------------------------------------------------------------------------------


def test_tensor_from_another_graph_raises_clear_error():
    g1, g2 = rt.Graph(), rt.Graph()
    with g1.as_default():
        t = rt.constant(1, name="from_g1")
    with g2.as_default(), pytest.raises(ValueError, match="graph") as info:
        t + 1
    assert "from_g1" in str(info.value)


def test_tensor_from_another_graph_in_explicit_op():
    g1, g2 = rt.Graph(), rt.Graph()
    with g1.as_default():
        a = rt.placeholder(rt.float32, [], name="a")
    with g2.as_default():
        b = rt.placeholder(rt.float32, [], name="b")
        with pytest.raises(ValueError, match="graph"):
            rt.multiply(b, a)


def test_symbolic_tensor_used_eagerly_raises():
    g = rt.Graph()
    with g.as_default():
        x = rt.placeholder(rt.int32, [], name="x")
    with pytest.raises(ValueError, match="x:0"):
        x + 1
    assert _names(g) == ["x"]
