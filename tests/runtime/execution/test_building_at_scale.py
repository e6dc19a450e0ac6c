"""What keeps building a graph linear, checked for what it must not change.

- A function graph keeps one Const per Python number (not inside
  ``control_dependencies``, where each const waits on its own).
- The cyclic garbage collector is off while a graph is traced, optimised and
  compiled, and as it was afterwards, whatever happens.
- ``optimize`` runs folding, identities and merging in one sweep: the graph and
  the report are those of the passes run one by one.
- A function graph's schedule is kept until the graph changes.
- ``context.active`` counts graphs being built and tapes recording.
"""

from __future__ import annotations

import gc

import numpy as np
import pytest

import autograph as ag
import runtime as rt
import runtime.execution.optimize as opt
from runtime.core import context
from runtime.core.graph import FuncGraph
from runtime.execution.compile import compile_function
from runtime.execution.schedule import function_ops
from runtime.execution.tracing import trace
from tests.autograph.gallery import GALLERY

INT = rt.TensorSpec([], rt.int32)


def _consts(graph):
    return [op for op in graph.get_operations() if op.type == "Const"]


def test_a_function_graph_keeps_one_const_per_python_number():
    g = trace(lambda x: x * 2 + 2 - 3 + (x + 3), [INT], "f")
    assert sorted(int(op.attrs["value"]) for op in _consts(g)) == [2, 3]
    assert compile_function(g)(np.int32(5)) == (5 * 2 + 2 - 3 + 8,)


def test_floats_of_other_signs_and_other_dtypes_are_other_consts():
    g = trace(lambda x, y: (x * 0.0 + -0.0, y + 0), [rt.TensorSpec([]), INT], "f")
    values = sorted(
        (op.attrs["dtype"].name, np.asarray(op.attrs["value"]).tobytes()) for op in _consts(g)
    )
    assert len(values) == 3  # float32 0.0 and -0.0, int32 0


def test_explicit_constants_and_session_graphs_make_an_op_each():
    g = trace(lambda x: x + rt.constant(1) + rt.constant(1), [INT], "f")
    assert len(_consts(g)) == 2
    plain = rt.Graph()
    with plain.as_default():
        x = rt.placeholder(rt.int32, [])
        x + 1 + 1
    assert len(_consts(plain)) == 2


def test_a_number_inside_control_dependencies_is_its_own_const_that_waits():
    def f(x):
        printed = rt.print("first")
        with rt.control_dependencies([printed]):
            y = x + 1
        return y + 1

    g = trace(f, [INT], "f")
    waiting = [op for op in _consts(g) if op.control_inputs]
    assert len(_consts(g)) == 2 and len(waiting) == 1


def test_the_collector_is_off_while_tracing_and_as_it_was_after():
    seen = []

    def f(x):
        seen.append(gc.isenabled())
        return x + 1

    assert gc.isenabled()
    trace(f, [INT], "f")
    assert seen == [False] and gc.isenabled()

    def broken(x):
        raise ValueError("no")

    with pytest.raises(ValueError, match="^no$"):
        trace(broken, [INT], "g")
    assert gc.isenabled()
    gc.disable()
    try:
        trace(f, [INT], "f")
        assert not gc.isenabled()  # left off, as it was
    finally:
        gc.enable()


GRAPHS = [c for c in GALLERY if c.graph]


def _one_by_one(graph):
    report = []
    for optimization in opt.DEFAULT_PASSES:
        before = opt.count_ops(graph)
        graph = optimization(graph)
        report.append((optimization.__name__, before, opt.count_ops(graph)))
    return graph, report


@pytest.mark.parametrize("case", GRAPHS, ids=lambda c: c.fn.__name__)
def test_the_sweep_gives_the_graph_and_report_of_the_passes_one_by_one(case):
    specs = [rt.TensorSpec([], _dtype(a)) for a in case.args[0]]
    graph = ag.function(case.fn).get_concrete_function(*specs).graph
    swept, report = opt.optimize(graph)
    one_by_one, expected = _one_by_one(graph)
    assert report == expected
    assert str(swept) == str(one_by_one)


def test_a_sweep_folds_into_constants_it_then_merges():
    g = trace(lambda x: (rt.constant(2) + 1) * x + (rt.constant(1) + 2) * x + x * 1, [INT], "f")
    swept, report = opt.optimize(g)
    assert report == _one_by_one(g)[1]
    assert len(_consts(swept)) == 1  # the two folded 3s are one
    assert compile_function(swept)(np.int32(4)) == (28,)


def _dtype(value):
    if isinstance(value, bool):
        return rt.bool
    return rt.float32 if isinstance(value, float) else rt.int32


def test_a_schedule_is_kept_until_the_graph_changes():
    g = trace(lambda x: x + 1, [INT], "f")
    first = function_ops(g)
    assert function_ops(g) is first
    with g.as_default():
        doubled = g.outputs[0] * 2
    again = function_ops(g)  # a new op (nothing needs it): made again, the same ops
    assert again is not first and again == first
    g.outputs = [doubled]  # other outputs: made again
    assert [op.type for op in function_ops(g)] == ["Const", "Add", "Const", "Mul"]


def test_active_counts_graphs_being_built_and_tapes_recording():
    assert context.active == 0
    g = FuncGraph("g")
    with g.as_default():
        assert context.active == 1
        with rt.GradientTape():
            assert context.active == 2
    assert context.active == 0
    with pytest.raises(RuntimeError), g.as_default(), rt.GradientTape():
        raise RuntimeError("out of both")
    assert context.active == 0
