"""Gradients through graph control flow (If and While ops), against analytic values.

Each function is differentiated in a TensorFlow 1 graph (``rt.gradients``), with
inputs fed at run time so one graph serves every iteration count, and eagerly
(where cond and while_loop are Python) as a second reference.
"""

from __future__ import annotations

import numpy as np
import pytest

import runtime as rt


def graph_and_gradients(fn, n_inputs=1, shape=()):
    """A graph computing fn on float64 placeholders and its gradients: (run, graph)."""
    g = rt.Graph()
    with g.as_default():
        xs = [rt.placeholder(rt.float64, shape, name=f"x{i}") for i in range(n_inputs)]
        n = rt.placeholder(rt.int32, [], name="n")
        y = fn(n, *xs)
        grads = rt.gradients(y, xs)
    sess = rt.Session(g)

    def run(n_value, *values):
        return sess.run([y, grads], {n: n_value, **dict(zip(xs, values))})

    return run, g


def eager_gradient(fn, n_value, *values):
    xs = [rt.constant(v, rt.float64) for v in values]
    with rt.GradientTape() as tape:
        tape.watch(xs)
        y = fn(rt.constant(n_value), *xs)
    grads = tape.gradient(y, xs, unconnected_gradients="zero")
    return y.numpy(), [g.numpy() for g in grads]


def power(n, x):
    """x ** n by repeated multiplication in a while loop."""
    one = rt.constant(1.0, rt.float64)
    return rt.while_loop(lambda i, v: i < n, lambda i, v: (i + 1, v * x), (0, one))[1]


@pytest.mark.parametrize("n", [0, 1, 2, 5])
def test_while_loop_power(n):
    run, _ = graph_and_gradients(power)
    y, (dx,) = run(n, 1.5)
    assert y == pytest.approx(1.5**n)
    assert dx == pytest.approx(n * 1.5 ** (n - 1) if n else 0.0)
    assert eager_gradient(power, n, 1.5)[1][0] == pytest.approx(dx)


def test_one_graph_serves_every_iteration_count():
    run, graph = graph_and_gradients(power)
    ops_before = len(graph.get_operations())
    for n in (3, 30, 300):
        assert run(n, 1.01)[1][0] == pytest.approx(n * 1.01 ** (n - 1))
    assert len(graph.get_operations()) == ops_before  # memory grows with iterations, not ops


def test_the_differentiated_loop_stacks_one_value_per_iteration():
    g = rt.Graph()
    with g.as_default():
        x = rt.placeholder(rt.float64, [])
        n = rt.placeholder(rt.int32, [])
        y = power(n, x)
        rt.gradients(y, [x])
    (loop,) = [op for op in g.get_operations() if op.type == "While" and op.name == "while"]
    assert loop.attrs["stacked"] == 1  # v, the one value the body's gradient reads
    count, stack = loop.outputs[2], loop.outputs[3]
    with rt.Session(g) as sess:
        iterations, values = sess.run([count, stack], {x: 2.0, n: 4})
    assert iterations == 4 and values == [1.0, 2.0, 4.0, 8.0]


def test_maximum_iterations_is_respected_backwards():
    def capped(n, x):
        one = rt.constant(1.0, rt.float64)
        body = lambda i, v: (i + 1, v * x)  # noqa: E731
        return rt.while_loop(lambda i, v: i < n, body, (0, one), maximum_iterations=3)[1]

    run, _ = graph_and_gradients(capped)
    y, (dx,) = run(10, 2.0)
    assert (y, dx) == (8.0, 12.0)


def test_loop_invariant_captures_get_summed_gradients():
    def weighted(n, x, w):
        zero = rt.constant(0.0, rt.float64)
        body = lambda i, s: (i + 1, s + w * rt.cast(i, rt.float64) * x)  # noqa: E731
        return rt.while_loop(lambda i, s: i < n, body, (0, zero))[1]

    run, _ = graph_and_gradients(weighted, 2)
    y, (dx, dw) = run(4, 2.0, 3.0)  # s = w x (0 + 1 + 2 + 3)
    assert (y, dx, dw) == (36.0, 18.0, 12.0)


def test_cond_gradient_is_a_cond_of_branch_gradients():
    def branchy(n, x):
        return rt.cond(n > 0, lambda: rt.sin(x) * x, lambda: rt.exp(x))

    run, g = graph_and_gradients(branchy)
    assert run(1, 0.5)[1][0] == pytest.approx(np.cos(0.5) * 0.5 + np.sin(0.5))
    assert run(0, 0.5)[1][0] == pytest.approx(np.exp(0.5))
    ifs = [op for op in g.get_operations() if op.type == "If"]
    assert len(ifs) == 2  # the forward cond and its gradient, on the same predicate
    assert ifs[1].inputs[0] is ifs[0].inputs[0]


def test_cond_inside_while_and_while_inside_cond():
    def mixed(n, x):
        def body(i, v):
            v = rt.cond(v > 2.0, lambda: v * 0.5, lambda: v * x)
            return i + 1, v

        looped = rt.while_loop(lambda i, v: i < n, body, (0, x))[1]
        return rt.cond(x > 0, lambda: power(n, looped), lambda: -x)

    run, _ = graph_and_gradients(mixed)
    for n in (0, 1, 3):
        y, (dx,) = run(n, 1.5)
        ey, (edx,) = eager_gradient(mixed, n, 1.5)
        assert y == pytest.approx(ey) and dx == pytest.approx(edx)


def test_nested_while_loops():
    def nested(n, x):
        def outer(i, v):
            inner = rt.while_loop(lambda j, w: j < i, lambda j, w: (j + 1, w * x), (0, v))[1]
            return i + 1, inner

        return rt.while_loop(lambda i, v: i < n, outer, (0, x))[1]

    run, _ = graph_and_gradients(nested)
    y, (dx,) = run(4, 1.1)  # x ** (1 + 0 + 1 + 2 + 3) = x ** 7
    assert y == pytest.approx(1.1**7) and dx == pytest.approx(7 * 1.1**6)


def test_tensor_array_written_in_a_loop():
    def squares(n, x):
        ta = rt.TensorArray(rt.float64, size=0, dynamic_size=True)

        def body(i, v, ta):
            v = v * x
            return i + 1, v, ta.write(i, v * v)

        one = rt.constant(1.0, rt.float64)
        ta = rt.while_loop(lambda i, v, ta: i < n, body, (0, one, ta))[2]
        return rt.reduce_sum(ta.stack())

    run, _ = graph_and_gradients(squares)
    y, (dx,) = run(3, 1.5)  # x^2 + x^4 + x^6
    assert y == pytest.approx(1.5**2 + 1.5**4 + 1.5**6)
    assert dx == pytest.approx(2 * 1.5 + 4 * 1.5**3 + 6 * 1.5**5)


def test_tensor_array_read_in_a_loop():
    def prefix_products(n, xs):
        ta = rt.TensorArray(rt.float64, size=4).unstack(xs)
        one = rt.constant(1.0, rt.float64)
        body = lambda i, p: (i + 1, p * ta.read(i))  # noqa: E731
        return rt.while_loop(lambda i, p: i < n, body, (0, one))[1]

    run, _ = graph_and_gradients(prefix_products, shape=[4])
    xs = np.array([2.0, 3.0, 5.0, 7.0])
    y, (dxs,) = run(3, xs)
    assert y == 30.0
    np.testing.assert_array_equal(dxs, [15.0, 10.0, 6.0, 0.0])


def test_variables_read_inside_a_branch_and_a_loop_get_gradients():
    v = rt.Variable(2.0, dtype=rt.float64)
    g = rt.Graph()
    with g.as_default():
        n = rt.placeholder(rt.int32, [])
        looped = rt.while_loop(lambda i, s: i < n, lambda i, s: (i + 1, s * v), (0, v))[1]
        y = rt.cond(n > 2, lambda: looped * v, lambda: looped)
        (dv,) = rt.gradients(y, [v])
    with rt.Session(g) as sess:
        assert sess.run(dv, {n: 3}) == pytest.approx(5 * 2.0**4)  # v ** 5
        assert sess.run(dv, {n: 1}) == pytest.approx(2 * 2.0)  # v ** 2


def test_second_derivative_through_a_loop_in_a_graph():
    g = rt.Graph()
    with g.as_default():
        x = rt.placeholder(rt.float64, [])
        n = rt.placeholder(rt.int32, [])
        y = power(n, x)
        (dx,) = rt.gradients(y, [x])
        (ddx,) = rt.gradients(dx, [x])
    assert [op for op in g.get_operations() if op.type == "StackGet"] == []  # inside loops only
    with rt.Session(g) as sess:
        assert sess.run([dx, ddx], {x: 2.0, n: 4}) == [32.0, 48.0]


def test_stack_get_second_order_against_central_differences():
    """StackGet's own gradient: the second derivative of a loop whose body is nonlinear."""

    def first(x):
        g = rt.Graph()
        with g.as_default():
            xp = rt.placeholder(rt.float64, [])
            y = rt.while_loop(
                lambda i, v: i < 3, lambda i, v: (i + 1, rt.sin(v) * xp + v * v), (0, xp)
            )[1]
            (dx,) = rt.gradients(y, [xp])
            (ddx,) = rt.gradients(dx, [xp])
        return rt.Session(g).run([dx, ddx], {xp: x})

    eps = 1e-6
    numeric = (first(0.3 + eps)[0] - first(0.3 - eps)[0]) / (2 * eps)
    assert first(0.3)[1] == pytest.approx(numeric, rel=1e-6)


def test_a_cond_between_arrays_of_two_sizes_against_central_differences():
    """Which branch runs decides the array's size: the gradients must not assume the first's."""

    def arrays(x):  # x > 0: [x*x, 3x]; else [x, x, x**3]
        return rt.cond(
            x > 0,
            lambda: rt.TensorArray(rt.float64, size=2).write(0, x * x).write(1, x * 3.0),
            lambda: rt.TensorArray(rt.float64, size=3).write(0, x).write(1, x).write(2, x**3),
        )

    def reference(x):
        return sum(v * v for v in ([x * x, 3 * x] if x > 0 else [x, x, x**3]))

    g = rt.Graph()
    with g.as_default():
        xp = rt.placeholder(rt.float64, [])
        y = rt.reduce_sum(arrays(xp).stack() ** 2)
        (dx,) = rt.gradients(y, [xp])
        (ddx,) = rt.gradients(dx, [xp])
    sess = rt.Session(g)
    eps = 1e-4
    for x in (1.5, -1.5):
        got_y, got_dx, got_ddx = sess.run([y, dx, ddx], {xp: x})
        assert got_y == pytest.approx(reference(x))
        assert got_dx == pytest.approx(
            (reference(x + eps) - reference(x - eps)) / (2 * eps), rel=1e-6
        )
        second = (reference(x + eps) - 2 * reference(x) + reference(x - eps)) / eps**2
        assert got_ddx == pytest.approx(second, rel=1e-5)
