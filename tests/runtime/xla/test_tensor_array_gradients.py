"""Gradients of TensorArray reads under ``jit_compile=True``: the same as the default executor's.

The gradient of one element read is a gradient list holding that element; under
XLA it is a dense array with room for every index the read can have: a loop's
counter below a known bound (nothing is observed), else the largest index seen
when the call was observed on the default executor (observed again when a later
call reads past it). Each case checks XLA against the default executor and
against central differences.
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
from tests.runtime.xla.xla_harness import agreeing_xla_results  # noqa: E402


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


def _read_at_the_counter(xs):
    with rt.GradientTape() as tape:
        tape.watch(xs)
        inputs = rt.TensorArray(rt.float64, size=3).unstack(xs)
        h = rt.constant(0.0, rt.float64)
        for t in rt.range(3):
            h = 0.5 * h + inputs.read(t) * rt.sin(inputs.read(t))
    return h, tape.gradient(h, xs)


def test_a_read_at_a_loop_counter_needs_no_observation(observations):
    def value(xs):
        h = 0.0
        for x in xs:
            h = 0.5 * h + x * np.sin(x)
        return h

    xs = np.array([1.0, 2.0, -0.5])
    _, grad = agreeing_xla_results(_read_at_the_counter, xs)
    np.testing.assert_allclose(grad, central_difference(value, xs), rtol=1e-6, atol=1e-8)
    assert observations == []  # the counter's bound gives the gradient list its size


def _read_backwards(xs, n):
    with rt.GradientTape() as tape:
        tape.watch(xs)
        inputs = rt.TensorArray(rt.float64, size=4).unstack(xs)
        h = rt.constant(1.0, rt.float64)
        t = 0
        while t < n:
            ag.experimental.set_loop_options(maximum_iterations=4)
            h = rt.sin(h) * inputs.read(n - 1 - t)
            t += 1
    return h, tape.gradient(h, xs)


def test_a_read_at_a_computed_index_is_observed_and_observed_again_past_it(observations):
    def value(xs, n):
        h = 1.0
        for t in range(n):
            h = np.sin(h) * xs[n - 1 - t]
        return h

    xs = np.array([0.9, 2.0, -1.5, 0.5])
    default = ag.function(_read_backwards)
    jitted = ag.function(_read_backwards, jit_compile=True)
    for n in (2, 3, 4, 3):  # 3 and 4 read past the indices observed before
        args = [rt.constant(xs), rt.constant(np.int32(n))]
        _, grad = (t.numpy() for t in jitted(*args))
        np.testing.assert_allclose(grad, default(*args)[1].numpy(), rtol=1e-9, atol=1e-12)
        numeric = central_difference(lambda v, n=n: value(v, n), xs)
        np.testing.assert_allclose(grad, numeric, rtol=1e-6, atol=1e-8)
    assert len(observations) == 3  # n = 2, 3, 4; the second 3 fits what 4 observed


def _written_then_read_in_branches(x, w):
    with rt.GradientTape() as tape:
        tape.watch([x, w])
        states = rt.TensorArray(rt.float64, size=4)
        h = x
        for t in rt.range(4):
            h = rt.tanh(h * w)
            states = states.write(t, h)
        total = rt.constant(0.0, rt.float64)
        for t in rt.range(4):
            if t % 2 == 0:
                total += states.read(t) * states.read(t)
            else:
                total += 2.0 * states.read(t)
    return total, tape.gradient(total, [x, w])


def test_reads_in_the_branches_of_a_loop_over_values_another_loop_wrote():
    def value(x, w):
        h, total = x, 0.0
        for t in range(4):
            h = np.tanh(h * w)
            total += h * h if t % 2 == 0 else 2.0 * h
        return total

    x, w = np.float64(0.3), np.float64(1.5)
    _, grad_x, grad_w = agreeing_xla_results(_written_then_read_in_branches, x, w)
    np.testing.assert_allclose(grad_x, central_difference(lambda v: value(v, w), x), rtol=1e-6)
    np.testing.assert_allclose(grad_w, central_difference(lambda v: value(x, v), w), rtol=1e-6)


def _one_element_read_repeatedly(xs, k):
    with rt.GradientTape() as tape:
        tape.watch(xs)
        elements = rt.TensorArray(rt.float64, size=5).unstack(xs)
        y = rt.constant(0.0, rt.float64)
        i = 0
        while i < 3:
            y = y + elements.read(k) ** 2 * rt.cast(i + 1, rt.float64)
            i += 1
    return y, tape.gradient(y, xs)


@pytest.mark.parametrize("k", [0, 4])
def test_one_element_read_in_a_while_loop(k):
    xs = np.array([0.5, -1.0, 2.0, 0.25, 3.0])
    _, grad = agreeing_xla_results(_one_element_read_repeatedly, xs, np.int32(k))
    numeric = central_difference(lambda v: 6.0 * v[k] ** 2, xs)
    np.testing.assert_allclose(grad, numeric, rtol=1e-6, atol=1e-8)


def test_the_gradient_for_a_variable_through_written_and_read_elements():
    weights = rt.Variable(np.array([0.5, -0.3]))

    def loss(xs):
        with rt.GradientTape() as tape:
            products = rt.TensorArray(rt.float64, size=3)
            for t in rt.range(3):
                products = products.write(t, weights * xs[t])
            y = rt.constant(0.0, rt.float64)
            for t in rt.range(3):
                y = y + rt.reduce_sum(rt.sin(products.read(t)))
        return y, tape.gradient(y, weights)

    xs = np.array([[1.0, 2.0], [0.3, 0.1], [2.0, -1.0]])
    _, grad = agreeing_xla_results(loss, xs)
    numeric = central_difference(lambda v: np.sum(np.sin(v * xs)), weights.numpy())
    np.testing.assert_allclose(grad, numeric, rtol=1e-6, atol=1e-8)
