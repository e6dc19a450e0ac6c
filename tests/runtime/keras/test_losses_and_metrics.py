"""Losses and metrics against numpy written from Keras' documented formulas."""

from __future__ import annotations

import numpy as np
import pytest

import autograph as ag
import runtime as rt

keras = rt.keras
EPS = 1e-7
RNG = np.random.default_rng(5)
PROBS = RNG.dirichlet(np.ones(4), size=6).astype(np.float32)
PROBS[0] = [1.0, 0.0, 0.0, 0.0]  # a zero probability: clipped before its logarithm
LOGITS = RNG.normal(size=(6, 4)).astype(np.float32) * 3
LABELS = np.array([0, 1, 3, 2, 1, 0])
ONE_HOT = np.eye(4, dtype=np.float32)[LABELS]


def _log_softmax(x):
    x = x.astype(np.float64)
    shifted = x - x.max(axis=-1, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(axis=-1, keepdims=True))


def _reference(name, y_true, y_pred):
    """Each example's loss, in float64, as Keras' documentation defines it."""
    y_true, p = np.asarray(y_true, np.float64), np.asarray(y_pred, np.float64)
    clipped = np.clip(p, EPS, 1 - EPS)
    if name == "mse":
        return ((y_true - p) ** 2).mean(axis=-1)
    if name == "mae":
        return np.abs(y_true - p).mean(axis=-1)
    if name == "binary":  # clipped in float32 as Keras clips: 1 - (1 - 1e-7) rounds there
        c = np.clip(np.float32(y_pred), np.float32(EPS), np.float32(1 - EPS)).astype(np.float64)
        return -(y_true * np.log(c) + (1 - y_true) * np.log(1 - c)).mean(axis=-1)
    if name == "binary_logits":  # -[y log s(x) + (1 - y) log(1 - s(x))], computed stably
        return (np.maximum(p, 0) - p * y_true + np.log1p(np.exp(-np.abs(p)))).mean(axis=-1)
    if name == "categorical":
        normalised = np.clip(p / p.sum(axis=-1, keepdims=True), EPS, 1 - EPS)
        return -(y_true * np.log(normalised)).sum(axis=-1)
    if name == "categorical_logits":
        return -(y_true * _log_softmax(p)).sum(axis=-1)
    if name == "sparse":
        logp = _log_softmax(np.log(clipped))
        return -logp[np.arange(len(p)), y_true.astype(int)]
    if name == "sparse_logits":
        return -_log_softmax(p)[np.arange(len(p)), y_true.astype(int)]
    raise KeyError(name)


TARGETS = RNG.uniform(size=(6, 4)).round().astype(np.float32)
CASES = [
    ("mse", keras.losses.MeanSquaredError(), TARGETS, LOGITS),
    ("mae", keras.losses.MeanAbsoluteError(), TARGETS, LOGITS),
    ("binary", keras.losses.BinaryCrossentropy(), TARGETS, PROBS),
    ("binary_logits", keras.losses.BinaryCrossentropy(from_logits=True), TARGETS, LOGITS),
    ("categorical", keras.losses.CategoricalCrossentropy(), ONE_HOT, PROBS),
    ("categorical_logits", keras.losses.CategoricalCrossentropy(from_logits=True), ONE_HOT, LOGITS),
    ("sparse", keras.losses.SparseCategoricalCrossentropy(), LABELS, PROBS),
    ("sparse_logits", keras.losses.SparseCategoricalCrossentropy(from_logits=True), LABELS, LOGITS),
]


@pytest.mark.parametrize(("name", "loss", "y_true", "y_pred"), CASES, ids=[c[0] for c in CASES])
def test_each_loss_is_the_batch_mean_of_the_numpy_formula(name, loss, y_true, y_pred):
    expected = _reference(name, y_true, y_pred)
    np.testing.assert_allclose(loss.call(y_true, y_pred).numpy(), expected, rtol=2e-5, atol=1e-6)
    np.testing.assert_allclose(loss(y_true, y_pred).numpy(), expected.mean(), rtol=2e-5)
    in_graph = ag.function(lambda t, p: loss(t, p))
    np.testing.assert_allclose(in_graph(y_true, y_pred).numpy(), expected.mean(), rtol=2e-5)


def test_losses_by_name():
    for name, cls in [
        ("mse", keras.losses.MeanSquaredError),
        ("mae", keras.losses.MeanAbsoluteError),
        ("binary_crossentropy", keras.losses.BinaryCrossentropy),
        ("categorical_crossentropy", keras.losses.CategoricalCrossentropy),
        ("sparse_categorical_crossentropy", keras.losses.SparseCategoricalCrossentropy),
    ]:
        assert type(keras.losses.get(name)) is cls
    assert type(keras.losses.get("hinge")) is keras.losses.Hinge
    with pytest.raises(ValueError, match="Unknown loss function: 'hinj'"):
        keras.losses.get("hinj")


def test_a_loss_function_is_wrapped_to_take_the_batch_mean():
    def absolute_cubed(y_true, y_pred):
        return rt.reduce_mean(rt.abs(y_true - y_pred) ** 3, axis=-1)

    loss = keras.losses.get(absolute_cubed)
    expected = (np.abs(TARGETS - LOGITS).astype(np.float64) ** 3).mean()
    np.testing.assert_allclose(loss(TARGETS, LOGITS).numpy(), expected, rtol=1e-5)
    assert loss.name == "absolute_cubed"


def test_labels_of_shape_n_meet_predictions_of_shape_n_by_1():
    y_true, y_pred = np.array([1.0, 0.0, 2.0]), np.array([[0.5], [0.5], [1.0]], np.float32)
    np.testing.assert_allclose(keras.losses.MeanSquaredError()(y_true, y_pred).numpy(), 0.5)
    sparse = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    np.testing.assert_allclose(
        sparse(LABELS[:, None], LOGITS).numpy(),
        _reference("sparse_logits", LABELS, LOGITS).mean(),
        rtol=1e-6,  # float32 against a float64 reference: a few roundings apart
    )


def test_sample_weights_weigh_each_example():
    weights = np.array([1.0, 0.0, 2.0, 1.0, 0.0, 1.0], np.float32)
    per_example = _reference("mse", TARGETS, LOGITS)
    got = keras.losses.MeanSquaredError()(TARGETS, LOGITS, sample_weight=weights).numpy()
    np.testing.assert_allclose(got, (per_example * weights).sum() / 6, rtol=1e-5)


def test_the_sparse_loss_gradient_is_softmax_minus_one_hot_over_the_batch():
    logits = rt.constant(LOGITS)
    loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    with rt.GradientTape() as tape:
        tape.watch(logits)
        loss = loss_fn(LABELS, logits)
    expected = (np.exp(_log_softmax(LOGITS)) - ONE_HOT) / len(LABELS)
    np.testing.assert_allclose(tape.gradient(loss, logits).numpy(), expected, rtol=1e-6, atol=1e-7)


# --- metrics -----------------------------------------------------------------------------------


def test_accuracy_is_resolved_from_the_shapes_as_keras_does():
    from runtime.keras.models.compile_utils import check_metric_names, get_metric

    def resolved(y_true, y_pred, name="accuracy"):
        metric = get_metric(name, rt.constant(y_true), rt.constant(y_pred))
        return type(metric).__name__, metric.name

    assert resolved(LABELS, LOGITS) == ("SparseCategoricalAccuracy", "accuracy")
    assert resolved(ONE_HOT, LOGITS, "acc") == ("CategoricalAccuracy", "acc")
    assert resolved(PROBS[:, :1], PROBS[:, :1]) == ("BinaryAccuracy", "accuracy")
    assert resolved(LABELS[:, None], LOGITS) == ("SparseCategoricalAccuracy", "accuracy")
    with pytest.raises(ValueError, match="Unknown metric function: 'f1'"):
        check_metric_names(["f1"])


def test_metric_values_against_numpy():
    m = keras.metrics
    np.testing.assert_array_equal(
        m.sparse_categorical_accuracy(LABELS, LOGITS).numpy(), LOGITS.argmax(-1) == LABELS
    )
    np.testing.assert_array_equal(
        m.categorical_accuracy(ONE_HOT, PROBS).numpy(), PROBS.argmax(-1) == LABELS
    )
    expected_binary = ((PROBS > 0.5) == TARGETS).astype(np.float32)  # Keras 3: per element
    np.testing.assert_allclose(m.binary_accuracy(TARGETS, PROBS).numpy(), expected_binary)
    np.testing.assert_allclose(
        m.mae(TARGETS, LOGITS).numpy(), np.abs(TARGETS - LOGITS).mean(-1), rtol=1e-6
    )
    np.testing.assert_allclose(
        m.mse(TARGETS, LOGITS).numpy(), ((TARGETS - LOGITS) ** 2).mean(-1), rtol=1e-6
    )


def test_a_loss_class_given_for_an_instance_is_refused_at_compile():
    model = rt.keras.Sequential([rt.keras.layers.Dense(1, input_shape=(2,))])
    with pytest.raises(
        TypeError, match=r"MeanSquaredError is a class: pass an instance, MeanSquaredError\(\)"
    ):
        model.compile(optimizer="sgd", loss=rt.keras.losses.MeanSquaredError)
    with pytest.raises(TypeError, match=r"pass an instance, SGD\(\)"):
        model.compile(optimizer=rt.keras.optimizers.SGD, loss="mse")
