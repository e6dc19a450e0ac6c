"""Keras 3 names users reach for: the hinge metrics, metrics of integer predictions, and
``keras.ops`` statistics, norms, splitting and repeating, against numpy and Keras' documented
values."""

from __future__ import annotations

import numpy as np
import pytest

import autograph as ag
import runtime as rt

M, ops = rt.keras.metrics, rt.keras.ops
EPS = 1e-7
X = np.array([[1.0, -2.0, 3.0], [0.5, 4.0, -1.0]], np.float32)


# --- metrics ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "metric, expected",  # the examples of Keras 3's docstrings
    [(M.Hinge, 1.3), (M.SquaredHinge, 1.86), (M.CategoricalHinge, 1.4)],
)
def test_hinge_metrics_as_keras_documents(metric, expected):
    m = metric()
    m.update_state([[0, 1], [0, 0]], [[0.6, 0.4], [0.4, 0.6]])
    np.testing.assert_allclose(float(m.result()), expected, rtol=1e-6)
    assert metric.from_config(m.get_config()).name == m.name


@pytest.mark.parametrize("name", ["hinge", "squared_hinge", "categorical_hinge", "f1_score"])
def test_new_metrics_by_name(name):
    assert M.get(name).name == name


def test_integer_predictions_are_computed_as_floats():
    y_true, y_pred = np.array([[0, 1], [0, 0]]), np.array([[1, 1], [0, 0]])
    np.testing.assert_allclose(float(M.Poisson()(y_true, y_pred)), 0.49999997, rtol=1e-6)
    t, p = np.clip(y_true, EPS, 1), np.clip(y_pred, EPS, 1)
    np.testing.assert_allclose(float(M.KLDivergence()(y_true, y_pred)),
                               np.mean(np.sum(t * np.log(t / p), -1)), rtol=1e-4, atol=1e-9)  # fmt: skip
    p = np.clip(y_pred.astype(np.float32), EPS, np.float32(1 - EPS))  # in float32, as computed
    bce = -np.mean(y_true * np.log(p) + (1 - y_true) * np.log(1 - p), -1)
    np.testing.assert_allclose(float(M.BinaryCrossentropy()(y_true, y_pred)), bce.mean(), rtol=1e-4)
    y_true, y_pred = np.array([[0, 1, 0], [0, 0, 1]]), np.array([[0, 2, 1], [1, 1, 2]])
    p = np.clip(y_pred / y_pred.sum(-1, keepdims=True), EPS, 1 - EPS)
    cce = -np.sum(y_true * np.log(p), -1)
    np.testing.assert_allclose(float(M.CategoricalCrossentropy()(y_true, y_pred)), cce.mean(),
                               rtol=1e-5)  # fmt: skip


def test_probabilistic_metric_functions_are_the_losses():
    assert M.kl_divergence is rt.keras.losses.kl_divergence
    assert M.poisson is rt.keras.losses.poisson


# --- ops ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "got, expected",
    [
        (lambda: ops.logsumexp(X, axis=1), np.log(np.exp(X).sum(1))),
        (lambda: ops.logsumexp(X), np.log(np.exp(X).sum())),
        (
            lambda: ops.logsumexp(X * 1000.0, axis=0, keepdims=True),  # no overflow
            np.max(X * 1000.0, 0, keepdims=True),
        ),  # fmt: skip
        (lambda: ops.std(X), X.std()),
        (lambda: ops.std(X, axis=1, keepdims=True), X.std(1, keepdims=True)),
        (lambda: ops.var(X, axis=0), X.var(0)),
        (lambda: ops.var([1, 2, 3, 4]), np.var([1, 2, 3, 4])),
        (lambda: ops.moments(X, axes=[0])[0], X.mean(0)),
        (lambda: ops.moments(X, axes=[0])[1], X.var(0)),
        (lambda: ops.norm(X), np.linalg.norm(X)),
        (lambda: ops.norm(X, axis=1), np.linalg.norm(X, axis=1)),
        (lambda: ops.norm(X, ord=1, axis=1), np.linalg.norm(X, ord=1, axis=1)),
        (lambda: ops.norm(X, ord=np.inf, axis=0), np.linalg.norm(X, ord=np.inf, axis=0)),
        (lambda: ops.norm(X, ord=-np.inf, axis=0), np.linalg.norm(X, ord=-np.inf, axis=0)),
        (
            lambda: ops.norm(X, ord=3, axis=1, keepdims=True),
            np.linalg.norm(X, ord=3, axis=1, keepdims=True),
        ),  # fmt: skip
        (lambda: ops.norm(X, ord=0, axis=1), np.linalg.norm(X, ord=0, axis=1)),
        (lambda: ops.norm(X, ord="fro", axis=(0, 1)), np.linalg.norm(X, ord="fro", axis=(0, 1))),
        (lambda: ops.repeat(X, 2, axis=0), np.repeat(X, 2, 0)),
        (lambda: ops.repeat(X, [1, 0, 2], axis=1), np.repeat(X, [1, 0, 2], 1)),
        (lambda: ops.repeat(X, 2), np.repeat(X, 2)),
        (lambda: ops.linspace(0, 1, 5), np.linspace(0, 1, 5)),
        (
            lambda: ops.linspace(2.0, 3.0, 4, endpoint=False),
            np.linspace(2.0, 3.0, 4, endpoint=False),
        ),
        (lambda: ops.linspace(0, 1, 5, retstep=True)[1], np.linspace(0, 1, 5, retstep=True)[1]),
    ],
)
def test_ops_match_numpy(got, expected):
    np.testing.assert_allclose(np.asarray(got()), expected, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("sections", [3, [1, 2], [0, 5], [2, 1]])
def test_split_matches_numpy(sections):
    x = np.arange(12, dtype=np.float32).reshape(2, 6)[:, :3] if sections == 3 else np.arange(3.0)
    expected = np.split(x, sections, axis=-1)
    got = ops.split(x, sections, axis=-1)
    assert [t.numpy().tolist() for t in got] == [e.tolist() for e in expected]


def test_split_of_an_unequal_division_is_numpys_error():
    with pytest.raises(ValueError, match="array split does not result in an equal division"):
        ops.split(np.arange(5.0), 2)


def test_statistics_inside_a_function_and_their_gradients():
    @ag.function
    def f(x):
        return ops.logsumexp(x, axis=1), ops.std(x, axis=1)

    lse, std = f(rt.constant(X))
    np.testing.assert_allclose(lse.numpy(), np.log(np.exp(X).sum(1)), rtol=1e-5)
    np.testing.assert_allclose(std.numpy(), X.std(1), rtol=1e-5)
    x = rt.Variable(X)
    with rt.GradientTape() as tape:
        total = rt.reduce_sum(ops.logsumexp(x, axis=1))
    softmax = np.exp(X) / np.exp(X).sum(1, keepdims=True)  # d logsumexp / dx
    np.testing.assert_allclose(tape.gradient(total, x).numpy(), softmax, rtol=1e-5)
