"""Every op remembers the user's line that made it; errors at run time name that line."""

from __future__ import annotations

import inspect

import pytest

import autograph as ag
import runtime as rt


def _line_of(fn, text):
    lines, start = inspect.getsourcelines(fn)
    return start + next(i for i, line in enumerate(lines) if text in line)


def test_an_op_remembers_the_users_line_not_the_librarys():
    g = rt.Graph()
    with g.as_default():
        x = rt.placeholder(rt.int32, [])
        y = rt.reduce_sum(x * 2)  # the line the ops come from
    for op in (y.op, y.op.inputs[0].op):
        assert op.source.filename == __file__
        assert op.source.lineno == _line_of(
            test_an_op_remembers_the_users_line_not_the_librarys, "the line the ops"
        )
        assert op.source.function == "test_an_op_remembers_the_users_line_not_the_librarys"


def doubled_after_a_branch(x):
    if x > 0:
        y = x * 2
    else:
        y = -x  # the else branch
    return y


def test_ops_of_converted_code_come_from_the_users_own_lines():
    cf = ag.function(doubled_after_a_branch).get_concrete_function(rt.TensorSpec([], rt.int32))
    (cond,) = [op for op in cf.graph.get_operations() if op.type == "If"]
    else_graph = cond.attrs["else_graph"]
    (neg,) = [op for op in else_graph.get_operations() if op.type == "Neg"]
    assert neg.source.filename == __file__
    assert neg.source.lineno == _line_of(doubled_after_a_branch, "the else branch")
    assert neg.source.function == "doubled_after_a_branch"


def integer_division(x, y):
    return x // y  # divides by zero


def test_a_run_time_error_names_the_op_and_the_users_line():
    f = ag.function(integer_division)
    with pytest.raises(rt.errors.InvalidArgumentError) as info:
        f(rt.constant(1), rt.constant(0))
    line = _line_of(integer_division, "divides by zero")
    assert f'defined at File "{__file__}", line {line}, in integer_division' in str(info.value)


def test_copies_made_by_the_optimiser_keep_the_source():
    def f(x):
        return x * 1 + x * 3  # one line

    cf = ag.function(f).get_concrete_function(rt.TensorSpec([], rt.int32))
    sources = {op.source.lineno for op in cf.graph.get_operations() if op.type == "Mul"}
    assert sources == {_line_of(f, "one line")}
