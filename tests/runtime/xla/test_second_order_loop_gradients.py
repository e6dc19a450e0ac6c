"""Second and third derivatives through loops under ``jit_compile=True``.

Differentiating a loop's gradient differentiates the backward loop, which then
stacks values too and needs a bound: the forward loop's count of iterations,
whose bound is the forward loop's. Each case checks XLA against the default
executor and against hand-computed derivatives or central differences.
"""

from __future__ import annotations

import numpy as np
import pytest

import autograph as ag
import runtime as rt
from tests.extras import import_extra

jax = import_extra("jax")

import runtime.xla.program as xla_program  # noqa: E402
from tests.runtime.gradients.grad_harness import central_difference  # noqa: E402
from tests.runtime.xla.xla_harness import agreeing_xla_results, results_both_ways  # noqa: E402


def _derivatives(fn, x, order):
    """[fn(x), d fn, d (sum d fn), ...] up to ``order``, each from a tape around the last."""
    tapes = [rt.GradientTape() for _ in range(order)]
    for tape in tapes:
        tape.__enter__()
        tape.watch(x)
    values = [fn(x)]
    for tape in reversed(tapes):
        values.append(tape.gradient(rt.reduce_sum(values[-1]), x))
        tape.__exit__(None, None, None)
    return values


def _second_derivative_numerically(first, x, eps=1e-5):
    """Central differences of ``sum(first(x))``, ``first`` a numpy function."""
    return central_difference(lambda v: np.sum(first(v)), x, eps)


def test_the_reported_tensor_array_loop():
    def second(xs):
        with rt.GradientTape() as outer:
            outer.watch(xs)
            with rt.GradientTape() as inner:
                inner.watch(xs)
                ta = rt.TensorArray(rt.float32, size=3).unstack(xs)
                y = 0.0
                for t in rt.range(3):
                    y += ta.read(t) ** 3
            g = inner.gradient(y, xs)
            total = rt.reduce_sum(g)
        return g, outer.gradient(total, xs)

    xs = np.array([1.0, 2.0, 3.0], np.float32)
    default, xla = results_both_ways(second, xs)
    np.testing.assert_allclose(xla[0], 3 * xs**2)
    np.testing.assert_allclose(xla[1], 6 * xs)
    np.testing.assert_allclose(default[1], 6 * xs)


def test_third_derivative_of_a_power_loop():
    def power_four(x):
        y = x
        for _ in rt.range(3):
            y = y * x
        return y

    x = 1.5
    values = agreeing_xla_results(lambda x: _derivatives(power_four, x, 3), np.float64(x))
    np.testing.assert_allclose(values, [x**4, 4 * x**3, 12 * x**2, 24 * x])


@pytest.mark.parametrize(("start", "stop", "step"), [(0, 0, 1), (3, 1, 1), (-2, 0, -1)])
def test_a_loop_whose_constant_range_is_empty(start, stop, step):
    # Its counter starts past its bound: the loop's bound is known (no iteration), and its
    # derivatives are those of what is around it.
    def square_then_loop(x):
        y = x * x
        for _ in rt.range(start, stop, step):
            y = y * x
        return y

    x = 1.5
    values = agreeing_xla_results(lambda x: _derivatives(square_then_loop, x, 3), np.float64(x))
    np.testing.assert_allclose(values, [x**2, 2 * x, 2.0, 0.0])


@pytest.mark.parametrize("n", [0, 2, 5, 9])  # 9: stopped by maximum_iterations
def test_a_loop_bounded_by_maximum_iterations_with_a_count_given_at_run_time(n):
    def power(x, n):
        y = rt.constant(1.0, rt.float64)
        for _ in rt.range(n):
            ag.experimental.set_loop_options(maximum_iterations=6)
            y = y * rt.sin(x)
        return y

    x = 0.7
    values = agreeing_xla_results(
        lambda x, n: _derivatives(lambda v: power(v, n), x, 2), np.float64(x), n
    )
    k = min(n, 6)

    def first(v):
        return k * np.sin(v) ** (k - 1) * np.cos(v) if k else np.zeros_like(v)

    np.testing.assert_allclose(values[0], np.sin(x) ** k)
    np.testing.assert_allclose(values[1], first(np.float64(x)))
    np.testing.assert_allclose(values[2], _second_derivative_numerically(first, x), rtol=1e-6)


@pytest.fixture
def observations(monkeypatch):
    """How many times compiled programs ran a call on the default executor to observe it."""
    seen = []
    observe = xla_program.observe

    def counting(*args, **kwargs):
        seen.append(args)
        return observe(*args, **kwargs)

    monkeypatch.setattr(xla_program, "observe", counting)
    return seen


def test_one_compiled_function_serves_every_count_without_observing(observations):
    """A backward loop's index counts down from the forward count less one, whose range is
    known: the gradient lists indexed by it are sized when compiling, for every count."""

    def power(x, n):
        y = rt.constant(1.0, rt.float64)
        for _ in rt.range(n):
            ag.experimental.set_loop_options(maximum_iterations=6)
            y = y * rt.sin(x)
        return y

    def derivatives(x, n):
        return _derivatives(lambda v: power(v, n), x, 2)

    jitted, default = ag.function(derivatives, jit_compile=True), ag.function(derivatives)
    x = rt.constant(0.7, rt.float64)
    for n in [2, 5, 0, 9, 3]:
        expected = [t.numpy() for t in default(x, rt.constant(n))]
        np.testing.assert_allclose([t.numpy() for t in jitted(x, rt.constant(n))], expected)
        k = min(n, 6)
        np.testing.assert_allclose(expected[0], np.sin(0.7) ** k)
    assert observations == []


def test_a_cond_inside_the_loop():
    def branching(x):
        y = x
        for i in rt.range(4):
            if i % 2 == 0:
                y = y * x
            else:
                y = rt.sin(y)
        return y

    def first(x):  # d/dx of x -> x*x -> sin -> *x -> sin, by the chain rule
        a = x * x
        b = np.sin(a)
        c = b * x
        return np.cos(c) * (np.cos(a) * 2 * x * x + b)

    x = np.array([0.3, 0.9])
    values = agreeing_xla_results(lambda x: _derivatives(branching, x, 2), x)
    np.testing.assert_allclose(values[1], first(x))
    np.testing.assert_allclose(values[2], _second_derivative_numerically(first, x), rtol=1e-6)


@pytest.mark.parametrize("even", [True, False])
def test_a_loop_in_one_branch_of_a_cond_in_a_loop(even):
    def loop_in_a_branch(x):
        y = x
        for i in rt.range(4):
            if (i % 2 == 0) == even:  # the inner loop's count leaves the cond, bounded
                for _ in rt.range(2):
                    y = rt.sin(y) * x
            else:
                y = y * y + x
        return y

    def value(x):
        y = x
        for i in range(4):
            if (i % 2 == 0) == even:
                for _ in range(2):
                    y = np.sin(y) * x
            else:
                y = y * y + x
        return y

    def first(x):
        return central_difference(value, x, 1e-6)

    x = np.float64(0.7)
    values = agreeing_xla_results(lambda x: _derivatives(loop_in_a_branch, x, 2), x)
    np.testing.assert_allclose(values[0], value(x), rtol=1e-12)
    np.testing.assert_allclose(values[1], first(x), rtol=1e-6)
    np.testing.assert_allclose(values[2], _second_derivative_numerically(first, x, 1e-4), rtol=1e-4)


def test_nested_loops_to_the_third_order():
    def nested(x):
        y = x
        for _ in rt.range(2):
            for _ in rt.range(3):  # its stacks, and its backward loop's, are stacked outside
                y = y * x
        return y  # x ** 7

    x = 1.2
    values = agreeing_xla_results(lambda x: _derivatives(nested, x, 3), np.float64(x))
    np.testing.assert_allclose(values, [x**7, 7 * x**6, 42 * x**5, 210 * x**4])


def test_nonlinear_nested_loops_with_a_count_given_at_run_time():
    def nested(x, n):
        y = x
        for i in rt.range(n):
            ag.experimental.set_loop_options(maximum_iterations=4)
            for _ in rt.range(2):
                y = rt.sin(y) * x + rt.cast(i, rt.float64)
        return y

    def first(x, n=3, eps=1e-6):  # the first derivative, by central differences in numpy
        def value(v):
            y = v
            for i in range(n):
                for _ in range(2):
                    y = np.sin(y) * v + i
            return y

        return (value(x + eps) - value(x - eps)) / (2 * eps)

    x = np.array([0.4, 0.9])
    values = agreeing_xla_results(
        lambda x, n: _derivatives(lambda v: nested(v, n), x, 2), x, np.int32(3)
    )
    np.testing.assert_allclose(values[1], first(x), rtol=1e-6)
    np.testing.assert_allclose(
        values[2], _second_derivative_numerically(first, x, eps=1e-4), rtol=1e-4
    )


def test_a_tensor_array_written_then_stacked():
    def cubes(xs):
        elements = rt.TensorArray(rt.float64, size=3).unstack(xs)
        out = rt.TensorArray(rt.float64, size=3)
        for t in rt.range(3):
            out = out.write(t, elements.read(t) ** 3)
        return out.stack() * rt.constant([1.0, 2.0, 3.0], rt.float64)

    xs = np.array([1.0, 2.0, 3.0])
    values = agreeing_xla_results(lambda x: _derivatives(cubes, x, 3), xs)
    weights = np.array([1.0, 2.0, 3.0])
    np.testing.assert_allclose(values[1:], [3 * weights * xs**2, 6 * weights * xs, 6 * weights])


def test_an_unbounded_loop_still_names_what_to_add():
    def unbounded(x, n):
        y = x
        while n > 0:
            y = y * x
            n -= 1
        return y

    fn = ag.function(lambda x, n: _derivatives(lambda v: unbounded(v, n), x, 2), jit_compile=True)
    with pytest.raises(rt.errors.UnimplementedError, match="maximum_iterations"):
        fn(rt.constant(2.0), rt.constant(3))
