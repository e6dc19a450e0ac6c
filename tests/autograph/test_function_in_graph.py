"""An ``ag.function`` called while a TensorFlow 1 ``Graph`` is built, run with ``Session.run``.

As tf.function's call op does, the call brings its stateful ops along: fetching any of its
results runs the function's asserts, prints and assignments, in program order, even when
nothing the fetch computes reads them.
"""

import io

import numpy as np
import pytest

import autograph as ag
import runtime as rt


@ag.function
def inverse(x):
    assert x != 0
    return 1.0 / x


def run(build, feed=None):
    """Builds ``build()``'s fetches in a new Graph and runs them once in a Session."""
    graph = rt.Graph()
    with graph.as_default():
        fetches = build()
    with rt.Session(graph=graph) as sess:
        return sess.run(fetches, feed)


def test_a_python_assert_inside_runs_with_the_call():
    with pytest.raises(rt.errors.InvalidArgumentError, match="assert x != 0"):
        run(lambda: inverse(rt.constant(0.0)))
    np.testing.assert_allclose(run(lambda: inverse(rt.constant(4.0))), 0.25)


def test_an_rt_debugging_assert_inside_runs_with_the_call():
    @ag.function
    def checked_sqrt(x, size):
        rt.debugging.assert_equal(rt.size(x), size, message="wrong size")
        return rt.sqrt(x)

    with pytest.raises(rt.errors.InvalidArgumentError, match="wrong size"):
        run(lambda: checked_sqrt(rt.constant([4.0, 9.0]), 3))
    np.testing.assert_allclose(run(lambda: checked_sqrt(rt.constant([4.0, 9.0]), 2)), [2.0, 3.0])


def test_a_print_inside_prints_when_the_result_is_fetched():
    out = io.StringIO()

    @ag.function
    def double(x):
        rt.print("doubling", x, output_stream=out)
        return 2 * x

    assert run(lambda: double(rt.constant(3))) == 6
    assert out.getvalue() == "doubling 3\n"


def test_an_assert_in_a_nested_function_runs_with_the_outer_call():
    @ag.function
    def outer(x):
        unused = inverse(x)  # noqa: F841 (only its assert matters)
        return x + 1.0

    with pytest.raises(rt.errors.InvalidArgumentError, match="assert x != 0"):
        run(lambda: outer(rt.constant(0.0)))


def test_fetching_one_result_of_several_runs_the_effects():
    @ag.function
    def pair(x):
        assert x != 0
        return x, 1.0 / x

    with pytest.raises(rt.errors.InvalidArgumentError):
        run(lambda: pair(rt.constant(0.0))[0])


def test_assignments_run_in_program_order_on_every_run():
    counter = rt.Variable(0.0)

    @ag.function
    def bump(x):
        counter.assign_add(x)
        return counter.read_value()

    graph = rt.Graph()
    with graph.as_default():
        x = rt.placeholder(rt.float32, [])
        after = bump(x)
    with rt.Session(graph=graph) as sess:
        assert [sess.run(after, {x: step}) for step in (1.0, 2.0, 3.0)] == [1.0, 3.0, 6.0]


def test_a_function_returning_nothing_returns_an_op_that_runs_its_effects():
    out = io.StringIO()

    @ag.function
    def log(x):
        rt.print("value", x, output_stream=out)

    run(lambda: log(rt.constant(7)))
    assert out.getvalue() == "value 7\n"


def test_a_pure_function_adds_no_ops():
    @ag.function
    def add_one(x):
        return x + 1

    def op_types(build):
        graph = rt.Graph()
        with graph.as_default():
            build(rt.constant(1))
        return [op.type for op in graph.get_operations()]

    assert op_types(add_one) == op_types(lambda x: x + 1)
