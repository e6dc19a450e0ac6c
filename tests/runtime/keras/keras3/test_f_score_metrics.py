"""Keras 3's f_score_metrics_test (keras/src/metrics/f_score_metrics_test.py), ported: the
same inputs and expected values, ``rt.keras.metrics.FBetaScore``/``F1Score``. 97 cases
(parametrized), all pass."""

from __future__ import annotations

import re

import numpy as np
import pytest

import autograph as ag
import runtime as rt

FBetaScore, F1Score = rt.keras.metrics.FBetaScore, rt.keras.metrics.F1Score


def run_test(y_true, y_pred, sample_weights, average, beta, threshold, reference_result):
    fbeta = FBetaScore(average, beta, threshold, dtype="float32")
    fbeta.update_state(y_true, y_pred, sample_weights)
    np.testing.assert_allclose(fbeta.result().numpy(), reference_result, atol=1e-6)


def test_config():
    fbeta_obj = FBetaScore(beta=0.5, threshold=0.3, average=None, dtype="float32")
    assert (fbeta_obj.beta, fbeta_obj.average, fbeta_obj.threshold, fbeta_obj.dtype) == (
        0.5, None, 0.3, "float32")  # fmt: skip
    fbeta_obj2 = FBetaScore.from_config(fbeta_obj.get_config())
    assert (fbeta_obj2.beta, fbeta_obj2.average, fbeta_obj2.threshold, fbeta_obj2.dtype) == (
        0.5, None, 0.3, "float32")  # fmt: skip


@pytest.mark.parametrize(
    "average,beta",
    [
        ("micro", 0.5),
        ("micro", 1.0),
        ("micro", 2.0),
        ("macro", 0.5),
        ("macro", 1.0),
        ("macro", 2.0),
        ("weighted", 0.5),
        ("weighted", 1.0),
        ("weighted", 2.0),
    ],
)
def test_fbeta_perfect_score(average, beta):
    y_true = [[1, 1, 1], [1, 0, 0], [1, 1, 0]]
    y_pred = [[0.7, 0.7, 0.7], [1, 0, 0], [0.9, 0.8, 0]]
    run_test(y_true, y_pred, None, average=average, beta=beta, threshold=0.66, reference_result=1.0)


@pytest.mark.parametrize(
    "average,beta",
    [
        ("micro", 0.5),
        ("micro", 1.0),
        ("micro", 2.0),
        ("macro", 0.5),
        ("macro", 1.0),
        ("macro", 2.0),
        ("weighted", 0.5),
        ("weighted", 1.0),
        ("weighted", 2.0),
    ],
)
def test_fbeta_worst_score(average, beta):
    y_true = [[0, 0, 0], [0, 1, 0], [0, 0, 1]]
    y_pred = [[0.7, 0.7, 0.7], [1, 0, 0], [0.9, 0.8, 0]]
    run_test(y_true, y_pred, None, average=average, beta=beta, threshold=0.66, reference_result=0.0)


@pytest.mark.parametrize(
    "average,beta,result",
    [
        (None, 0.5, [0.71428573, 0.5, 0.833334]),
        (None, 1.0, [0.8, 0.5, 0.6666667]),
        (None, 2.0, [0.9090904, 0.5, 0.555556]),
        ("micro", 0.5, 0.6666667),
        ("micro", 1.0, 0.6666667),
        ("micro", 2.0, 0.6666667),
        ("macro", 0.5, 0.6825397),
        ("macro", 1.0, 0.6555555),
        ("macro", 2.0, 0.6548822),
        ("weighted", 0.5, 0.6825397),
        ("weighted", 1.0, 0.6555555),
        ("weighted", 2.0, 0.6548822),
    ],
)
def test_fbeta_random_score(average, beta, result):
    y_pred = [[0.7, 0.7, 0.7], [1, 0, 0], [0.9, 0.8, 0]]
    y_true = [[0, 0, 1], [1, 1, 0], [1, 1, 1]]
    run_test(y_true, y_pred, None, average=average, beta=beta, threshold=0.66,
             reference_result=result)  # fmt: skip


Y_TRUE = [[1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 0, 0], [1, 0, 0], [0, 0, 1]]
Y_PRED = [[0.9, 0.1, 0], [0.2, 0.6, 0.2], [0, 0, 1], [0.4, 0.3, 0.3], [0, 0.9, 0.1], [0, 0, 1]]


@pytest.mark.parametrize(
    "average,beta,result",
    [
        (None, 0.5, [0.9090904, 0.555556, 1.0]),
        (None, 1.0, [0.8, 0.6666667, 1.0]),
        (None, 2.0, [0.71428573, 0.833334, 1.0]),
        ("micro", 0.5, 0.833334),
        ("micro", 1.0, 0.833334),
        ("micro", 2.0, 0.833334),
        ("macro", 0.5, 0.821549),
        ("macro", 1.0, 0.822222),
        ("macro", 2.0, 0.849206),
        ("weighted", 0.5, 0.880471),
        ("weighted", 1.0, 0.844445),
        ("weighted", 2.0, 0.829365),
    ],
)
def test_fbeta_random_score_none(average, beta, result):
    run_test(Y_TRUE, Y_PRED, None, average=average, beta=beta, threshold=None,
             reference_result=result)  # fmt: skip


@pytest.mark.parametrize(
    "average,beta,sample_weights,result",
    [
        (None, 0.5, [1.0, 1.0, 1.0, 1.0, 1.0, 1.0], [0.909091, 0.555556, 1.0]),
        (None, 0.5, [1.0, 0.0, 1.0, 1.0, 0.0, 1.0], [1.0, 0.0, 1.0]),
        (None, 0.5, [0.5, 1.0, 1.0, 1.0, 0.5, 1.0], [0.9375, 0.714286, 1.0]),
        (None, 1.0, [1.0, 1.0, 1.0, 1.0, 1.0, 1.0], [0.8, 0.666667, 1.0]),
        (None, 1.0, [1.0, 0.0, 1.0, 1.0, 0.0, 1.0], [1.0, 0.0, 1.0]),
        (None, 1.0, [0.5, 1.0, 1.0, 1.0, 0.5, 1.0], [0.857143, 0.8, 1.0]),
        (None, 2.0, [1.0, 1.0, 1.0, 1.0, 1.0, 1.0], [0.714286, 0.833333, 1.0]),
        (None, 2.0, [1.0, 0.0, 1.0, 1.0, 0.0, 1.0], [1.0, 0.0, 1.0]),
        (None, 2.0, [0.5, 1.0, 1.0, 1.0, 0.5, 1.0], [0.789474, 0.909091, 1.0]),
        ("micro", 0.5, [1.0, 1.0, 1.0, 1.0, 1.0, 1.0], 0.833333),
        ("micro", 0.5, [1.0, 0.0, 1.0, 1.0, 0.0, 1.0], 1.0),
        ("micro", 0.5, [0.5, 1.0, 1.0, 1.0, 0.5, 1.0], 0.9),
        ("micro", 1.0, [1.0, 1.0, 1.0, 1.0, 1.0, 1.0], 0.833333),
        ("micro", 1.0, [1.0, 0.0, 1.0, 1.0, 0.0, 1.0], 1.0),
        ("micro", 1.0, [0.5, 1.0, 1.0, 1.0, 0.5, 1.0], 0.9),
        ("micro", 2.0, [1.0, 1.0, 1.0, 1.0, 1.0, 1.0], 0.833333),
        ("micro", 2.0, [1.0, 0.0, 1.0, 1.0, 0.0, 1.0], 1.0),
        ("micro", 2.0, [0.5, 1.0, 1.0, 1.0, 0.5, 1.0], 0.9),
        ("macro", 0.5, [1.0, 1.0, 1.0, 1.0, 1.0, 1.0], 0.821549),
        ("macro", 0.5, [1.0, 0.0, 1.0, 1.0, 0.0, 1.0], 0.666667),
        ("macro", 0.5, [0.5, 1.0, 1.0, 1.0, 0.5, 1.0], 0.883929),
        ("macro", 1.0, [1.0, 1.0, 1.0, 1.0, 1.0, 1.0], 0.822222),
        ("macro", 1.0, [1.0, 0.0, 1.0, 1.0, 0.0, 1.0], 0.666667),
        ("macro", 1.0, [0.5, 1.0, 1.0, 1.0, 0.5, 1.0], 0.885714),
        ("macro", 2.0, [1.0, 1.0, 1.0, 1.0, 1.0, 1.0], 0.849206),
        ("macro", 2.0, [1.0, 0.0, 1.0, 1.0, 0.0, 1.0], 0.666667),
        ("macro", 2.0, [0.5, 1.0, 1.0, 1.0, 0.5, 1.0], 0.899522),
        ("weighted", 0.5, [1.0, 1.0, 1.0, 1.0, 1.0, 1.0], 0.880471),
        ("weighted", 0.5, [1.0, 0.0, 1.0, 1.0, 0.0, 1.0], 1.0),
        ("weighted", 0.5, [0.5, 1.0, 1.0, 1.0, 0.5, 1.0], 0.917857),
        ("weighted", 1.0, [1.0, 1.0, 1.0, 1.0, 1.0, 1.0], 0.844444),
        ("weighted", 1.0, [1.0, 0.0, 1.0, 1.0, 0.0, 1.0], 1.0),
        ("weighted", 1.0, [0.5, 1.0, 1.0, 1.0, 0.5, 1.0], 0.902857),
        ("weighted", 2.0, [1.0, 1.0, 1.0, 1.0, 1.0, 1.0], 0.829365),
        ("weighted", 2.0, [1.0, 0.0, 1.0, 1.0, 0.0, 1.0], 1.0),
        ("weighted", 2.0, [0.5, 1.0, 1.0, 1.0, 0.5, 1.0], 0.897608),
    ],
)
def test_fbeta_weighted_random_score_none(average, beta, sample_weights, result):
    run_test(Y_TRUE, Y_PRED, sample_weights, average=average, beta=beta, threshold=None,
             reference_result=result)  # fmt: skip


def test_invalid_average_raises_value_error():
    expected_message = (
        "Invalid `average` argument value. Expected one of: "
        r"\{None, 'micro', 'macro', 'weighted'\}. "
        "Received: average=invalid_average"
    )
    with pytest.raises(ValueError, match=expected_message):
        FBetaScore(average="invalid_average", beta=1.0, threshold=None, dtype="float32")


@pytest.mark.parametrize("beta", [1, "1.0", None])
def test_beta_not_a_float_raises_value_error(beta):
    with pytest.raises(
        ValueError, match="Invalid `beta` argument value. It should be a Python float."
    ):
        FBetaScore(average="macro", beta=beta, threshold=None, dtype="float32")


@pytest.mark.parametrize("beta", [0.0, -1.0, -0.5])
def test_beta_not_positive_raises_value_error(beta):
    with pytest.raises(
        ValueError, match=f"Invalid `beta` argument value. It should be > 0. Received: beta={beta}"
    ):
        FBetaScore(average="macro", beta=beta, threshold=None, dtype="float32")


def test_fbeta_scalar_weight():
    metric = FBetaScore(threshold=0.5)
    y_true = np.array([[1, 1], [1, 0]], np.int32)
    y_pred = np.array([[0.2, 0.6], [0.2, 0.6]], np.float32)
    metric.update_state(y_true, y_pred, sample_weight=0.5)
    np.testing.assert_allclose(metric.result().numpy(), [0.0, 0.6666665], atol=1e-5)


def test_fbeta_2d_weight():
    metric = FBetaScore(threshold=0.5)
    y_true = np.array([[1, 1], [1, 0]], np.int32)
    y_pred = np.array([[0.2, 0.6], [0.2, 0.6]], np.float32)
    sample_weight = np.array([[0.5, 0.2], [0.3, 0.8]], np.float32)
    metric.update_state(y_true, y_pred, sample_weight=sample_weight)
    np.testing.assert_allclose(metric.result().numpy(), [0.0, 0.333333], atol=1e-5)


@pytest.mark.parametrize(
    "threshold, message",
    [
        (1, "It should be a Python float. Received: threshold=1 of type '<class 'int'>'"),
        ("0.5", "It should be a Python float. Received: threshold=0.5 of type '<class 'str'>'"),
        (1.1, "It should verify 0 < threshold <= 1. Received: threshold=1.1"),
        (0.0, "It should verify 0 < threshold <= 1. Received: threshold=0.0"),
        (-0.5, "It should verify 0 < threshold <= 1. Received: threshold=-0.5"),
    ],
)
def test_invalid_threshold_raises_value_error(threshold, message):
    with pytest.raises(
        ValueError, match=re.escape("Invalid `threshold` argument value. " + message)
    ):
        FBetaScore(average="macro", beta=1.0, threshold=threshold, dtype="float32")


def test_non_2d_input_shapes_raises_value_error():
    expected = (
        r"FBetaScore expects 2D inputs with shape \(batch_size, output_dim\)\. Received input "
        r"shapes: y_pred\.shape=\(2, 3, 4\) and y_true\.shape=\(2, 3, 4\)\."
    )
    with pytest.raises(ValueError, match=expected):
        FBetaScore(beta=1.0, dtype="float32").update_state(np.ones((2, 3, 4)), np.ones((2, 3, 4)))


def test_undefined_output_dim_raises_value_error():
    expected = (
        r"FBetaScore expects 2D inputs with shape \(batch_size, output_dim\), with output_dim "
        r"fully defined \(not None\)\. Received input shapes: y_pred\.shape=\(None, None\) and "
        r"y_true\.shape=\(None, None\)\."
    )
    fbeta = FBetaScore(beta=1.0, dtype="float32")
    spec = rt.TensorSpec([None, None], rt.float32)
    with pytest.raises(ValueError, match=expected):
        ag.function(fbeta.update_state, input_signature=[spec, spec]).get_concrete_function()


def test_f1_config():
    config = F1Score(dtype="float32").get_config()
    assert "beta" not in config
    f1_obj = F1Score.from_config(config)
    assert f1_obj.average is None and f1_obj.dtype == "float32"


def test_f1_correctness():
    f1, fbeta = F1Score(), FBetaScore(beta=1.0)
    fbeta.update_state(np.array(Y_TRUE), np.array(Y_PRED))
    f1.update_state(np.array(Y_TRUE), np.array(Y_PRED))
    np.testing.assert_allclose(fbeta.result().numpy(), f1.result().numpy(), atol=1e-6)
