"""rt.py_function's gradient differentiates the run of its own op: each run of a graph, each
iteration of a loop, gets the gradient of what the function computed then (the run id)."""

from __future__ import annotations

import gc

import numpy as np

import autograph as ag
import runtime as rt
from runtime.gradients.py_function import ForwardRun


def _cube(t):
    return t * t * t


def test_two_runs_of_one_graph_under_a_tape_each_get_their_own_gradient():
    # d(a^3 + b^3) = (3a^2, 3b^2) = (3, 12) at a=1, b=2 (TensorFlow gives the same).
    cube = ag.function(lambda x: rt.py_function(_cube, [x], rt.float32))
    a, b = rt.constant(1.0), rt.constant(2.0)
    with rt.GradientTape() as tape:
        tape.watch(a)
        tape.watch(b)
        y = cube(a) + cube(b)
    grads = tape.gradient(y, [a, b])
    np.testing.assert_allclose([g.numpy() for g in grads], [3.0, 12.0], rtol=1e-6)


def test_a_persistent_tape_differentiates_each_run_twice_without_calling_again():
    calls = []

    def cube(t):
        calls.append(float(t.numpy()))
        return t * t * t

    f = ag.function(lambda x: rt.py_function(cube, [x], rt.float32))
    a, b = rt.constant(1.0), rt.constant(2.0)
    with rt.GradientTape(persistent=True) as tape:
        tape.watch(a)
        tape.watch(b)
        ya, yb = f(a), f(b)
    for _ in range(2):
        np.testing.assert_allclose(tape.gradient(ya, a).numpy(), 3.0, rtol=1e-6)
        np.testing.assert_allclose(tape.gradient(yb, b).numpy(), 12.0, rtol=1e-6)
    assert calls == [1.0, 2.0]


def test_each_iteration_of_a_loop_gets_the_gradient_of_its_run():
    # x -> x^2 three times: y = x^8, dy/dx = 8 x^7 = 1024 at x=2; the function runs 3 times.
    calls = []

    def square(t):
        calls.append(float(t.numpy()))
        return t * t

    @ag.function
    def power8(x):
        for _ in rt.range(3):
            x = rt.py_function(square, [x], rt.float32)
            x.set_shape([])
        return x

    x = rt.constant(2.0)
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = power8(x)
    np.testing.assert_allclose([y.numpy(), tape.gradient(y, x).numpy()], [256.0, 1024.0])
    assert calls == [2.0, 4.0, 16.0]


def test_a_loop_reshaping_its_result_is_differentiated():
    # The gradient of an input has the input's shape, which the backward loop carries.
    @ag.function
    def power4(x):
        for _ in rt.range(2):
            x = rt.reshape(rt.py_function(lambda t: t * t, [x], rt.float32), [2])
        return x

    x = rt.constant([1.5, 2.0])
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = power4(x)
    np.testing.assert_allclose(y.numpy(), x.numpy() ** 4, rtol=1e-6)
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), 4 * x.numpy() ** 3, rtol=1e-6)


def test_runs_are_dropped_once_nothing_can_differentiate_them():
    f = ag.function(lambda x: rt.py_function(_cube, [x], rt.float32))
    gc.collect()
    before = len(ForwardRun._kept)
    for value in range(5):
        x = rt.constant(float(value))
        with rt.GradientTape() as tape:
            tape.watch(x)
            y = f(x)
        np.testing.assert_allclose(tape.gradient(y, x).numpy(), 3.0 * value**2, rtol=1e-6)
    del tape, y
    gc.collect()
    assert len(ForwardRun._kept) == before


def test_py_function_as_a_decorator_as_the_function_guide_writes_it():
    @rt.py_function(Tout=rt.float32)
    def plus_one(x):
        return x.numpy() + 1.0

    @ag.function
    def traced(x):
        return plus_one(x) * 2.0

    assert float(plus_one(rt.constant(1.0))) == 2.0
    assert float(traced(rt.constant(2.0))) == 6.0


def test_py_function_given_func_and_tout_only_makes_the_function():
    total = rt.py_function(lambda a, b: a.numpy() + b.numpy(), Tout=rt.float32)
    assert float(total(1.0, 2.0)) == 3.0
