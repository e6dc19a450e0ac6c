"""Function graphs (rt.FuncGraph): traced callables whose stateful ops always run, in program order.

This is the executor property that @ag.function builds on: unlike Session.run,
which prunes to what the fetches need, a function graph never drops a print,
an assignment or a random draw, and runs them in the order the program wrote them.
"""

import numpy as np
import pytest

import runtime as rt
from runtime.execution.compile import compile_function
from runtime.execution.tracing import trace


def run(graph, *args):
    return compile_function(graph)(*args)


def test_unused_stateful_ops_run_in_program_order(capsys):
    v = rt.Variable(0)

    def f(x):
        rt.print("first", x)
        v.assign_add(x)  # result unused
        rt.print("second", v)
        return x * 2

    g = trace(f, [rt.TensorSpec([], rt.int32)], "f")
    assert run(g, np.int32(5)) == (10,)
    assert run(g, np.int32(1)) == (2,)
    assert capsys.readouterr().out == "first 5\nsecond 5\nfirst 1\nsecond 6\n"
    assert v.numpy() == 6


def test_python_side_effects_happen_once_at_trace_time(capsys):
    def f(x):
        print("tracing")
        rt.print("running")
        return x

    g = trace(f, [rt.TensorSpec([], rt.float32)], "f")
    for _ in range(3):
        run(g, np.float32(1))
    assert capsys.readouterr().out == "tracing\n" + "running\n" * 3


def test_random_ops_draw_anew_on_every_call():
    g = trace(lambda: rt.random.uniform([4]), [], "draw")
    first, second = run(g)[0], run(g)[0]
    assert first.shape == (4,) and not np.array_equal(first, second)


def test_session_prunes_what_a_function_graph_keeps(capsys):
    g = rt.Graph()
    with g.as_default():
        x = rt.placeholder(rt.int32, [])
        rt.print("side effect")
        y = x + 1
    assert rt.Session(g).run(y, {x: 1}) == 2
    assert capsys.readouterr().out == ""  # TF1: only what the fetches need

    f = trace(lambda x: (rt.print("side effect"), x + 1)[1], [rt.TensorSpec([], rt.int32)], "f")
    assert run(f, np.int32(1)) == (2,)
    assert capsys.readouterr().out == "side effect\n"  # TF2 function: every stateful op


def test_outer_tensors_are_captured_as_inputs():
    g = rt.Graph()
    with g.as_default():
        scale = rt.placeholder(rt.float32, [], name="scale")
        inner = trace(lambda x: x * scale, [rt.TensorSpec([2], rt.float32)], "inner")
    assert [outer.name for outer in inner.external_captures] == ["scale:0"]
    assert len(inner.inputs) == 2  # the argument, then the capture
    out = run(inner, np.array([1, 2], np.float32), np.float32(3))
    np.testing.assert_array_equal(out[0], [3, 6])


def test_eager_tensors_used_by_a_function_become_constants():
    offset = rt.constant(10)
    g = trace(lambda x: x + offset, [rt.TensorSpec([], rt.int32)], "f")
    assert [op.type for op in g.get_operations()] == ["Placeholder", "Const", "Add"]
    assert run(g, np.int32(1)) == (11,)


def test_a_tensor_of_an_unrelated_graph_is_refused():
    other = rt.Graph()
    with other.as_default():
        foreign = rt.constant(1)
    with pytest.raises(ValueError, match="another graph"):
        trace(lambda: foreign + 1, [], "f")
