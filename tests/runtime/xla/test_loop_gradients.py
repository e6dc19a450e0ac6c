"""Gradients of loops under ``jit_compile=True``: the same as the default executor's.

A differentiated loop stacks each iteration's values; under XLA the stacks are
arrays preallocated for the loop's bound (``maximum_iterations``, a ``for``
over a range of known length, a TensorArray of known size; integer arguments
it is computed from are compiled in, for each value). Each case checks
XLA against the default executor and against central differences; a loop with
no bound known when compiling raises UnimplementedError naming its line.
"""

from __future__ import annotations

import numpy as np
import pytest

import autograph as ag
import runtime as rt
from tests.extras import import_extra

jax = import_extra("jax")

from tests.runtime.gradients.grad_harness import central_difference  # noqa: E402
from tests.runtime.xla.xla_harness import agreeing_xla_results  # noqa: E402


def _assert_gradient(fn, args, position, value_of):
    """XLA equals the default executor, and the gradient output equals central differences."""
    xla = agreeing_xla_results(fn, *args)

    def value(v):
        changed = list(args)
        changed[position] = v
        return value_of(*changed)

    numeric = central_difference(value, args[position])
    np.testing.assert_allclose(xla[1], numeric, rtol=1e-5, atol=1e-7)


def _while_with_maximum_iterations(x, n):
    with rt.GradientTape() as tape:
        tape.watch(x)
        _, y = rt.while_loop(
            lambda i, v: i < n,
            lambda i, v: (i + 1, rt.sin(v) * x),
            (0, x),
            maximum_iterations=6,
        )
    return y, tape.gradient(y, x)


@pytest.mark.parametrize("n", [0, 3, 6, 9])  # 9: stopped by maximum_iterations
def test_a_while_with_maximum_iterations(n):
    def value(x, n):
        v = x
        for _ in range(min(n, 6)):
            v = np.sin(v) * x
        return v

    _assert_gradient(_while_with_maximum_iterations, [np.float64(0.7), np.int32(n)], 0, value)


def _converted_while_with_loop_options(x, n):
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = x
        while n > 0:
            ag.experimental.set_loop_options(maximum_iterations=8)
            y = y * rt.cos(x) + x
            n -= 1
    return y, tape.gradient(y, x)


def test_a_converted_while_with_set_loop_options():
    def value(x, n):
        y = x
        for _ in range(n):
            y = y * np.cos(x) + x
        return y

    _assert_gradient(_converted_while_with_loop_options, [np.float64(0.3), np.int32(5)], 0, value)


def _for_over_a_range(x):
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = rt.reduce_sum(x)
        for i in rt.range(5):
            y = y * rt.tanh(x[i % 2]) + rt.cast(i, rt.float64)
    return y, tape.gradient(y, x)


def test_a_for_over_a_range_of_static_length():
    def value(x):
        y = np.sum(x)
        for i in range(5):
            y = y * np.tanh(x[i % 2]) + i
        return y

    _assert_gradient(_for_over_a_range, [np.array([0.4, -0.9])], 0, value)


def _nested_loops(x):
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = x
        for _ in rt.range(3):
            for _ in rt.range(2):  # its stacks are stacked by the outer loop
                y = rt.sin(y) * x
            y = y + 0.5 * x
    return y, tape.gradient(y, x)


def test_nested_loops():
    def value(x):
        y = x
        for _ in range(3):
            for _ in range(2):
                y = np.sin(y) * x
            y = y + 0.5 * x
        return y

    _assert_gradient(_nested_loops, [np.float64(0.8)], 0, value)


def _loop_in_one_branch(x, even):
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = x
        for i in rt.range(4):
            if (i % 2 == 0) == even:  # this branch's loop stacks values; the other has none
                for _ in rt.range(2):
                    y = rt.sin(y) * x
            else:
                y = y * y + x
    return y, tape.gradient(y, x)


@pytest.mark.parametrize("even", [True, False])
def test_a_loop_in_one_branch_of_a_cond_in_a_loop(even):
    def value(x, even):
        y = x
        for i in range(4):
            if (i % 2 == 0) == even:
                for _ in range(2):
                    y = np.sin(y) * x
            else:
                y = y * y + x
        return y

    _assert_gradient(_loop_in_one_branch, [np.float64(0.7), even], 0, value)


def _inner_loop_bounded_by_an_argument(x, n):
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = x
        for _ in rt.range(3):
            ag.experimental.set_loop_options(maximum_iterations=3)
            for _ in rt.range(n):  # n: an argument, compiled in for each value
                ag.experimental.set_loop_options(maximum_iterations=n)
                y = rt.sin(y) * x
    return y, tape.gradient(y, x)


def _inner_range_of_a_computed_length(x, n):
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = x
        for _ in rt.range(2):
            for _ in rt.range(n * 2 - 1):  # computed from n: n is compiled in
                y = y * rt.cos(y) + x
    return y, tape.gradient(y, x)


def _inner_while_bounded_by_maximum_iterations(x, n):
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = x
        for _ in rt.range(2):
            while y < 100.0:  # no counter: maximum_iterations is its only bound
                ag.experimental.set_loop_options(maximum_iterations=n)
                y = y * x + 1.0
    return y, tape.gradient(y, x)


def _sin_power(x, n):
    y = x
    for _ in range(3 * n):
        y = np.sin(y) * x
    return y


def _cos_steps(x, n):
    y = x
    for _ in range(2 * (2 * n - 1)):
        y = y * np.cos(y) + x
    return y


def _grow(x, n):
    y = x
    for _ in range(2):
        for _ in range(n):
            if y >= 100.0:
                break
            y = y * x + 1.0
    return y


@pytest.mark.parametrize(
    "fn, value",
    [
        (_inner_loop_bounded_by_an_argument, _sin_power),
        (_inner_range_of_a_computed_length, _cos_steps),
        (_inner_while_bounded_by_maximum_iterations, _grow),
    ],
)
def test_an_inner_loop_bounded_by_an_argument_compiles_for_each_value(fn, value):
    default, jitted = ag.function(fn), ag.function(fn, jit_compile=True)
    x = np.float64(1.3)
    for n in [2, 3, 1, 2, 4]:  # one compiled function: a program for each value, kept
        args = [rt.constant(x), rt.constant(np.int32(n))]
        expected = [t.numpy() for t in default(*args)]
        got = [t.numpy() for t in jitted(*args)]
        np.testing.assert_allclose(got, expected, rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose(got[0], value(x, n), rtol=1e-12)
        numeric = central_difference(lambda v, n=n: value(v, n), x)
        np.testing.assert_allclose(got[1], numeric, rtol=1e-5, atol=1e-7)


def test_an_argument_bounding_a_loop_is_compiled_in_beside_an_observed_size():
    def fn(x, n):
        padding = rt.zeros(rt.stack([n * 2]), rt.float64)  # a size observed on the first call
        with rt.GradientTape() as tape:
            tape.watch(x)
            y = x
            for _ in rt.range(n):
                y = rt.sin(y) * x
        return y + rt.reduce_sum(padding), tape.gradient(y, x)

    def value(x, n):
        y = x
        for _ in range(n):
            y = np.sin(y) * x
        return y

    default, jitted = ag.function(fn), ag.function(fn, jit_compile=True)
    for n in [2, 3, 2]:
        args = [rt.constant(np.float64(0.9)), rt.constant(np.int32(n))]
        expected = [t.numpy() for t in default(*args)]
        got = [t.numpy() for t in jitted(*args)]
        np.testing.assert_allclose(got, expected, rtol=1e-9, atol=1e-12)
        numeric = central_difference(lambda v, n=n: value(v, n), 0.9)
        np.testing.assert_allclose(got[1], numeric, rtol=1e-5, atol=1e-7)


def _rnn(xs, w, u):
    steps = xs.shape[0]
    with rt.GradientTape() as tape:
        tape.watch([w, u])
        h = rt.zeros([2], rt.float64)
        outputs = rt.TensorArray(rt.float64, size=steps)
        for t in rt.range(steps):
            h = rt.tanh(rt.reduce_sum(w * xs[t], axis=1) + rt.reduce_sum(u * h, axis=1))
            outputs = outputs.write(t, h)
        loss = rt.reduce_sum(rt.square(outputs.stack()))
    grad_w, grad_u = tape.gradient(loss, [w, u])
    return loss, grad_w, grad_u


def _rnn_value(xs, w, u):
    h, loss = np.zeros(2), 0.0
    for x in xs:
        h = np.tanh(w @ x + u @ h)
        loss += np.sum(h**2)
    return loss


def test_an_rnn_over_a_tensor_array():
    rng = np.random.default_rng(1)
    xs, w, u = rng.standard_normal((4, 3)), rng.standard_normal((2, 3)), rng.standard_normal((2, 2))
    xla = agreeing_xla_results(_rnn, xs, w, u)
    numeric_w = central_difference(lambda v: _rnn_value(xs, v, u), w)
    numeric_u = central_difference(lambda v: _rnn_value(xs, w, v), u)
    np.testing.assert_allclose(xla[1], numeric_w, rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(xla[2], numeric_u, rtol=1e-5, atol=1e-7)


def _recurrent_training_step(w, u):
    def step(x, target):
        with rt.GradientTape() as tape:
            h = rt.zeros([5, 4])
            for _ in rt.range(3):
                h = rt.tanh(rt.matmul(x, w) + rt.matmul(h, u))
            loss = rt.reduce_mean(rt.square(h - target))
        grad_w, grad_u = tape.gradient(loss, [w, u])
        w.assign_sub(0.2 * grad_w)
        u.assign_sub(0.2 * grad_u)
        return loss

    return step


def test_a_training_step_with_a_loop_updates_variables_as_on_the_default_executor():
    rng = np.random.default_rng(2)
    x = rng.standard_normal((5, 3)).astype(np.float32)
    target = rng.standard_normal((5, 4)).astype(np.float32)
    w0 = (0.5 * rng.standard_normal((3, 4))).astype(np.float32)
    u0 = (0.5 * rng.standard_normal((4, 4))).astype(np.float32)
    runs = {}
    for jit in (False, True):
        w, u = rt.Variable(w0), rt.Variable(u0)
        step = ag.function(_recurrent_training_step(w, u), jit_compile=jit)
        losses = [float(step(rt.constant(x), rt.constant(target))) for _ in range(3)]
        runs[jit] = losses, w.numpy(), u.numpy()
    np.testing.assert_allclose(runs[True][0], runs[False][0], rtol=1e-5)
    assert runs[True][0][-1] < runs[True][0][0]  # it learns
    for jitted, default in zip(runs[True][1:], runs[False][1:]):
        np.testing.assert_allclose(jitted, default, rtol=1e-5, atol=1e-6)


def test_the_gradient_of_a_loop_with_no_bound_is_unimplemented_naming_the_line():
    @ag.function(jit_compile=True)
    def unbounded(x, n):
        with rt.GradientTape() as tape:
            tape.watch(x)
            y = x
            while n > 0:  # no maximum_iterations: no size for its stacks
                y = y * x
                n -= 1
        return tape.gradient(y, x)

    default = ag.function(unbounded.python_function)
    assert float(default(rt.constant(2.0), rt.constant(3))) == 32.0  # 4 x ** 3
    with pytest.raises(rt.errors.UnimplementedError, match="maximum_iterations") as info:
        unbounded(rt.constant(2.0), rt.constant(3))
    message = str(info.value)
    assert "While has no XLA form" in message and "no bound known when compiling" in message
    assert "test_loop_gradients.py" in message and "in unbounded" in message


def test_a_bound_computed_from_a_tensors_values_is_unimplemented_saying_what_works():
    @ag.function(jit_compile=True)
    def summed_bound(x, ns):
        with rt.GradientTape() as tape:
            tape.watch(x)
            y = x
            for _ in rt.range(2):
                for _ in rt.range(rt.reduce_sum(ns)):  # a vector's values: not compiled in
                    y = y * x
        return tape.gradient(y, x)

    with pytest.raises(rt.errors.UnimplementedError, match="no bound known") as info:
        summed_bound(rt.constant(2.0), rt.constant([1, 2]))
    message = str(info.value)
    assert "computed from integer arguments" in message and "in summed_bound" in message
