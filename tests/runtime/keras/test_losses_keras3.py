"""Every loss of ``rt.keras.losses`` against Keras 3's documented formulas, written in numpy.

The reference below follows Keras 3 (``keras/src/losses/loss.py``, ``losses.py`` and the
TensorFlow backend's ``nn.py``): probabilities clipped to ``[1e-7, 1 - 1e-7]`` (in float32,
as Keras clips them) before their logarithm; ``y_true`` and ``y_pred`` brought to the same rank
by dropping or adding a trailing axis of size 1, and so are the losses and ``sample_weight``;
``"sum_over_batch_size"`` divides the weighted sum by the number of loss values. Literal values
come from Keras' own tests (``keras/src/losses/losses_test.py``) and docstrings.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import autograph as ag
import runtime as rt

losses = rt.keras.losses
EPS32 = np.float32(1e-7)

# --- the reference: Keras 3's formulas in numpy ------------------------------------------------


def same_rank(x1, x2):
    """Keras' ``squeeze_or_expand_to_same_rank``."""
    if x1.ndim == x2.ndim + 1 and x1.shape[-1] == 1:
        return (x1, x2[..., None]) if x2.ndim == 1 else (x1[..., 0], x2)
    if x2.ndim == x1.ndim + 1 and x2.shape[-1] == 1:
        return (x1[..., None], x2) if x1.ndim == 1 else (x1, x2[..., 0])
    return x1, x2


def clipped(p):
    """Clipped in float32, then widened: the logarithm is then exact to float64."""
    return np.clip(np.float32(p), EPS32, np.float32(1) - EPS32).astype(np.float64)


def log_softmax(x, axis=-1):
    x = np.asarray(x, np.float64)
    shifted = x - x.max(axis=axis, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(axis=axis, keepdims=True))


def ref_mse(t, p):
    return ((t - p) ** 2).mean(axis=-1)


def ref_mae(t, p):
    return np.abs(t - p).mean(axis=-1)


def ref_bce(t, p, from_logits=False, label_smoothing=0.0, axis=-1):
    if label_smoothing:
        t = t * (1 - label_smoothing) + 0.5 * label_smoothing
    if from_logits:  # -[t log sigmoid(x) + (1 - t) log(1 - sigmoid(x))], written stably
        each = np.maximum(p, 0) - p * t + np.log1p(np.exp(-np.abs(p)))
    else:
        c = clipped(p)
        each = -(t * np.log(c) + (1 - t) * np.log(1 - c))
    return each.mean(axis=axis)


def ref_cce(t, p, from_logits=False, label_smoothing=0.0, axis=-1):
    if label_smoothing:
        t = t * (1 - label_smoothing) + label_smoothing / t.shape[-1]
    if from_logits:
        return -(t * log_softmax(p, axis)).sum(axis=axis)
    normalised = np.float32(p) / np.float32(p).sum(axis=axis, keepdims=True)
    return -(t * np.log(clipped(normalised))).sum(axis=axis)


def ref_scce(t, p, from_logits=False, ignore_class=None):
    if t.ndim == p.ndim and t.shape[-1] == 1:
        t = t[..., 0]
    labels = t.astype(np.int64)
    valid = np.ones(labels.shape, bool) if ignore_class is None else labels != ignore_class
    labels = np.where(valid, labels, 0)
    logits = p if from_logits else np.log(clipped(p))
    logp = np.take_along_axis(log_softmax(logits), labels[..., None], axis=-1)[..., 0]
    return np.where(valid, -logp, 0.0), (None if ignore_class is None else valid)


def ref_reduce(values, sample_weight=None, mask=None, reduction="sum_over_batch_size"):
    """Keras' ``reduce_weighted_values``."""
    if mask is not None:
        mask = mask.astype(np.float64)
        if reduction in ("sum_over_batch_size", "mean"):
            mask = mask * (mask.size / mask.sum() if mask.sum() else 0.0)
        if sample_weight is not None:
            mask, sample_weight = same_rank(mask, np.asarray(sample_weight, np.float64))
            sample_weight = sample_weight * mask
        else:
            sample_weight = mask
    if sample_weight is not None:
        values, sample_weight = same_rank(values, np.asarray(sample_weight, np.float64))
        values = values * sample_weight
    if reduction in (None, "none") or values.shape in ((), (0,)):
        return values
    total = values.sum()
    if reduction == "sum":
        return total
    if reduction == "mean_with_sample_weight" and sample_weight is not None:
        return total / np.sum(sample_weight)
    return total / values.size


REFERENCES = {
    "MeanSquaredError": ref_mse,
    "MeanAbsoluteError": ref_mae,
    "BinaryCrossentropy": ref_bce,
    "CategoricalCrossentropy": ref_cce,
}


def reference(loss_class, y_true, y_pred, sample_weight=None, reduction="sum_over_batch_size",
              **options):  # fmt: skip
    """What Keras 3's ``loss_class(**options, reduction=...)(y_true, y_pred, sample_weight)``
    gives, in float64."""
    t, p = np.asarray(y_true, np.float64), np.asarray(y_pred, np.float32).astype(np.float64)
    mask = None
    if loss_class == "SparseCategoricalCrossentropy":
        values, mask = ref_scce(t, p, **options)
    else:
        values = REFERENCES[loss_class](*same_rank(t, p), **options)
    return ref_reduce(values, sample_weight, mask, reduction)


def ours(loss_class, y_true, y_pred, sample_weight=None, reduction="sum_over_batch_size",
         **options):  # fmt: skip
    loss = getattr(losses, loss_class)(reduction=reduction, **options)
    return loss(y_true, y_pred, sample_weight=sample_weight).numpy()


# --- the inputs ----------------------------------------------------------------------------------

RNG = np.random.default_rng(24)
N, C = 4, 3
LABELS = np.array([0, 2, 1, 2])
ONE_HOT = np.eye(C, dtype=np.float32)[LABELS]
BINARY = RNG.integers(0, 2, size=(N, C)).astype(np.float32)
PROBS = RNG.dirichlet(np.ones(C), size=N).astype(np.float32)
SATURATED = np.float32([[1, 0, 0], [0, 0, 1], [0, 1, 0], [1, 1, 0]])  # exact 0s and 1s
WRONG_AND_SURE = 1 - ONE_HOT  # every label predicted with probability 0
LOGITS = (RNG.normal(size=(N, C)) * 3).astype(np.float32)
HUGE_LOGITS = np.float32([[100, -100, -100], [-100, 100, 100], [100, 100, -100], [-50, 80, 0]])
REAL = RNG.normal(size=(N, C)).astype(np.float32)

WEIGHTS = {
    "none": None,
    "scalar": 2.3,
    "(N,)": np.float32([1.0, 0.0, 2.5, 0.5]),
    "(N,1)": np.float32([[1.2], [3.4], [0.0], [2.0]]),
}

# (loss class, options, y_true, y_pred): ordinary, saturated, zero and one-hot inputs.
INPUTS = {
    "mse": ("MeanSquaredError", {}, REAL, LOGITS),
    "mse_zero": ("MeanSquaredError", {}, REAL, REAL),
    "mae": ("MeanAbsoluteError", {}, REAL, LOGITS),
    "mae_labels_n_preds_n1": ("MeanAbsoluteError", {}, REAL[:, 0], LOGITS[:, :1]),
    "bce": ("BinaryCrossentropy", {}, BINARY, PROBS),
    "bce_saturated": ("BinaryCrossentropy", {}, BINARY, SATURATED),
    "bce_wrong_and_sure": ("BinaryCrossentropy", {}, ONE_HOT, WRONG_AND_SURE),
    "bce_logits": ("BinaryCrossentropy", {"from_logits": True}, BINARY, LOGITS),
    "bce_huge_logits": ("BinaryCrossentropy", {"from_logits": True}, BINARY, HUGE_LOGITS),
    "bce_smoothing": ("BinaryCrossentropy", {"label_smoothing": 0.2}, BINARY, SATURATED),
    "bce_logits_smoothing": (
        "BinaryCrossentropy",
        {"from_logits": True, "label_smoothing": 0.1},
        BINARY,
        LOGITS,
    ),  # fmt: skip
    "bce_labels_n_preds_n1": ("BinaryCrossentropy", {}, BINARY[:, 0], PROBS[:, :1]),
    "cce": ("CategoricalCrossentropy", {}, ONE_HOT, PROBS),
    "cce_unnormalised": ("CategoricalCrossentropy", {}, ONE_HOT, PROBS * 3),
    "cce_saturated": ("CategoricalCrossentropy", {}, ONE_HOT, ONE_HOT),
    "cce_wrong_and_sure": ("CategoricalCrossentropy", {}, ONE_HOT, WRONG_AND_SURE),
    "cce_logits": ("CategoricalCrossentropy", {"from_logits": True}, ONE_HOT, LOGITS),
    "cce_huge_logits": ("CategoricalCrossentropy", {"from_logits": True}, ONE_HOT, HUGE_LOGITS),
    "cce_smoothing": ("CategoricalCrossentropy", {"label_smoothing": 0.1}, ONE_HOT, PROBS),
    "cce_logits_smoothing": (
        "CategoricalCrossentropy",
        {"from_logits": True, "label_smoothing": 0.3},
        ONE_HOT,
        LOGITS,
    ),  # fmt: skip
    "scce": ("SparseCategoricalCrossentropy", {}, LABELS, PROBS),
    "scce_labels_n1": ("SparseCategoricalCrossentropy", {}, LABELS[:, None], PROBS),
    "scce_float_labels": ("SparseCategoricalCrossentropy", {}, LABELS.astype(np.float32), PROBS),
    "scce_wrong_and_sure": ("SparseCategoricalCrossentropy", {}, LABELS, WRONG_AND_SURE),
    "scce_logits": ("SparseCategoricalCrossentropy", {"from_logits": True}, LABELS, LOGITS),
    "scce_huge_logits": (
        "SparseCategoricalCrossentropy",
        {"from_logits": True},
        LABELS,
        HUGE_LOGITS,
    ),  # fmt: skip
    "scce_ignore_class": (
        "SparseCategoricalCrossentropy",
        {"ignore_class": 2},
        LABELS,
        PROBS,
    ),  # fmt: skip
}

CASES = [
    pytest.param(name, weights, reduction, id=f"{name}-{weights}-{reduction}")
    for name, weights, reduction in itertools.chain(
        itertools.product(INPUTS, WEIGHTS, ["sum_over_batch_size"]),
        itertools.product(INPUTS, ["(N,1)"], ["sum", None, "mean_with_sample_weight"]),
    )
]


@pytest.mark.parametrize(("name", "weights", "reduction"), CASES)
def test_each_loss_weighted_and_reduced_as_keras_3(name, weights, reduction):
    loss_class, options, y_true, y_pred = INPUTS[name]
    sample_weight = WEIGHTS[weights]
    expected = reference(loss_class, y_true, y_pred, sample_weight, reduction, **options)
    got = ours(loss_class, y_true, y_pred, sample_weight, reduction, **options)
    np.testing.assert_allclose(got, expected, rtol=2e-5, atol=2e-6)


def test_the_number_of_reference_cases():
    assert len(CASES) >= 30


# --- per-element weights, other axes, graphs -------------------------------------------------

SEQ_TRUE = RNG.uniform(size=(2, 3, 1)).round().astype(np.float32)
SEQ_PRED = RNG.uniform(size=(2, 3, 1)).astype(np.float32)
PER_STEP = np.float32([[3, 6, 5], [0, 4, 2]])


@pytest.mark.parametrize("loss_class", ["MeanSquaredError", "MeanAbsoluteError",
                                        "BinaryCrossentropy"])  # fmt: skip
@pytest.mark.parametrize("reduction", ["sum_over_batch_size", "sum", None])
def test_per_element_weights_weigh_each_time_step(loss_class, reduction):
    expected = reference(loss_class, SEQ_TRUE, SEQ_PRED, PER_STEP, reduction)
    got = ours(loss_class, SEQ_TRUE, SEQ_PRED, PER_STEP, reduction)
    np.testing.assert_allclose(got, expected, rtol=2e-5)


@pytest.mark.parametrize(("loss_class", "options", "y_true", "y_pred"), [
    ("BinaryCrossentropy", {"axis": 0}, BINARY, PROBS),
    ("BinaryCrossentropy", {"axis": 0, "from_logits": True}, BINARY, LOGITS),
    ("CategoricalCrossentropy", {"axis": 0}, ONE_HOT.T, PROBS.T),
    ("CategoricalCrossentropy", {"axis": 1, "from_logits": True},
     np.stack([ONE_HOT.T] * 2), np.stack([LOGITS.T, -LOGITS.T])),
])  # fmt: skip
@pytest.mark.parametrize("reduction", ["sum_over_batch_size", None])
def test_the_axis_option(loss_class, options, y_true, y_pred, reduction):
    expected = reference(loss_class, y_true, y_pred, None, reduction, **options)
    got = ours(loss_class, y_true, y_pred, None, reduction, **options)
    np.testing.assert_allclose(got, expected, rtol=2e-5, atol=1e-6)


def test_in_a_graph_with_an_open_batch_size_the_mean_counts_the_batch():
    mse = losses.MeanSquaredError()
    specs = [rt.TensorSpec([None, C]), rt.TensorSpec([None, C]), rt.TensorSpec([None, 1])]

    def weighted(y_true, y_pred, weights):
        return mse(y_true, y_pred, sample_weight=weights)

    staged = ag.function(weighted, input_signature=specs)
    weights = WEIGHTS["(N,1)"]
    expected = reference("MeanSquaredError", REAL, LOGITS, weights)
    np.testing.assert_allclose(staged(REAL, LOGITS, weights).numpy(), expected, rtol=2e-5)


# --- Keras' own numbers ----------------------------------------------------------------------

KERAS_TRUE = np.array([[1, 9, 2], [-5, -2, 6]])
KERAS_PRED = np.array([[4, 8, 12], [8, 1, 3]], dtype="float32")
XENT_TRUE = np.array([[1, 0, 0], [0, 1, 0], [0, 0, 1]])
XENT_PRED = np.float32([[0.9, 0.05, 0.05], [0.5, 0.89, 0.6], [0.05, 0.01, 0.94]])
XENT_LOGITS = np.array([[8.0, 1.0, 1.0], [0.0, 9.0, 1.0], [2.0, 3.0, 5.0]])
BCE_PROBS = np.float32([[0.9, 0.1, 0.2], [0.3, 0.8, 0.1], [0.1, 0.2, 0.7]])
BCE_TRUE, BCE_PRED = np.array([[1, 0], [1, 0]]), np.float32([[1, 1], [1, 0]])
BCE_LOGIT_TRUE = np.array([[1, 0, 1], [0, 1, 1]])
BCE_LOGITS = np.array([[10.0, -10.0, 10.0], [10.0, 10.0, -10.0]])
DOC_TRUE, DOC_PRED = [[0, 1, 0], [0, 0, 1]], [[0.05, 0.95, 0], [0.1, 0.8, 0.1]]

KERAS_VALUES = [
    # losses_test.py
    ("MeanSquaredError", {}, KERAS_TRUE, KERAS_PRED, None, 49.5),
    ("MeanSquaredError", {}, KERAS_TRUE, KERAS_PRED, 2.3, 113.85),
    ("MeanSquaredError", {}, KERAS_TRUE, KERAS_PRED, np.array([[1.2], [3.4]]), 767.8 / 6),
    ("MeanSquaredError", {}, KERAS_TRUE.reshape(2, 3, 1), KERAS_PRED.reshape(2, 3, 1),
     np.array([3, 6, 5, 0, 4, 2]).reshape((2, 3)), 97.833336),
    ("MeanSquaredError", {}, KERAS_TRUE, KERAS_PRED, 0, 0.0),
    ("MeanSquaredError", {"reduction": None}, KERAS_TRUE, KERAS_PRED, 2.3, [84.3333, 143.3666]),
    ("MeanSquaredError", {"reduction": "sum"}, KERAS_TRUE, KERAS_PRED, 2.3, 227.69998),
    ("MeanSquaredError", {"reduction": "mean_with_sample_weight"}, KERAS_TRUE, KERAS_PRED,
     np.array([[1.2], [3.4]]), (110 / 3 * 1.2 + 187 / 3 * 3.4) / (1.2 + 3.4)),
    ("MeanAbsoluteError", {}, KERAS_TRUE, KERAS_PRED, None, 5.5),
    ("MeanAbsoluteError", {}, KERAS_TRUE, KERAS_PRED, np.array([[1.2], [3.4]]), 81.4 / 6),
    ("MeanAbsoluteError", {"reduction": "sum"}, KERAS_TRUE, KERAS_PRED, 2.3, 25.29999),
    ("BinaryCrossentropy", {}, XENT_TRUE, BCE_PROBS, None, 0.20046903),
    ("BinaryCrossentropy", {}, BCE_TRUE, BCE_PRED, None, 3.98559),
    ("BinaryCrossentropy", {}, BCE_TRUE, BCE_PRED, 2.3, 9.1668),
    ("BinaryCrossentropy", {}, BCE_TRUE, BCE_PRED, np.array([1.2, 3.4]).reshape((2, 1)), 4.7827),
    ("BinaryCrossentropy", {"from_logits": True}, BCE_LOGIT_TRUE, BCE_LOGITS, None, 3.3333),
    ("BinaryCrossentropy", {"from_logits": True}, BCE_LOGIT_TRUE, BCE_LOGITS, 2.3, 7.666),
    ("BinaryCrossentropy", {"from_logits": True}, BCE_LOGIT_TRUE, BCE_LOGITS, np.array([4, 3]),
     10.0),
    ("BinaryCrossentropy", {"from_logits": True, "reduction": None}, BCE_LOGIT_TRUE, BCE_LOGITS,
     None, [0.0, 6.666]),
    ("BinaryCrossentropy", {"from_logits": True, "label_smoothing": 0.1}, [[1, 0, 1]],
     [[10.0, -10.0, -10.0]], None, (10.0 + 5.0 * 0.1) / 3.0),
    ("CategoricalCrossentropy", {}, XENT_TRUE, XENT_PRED, None, 0.3239),
    ("CategoricalCrossentropy", {"from_logits": True}, XENT_TRUE, XENT_LOGITS, None, 0.0573),
    ("CategoricalCrossentropy", {}, XENT_TRUE, XENT_PRED, 2.3, 0.7449),
    ("CategoricalCrossentropy", {}, XENT_TRUE, XENT_PRED, np.array([[1.2], [3.4], [5.6]]), 1.0696),
    ("CategoricalCrossentropy", {"from_logits": True}, XENT_TRUE, XENT_LOGITS,
     np.array([[1.2], [3.4], [5.6]]), 0.31829),
    ("CategoricalCrossentropy", {"from_logits": True, "reduction": None}, XENT_TRUE, XENT_LOGITS,
     None, [0.001822, 0.000459, 0.169846]),
    ("CategoricalCrossentropy", {"from_logits": True, "label_smoothing": 0.1}, [[1, 0, 0]],
     [[100.0, -100.0, -100.0]], None, 400.0 * 0.1 / 3.0),
    ("SparseCategoricalCrossentropy", {}, [0, 1, 2], XENT_PRED, None, 0.3239),
    ("SparseCategoricalCrossentropy", {"from_logits": True}, [0, 1, 2], XENT_LOGITS, None, 0.0573),
    ("SparseCategoricalCrossentropy", {}, [[0], [1], [2]], XENT_PRED,
     np.array([[1.2], [3.4], [5.6]]), 1.0696),
    ("SparseCategoricalCrossentropy", {"from_logits": True, "ignore_class": -1,
                                       "reduction": None},
     np.array([[-1, 2]]), np.array([[[0.854, 0.698, 0.598], [0.088, 0.86, 0.018]]]), None,
     [[0.0, 1.480129]]),
    # the classes' docstrings
    ("CategoricalCrossentropy", {}, DOC_TRUE, DOC_PRED, None, 1.177),
    ("CategoricalCrossentropy", {}, DOC_TRUE, DOC_PRED, np.array([0.3, 0.7]), 0.814),
    ("CategoricalCrossentropy", {"reduction": "sum"}, DOC_TRUE, DOC_PRED, None, 2.354),
    ("CategoricalCrossentropy", {"reduction": None}, DOC_TRUE, DOC_PRED, None, [0.0513, 2.303]),
    ("SparseCategoricalCrossentropy", {}, [1, 2], DOC_PRED, np.array([0.3, 0.7]), 0.814),
]  # fmt: skip


@pytest.mark.parametrize(("loss_class", "options", "y_true", "y_pred", "weights", "value"),
                         KERAS_VALUES)  # fmt: skip
def test_the_values_in_keras_tests_and_docs(loss_class, options, y_true, y_pred, weights, value):
    loss = getattr(losses, loss_class)(**options)
    got = loss(y_true, y_pred, sample_weight=weights).numpy()
    np.testing.assert_allclose(got, value, rtol=1e-3, atol=1e-3)


def test_the_ignored_class_is_left_out_of_the_mean():
    y_true = np.array([[-1, 2]])
    logits = np.array([[[0.854, 0.698, 0.598], [0.088, 0.86, 0.018]]])
    loss = losses.SparseCategoricalCrossentropy(from_logits=True, ignore_class=-1)
    np.testing.assert_allclose(loss(y_true, logits).numpy(), 1.480129, rtol=1e-5)


def test_the_functions_give_each_example_s_loss():
    np.testing.assert_allclose(
        losses.binary_crossentropy([[0, 1], [0, 0]], [[0.6, 0.4], [0.4, 0.6]]).numpy(),
        [0.916, 0.714], atol=1e-3,
    )  # fmt: skip
    for fn in (losses.categorical_crossentropy, losses.sparse_categorical_crossentropy):
        labels = DOC_TRUE if fn is losses.categorical_crossentropy else [1, 2]
        np.testing.assert_allclose(fn(labels, DOC_PRED).numpy(), [0.0513, 2.303], atol=1e-3)


# --- refused inputs ------------------------------------------------------------------------------


@pytest.mark.parametrize("loss_class", ["BinaryCrossentropy", "CategoricalCrossentropy"])
def test_labels_of_another_shape_are_refused_not_broadcast(loss_class):
    y_true, y_pred = np.array([[0], [1], [2]]), XENT_PRED
    message = (
        r"Arguments `target` and `output` must have the same shape. "
        r"Received: target.shape=\(3, 1\), output.shape=\(3, 3\)"
    )
    with pytest.raises(ValueError, match=message):
        getattr(losses, loss_class)()(y_true, y_pred)


def test_labels_of_another_rank_are_refused():
    with pytest.raises(ValueError, match=r"must have the same rank \(ndim\)"):
        losses.CategoricalCrossentropy()(np.zeros(3), XENT_PRED)
    with pytest.raises(ValueError, match=r"must have rank \(ndim\) `target.ndim - 1`"):
        losses.SparseCategoricalCrossentropy()(np.zeros((3, 3, 2)), XENT_PRED)


def test_an_unknown_reduction_is_refused():
    with pytest.raises(ValueError, match="Invalid value for argument `reduction`"):
        losses.MeanSquaredError(reduction="abc")


# --- the functions, and losses of the user's own ------------------------------------------------

FUNCTIONS = [
    (losses.mean_squared_error, ref_mse, REAL, LOGITS),
    (losses.mse, ref_mse, REAL, SATURATED),
    (losses.MSE, ref_mse, REAL[:, 0], LOGITS[:, :1]),
    (losses.mean_absolute_error, ref_mae, REAL, LOGITS),
    (losses.mae, ref_mae, REAL, SATURATED),
    (losses.MAE, ref_mae, REAL[:, :1], LOGITS[:, 0]),
    (losses.binary_crossentropy, ref_bce, BINARY, SATURATED),
    (losses.categorical_crossentropy, ref_cce, ONE_HOT, WRONG_AND_SURE),
]


@pytest.mark.parametrize(("fn", "ref", "y_true", "y_pred"), FUNCTIONS)
def test_each_function_gives_each_example_s_loss(fn, ref, y_true, y_pred):
    t, p = same_rank(np.float64(y_true), np.float64(y_pred))
    np.testing.assert_allclose(fn(y_true, y_pred).numpy(), ref(t, p), rtol=2e-5, atol=1e-6)


def test_the_sparse_function_gives_each_example_s_loss():
    got = losses.sparse_categorical_crossentropy(LABELS, WRONG_AND_SURE).numpy()
    np.testing.assert_allclose(got, ref_scce(LABELS, np.float64(WRONG_AND_SURE))[0], rtol=2e-5)


def test_keras_mse_function_on_labels_n_and_predictions_n_by_1_gives_n_values():
    loss = losses.mean_squared_error(np.array([4, 8, 12]), np.array([[3], [0], [1]]))
    assert loss.shape == (3,)
    np.testing.assert_allclose(loss.numpy(), [1.0, 64.0, 121.0])


class Gap(losses.Loss):
    def call(self, y_true, y_pred):
        return y_pred - y_true


@pytest.mark.parametrize("weights", ["none", "scalar", "(N,)", "(N,1)"])
@pytest.mark.parametrize("reduction", ["sum_over_batch_size", "sum", None])
def test_a_users_loss_is_weighted_and_reduced_as_keras_does(weights, reduction):
    y_true, y_pred = REAL[:, 0], LOGITS[:, 0]
    expected = ref_reduce(np.float64(y_pred) - y_true, WEIGHTS[weights], None, reduction)
    got = Gap(reduction=reduction)(y_true, y_pred, sample_weight=WEIGHTS[weights]).numpy()
    np.testing.assert_allclose(got, expected, rtol=2e-5, atol=1e-6)


def test_a_function_given_as_a_loss_is_weighted_per_example():
    def absolute_cubed(y_true, y_pred):
        return rt.reduce_mean(abs(y_pred - y_true) ** 3, axis=-1)

    loss = losses.get(absolute_cubed)
    weights = WEIGHTS["(N,1)"]
    expected = ref_reduce((np.abs(np.float64(LOGITS) - REAL) ** 3).mean(-1), weights)
    np.testing.assert_allclose(loss(REAL, LOGITS, sample_weight=weights).numpy(), expected,
                               rtol=2e-5)  # fmt: skip
