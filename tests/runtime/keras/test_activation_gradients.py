"""Every activation of ``rt.keras.activations`` differentiates as its formula does (checked
against central differences in float64), eagerly and inside ``ag.function``."""

import numpy as np
import pytest

import autograph as ag
import runtime as rt
from runtime.keras import activations

# Points away from the kinks (0, +-0.5, +-1, +-3) where the one-sided slopes differ.
X = np.array([[-3.7, -1.6, -0.8, -0.3, 0.2, 0.7, 1.3, 2.2, 3.4, 4.1]], np.float64)

ELEMENTWISE = [
    name
    for name in sorted(activations._BY_NAME)
    if name not in ("softmax", "log_softmax", "glu", "sparsemax", "threshold")
]


def numeric_gradient(f, x, eps=1e-6):
    """d sum(f(x)) / dx by central differences, f computed in numpy through rt."""
    grad = np.zeros_like(x)
    for index in np.ndindex(x.shape):
        up, down = x.copy(), x.copy()
        up[index] += eps
        down[index] -= eps
        grad[index] = (np.sum(np.asarray(f(up))) - np.sum(np.asarray(f(down)))) / (2 * eps)
    return grad


def tape_gradient(f, x):
    x = rt.constant(x)
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = rt.reduce_sum(f(x))
    return tape.gradient(y, x).numpy()


CASES = [(name, activations.get(name)) for name in ELEMENTWISE] + [
    ("softmax_axis_tuple", lambda x: activations.softmax(x, axis=(0, 1)) * np.arange(10.0)),
    ("log_softmax", lambda x: activations.log_softmax(x) * np.arange(10.0)),
    ("glu", activations.glu),
    ("threshold", lambda x: activations.threshold(x, 0.5, -2.0)),
    ("relu_all", lambda x: activations.relu(x, negative_slope=0.3, max_value=3.0, threshold=0.5)),
    ("sparsemax", lambda x: activations.sparsemax(x / 4.0) * np.arange(10.0)),
]


@pytest.mark.parametrize("name,f", CASES, ids=[c[0] for c in CASES])
def test_gradient_matches_central_differences(name, f):
    expected = numeric_gradient(f, X)
    np.testing.assert_allclose(tape_gradient(f, X), expected, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name,f", CASES[:8], ids=[c[0] for c in CASES[:8]])
def test_staged_activation_computes_as_eager(name, f):
    x = rt.constant(X.astype(np.float32))
    np.testing.assert_allclose(ag.function(f)(x).numpy(), f(x).numpy(), rtol=1e-6)


def test_large_inputs_have_finite_gradients():
    """The branch a ``where`` drops never overflows: no NaN from ``0 * inf``."""
    for name in ("elu", "selu", "celu", "softplus", "mish", "log_sigmoid"):
        g = tape_gradient(activations.get(name), np.array([-1000.0, 1000.0]))
        assert np.all(np.isfinite(g)), name


def test_get_serialize_deserialize_by_keras_names():
    assert activations.get("swish") is activations.silu
    assert activations.get("hard_swish") is activations.hard_silu
    assert activations.serialize(activations.gelu) == "gelu"
    assert activations.deserialize("mish") is activations.mish
    assert activations.get({"class_name": "function", "config": "elu"}) is activations.elu
    with pytest.raises(ValueError, match="Could not interpret activation function identifier"):
        activations.get("swishy")


def _applied(f):
    def apply(x):
        return f(x)

    return apply


@pytest.mark.parametrize("name,f", CASES, ids=[c[0] for c in CASES])
def test_xla_compiled_activation_computes_as_eager(name, f):
    pytest.importorskip("jax")
    x = rt.constant(X)
    compiled = ag.function(_applied(f), jit_compile=True)
    np.testing.assert_allclose(compiled(x).numpy(), f(x).numpy(), rtol=2e-5, atol=1e-6)


SOFTPLUSES = {
    "rt.math.softplus": rt.math.softplus,
    "keras.activations.softplus": activations.softplus,
    "keras.ops.softplus": rt.keras.ops.softplus,
}


@pytest.mark.parametrize("softplus", SOFTPLUSES.values(), ids=SOFTPLUSES)
def test_every_softplus_is_log1p_exp_with_sigmoid_as_gradient(softplus):
    # float32: log(1 + exp(-20)) rounds to 0, log1p keeps 2.06e-9; at 0 the gradient is 0.5.
    x = rt.constant(np.array([-20.0, -1.0, 0.0, 1.0, 100.0], np.float32))
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = softplus(x)
    expected = np.log1p(np.exp(-np.abs(x.numpy().astype(np.float64)))) + np.maximum(x.numpy(), 0)
    np.testing.assert_allclose(y.numpy(), expected, rtol=1e-6)
    sigmoid = 1 / (1 + np.exp(-x.numpy().astype(np.float64)))
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), sigmoid, rtol=1e-6)
