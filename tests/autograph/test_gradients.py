"""Gradients with ag.function: tapes inside traced functions (through converted if, while
and for), and tapes outside that see through calls of traced functions."""

from __future__ import annotations

import numpy as np
import pytest

import autograph as ag
import runtime as rt


def test_tape_inside_a_function_through_converted_control_flow():
    w = rt.Variable(2.0)

    @ag.function
    def f(x, n):
        with rt.GradientTape() as tape:
            tape.watch(x)
            y = x
            for _ in rt.range(n):
                if y > 100.0:
                    y = y * 0.5
                else:
                    y = y * w
            i = 0
            while i < 2:
                y = y + x
                i += 1
        return y, tape.gradient(y, [x, w])

    y, (dx, dw) = f(rt.constant(3.0), rt.constant(4))
    # y = 3 * 2^4 + 2x = 54; dy/dx = w^4 + 2 = 18; dy/dw = 4 x w^3 = 96
    assert (y.numpy(), dx.numpy(), dw.numpy()) == (54.0, 18.0, 96.0)
    y, (dx, dw) = f(rt.constant(30.0), rt.constant(4))  # 30 -> 60 -> 120 -> 60 -> 120, + 2x
    # y = x w w / 2 w + 2x: dy/dx = w^3 / 2 + 2 = 6; dy/dw = 3 x w^2 / 2 = 180
    assert (y.numpy(), dx.numpy(), dw.numpy()) == (180.0, 6.0, 180.0)
    assert f.tracing_count == 1


def test_the_gradient_is_part_of_the_function_graph():
    @ag.function(input_signature=[rt.TensorSpec([None], rt.float32)])
    def grad_of_sum_of_squares(x):
        with rt.GradientTape() as tape:
            tape.watch(x)
            y = rt.reduce_sum(x * x)
        return tape.gradient(y, x)

    concrete = grad_of_sum_of_squares.get_concrete_function()
    types = {op.type for op in concrete.graph.get_operations()}
    assert "Mul" in types and "BroadcastTo" in types
    np.testing.assert_array_equal(concrete(rt.constant([1.0, 2.0])).numpy(), [2.0, 4.0])


def test_a_training_step_updates_variables_without_retracing():
    w = rt.Variable([[0.0], [0.0]])
    b = rt.Variable([0.0])
    xs = rt.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    ys = rt.constant([[5.0], [11.0], [17.0]])  # y = x1 + 2 x2

    @ag.function
    def step(x, y):
        with rt.GradientTape() as tape:
            loss = rt.reduce_mean(rt.square(rt.matmul(x, w) + b - y))
        dw, db = tape.gradient(loss, [w, b])
        w.assign_sub(0.02 * dw)
        b.assign_sub(0.02 * db)
        return loss

    losses = [float(step(xs, ys)) for _ in range(500)]
    assert losses[-1] < 1e-3 < losses[0]
    assert step.tracing_count == 1


def test_eager_tape_sees_through_a_function_call():
    w = rt.Variable(3.0)

    @ag.function
    def f(x):
        y = x
        for _ in rt.range(3):
            y = y * x
        return y * w

    x = rt.constant(2.0)
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    dx, dw = tape.gradient(y, [x, w])
    assert (y.numpy(), dx.numpy(), dw.numpy()) == (48.0, 96.0, 16.0)


def test_only_variables_read_by_the_function_are_watched():
    w = rt.Variable(3.0)

    @ag.function
    def f(x):
        return x * w

    with rt.GradientTape() as tape:
        y = f(rt.constant(2.0))
    assert tape.gradient(y, w).numpy() == 2.0


def test_nested_tapes_through_a_function_give_higher_derivatives():
    @ag.function
    def f(x):
        y = x
        for _ in rt.range(3):
            y = rt.sin(y) * x
        return y

    def python(x):
        y = x
        for _ in range(3):
            y = rt.sin(y) * x
        return y

    def derivatives(fn):
        x = rt.constant(0.7, rt.float64)
        with rt.GradientTape() as t3:
            t3.watch(x)
            with rt.GradientTape() as t2:
                t2.watch(x)
                with rt.GradientTape() as t1:
                    t1.watch(x)
                    y = fn(x)
                d1 = t1.gradient(y, x)
            d2 = t2.gradient(d1, x)
        return [d1.numpy(), d2.numpy(), t3.gradient(d2, x).numpy()]

    np.testing.assert_allclose(derivatives(f), derivatives(python), rtol=1e-12)


def test_a_function_calling_a_function_under_a_tape():
    @ag.function
    def inner(x):
        return x * x

    @ag.function
    def outer(x):
        return inner(x) + inner(2.0 * x)

    x = rt.constant(1.5)
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = outer(x)
    assert tape.gradient(y, x).numpy() == pytest.approx(10 * 1.5)


def test_a_concrete_function_call_is_differentiable():
    @ag.function
    def f(x, scale=2.0):
        return {"out": x * x * scale}

    concrete = f.get_concrete_function(rt.TensorSpec([2], rt.float32))
    x = rt.constant([1.0, 3.0])
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = concrete(x)["out"]
    np.testing.assert_array_equal(tape.gradient(y, x).numpy(), [4.0, 12.0])


def test_gradients_with_functions_run_eagerly():
    @ag.function
    def f(x):
        return x * x * x

    ag.run_functions_eagerly(True)
    try:
        x = rt.constant(2.0)
        with rt.GradientTape() as tape:
            tape.watch(x)
            y = f(x)
        assert tape.gradient(y, x).numpy() == 12.0
    finally:
        ag.run_functions_eagerly(False)


def test_a_function_computing_gradients_is_saved_and_loaded(tmp_path):
    class Model(rt.Module):
        def __init__(self):
            super().__init__()
            self.w = rt.Variable(2.0)

        @ag.function(input_signature=[rt.TensorSpec([], rt.float32), rt.TensorSpec([], rt.int32)])
        def grad(self, x, n):
            with rt.GradientTape() as tape:
                tape.watch(x)
                y = x
                for _ in rt.range(n):
                    y = y * self.w if y < 50.0 else y + x
            return tape.gradient(y, [x, self.w])

    model = Model()
    expected = [g.numpy() for g in model.grad(rt.constant(3.0), rt.constant(5))]
    rt.saved_model.save(model, str(tmp_path / "m"))
    loaded = rt.saved_model.load(str(tmp_path / "m"))
    got = [g.numpy() for g in loaded.grad(rt.constant(3.0), rt.constant(5))]
    assert got == expected


def test_a_tape_inside_a_converted_loop_body_sees_the_variables_read_there():
    w = rt.Variable(5.0)

    @ag.function
    def descend(n):
        for _ in rt.range(n):
            with rt.GradientTape() as tape:
                loss = (w - 2.0) ** 2
            w.assign_sub(0.25 * tape.gradient(loss, w))
        return w.read_value()

    # w - 2 halves on each step: 3, 1.5, 0.75
    assert descend(rt.constant(3)).numpy() == 2.375


# --- TensorArrays that an `if` decides ----------------------------------------------------------


def arrays_of_two_sizes(x, flag):
    """The `if` gives an array of 2 or 3 elements: the tape must not assume either size."""
    with rt.GradientTape() as outer:
        outer.watch(x)
        with rt.GradientTape() as tape:
            tape.watch(x)
            if flag > 0:
                ta = rt.TensorArray(rt.float64, size=2).write(0, x * x).write(1, x * 3.0)
            else:
                ta = rt.TensorArray(rt.float64, size=3).write(0, x).write(1, x).write(2, x**3)
            y = rt.reduce_sum(ta.stack() ** 2) + ta.read(1)
        dx = tape.gradient(y, x)
    return y, dx, outer.gradient(dx, x)


def arrays_of_two_sizes_reference(x, flag):
    values = [x * x, 3 * x] if flag > 0 else [x, x, x**3]
    return sum(v * v for v in values) + values[1]


def arrays_made_in_a_loop_and_written_in_an_if(x):
    """A growable array made on each iteration, and written in one of two ways."""
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = rt.constant(0.0, rt.float64)
        for i in rt.range(3):
            ta = rt.TensorArray(rt.float64, size=0, dynamic_size=True)
            if i % 2 == 0:
                ta = ta.write(0, x * x).write(1, x)
            else:
                ta = ta.write(0, x * 3.0)
            y += rt.reduce_sum(ta.stack() ** 2)
    return y, tape.gradient(y, x)


def arrays_made_in_a_loop_reference(x):
    return sum(sum(v * v for v in ([x * x, x] if i % 2 == 0 else [3 * x])) for i in range(3))


def central_differences(f, x, eps=1e-4):
    """f's first and second derivatives at x."""
    return (f(x + eps) - f(x - eps)) / (2 * eps), (f(x + eps) - 2 * f(x) + f(x - eps)) / eps**2


def test_an_if_between_arrays_of_two_sizes_against_central_differences():
    f = ag.function(arrays_of_two_sizes)
    for flag in (1, 0, 1):  # one trace serves both sizes

        def reference(v, flag=flag):
            return arrays_of_two_sizes_reference(v, flag)

        y, dx, ddx = f(rt.constant(1.5, rt.float64), rt.constant(flag))
        first, second = central_differences(reference, 1.5)
        assert y.numpy() == pytest.approx(reference(1.5))
        assert dx.numpy() == pytest.approx(first, rel=1e-6)
        assert ddx.numpy() == pytest.approx(second, rel=1e-5)
    assert f.tracing_count == 1


def test_an_array_made_in_a_loop_and_written_in_an_if_against_central_differences():
    y, dx = ag.function(arrays_made_in_a_loop_and_written_in_an_if)(rt.constant(1.3, rt.float64))
    first, _ = central_differences(arrays_made_in_a_loop_reference, 1.3)
    assert y.numpy() == pytest.approx(arrays_made_in_a_loop_reference(1.3))
    assert dx.numpy() == pytest.approx(first, rel=1e-6)
