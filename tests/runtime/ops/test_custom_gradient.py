"""``rt.custom_gradient`` (the ``CustomGradient`` row) and ``rt.recompute_grad``, as
TensorFlow's decorators: the guide's examples against hand-computed gradients, and a
gradient function that is the true one against central differences, eagerly, in a
TensorFlow 1 graph and in a traced function."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import autograph as ag
import runtime as rt
from tests.runtime.gradients.grad_harness import check_gradient


@rt.custom_gradient
def log1pexp(x):
    """The guide's example: log(1 + e^x) with a gradient that does not overflow."""
    e = rt.exp(x)

    def grad(upstream):
        return upstream * (1 - 1 / (1 + e))

    return rt.math.log1p(e), grad


def _sigmoid(x):
    return 1 / (1 + math.exp(-x))


def _tape_gradient(fn, x):
    x = rt.constant(x)
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = fn(x)
    return y, tape.gradient(y, x)


@pytest.mark.parametrize("x", [-3.0, 0.0, 2.0, 100.0])
def test_log1pexp_is_stable_eagerly_in_a_function_and_in_a_session(x):
    expected = _sigmoid(x)  # d/dx log(1 + e^x), written another way
    _, eager = _tape_gradient(log1pexp, x)
    np.testing.assert_allclose(eager.numpy(), expected, rtol=1e-6)
    traced = ag.function(_in_function)
    np.testing.assert_allclose(traced(rt.constant(x)).numpy(), expected, rtol=1e-6)
    g = rt.Graph()
    with g.as_default():
        p = rt.placeholder(rt.float32, [])
        (dx,) = rt.gradients(log1pexp(p), [p])
    np.testing.assert_allclose(rt.Session(g).run(dx, {p: x}), expected, rtol=1e-6)


def _in_function(x):
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = log1pexp(x)
    return tape.gradient(y, x)


def test_without_the_custom_gradient_the_value_overflows():
    # The reason for the example: differentiating log1p(exp(x)) op by op at 100 gives nan.
    _, naive = _tape_gradient(lambda x: rt.math.log1p(rt.exp(x)), 100.0)
    assert np.isnan(naive.numpy())


@rt.custom_gradient
def clip_gradient_by_norm(x, norm):
    """The guide's other example: the identity, whose gradient is clipped to a norm."""
    y = rt.identity(x)

    def grad_fn(dresult):
        (clipped,), _ = rt.clip_by_global_norm([dresult], norm)
        return [clipped, None]

    return y, grad_fn


def test_clip_gradient_by_norm():
    x = rt.constant([3.0, 4.0])
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = clip_gradient_by_norm(x, 1.0)
        loss = rt.reduce_sum(y * y)
    np.testing.assert_allclose(y.numpy(), [3.0, 4.0])
    # d loss / dy = 2y = [6, 8], of norm 10, clipped to norm 1: [0.6, 0.8].
    np.testing.assert_allclose(tape.gradient(loss, x).numpy(), [0.6, 0.8], rtol=1e-6)


@rt.custom_gradient
def _x_sin_y(x, y):
    def grad(dz):
        return dz * rt.sin(y), dz * x * rt.cos(y)

    return x * rt.sin(y), grad


def test_a_true_gradient_function_matches_central_differences_every_way():
    x = np.array([0.5, -1.5, 2.0])
    y = np.array([1.0, 0.25, -2.0])
    check_gradient(lambda a, b: _x_sin_y(a, b), [x, y])
    check_gradient(lambda a, b: _x_sin_y(a * a, b) + a, [x, y], shapes=[[None], [None]])


def test_nested_arguments_and_results():
    @rt.custom_gradient
    def f(pair):
        a, b = pair["a"], pair["b"]

        def grad(d_product, d_sum):
            return {"a": d_product * b + d_sum, "b": d_product * a + d_sum}

        return (a * b, a + b), grad

    a, b = np.array([1.0, 2.0]), np.array([-0.5, 3.0])
    check_gradient(lambda a, b: list(f({"a": a, "b": b})), [a, b])


@rt.custom_gradient
def _cube(x):
    return x * x * x, lambda dy: dy * 3.0 * x * x


def test_the_gradient_is_differentiable_again():
    x = rt.constant(2.0)
    with rt.GradientTape() as outer:
        outer.watch(x)
        with rt.GradientTape() as inner:
            inner.watch(x)
            y = _cube(x)
        dy = inner.gradient(y, x)
    assert dy.numpy() == 12.0  # 3 x^2
    assert outer.gradient(dy, x).numpy() == 12.0  # 6 x


def test_variables_get_the_gradient_grad_fn_gives_them():
    v = rt.Variable(3.0)

    @rt.custom_gradient
    def scaled(x):
        def grad(dy, variables=None):
            assert variables == [v]
            return dy * v, [dy * x * 10.0]  # ten times the true gradient, to tell them apart

        return x * v, grad

    def step(x):
        with rt.GradientTape() as tape:
            tape.watch(x)
            y = scaled(x)
        return tape.gradient(y, [x, v])

    for grads in (step(rt.constant(2.0)), ag.function(step)(rt.constant(2.0))):
        assert [g.numpy() for g in grads] == [3.0, 20.0]
    function = ag.function(scaled)
    x = rt.constant(2.0)
    with rt.GradientTape() as tape:  # a tape outside: the call's gradient runs the sub-graph
        tape.watch(x)
        y = function(x)
    assert [g.numpy() for g in tape.gradient(y, [x, v])] == [3.0, 20.0]


def test_a_grad_fn_without_variables_is_refused_when_f_reads_one():
    v = rt.Variable(1.0)

    @rt.custom_gradient
    def f(x):
        return x * v, lambda dy: dy

    with pytest.raises(TypeError, match="must accept keyword argument 'variables'"):
        f(rt.constant(1.0))


def test_grad_fn_must_give_one_gradient_per_argument():
    @rt.custom_gradient
    def f(x, y):
        return x * y, lambda dz: dz

    x = rt.constant(1.0)
    with rt.GradientTape() as tape:
        tape.watch(x)
        z = f(x, rt.constant(2.0))
    with pytest.raises(ValueError, match="expected to return 2 gradients, but returned 1"):
        tape.gradient(z, x)


def test_keyword_arguments_only_eagerly():
    @rt.custom_gradient
    def f(x, scale=1.0):
        return x * scale, lambda dy: dy * scale

    assert f(rt.constant(2.0), scale=3.0).numpy() == 6.0
    with pytest.raises(ValueError, match="keywords arguments only when eager"):
        ag.function(lambda x: f(x, scale=3.0))(rt.constant(2.0))


def test_compiled_backends_run_the_forward_values():
    pytest.importorskip("jax")
    traced = ag.function(lambda x: _in_function(x), jit_compile=True)
    np.testing.assert_allclose(traced(rt.constant(100.0)).numpy(), 1.0, rtol=1e-6)


# --- recompute_grad --------------------------------------------------------------------------


def test_recompute_grad_gives_the_values_and_gradients_of_f():
    def f(x, y):
        return rt.tanh(x * y) + rt.sin(x)

    g = rt.recompute_grad(f)
    x, y = np.array([0.3, -1.2]), np.array([2.0, 0.5])
    np.testing.assert_allclose(
        g(rt.constant(x), rt.constant(y)).numpy(), np.tanh(x * y) + np.sin(x)
    )
    check_gradient(g, [x, y])


def test_recompute_grad_with_variables():
    w = rt.Variable([1.5, -2.0])
    g = rt.recompute_grad(lambda x: rt.reduce_sum(rt.square(x * w)))
    x = rt.constant([2.0, 3.0])
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = g(x)
    dx, dw = tape.gradient(y, [x, w])
    # d/dx sum((x w)^2) = 2 x w^2, d/dw = 2 w x^2.
    np.testing.assert_allclose(dx.numpy(), [2 * 2.0 * 1.5**2, 2 * 3.0 * 4.0])
    np.testing.assert_allclose(dw.numpy(), [2 * 1.5 * 4.0, 2 * -2.0 * 9.0])


def test_saved_loaded_and_exported_with_its_gradient(tmp_path):
    def value_and_gradient(x):
        return log1pexp(x), _in_function(x)

    module = rt.Module()
    module.f = ag.function(value_and_gradient, input_signature=[rt.TensorSpec([], rt.float32)])
    rt.saved_model.save(module, str(tmp_path / "saved"))
    loaded = rt.saved_model.load(str(tmp_path / "saved"))
    expected = [math.log1p(math.exp(3.0)), _sigmoid(3.0)]
    np.testing.assert_allclose([t.numpy() for t in loaded.f(rt.constant(3.0))], expected, rtol=1e-6)
    ort = pytest.importorskip("onnxruntime")
    pytest.importorskip("onnx")
    rt.onnx.export(module.f, str(tmp_path / "f.onnx"))
    session = ort.InferenceSession(str(tmp_path / "f.onnx"))
    values = session.run(None, {session.get_inputs()[0].name: np.array(3.0, np.float32)})
    np.testing.assert_allclose(values, expected, rtol=1e-6)


class _Scaled(rt.Module):
    """A module whose __call__ has a custom gradient: 10 times what flows in, not k."""

    def __init__(self):
        super().__init__()
        self.k = 3.0

    @rt.custom_gradient
    def __call__(self, x):
        return x * self.k, lambda dy: dy * 10.0


def test_a_method_binds_its_instance_which_is_no_argument():
    # TensorFlow binds self and differentiates the other arguments only.
    module = _Scaled()
    x = rt.constant(2.0)
    for call in (module, ag.function(lambda t: module(t))):
        with rt.GradientTape() as tape:
            tape.watch(x)
            y = call(x)
        assert (y.numpy(), tape.gradient(y, x).numpy()) == (6.0, 10.0)


# --- grad_fn is called only when a gradient is taken -------------------------------------------


def _counted_log1pexp(calls, fail=False):
    """log1pexp whose grad_fn counts its calls (and raises, with ``fail``)."""

    @rt.custom_gradient
    def f(x):
        e = rt.exp(x)

        def grad(upstream):
            calls.append(1)
            if fail:
                raise RuntimeError("grad_fn was called")
            return upstream * (1 - 1 / (1 + e))

        return rt.math.log1p(e), grad

    return f


def test_a_forward_only_call_in_a_graph_never_calls_grad_fn():
    # TensorFlow calls grad_fn when gradients are taken, not when f is called.
    calls = []
    f = _counted_log1pexp(calls, fail=True)
    traced = ag.function(lambda x: f(x))
    np.testing.assert_allclose(traced(rt.constant(2.0)).numpy(), math.log1p(math.exp(2.0)))
    g = rt.Graph()
    with g.as_default():
        p = rt.placeholder(rt.float32, [])
        y = f(p)
    np.testing.assert_allclose(rt.Session(g).run(y, {p: 1.0}), math.log1p(math.e), rtol=1e-6)
    assert calls == []
    with pytest.raises(RuntimeError, match="grad_fn was called"), g.as_default():
        rt.gradients(y, [p])


@pytest.mark.parametrize("where", ["in the function", "tape over the function", "session"])
def test_grad_fn_runs_once_when_the_gradient_is_taken(where):
    calls = []
    f = _counted_log1pexp(calls)
    if where == "in the function":

        @ag.function
        def gradient(x):
            with rt.GradientTape() as tape:
                tape.watch(x)
                y = f(x)
            return tape.gradient(y, x)

        dx = gradient(rt.constant(2.0)).numpy()
    elif where == "tape over the function":
        traced = ag.function(lambda x: f(x))
        traced(rt.constant(2.0))
        assert calls == []
        dx = _tape_gradient(traced, 2.0)[1].numpy()
    else:
        g = rt.Graph()
        with g.as_default():
            p = rt.placeholder(rt.float32, [])
            (grad,) = rt.gradients(f(p), [p])
        dx = rt.Session(g).run(grad, {p: 2.0})
    np.testing.assert_allclose(dx, _sigmoid(2.0), rtol=1e-6)
    assert calls == [1]


def test_a_gradient_never_taken_is_traced_when_the_function_is_saved(tmp_path):
    calls = []
    module = rt.Module()
    module.f = ag.function(
        _counted_log1pexp(calls), input_signature=[rt.TensorSpec([], rt.float32)]
    )
    module.f(rt.constant(1.0))
    assert calls == []
    rt.saved_model.save(module, str(tmp_path / "saved"))
    loaded = rt.saved_model.load(str(tmp_path / "saved"))
    _, dx = _tape_gradient(loaded.f, 100.0)  # differentiated op by op it would be nan
    np.testing.assert_allclose(dx.numpy(), 1.0, rtol=1e-6)


def test_in_a_branch_grad_fn_may_read_a_tensor_from_around_it():
    # A branch can capture only while it is built: grad_fn is traced there at once.
    def scaled_by(scale):
        @rt.custom_gradient
        def f(x):
            return x * 2.0, lambda dy: dy * scale

        return f

    @ag.function
    def branched(x, s):
        f = scaled_by(s * 1.0)
        return rt.cond(x > 0, lambda: f(x), lambda: x * 3.0)

    for x, expected in [(2.0, 5.0), (-2.0, 3.0)]:
        _, dx = _tape_gradient(lambda t: branched(t, rt.constant(5.0)), x)
        np.testing.assert_allclose(dx.numpy(), expected)


def test_grad_fn_may_read_a_variable_f_does_not_read():
    # The variable's handle is made when the gradient is first taken, before the op reads it.
    v = rt.Variable(4.0)

    @rt.custom_gradient
    def f(x):
        return x * 2.0, lambda dy: dy * v

    @ag.function
    def inside(x):
        with rt.GradientTape() as tape:
            tape.watch(x)
            y = f(x)
        return tape.gradient(y, x)

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the optimiser copies the graph without complaint
        np.testing.assert_allclose(inside(rt.constant(1.0)).numpy(), 4.0)
        _, dx = _tape_gradient(ag.function(lambda t: f(t)), 1.0)
    np.testing.assert_allclose(dx.numpy(), 4.0)
    g = rt.Graph()
    with g.as_default():
        p = rt.placeholder(rt.float32, [])
        (dp,) = rt.gradients(f(p), [p])
    np.testing.assert_allclose(rt.Session(g).run(dp, {p: 1.0}), 4.0)
