"""Effects under XLA: printing, asserts and run-time errors, variables, random numbers.

Printing and failures are compared with the default executor running the same
graph: the same text in the same order, the same error and message, the same
variable values after a failing call.
"""

from __future__ import annotations

import contextlib
import io

import numpy as np
import pytest

pytest.importorskip("jax")

import runtime as rt  # noqa: E402
from runtime.execution.compile import compile_function  # noqa: E402
from runtime.xla.program import XlaProgram  # noqa: E402
from tests.runtime.xla.xla_harness import assert_same_value, traced  # noqa: E402

InvalidArgument = rt.errors.InvalidArgumentError


def _run(program, args):
    """(outputs or the error raised, what was printed to stdout) for one call."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        try:
            result = program(*args)
        except rt.errors.OpError as e:
            result = e
    return result, out.getvalue()


def both_ways(fn, args, variables=(), shapes=None):
    """Runs ``fn``'s graph with the default executor, then XLA, each from the same variable
    values; checks the outputs (or errors), the printed text and the variables agree."""
    graph = traced(fn, args, shapes)
    start = [v.numpy() for v in variables]
    expected, printed = _run(compile_function(graph), args)
    after = [v.numpy() for v in variables]
    for v, value in zip(variables, start):
        v.assign(value)
    got, xla_printed = _run(XlaProgram(graph), args)
    assert xla_printed == printed
    for v, value in zip(variables, after):
        assert_same_value(v.numpy(), value, where=v.name)
    if isinstance(expected, Exception):
        assert type(got) is type(expected), (got, expected)
        assert str(got) == str(expected)
    else:
        for i, (x, d) in enumerate(zip(got, expected)):
            assert_same_value(x, d, where=f"output {i}")
    return got, printed


# --- printing ---------------------------------------------------------------------------------


def test_printing_matches_the_default_executor():
    def fn(x, n):
        rt.print("start", x, {"n": n, "pair": (x, 1)}, summarize=2)
        total = rt.while_loop(
            lambda i, t: i < n,
            lambda i, t: (i + 1, t + rt.cast(i, rt.float32) * x),
            (0, rt.zeros_like(x)),
        )[1]
        rt.print("i:", rt.constant(True), rt.constant("done"), total, sep="|", end="!\n")
        rt.print(rt.constant("alone"))
        return total

    x = np.array([1.5, -2.0, 1e-8, 3.0, 7.25], np.float32)
    _, printed = both_ways(fn, [x, np.int32(3)])
    assert printed.startswith(
        "start [1.5 -2 ... 3 7.25] {'n': 3, 'pair': ([1.5 -2 ... 3 7.25], 1)}"
    )
    assert printed.endswith("alone\n")


def test_printing_in_branches_and_loops_in_program_order():
    def fn(n):
        def body(i):
            rt.cond(i % 2 == 0, lambda: rt.print("even", i), lambda: rt.print("odd", i))
            return [i + 1]

        rt.while_loop(lambda i: i < n, body, [0])
        rt.print("end")
        return n

    _, printed = both_ways(fn, [np.int32(4)])
    assert printed == "even 0\nodd 1\neven 2\nodd 3\nend\n"


def test_printing_to_another_stream():
    stream = io.StringIO()

    def fn(x):
        rt.print("to stream", x, output_stream=stream)
        return x

    graph = traced(fn, [np.int32(5)])
    XlaProgram(graph)(np.int32(5))
    assert stream.getvalue() == "to stream 5\n"


def test_printing_is_written_by_the_time_the_call_returns():
    def fn(x):
        rt.print("value", x)

    graph = traced(fn, [np.float32(0.5)])
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert XlaProgram(graph)(np.float32(0.5)) == ()
        assert out.getvalue() == "value 0.5\n"


# --- failures ---------------------------------------------------------------------------------


def test_a_failing_assert_raises_the_default_message_after_the_prints_before_it():
    def fn(x, y):
        rt.print("before", x)
        rt.debugging.assert_equal(x, y, message="not equal")
        rt.print("after")
        return x + y

    result, printed = both_ways(fn, [np.int32(2), np.int32(2)])
    assert printed == "before 2\nafter\n"
    error, printed = both_ways(fn, [np.array([1, 2], np.int32), np.array([1, 3], np.int32)])
    assert isinstance(error, InvalidArgument)
    assert "not equal" in str(error) and "[1 2]" in str(error)
    assert printed == "before [1 2]\n"


def test_a_failure_stops_a_loop_and_later_assignments():
    v = rt.Variable(0)

    def fn(n, d):
        def body(i):
            v.assign_add(10 // (d - i))  # fails when i reaches d
            return [i + 1]

        out = rt.while_loop(lambda i: i < n, body, [0])
        v.assign(-100)
        return out

    error, _ = both_ways(fn, [np.int32(50), np.int32(3)], [v])
    assert "Integer division by zero" in str(error)
    assert v.numpy() > 0  # the assignments before the failure stay, the one after never ran
    both_ways(fn, [np.int32(5), np.int32(100)], [v])


@pytest.mark.parametrize(
    "fn, args, message",
    [
        (lambda x, y: x // y, [np.int32(7), np.int32(0)], "Integer division by zero in floordiv"),
        (lambda x, y: x % y, [np.array([1, 2], np.int32), np.array([1, 0], np.int32)], "mod"),
        (lambda x, y: x**y, [np.int32(2), np.int32(-1)], "negative integer powers"),
        (lambda x, i: x[i], [np.arange(3, dtype=np.int32), np.int32(3)], "index 3 is out of"),
        (lambda x, i: rt.gather(x, i), [np.arange(3.0), np.array([0, 5], np.int32)], "index 5"),
    ],
)
def test_run_time_errors_match_the_default_executor(fn, args, message):
    error, _ = both_ways(fn, args)
    assert isinstance(error, InvalidArgument)
    assert message in str(error)
    assert "defined at" in str(error)


def test_a_shape_error_found_when_compiling_fails_when_the_op_runs():
    # The placeholder's length is unknown when the graph is built; 6 elements do not make 4.
    error, _ = both_ways(lambda v: rt.reshape(v, [4]), [np.arange(6.0)], shapes=[[None]])
    assert isinstance(error, InvalidArgument)
    assert "cannot reshape array of size 6 into shape (4,)" in str(error)


def test_an_error_in_a_branch_not_taken_does_not_fail():
    def fn(x, v):
        return rt.cond(x > 0, lambda: x, lambda: rt.reduce_sum(rt.reshape(v, [3])))

    v = np.array([1, 2], np.int32)
    result, _ = both_ways(fn, [np.int32(3), v], shapes=[[], [None]])
    assert result == (np.int32(3),)
    error, _ = both_ways(fn, [np.int32(-3), v], shapes=[[], [None]])
    assert isinstance(error, InvalidArgument)


def test_strings_computed_at_run_time_are_unimplemented_naming_the_line():
    def fn(x):
        return rt.strings.as_string(x)  # the line named

    graph = traced(fn, [np.int32(3)])
    with pytest.raises(rt.errors.UnimplementedError, match="AsString has no XLA form") as info:
        XlaProgram(graph)(np.int32(3))
    assert "test_effects.py" in str(info.value) and "in fn" in str(info.value)
    assert info.value.op.type == "AsString"


def test_known_strings_are_computed_when_compiling():
    def fn(x):
        label = rt.strings.join([rt.constant("n"), rt.strings.as_string(rt.constant(4))], "=")
        rt.print(label, x)
        return x * 2, label

    result, printed = both_ways(fn, [np.int32(3)])
    assert printed == '"n=4" 3\n'
    assert result[1] == b"n=4"


# --- variables --------------------------------------------------------------------------------


def test_variables_are_read_and_assigned_in_program_order():
    v = rt.Variable(np.array([1.0, 2.0], np.float32))
    w = rt.Variable(10)

    def fn(x):
        first = v.read_value()
        v.assign_add(x)
        w.assign_sub(1)
        v.assign(v * 2.0)
        return first, v.read_value(), w.read_value()

    both_ways(fn, [np.array([0.5, 0.5], np.float32)], [v, w])


def test_variable_updates_persist_across_calls_and_meet_numpy_writes():
    v = rt.Variable(1.0)
    graph = traced(lambda x: v.assign_add(x), [np.float32(0)])
    program = XlaProgram(graph)
    program(np.float32(2.0))
    program(np.float32(3.0))
    assert v.numpy() == np.float32(6.0)
    assert type(v.numpy()) is np.float32
    v.assign(100.0)  # written eagerly: the next call reads it
    assert program(np.float32(1.0)) == (np.float32(101.0),)
    assert float(v) == 101.0


def test_a_failing_call_keeps_the_assignments_before_the_failure():
    v = rt.Variable(5)

    def fn(x):
        v.assign(x)
        rt.Assert(x > 0, ["x must be positive:", x])
        v.assign_add(1000)
        return v.read_value()

    both_ways(fn, [np.int32(-3)], [v])
    assert v.numpy() == -3


# --- random numbers ---------------------------------------------------------------------------


def test_random_ops_draw_new_numbers_on_each_call():
    graph = traced(lambda: (rt.random.normal([1000]), rt.random.uniform([7], 2, 9, rt.int32)), [])
    program = XlaProgram(graph)
    a, ints = program()
    b, _ = program()
    assert a.dtype == np.float32 and a.shape == (1000,)
    assert not np.array_equal(a, b)
    assert abs(a.mean()) < 0.2 and 0.8 < a.std() < 1.2
    assert ints.dtype == np.int32 and ints.min() >= 2 and ints.max() < 9


def test_set_seed_makes_the_draws_reproducible():
    def draws():
        rt.random.set_seed(7)
        graph = traced(lambda: rt.random.uniform([4], -1.0, 1.0, dtype=rt.float64), [])
        program = XlaProgram(graph)
        return [program()[0] for _ in range(3)]

    first, second = draws(), draws()
    for a, b in zip(first, second):
        np.testing.assert_array_equal(a, b)
    assert first[0].dtype == np.float64 and (np.abs(first[0]) <= 1).all()
    assert not np.array_equal(first[0], first[1])
    rt.random.set_seed(None)


# --- types ------------------------------------------------------------------------------------


def test_64_bit_types_stay_64_bit():
    def fn(x):
        return x / 2, rt.argmax(x), rt.cast(x, rt.int64) * 3_000_000_000

    result, _ = both_ways(fn, [np.array([3, 9, 4], np.int32)])
    assert result[0].dtype == np.float64 and result[1].dtype == np.int64
    assert result[2][1] == 27_000_000_000
