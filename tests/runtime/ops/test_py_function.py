"""``rt.py_function`` as TensorFlow's ``tf.py_function``: Python run on eager tensors when the
op runs (eagerly, each call of a function, each Session run), gradients through it against
central differences, and a clear refusal to save, compile with XLA or export it."""

from __future__ import annotations

import os

import numpy as np
import pytest

import autograph as ag
import runtime as rt
from tests.runtime.gradients.grad_harness import check_gradient


def test_eagerly_the_function_gets_eager_tensors_and_tout_shapes_the_result():
    seen = []

    def f(a, b):
        seen.append((type(a), a.numpy(), b.numpy()))
        return a.numpy() * b.numpy(), a.numpy() + b.numpy()

    product, total = rt.py_function(f, [2.0, rt.constant(3.0)], [rt.float32, rt.float64])
    assert (product.dtype, product.numpy()) == (rt.float32, 6.0)
    assert (total.dtype, total.numpy()) == (rt.float64, 5.0)
    assert seen == [(rt.EagerTensor, 2.0, 3.0)]
    single = rt.py_function(lambda: 7, [], rt.int64)
    assert isinstance(single, rt.Tensor) and single.dtype is rt.int64 and single.numpy() == 7


def test_in_a_function_it_runs_on_every_call_even_unused():
    calls = []

    def record(x):
        calls.append(x.numpy().tolist())
        return x.numpy() * 10

    @ag.function
    def f(x):
        rt.py_function(record, [x + 1], rt.int32)  # result unused: still runs, as in TensorFlow
        return rt.py_function(record, [x], rt.int32) + 1

    assert [f(rt.constant([1, 2])).numpy().tolist() for _ in range(3)] == [[11, 21]] * 3
    assert calls == [[2, 3], [1, 2]] * 3
    assert f.tracing_count == 1


def test_in_a_session_the_function_runs_at_run_time_with_the_fed_values():
    g = rt.Graph()
    with g.as_default():
        x = rt.placeholder(rt.float32, [None])
        y = rt.py_function(lambda t: np.sort(t.numpy()), [x], rt.float32)
    assert y.shape.rank is None  # what Python gives is not known before it runs
    session = rt.Session(g)
    np.testing.assert_array_equal(session.run(y, {x: [3.0, 1.0, 2.0]}), [1.0, 2.0, 3.0])
    np.testing.assert_array_equal(session.run(y, {x: [5.0, -1.0]}), [-1.0, 5.0])


def _sin_times(t):
    return rt.sin(t) * t  # ops on eager tensors: a tape can differentiate them


def test_gradients_through_it_match_central_differences():
    x = np.array([0.5, -1.25, 2.0])
    check_gradient(lambda a: rt.py_function(_sin_times, [a], rt.float64), [x])
    pair = lambda a, b: rt.py_function(lambda s, t: [s * t, s + t], [a, b], [rt.float64] * 2)  # noqa: E731
    check_gradient(pair, [x, np.array([1.5, 0.25, -3.0])])


def test_integer_inputs_get_no_gradient():
    g = rt.Graph()
    with g.as_default():
        x = rt.placeholder(rt.float32, [])
        n = rt.placeholder(rt.int32, [])
        y = rt.py_function(lambda a, k: a * rt.cast(k, rt.float32), [x, n], rt.float32)
        dx, dn = rt.gradients(y, [x, n])
    assert dn is None
    assert rt.Session(g).run(dx, {x: 2.0, n: 4}) == 4.0


def test_errors_of_the_function_are_tensorflow_errors_when_it_runs():
    def fails(t):
        raise ValueError("no good value")

    with pytest.raises(rt.errors.InvalidArgumentError, match="ValueError: no good value"):
        rt.py_function(fails, [1.0], rt.float32)
    traced = ag.function(lambda t: rt.py_function(fails, [t], rt.float32))
    with pytest.raises(rt.errors.InvalidArgumentError, match=r"no good value \(in .*fails"):
        traced(rt.constant(1.0))
    with pytest.raises(rt.errors.InvalidArgumentError, match="returned 1 values for 2 dtypes"):
        rt.py_function(lambda t: t, [1.0], [rt.float32, rt.float32])
    # TensorFlow converts what the function returns to Tout: a float64 array becomes float32,
    # a float array never int32.
    converted = rt.py_function(lambda t: np.float64(1.5) * np.ones(2), [1.0], rt.float32)
    assert converted.dtype == rt.float32
    np.testing.assert_array_equal(converted.numpy(), [1.5, 1.5])
    with pytest.raises(rt.errors.InvalidArgumentError, match="float64 does not silently become"):
        rt.py_function(lambda t: np.float64(1.5) * np.ones(2), [1.0], rt.int32)


@ag.function(input_signature=[rt.TensorSpec([], rt.float32)])
def _doubled(x):
    return rt.py_function(lambda t: t * 2.0, [x], rt.float32)


def test_saving_a_function_holding_one_is_refused_and_writes_nothing(tmp_path):
    module = rt.Module()
    module.f = _doubled
    assert module.f(rt.constant(3.0)).numpy() == 6.0
    path = tmp_path / "model"
    with pytest.raises(rt.saved_model.SavedModelError, match="py_function cannot be saved"):
        rt.saved_model.save(module, str(path))
    assert not path.exists() or not os.listdir(path)


def test_xla_and_onnx_refuse_it_naming_the_op(tmp_path):
    pytest.importorskip("jax")
    compiled = ag.function(_doubled.python_function, jit_compile=True)
    with pytest.raises(rt.errors.UnimplementedError, match="EagerPyFunc has no XLA form"):
        compiled(rt.constant(1.0))
    pytest.importorskip("onnx")
    with pytest.raises(rt.errors.UnimplementedError, match="Cannot export op 'EagerPyFunc'"):
        rt.onnx.export(_doubled, str(tmp_path / "f.onnx"))


def test_with_one_dtype_what_the_function_returns_is_one_tensor():
    # A list returned for a single Tout is one tensor's value, not one value per dtype.
    out = rt.py_function(lambda t: sorted(t.numpy()), [rt.constant([3.0, 1.0, 2.0])], rt.float32)
    np.testing.assert_array_equal(out.numpy(), [1.0, 2.0, 3.0])
    (listed,) = rt.py_function(lambda: [4], [], [rt.int32])
    assert listed.numpy() == 4
    with pytest.raises(rt.errors.InvalidArgumentError, match="returned 2 values for 1 dtypes"):
        rt.py_function(lambda: [4, 5], [], [rt.int32])


def _random_multiplier():
    """A Python function drawing a new multiplier each call, keeping the multipliers drawn."""
    drawn = []
    rng = np.random.default_rng(7)

    def multiply(t):
        drawn.append(float(rng.uniform(1.0, 5.0)))
        return t * drawn[-1]

    return multiply, drawn


def test_a_graph_gradient_differentiates_the_forward_run_without_calling_again():
    # TensorFlow keeps the forward run's tape: the gradient is the multiplier drawn then.
    multiply, drawn = _random_multiplier()
    g = rt.Graph()
    with g.as_default():
        x = rt.placeholder(rt.float32, [])
        y = rt.py_function(multiply, [x], rt.float32)
        (dx,) = rt.gradients(y, [x])
    y_value, dx_value = rt.Session(g).run([y, dx], {x: 2.0})
    assert len(drawn) == 1
    np.testing.assert_allclose([y_value, dx_value], [2.0 * drawn[0], drawn[0]], rtol=1e-6)


def test_a_function_gradient_under_a_tape_uses_the_forward_run():
    multiply, drawn = _random_multiplier()
    f = ag.function(lambda t: rt.py_function(multiply, [t], rt.float32))
    x = rt.constant(3.0)
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    dx = tape.gradient(y, x)
    assert len(drawn) == 1
    np.testing.assert_allclose([y.numpy(), dx.numpy()], [3.0 * drawn[0], drawn[0]], rtol=1e-6)


def test_an_eager_gradient_uses_the_one_call():
    multiply, drawn = _random_multiplier()
    x = rt.constant(3.0)
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = rt.py_function(multiply, [x], rt.float32)
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), drawn[0], rtol=1e-6)
    assert len(drawn) == 1


def test_a_numpy_only_function_has_a_zero_gradient_eagerly_and_in_a_graph():
    # TensorFlow: the tape of a function computing with numpy has no path: the gradient is 0.
    square = lambda t: t.numpy() ** 2  # noqa: E731
    x = rt.constant(3.0)
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = rt.py_function(square, [x], rt.float32)
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), 0.0)
    g = rt.Graph()
    with g.as_default():
        p = rt.placeholder(rt.float32, [])
        (dp,) = rt.gradients(rt.py_function(square, [p], rt.float32), [p])
    np.testing.assert_allclose(rt.Session(g).run(dp, {p: 3.0}), 0.0)


def _raises(error):
    def fails(t):
        raise error

    return fails


@pytest.mark.parametrize(
    "raised, expected",
    [
        (ValueError("v"), rt.errors.InvalidArgumentError),
        (TypeError("t"), rt.errors.InvalidArgumentError),
        (StopIteration(), rt.errors.OutOfRangeError),
        (MemoryError("m"), rt.errors.ResourceExhaustedError),
        (NotImplementedError("n"), rt.errors.UnimplementedError),
        (KeyError("k"), rt.errors.UnknownError),
        (RuntimeError("r"), rt.errors.UnknownError),
    ],
    ids=lambda v: type(v).__name__ if isinstance(v, BaseException) else v.__name__,
)
def test_each_exception_is_tensorflows_error_eagerly_and_in_a_graph(raised, expected):
    fails = _raises(raised)
    with pytest.raises(expected, match=type(raised).__name__):
        rt.py_function(fails, [1.0], rt.float32)
    traced = ag.function(lambda t: rt.py_function(fails, [t], rt.float32))
    with pytest.raises(expected, match=type(raised).__name__):
        traced(rt.constant(1.0))
