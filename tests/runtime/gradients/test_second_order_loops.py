"""Second and third derivatives through loops: nested tapes, eagerly and in ``ag.function``.

Eagerly a ``for`` over ``rt.range`` is a Python loop (the tape records every
iteration); in ``ag.function`` it is a While op, whose gradient is a backward
While reading what the forward loop stacked, and whose gradient in turn
differentiates that backward loop. Each case is checked against hand-computed
derivatives and against central differences of the first derivative.
"""

from __future__ import annotations

import numpy as np
import pytest

import autograph as ag
import runtime as rt
from tests.runtime.gradients.grad_harness import central_difference


def _read_cubes(xs):
    """sum(xs ** 3), reading each element from a TensorArray in a loop."""
    elements = rt.TensorArray(rt.float64, size=3).unstack(xs)
    y = rt.constant(0.0, rt.float64)
    for t in rt.range(3):
        y += elements.read(t) ** 3
    return y


def _power_four(x):
    """x ** 4 by repeated multiplication."""
    y = x
    for _ in rt.range(3):
        y = y * x
    return y


def _branching(x):
    """A cond inside the loop: multiply on even iterations, take the sine on odd ones."""
    y = x
    for i in rt.range(4):
        if i % 2 == 0:
            y = y * x
        else:
            y = rt.sin(y)
    return rt.reduce_sum(y)


def _written_then_stacked(xs):
    """Cubes written into a TensorArray in a loop, stacked, weighted and summed."""
    elements = rt.TensorArray(rt.float64, size=3).unstack(xs)
    cubes = rt.TensorArray(rt.float64, size=3)
    for t in rt.range(3):
        cubes = cubes.write(t, elements.read(t) ** 3)
    return rt.reduce_sum(cubes.stack() * rt.constant([1.0, 2.0, 3.0], rt.float64))


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


def _both_ways(fn, x, order):
    """Eager and ``ag.function`` derivatives of ``fn`` at ``x``, as numpy (None kept)."""
    x = rt.constant(x, rt.float64)
    eager = _derivatives(fn, x, order)
    staged = ag.function(lambda x: _derivatives(fn, x, order))(x)
    return [[None if v is None else v.numpy() for v in vs] for vs in (eager, staged)]


def _numeric_second(fn, x):
    """Central differences of the sum of the first derivative (computed eagerly)."""

    def first(value):
        return float(np.sum(_derivatives(fn, rt.constant(value, rt.float64), 1)[1].numpy()))

    return central_difference(first, x)


XS = [1.0, 2.0, 3.0]


def test_tensor_array_read_in_a_loop_second_derivative():
    for way in _both_ways(_read_cubes, XS, 2):
        _, first, second = way
        np.testing.assert_allclose(first, 3 * np.square(XS))
        assert second is not None  # was None in ag.function: the backward loop went unrecorded
        np.testing.assert_allclose(second, 6 * np.array(XS))
    np.testing.assert_allclose(
        _both_ways(_read_cubes, XS, 2)[1][2], _numeric_second(_read_cubes, XS), rtol=1e-6
    )


def test_tensor_array_read_in_a_loop_third_derivative():
    for way in _both_ways(_read_cubes, XS, 3):
        np.testing.assert_allclose(way[3], [6.0, 6.0, 6.0])


def test_float32_tensor_array_read_as_in_the_report():
    """The report's exact case: float32, the sum taken under the outer tape."""

    def second(xs):
        with rt.GradientTape() as outer:
            outer.watch(xs)
            with rt.GradientTape() as inner:
                inner.watch(xs)
                ta = rt.TensorArray(rt.float32, size=3).unstack(xs)
                y = 0.0
                for t in rt.range(3):
                    y += ta.read(t) ** 3
            total = rt.reduce_sum(inner.gradient(y, xs))
        return outer.gradient(total, xs)

    xs = rt.constant(XS)
    for result in (second(xs), ag.function(second)(xs)):
        np.testing.assert_allclose(result.numpy(), 6 * np.array(XS, np.float32))


@pytest.mark.parametrize("x", [0.5, 2.0])
def test_while_loop_without_tensor_arrays(x):
    for way in _both_ways(_power_four, x, 3):
        np.testing.assert_allclose(way, [x**4, 4 * x**3, 12 * x**2, 24 * x])


def _exp_loop(x):
    """exp(exp(exp(x))): the backward loop reads only what the forward loop stacked."""
    y = x
    for _ in rt.range(3):
        y = rt.exp(y)
    return y


def test_a_loop_whose_gradient_reads_only_its_stacks():
    x = 0.1
    for way in _both_ways(_exp_loop, x, 2):
        a = np.exp(x)
        b = np.exp(a)
        c = np.exp(b)
        np.testing.assert_allclose(way[:2], [c, c * b * a])
    eager, staged = _both_ways(_exp_loop, x, 2)
    np.testing.assert_allclose(staged[2], eager[2], rtol=1e-12)
    np.testing.assert_allclose(staged[2], _numeric_second(_exp_loop, x), rtol=1e-6)


def _exp_or_tanh(x):
    """A cond whose gradient reads only values the forward If exposes for it."""
    return rt.cond(x > 0, lambda: rt.exp(x) * 2.0, lambda: rt.tanh(x) * 3.0)


@pytest.mark.parametrize("x", [-0.5, 0.5])
def test_a_cond_whose_gradient_reads_only_its_exposed_values(x):
    t = np.tanh(x)
    expected = [2 * np.exp(x)] * 3 if x > 0 else [3 * t, 3 * (1 - t * t), -6 * t * (1 - t * t)]
    for way in _both_ways(_exp_or_tanh, x, 2):
        np.testing.assert_allclose(way, expected)


def test_cond_inside_the_loop():
    x = [0.3, 0.7]
    eager, staged = _both_ways(_branching, x, 2)
    for a, b in zip(eager, staged):
        np.testing.assert_allclose(b, a, rtol=1e-12)
    np.testing.assert_allclose(staged[2], _numeric_second(_branching, x), rtol=1e-6)


def test_tensor_array_written_then_stacked():
    for way in _both_ways(_written_then_stacked, XS, 3):
        weights = np.array([1.0, 2.0, 3.0])
        xs = np.array(XS)
        np.testing.assert_allclose(way[1:], [3 * weights * xs**2, 6 * weights * xs, 6 * weights])


def test_second_derivative_in_a_graph_with_rt_gradients():
    """rt.gradients differentiates the whole graph: the backward loop's list gradient included."""
    g = rt.Graph()
    with g.as_default():
        xs = rt.placeholder(rt.float64, [3])
        (first,) = rt.gradients(_read_cubes(xs), [xs])
        (second,) = rt.gradients(rt.reduce_sum(first), [xs])
    np.testing.assert_allclose(rt.Session(g).run(second, {xs: XS}), 6 * np.array(XS))


def _nested_power(x):
    """x ** 7 in nested loops: the outer loop stacks the inner loop's stacks."""
    y = x
    for _ in rt.range(2):
        for _ in rt.range(3):
            y = y * x
    return y


def test_nested_loops_to_the_third_order():
    """The third derivative adds up gradient lists of gradient lists (the inner loop's
    stacks, stacked by the outer loop)."""
    x = 1.2
    for way in _both_ways(_nested_power, x, 3):
        np.testing.assert_allclose(way, [x**7, 7 * x**6, 42 * x**5, 210 * x**4])
