"""The order a function graph runs its stateful ops in, shown by the text, DOT and TensorBoard
views as control edges; and constants that span lines in numpy's text, on one line."""

import re

import pytest

import autograph as ag
import runtime as rt


def add_then_print_graph():
    x = rt.Variable(1.0)

    @ag.function
    def add_print(a):
        x.assign_add(a)
        rt.print(x)
        return x.read_value()

    return add_print.get_concrete_function(rt.TensorSpec([], rt.float32)).graph


def lines_by_op(text):
    return {line.split(":")[0].split(" =")[0].strip(): line for line in text.splitlines()}


def test_the_text_view_shows_reads_after_the_write():
    lines = lines_by_op(str(add_then_print_graph()))
    # The two reads (the one printed, the one returned) come after the assignment.
    assert "^AssignAddVariableOp" in lines["ReadVariableOp"]
    assert "^AssignAddVariableOp" in lines["ReadVariableOp_1"]
    assert "^" not in lines["AssignAddVariableOp"]
    assert "^" not in lines["PrintV2"]  # it reads ReadVariableOp, which follows the write


def test_the_order_of_effects_without_data_between_them():
    @ag.function
    def effects():
        rt.print("first")
        rt.print("second")
        rt.print("third")

    lines = lines_by_op(str(effects.get_concrete_function().graph))
    assert "^PrintV2" in lines["PrintV2_1"] and "^PrintV2_1" in lines["PrintV2_2"]
    assert "^PrintV2," not in lines["PrintV2_2"] and not lines["PrintV2_2"].endswith("^PrintV2)")


def test_a_write_after_a_read_waits_for_the_read():
    v = rt.Variable(1.0)

    @ag.function
    def read_then_write():
        before = v.read_value()
        v.assign(5.0)
        return before

    assert read_then_write().numpy() == 1.0  # what the order means when it runs
    lines = lines_by_op(str(read_then_write.get_concrete_function().graph))
    assert "^ReadVariableOp" in lines["AssignVariableOp"]


def test_a_session_graph_has_no_program_order():
    g = rt.Graph()
    with g.as_default():
        rt.print("a")
        rt.print("b")
    assert "^" not in str(g)


def test_the_dot_view_draws_the_order_as_dashed_edges():
    dot = add_then_print_graph().to_dot()
    edges = re.findall(r'"AssignAddVariableOp" -> "(\w+)" \[style=dashed[^\]]*program order', dot)
    assert sorted(edges) == ["ReadVariableOp", "ReadVariableOp_1"]


def test_the_tensorboard_view_has_them_as_control_inputs():
    pytest.importorskip("tensorboard")
    from runtime.views import tensorboard

    nodes = {n.name: n for n in tensorboard.to_graph_def(add_then_print_graph()).node}
    assert list(nodes["ReadVariableOp"].input) == ["Variable", "^AssignAddVariableOp"]
    assert list(nodes["PrintV2"].input) == ["ReadVariableOp"]


def test_a_constant_that_numpy_prints_on_lines_is_one_line_of_the_text_view():
    g = rt.Graph()
    with g.as_default():
        rt.constant([[1, 2], [3, 4]], name="matrix")
        rt.constant([[[1], [2]], [[3], [4]]], name="cube")
        rt.constant('two\nlines "quoted" \\ back', name="text")
    text = str(g)
    assert len(text.splitlines()) == len(g.get_operations()) == 3
    lines = lines_by_op(text)
    assert lines["matrix"].endswith("Const(value=[[1 2] [3 4]])")
    assert lines["cube"].endswith("Const(value=[[[1] [2]] [[3] [4]]])")
    assert lines["text"].endswith(r'Const(value="two\nlines \"quoted\" \\ back")')
