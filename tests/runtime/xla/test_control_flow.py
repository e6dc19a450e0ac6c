"""cond and while_loop under XLA: the same results as the default executor, in every shape.

Each function is traced on placeholders and run both ways (``xla_harness``);
the loops here cover the forms the lowering takes: plain, with the iteration
limit, with a test that has effects (rotated), nested, and conds that become
selects or stay branches.
"""

from __future__ import annotations

import io

import numpy as np
import pytest

pytest.importorskip("jax")

import runtime as rt  # noqa: E402
from runtime.execution.compile import compile_function  # noqa: E402
from runtime.xla.program import XlaProgram  # noqa: E402
from tests.runtime.xla.xla_harness import assert_same_results, run_both, traced  # noqa: E402


def i32(x):
    return np.int32(x)


@pytest.mark.parametrize("x", [-4, 0, 5])
def test_cond_with_cheap_branches(x):
    def fn(x):
        return rt.cond(x > 0, lambda: x * 2, lambda: -x + 1)

    assert_same_results(fn, [i32(x)])


@pytest.mark.parametrize("x", [-4, 3])
def test_cond_with_a_loop_in_a_branch(x):
    def fn(x):
        def loop():
            return rt.while_loop(lambda i, s: i < x, lambda i, s: (i + 1, s + i), (0, 0))[1]

        return rt.cond(x > 0, loop, lambda: x)

    assert_same_results(fn, [i32(x)])


@pytest.mark.parametrize("pred", [True, False])
def test_cond_on_a_known_predicate_runs_one_branch(pred):
    def fn(x):
        return rt.cond(rt.constant(pred), lambda: x + 1, lambda: x - 1)

    assert_same_results(fn, [i32(7)])


def test_cond_of_several_values_and_dtypes():
    def fn(x, y):
        return rt.cond(
            x > 0.0,
            lambda: (x * y, rt.cast(y, rt.int32), rt.constant(True)),
            lambda: (x - y, rt.constant(-1), x < y),
        )

    assert_same_results(fn, [np.float32(1.5), np.float32(4.0)])
    assert_same_results(fn, [np.float32(-1.5), np.float32(4.0)])


@pytest.mark.parametrize("n", [0, 1, 10])
def test_while_loop(n):
    def fn(n):
        return rt.while_loop(lambda i, acc: i < n, lambda i, acc: (i + 1, acc * 2 + i), (0, 1))

    assert_same_results(fn, [i32(n)])


def test_while_loop_over_vectors_with_a_float_test():
    def fn(x):
        return rt.while_loop(lambda v: rt.reduce_sum(v) < 100.0, lambda v: [v * 1.5 + 1.0], [x])

    assert_same_results(fn, [np.array([1.0, 2.0, 3.0], np.float32)])


@pytest.mark.parametrize("limit", [0, 3, 50])
def test_while_loop_with_maximum_iterations(limit):
    def fn(n):
        return rt.while_loop(lambda i: i < n, lambda i: i + 1, [0], maximum_iterations=limit)

    assert_same_results(fn, [i32(10)])


def test_nested_loops_with_a_cond_between():
    def fn(n):
        def outer(i, total):
            inner = rt.while_loop(
                lambda j, t: j < i, lambda j, t: (j + 1, t + i * j), (rt.constant(0), total)
            )[1]
            return i + 1, rt.cond(i % 3 == 0, lambda: total, lambda: inner)

        return rt.while_loop(lambda i, t: i < n, outer, (0, 0))

    assert_same_results(fn, [i32(9)])


@pytest.mark.parametrize("limit", [None, 2])
def test_loop_whose_test_prints_is_rotated_and_prints_as_the_default(limit):
    stream = io.StringIO()

    def fn(n):
        def test(i):
            rt.print("test", i, output_stream=stream)
            return i < n

        return rt.while_loop(test, lambda i: i + 1, [0], maximum_iterations=limit)

    graph = traced(fn, [i32(4)])
    expected = compile_function(graph)(i32(4))
    printed = stream.getvalue()
    stream.seek(0)
    stream.truncate()
    assert XlaProgram(graph)(i32(4)) == expected
    assert stream.getvalue() == printed
    assert printed.count("test") == (5 if limit is None else 2)


def test_loop_whose_test_may_fail_is_checked_each_time():
    def fn(n, d):
        return rt.while_loop(lambda i: i // d < n, lambda i: i + 1, [0])

    assert_same_results(fn, [i32(5), i32(2)])
    with pytest.raises(rt.errors.InvalidArgumentError, match="Integer division by zero"):
        run_both(fn, [i32(5), i32(0)])


def test_a_group_of_ops_runs():
    v = rt.Variable(0)

    def fn(x):
        with rt.control_dependencies([rt.group(v.assign_add(x), v.assign_add(1))]):
            return rt.identity(x)

    before = v.numpy()
    assert_same_results(fn, [i32(3)])
    assert v.numpy() == before + 8  # both executors ran it
