"""GradientTape's semantics, as TensorFlow's: what is watched, how often it can be used,
unconnected and non-float sources, output gradients, structures, jacobians, nesting."""

from __future__ import annotations

import numpy as np
import pytest

import autograph as ag
import runtime as rt


def test_watched_tensor_gets_its_gradient():
    x = rt.constant(3.0)
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = x * x + 2.0 * x
    assert tape.gradient(y, x).numpy() == pytest.approx(8.0)


def test_an_unwatched_tensor_gets_none():
    x = rt.constant(3.0)
    with rt.GradientTape() as tape:
        y = x * x
    assert tape.gradient(y, x) is None


def test_ops_before_the_watch_are_not_recorded():
    x = rt.constant(3.0)
    y = x * x
    with rt.GradientTape() as tape:
        tape.watch(x)
        z = y * x
    assert tape.gradient(z, x).numpy() == pytest.approx(9.0)  # y is a constant to the tape


def test_a_non_persistent_tape_used_twice_raises_runtime_error():
    x = rt.constant(3.0)
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    tape.gradient(y, x)
    with pytest.raises(RuntimeError, match="non-persistent"):
        tape.gradient(y, x)


def test_a_persistent_tape_gives_gradients_again():
    x = rt.constant(3.0)
    with rt.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * x
        z = y * y
    assert tape.gradient(z, x).numpy() == pytest.approx(108.0)
    assert tape.gradient(y, x).numpy() == pytest.approx(6.0)
    assert tape.gradient(z, y).numpy() == pytest.approx(18.0)


def test_trainable_variables_read_under_the_tape_are_watched():
    v = rt.Variable([1.0, 2.0])
    frozen = rt.Variable(3.0, trainable=False)
    with rt.GradientTape() as tape:
        y = rt.reduce_sum(v * v) * frozen
    dv, df = tape.gradient(y, [v, frozen])
    np.testing.assert_allclose(dv.numpy(), [6.0, 12.0])
    assert df is None
    assert tape.watched_variables() == (v,)


def test_watch_accessed_variables_false_watches_only_what_is_asked():
    v = rt.Variable(2.0)
    w = rt.Variable(5.0)
    with rt.GradientTape(watch_accessed_variables=False) as tape:
        tape.watch(w)
        y = v * w
    dv, dw = tape.gradient(y, [v, w])
    assert dv is None
    assert dw.numpy() == pytest.approx(2.0)


def test_a_non_trainable_variable_can_be_watched_explicitly():
    v = rt.Variable(2.0, trainable=False)
    with rt.GradientTape() as tape:
        tape.watch(v)
        y = v * v
    assert tape.gradient(y, v).numpy() == pytest.approx(4.0)


def test_unconnected_sources_give_none_or_zeros():
    x = rt.constant([1.0, 2.0])
    z = rt.constant(5.0)
    v = rt.Variable([[1.0, 2.0]])
    with rt.GradientTape(persistent=True) as tape:
        tape.watch([x, z])
        y = rt.reduce_sum(x)
    assert tape.gradient(y, [z, v]) == [None, None]
    zeros = tape.gradient(y, [z, v], unconnected_gradients="zero")
    assert zeros[0].numpy() == 0.0 and zeros[0].dtype is rt.float32
    np.testing.assert_array_equal(zeros[1].numpy(), [[0.0, 0.0]])
    with pytest.raises(ValueError, match="unconnected_gradients"):
        tape.gradient(y, z, unconnected_gradients="ignore")


def test_integer_boolean_and_string_sources_and_targets_give_none():
    i = rt.constant(3)
    b = rt.constant(True)
    s = rt.constant("a")
    x = rt.constant(2.0)
    with rt.GradientTape(persistent=True) as tape:
        tape.watch([i, b, s, x])
        y = rt.cast(i, rt.float32) * x
        n = rt.cast(x, rt.int32) * i
    assert tape.gradient(y, [i, b, s]) == [None, None, None]
    assert tape.gradient(y, x).numpy() == pytest.approx(3.0)
    assert tape.gradient(n, x) is None  # an integer target has no gradient


def test_a_target_that_is_a_source_gets_ones_tensor_or_variable():
    # As TensorFlow: d x / d x is ones of x's shape (the target's seed), a variable included
    # (TensorFlow differentiates its handle); with other targets the seeds add up.
    x, v = rt.constant([[3.0, -1.0, 0.5]]), rt.Variable([1.0, 2.0])
    with rt.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = v * 2.0
    np.testing.assert_array_equal(tape.gradient(x, x).numpy(), np.ones((1, 3), np.float32))
    np.testing.assert_array_equal(tape.gradient(v, v).numpy(), np.ones(2, np.float32))
    np.testing.assert_array_equal(tape.gradient([y, v], v).numpy(), [3.0, 3.0])  # 2 + 1
    weight = rt.constant([2.0, 5.0])
    np.testing.assert_array_equal(tape.gradient(v, v, output_gradients=weight).numpy(), [2, 5])


def test_a_variable_target_that_is_its_source_in_a_traced_function():
    v = rt.Variable([1.0, 2.0])

    @ag.function
    def grads():
        with rt.GradientTape() as tape:
            y = v * 3.0
        return tape.gradient([y, v], v)

    @ag.function
    def untouched():
        with rt.GradientTape() as tape:
            pass
        return tape.gradient(v, v)

    np.testing.assert_array_equal(grads().numpy(), [4.0, 4.0])  # 3 + 1
    np.testing.assert_array_equal(untouched().numpy(), [1.0, 1.0])


def test_output_gradients_weigh_the_target():
    x = rt.constant([1.0, 2.0, 3.0])
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    g = tape.gradient(y, x, output_gradients=rt.constant([1.0, 0.0, -1.0]))
    np.testing.assert_allclose(g.numpy(), [2.0, 0.0, -6.0])


def test_several_targets_add_up():
    x = rt.constant(2.0)
    with rt.GradientTape() as tape:
        tape.watch(x)
        a, b = x * x, x * 3.0
    assert tape.gradient([a, b], x).numpy() == pytest.approx(7.0)


def test_sources_keep_their_structure():
    x, y = rt.constant(1.0), rt.constant(2.0)
    v = rt.Variable(3.0)
    with rt.GradientTape() as tape:
        tape.watch([x, y])
        out = x * y * v
    grads = tape.gradient(out, {"b": (x, [y]), "a": v})
    assert set(grads) == {"a", "b"}
    assert isinstance(grads["b"], tuple) and isinstance(grads["b"][1], list)
    assert grads["b"][0].numpy() == pytest.approx(6.0)
    assert grads["b"][1][0].numpy() == pytest.approx(3.0)
    assert grads["a"].numpy() == pytest.approx(2.0)


def test_jacobian_of_a_vector_function():
    x = rt.constant([1.0, 2.0, 3.0])
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = rt.stack([x[0] * x[1], x[2] * x[2]])
    jac = tape.jacobian(y, x)
    np.testing.assert_allclose(jac.numpy(), [[2.0, 1.0, 0.0], [0.0, 0.0, 6.0]])


def test_jacobian_of_a_matrix_has_both_shapes():
    w = rt.Variable(np.arange(6.0).reshape(2, 3))
    x = rt.constant(np.ones((4, 2)))
    with rt.GradientTape() as tape:
        y = rt.matmul(x, w)
    jac = tape.jacobian(y, w)
    assert jac.shape == (4, 3, 2, 3)
    expected = np.einsum("ab,cd->acbd", np.ones((4, 2)), np.eye(3))  # d y[a,c] / d w[b,d]
    np.testing.assert_allclose(jac.numpy(), expected)


def test_nested_tapes_give_second_and_third_derivatives():
    x = rt.constant(2.0)
    with rt.GradientTape() as t3:
        t3.watch(x)
        with rt.GradientTape() as t2:
            t2.watch(x)
            with rt.GradientTape() as t1:
                t1.watch(x)
                y = x * x * x * x
            d1 = t1.gradient(y, x)
        d2 = t2.gradient(d1, x)
    d3 = t3.gradient(d2, x)
    assert (d1.numpy(), d2.numpy(), d3.numpy()) == (32.0, 48.0, 48.0)


def test_a_persistent_tape_differentiates_its_own_gradient():
    x = rt.constant(3.0)
    with rt.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = rt.sin(x)
        dy = tape.gradient(y, x)  # computed while recording: recorded too
    assert tape.gradient(dy, x).numpy() == pytest.approx(-np.sin(3.0), rel=1e-6)


def test_stop_gradient_holds_a_value_constant():
    x = rt.constant(3.0)
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = x * rt.stop_gradient(x * x)
    assert tape.gradient(y, x).numpy() == pytest.approx(9.0)


def test_stop_recording_leaves_ops_out():
    x = rt.constant(3.0)
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = x * x
        with tape.stop_recording():
            z = y * x
        w = z + y
    assert tape.gradient(w, x).numpy() == pytest.approx(6.0)


def test_watching_something_else_is_an_error():
    with rt.GradientTape() as tape, pytest.raises(ValueError, match="not a tensor or a variable"):
        tape.watch(3.0)


def test_gradients_through_control_flow_run_eagerly_as_python():
    x = rt.constant(1.5)
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = x
        i = rt.constant(0)
        while i < 3:
            y = rt.cond(y > 2.0, lambda y=y: y * 0.5, lambda y=y: y * x)
            i += 1
    # 1.5 -> 2.25 (y*x) -> 1.125 (y/2) -> 1.6875 (y*x): y = x^3 / 2, dy/dx = 1.5 x^2
    assert tape.gradient(y, x).numpy() == pytest.approx(1.5 * 1.5**2)


def test_gather_gradient_is_dense_and_adds_repeats():
    params = rt.Variable([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    with rt.GradientTape() as tape:
        y = rt.reduce_sum(rt.gather(params, [2, 0, 2]))
    g = tape.gradient(y, params)
    assert isinstance(g, rt.Tensor)
    np.testing.assert_array_equal(g.numpy(), [[1.0, 1.0], [0.0, 0.0], [2.0, 2.0]])


def test_indexing_and_broadcasting_gradients_have_the_source_shape():
    x = rt.Variable(np.ones((2, 3)))
    b = rt.Variable(np.ones(3))
    with rt.GradientTape() as tape:
        y = rt.reduce_sum((x + b)[1, 1:] * 2.0)
    gx, gb = tape.gradient(y, [x, b])
    np.testing.assert_array_equal(gx.numpy(), [[0, 0, 0], [0, 2, 2]])
    np.testing.assert_array_equal(gb.numpy(), [0, 2, 2])


def test_tensor_array_gradients_eagerly():
    x = rt.constant([1.0, 2.0, 3.0])
    with rt.GradientTape() as tape:
        tape.watch(x)
        ta = rt.TensorArray(rt.float32, size=3)
        for i in range(3):
            ta = ta.write(i, x[i] * x[i])
        y = rt.reduce_sum(ta.stack() * rt.constant([1.0, 10.0, 100.0]))
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), [2.0, 40.0, 600.0])


def test_variables_in_a_tensorflow_1_graph():
    v = rt.Variable([1.0, 2.0])
    g = rt.Graph()
    with g.as_default():
        x = rt.placeholder(rt.float32, [2])
        loss = rt.reduce_sum(v * x)
        dv, dx = rt.gradients(loss, [v, x])
        scaled = rt.gradients(loss, v, grad_ys=rt.constant(3.0))
    with rt.Session(g) as sess:
        values = sess.run([dv, dx, scaled], {x: [5.0, 7.0]})
    np.testing.assert_array_equal(values[0], [5.0, 7.0])
    np.testing.assert_array_equal(values[1], [1.0, 2.0])
    np.testing.assert_array_equal(values[2][0], [15.0, 21.0])


def test_rt_gradients_eagerly_says_to_use_a_tape():
    with pytest.raises(RuntimeError, match="GradientTape"):
        rt.gradients(rt.constant(1.0), [rt.constant(1.0)])


def test_rt_gradients_of_an_unconnected_x_is_none():
    g = rt.Graph()
    with g.as_default():
        x = rt.placeholder(rt.float32, [])
        z = rt.placeholder(rt.float32, [])
        assert rt.gradients(x * 2.0, [x, z])[1] is None


def test_a_missing_rule_is_a_clear_error():
    from runtime.core.op_def import OpDef
    from runtime.ops.registry import bind1, unary_spec

    ruleless = OpDef("TestOpWithoutGradient", lambda x: x, unary_spec)
    try:
        x = rt.constant(1.0)
        with rt.GradientTape() as tape:
            tape.watch(x)
            y = bind1(ruleless, [x])
        with pytest.raises(LookupError, match="No gradient defined for operation"):
            tape.gradient(y, x)
    finally:
        from runtime.core.op_def import OPS

        del OPS["TestOpWithoutGradient"]


def test_graph_gradients_keep_the_static_shape_of_their_source():
    # As TensorFlow: the shape a Shape op stands for is known as far as its input's is, so
    # reducing over a [None, k] batch does not lose the k of a weight's gradient.
    g = rt.Graph()
    with g.as_default():
        x = rt.placeholder(rt.float32, [None, 3])
        w = rt.Variable(np.ones((3, 2), np.float32))
        loss = rt.reduce_sum(rt.matmul(x, w))
        dw, dx = rt.gradients(loss, [w, x])
        assert dw.shape == (3, 2)
        assert dx.shape.as_list() == [None, 3]
    with rt.Session(g) as sess:
        xs = np.arange(6, dtype=np.float32).reshape(2, 3)
        np.testing.assert_allclose(sess.run(dw, {x: xs}), xs.T @ np.ones((2, 2)))

    @ag.function(input_signature=[rt.TensorSpec([None, 3])])
    def step(x):
        with rt.GradientTape() as tape:
            loss = rt.reduce_sum(rt.matmul(x, w)) + rt.reduce_max(x)
        grad = tape.gradient(loss, w)
        assert grad.shape == (3, 2)
        return grad

    step.get_concrete_function()


def test_rt_gradients_refuses_an_x_of_another_graph():
    g, other = rt.Graph(), rt.Graph()
    with other.as_default():
        z = rt.placeholder(rt.float32, [], name="z")
    with g.as_default():
        x = rt.placeholder(rt.float32, [], name="x")
        with pytest.raises(ValueError, match="'z:0' must be from the same graph"):
            rt.gradients(x * 2.0, [x, z])
