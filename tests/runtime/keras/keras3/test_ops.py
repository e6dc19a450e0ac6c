"""``rt.keras.ops`` against numpy: Keras' names and arguments, numpy's answers (Keras'
``ops.numpy`` follows numpy), eagerly and inside a staged function."""

from __future__ import annotations

import numpy as np
import pytest

import autograph as ag
import runtime as rt

ops = rt.keras.ops
X = np.array([[1.0, -2.0, 3.0], [4.0, 5.0, -6.0]], np.float32)
Y = np.array([[0.5, 1.0, 2.0], [1.0, -1.0, 0.25]], np.float32)

CASES = [
    ("add", lambda m: m.add(X, Y), np.add(X, Y)),
    ("multiply", lambda m: m.multiply(X, Y), X * Y),
    ("matmul", lambda m: m.matmul(X, Y.T), X @ Y.T),
    ("mean", lambda m: m.mean(X, axis=1), X.mean(axis=1)),
    ("mean of ints", lambda m: m.mean(np.array([1, 2]), axis=None), np.float32(1.5)),
    ("sum keepdims", lambda m: m.sum(X, axis=0, keepdims=True), X.sum(axis=0, keepdims=True)),
    ("max", lambda m: m.max(X), X.max()),
    ("min", lambda m: m.min(X, axis=1), X.min(axis=1)),
    ("exp", lambda m: m.exp(Y), np.exp(Y)),
    ("log", lambda m: m.log(np.abs(Y)), np.log(np.abs(Y))),
    ("sqrt", lambda m: m.sqrt(np.abs(X)), np.sqrt(np.abs(X))),
    ("square", lambda m: m.square(X), np.square(X)),
    ("abs", lambda m: m.abs(X), np.abs(X)),
    ("relu", lambda m: m.relu(X), np.maximum(X, 0)),
    ("sigmoid", lambda m: m.sigmoid(Y), 1 / (1 + np.exp(-Y))),
    ("softmax", lambda m: m.softmax(X), np.exp(X) / np.exp(X).sum(-1, keepdims=True)),
    (
        "log_softmax",
        lambda m: m.log_softmax(X, axis=0),
        X - np.log(np.exp(X).sum(0, keepdims=True)),
    ),
    ("softplus", lambda m: m.softplus(X * 30), np.logaddexp(0, X * 30)),
    ("reshape", lambda m: m.reshape(X, (3, 2)), X.reshape(3, 2)),
    ("transpose", lambda m: m.transpose(X), X.T),
    ("concatenate", lambda m: m.concatenate([X, Y], axis=1), np.concatenate([X, Y], axis=1)),
    ("stack", lambda m: m.stack([X, Y], axis=1), np.stack([X, Y], axis=1)),
    ("expand_dims", lambda m: m.expand_dims(X, 1), np.expand_dims(X, 1)),
    ("squeeze", lambda m: m.squeeze(X[:, None, :]), X),
    ("cast", lambda m: m.cast(X, "int32"), X.astype(np.int32)),
    ("where", lambda m: m.where(X > 0, X, Y), np.where(X > 0, X, Y)),
    ("argmax flattened", lambda m: m.argmax(X), np.argmax(X)),
    ("argmax axis", lambda m: m.argmax(X, axis=1), np.argmax(X, axis=1)),
    ("argmin keepdims", lambda m: m.argmin(X, axis=0, keepdims=True), np.argmin(X, 0)[None]),
    ("one_hot", lambda m: m.one_hot(np.array([2, 0]), 3), np.eye(3)[[2, 0]]),
    ("clip", lambda m: m.clip(X, -1.0, 2.0), np.clip(X, -1, 2)),
    ("power", lambda m: m.power(np.abs(X), 1.5), np.abs(X) ** 1.5),
    ("take", lambda m: m.take(X, np.array([1, 4])), X.reshape(-1)[[1, 4]]),
    ("cumsum", lambda m: m.cumsum(X, axis=1), np.cumsum(X, axis=1)),
    ("arange", lambda m: m.arange(2, 9, 3), np.arange(2, 9, 3)),
    ("full", lambda m: m.full((2, 2), 7.0), np.full((2, 2), 7.0)),
    ("zeros_like", lambda m: m.zeros_like(X), np.zeros_like(X)),
    ("eye", lambda m: m.eye(3), np.eye(3)),
]


@pytest.mark.parametrize(("name", "call", "expected"), CASES, ids=[c[0] for c in CASES])
def test_against_numpy(name, call, expected):
    result = call(ops)
    assert ops.is_tensor(result)
    np.testing.assert_allclose(ops.convert_to_numpy(result), expected, rtol=1e-5, atol=1e-6)
    if name in ("arange", "full", "eye"):
        return
    staged = ag.function(lambda: call(ops))
    np.testing.assert_allclose(staged().numpy(), expected, rtol=1e-5, atol=1e-6)


def test_argmax_is_int32_and_shape_a_tuple():
    assert ops.argmax(X).dtype == rt.int32
    assert ops.shape(X) == (2, 3)
    assert ops.zeros((2,)).dtype == rt.float32 and ops.ones((2,), dtype="int32").dtype == rt.int32


def test_gradients_flow_through():
    w = rt.Variable(X)
    with rt.GradientTape() as tape:
        loss = ops.mean(ops.square(ops.relu(w)))
    np.testing.assert_allclose(
        tape.gradient(loss, w).numpy(), 2 * np.maximum(X, 0) / X.size, rtol=1e-6
    )
