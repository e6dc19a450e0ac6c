"""Accuracy metrics: each example's 1 (right) or 0 (wrong), averaged by ``Mean``.

>>> import runtime as rt
>>> y_true, y_pred = [2, 0], [[0.1, 0.2, 0.7], [0.3, 0.6, 0.1]]
>>> rt.keras.metrics.sparse_categorical_accuracy(y_true, y_pred).numpy()
array([1., 0.], dtype=float32)
>>> float(rt.keras.metrics.SparseCategoricalAccuracy()(y_true, y_pred))
0.5
"""

from __future__ import annotations

from runtime.core import dtypes
from runtime.keras.loss_base import squeeze_or_expand_to_same_rank
from runtime.keras.metrics.reduction import MeanMetricWrapper
from runtime.ops.array_ops import expand_dims, reshape, squeeze
from runtime.ops.constant_ops import cast, convert_to_tensor
from runtime.ops.indexing_ops import one_hot
from runtime.ops.math_ops import equal, greater, less
from runtime.ops.reduction_ops import argmax, reduce_sum
from runtime.ops.shape_ops import shape as shape_op

_FLOAT = dtypes.float32


def _as_pair(y_true, y_pred):
    y_pred = convert_to_tensor(y_pred)
    y_true = convert_to_tensor(y_true)
    return (y_true if y_true.dtype is y_pred.dtype else cast(y_true, y_pred.dtype)), y_pred


def accuracy(y_true, y_pred):
    """1 where the prediction equals the label, element by element."""
    y_true, y_pred = squeeze_or_expand_to_same_rank(*_as_pair(y_true, y_pred))
    return cast(equal(y_true, y_pred), _FLOAT)


def binary_accuracy(y_true, y_pred, threshold=0.5):
    """1 where the prediction is on the label's side of ``threshold`` (above it: 1)."""
    y_true, y_pred = convert_to_tensor(y_true), convert_to_tensor(y_pred)
    y_true, y_pred = squeeze_or_expand_to_same_rank(y_true, y_pred)
    if y_pred.dtype.is_bool:  # predictions already decided: True is above any threshold
        y_pred = cast(y_pred, _FLOAT)
    predicted = cast(greater(y_pred, cast(threshold, y_pred.dtype)), y_true.dtype)
    return cast(equal(y_true, predicted), _FLOAT)


def _matches(labels, y_pred, labels_had_class_axis):
    """1 where ``labels`` (class indices) are the index of the largest prediction."""
    predicted = argmax(y_pred, axis=-1)
    matches = cast(equal(labels, cast(predicted, labels.dtype)), _FLOAT)
    return expand_dims(matches, -1) if labels_had_class_axis else matches


def categorical_accuracy(y_true, y_pred):
    """1 where the largest prediction is at the one-hot label's largest index."""
    y_pred = convert_to_tensor(y_pred)
    labels = cast(argmax(convert_to_tensor(y_true), axis=-1), y_pred.dtype)
    same_rank = labels.shape.rank is not None and labels.shape.rank == y_pred.shape.rank
    if same_rank:
        labels = squeeze(labels, axis=-1)
    return _matches(labels, y_pred, same_rank)


def sparse_categorical_accuracy(y_true, y_pred):
    """1 where the largest prediction is at the label's index (labels ``(n,)`` or ``(n, 1)``)."""
    labels, y_pred = _as_pair(y_true, y_pred)
    rank, pred_rank = labels.shape.rank, y_pred.shape.rank
    with_class_axis = rank is not None and rank == pred_rank and labels.shape[-1] == 1
    if with_class_axis:
        labels = squeeze(labels, axis=-1)
    matches = _matches(labels, y_pred, with_class_axis)
    if matches.shape.rank and matches.shape.rank > 1 and matches.shape[-1] == 1:
        matches = squeeze(matches, axis=-1)
    return matches


def _in_top_k(labels, y_pred, k):
    """True where the label's prediction is among the ``k`` largest: fewer than ``k`` predictions
    are strictly larger (ties at the boundary count as in, as TensorFlow's ``in_top_k``)."""
    classes = y_pred.shape[-1]
    target = reduce_sum(y_pred * one_hot(labels, classes, dtype=y_pred.dtype), axis=-1)
    larger = reduce_sum(cast(greater(y_pred, expand_dims(target, -1)), _FLOAT), axis=-1)
    return less(larger, float(k))


def _flat_top_k(labels, y_pred, k):
    """``in_top_k`` over predictions of any rank (flattened to ``(n, classes)``), shaped as the
    labels."""
    labels_shape = shape_op(labels)
    flat_pred = reshape(y_pred, [-1, y_pred.shape[-1]]) if y_pred.shape.rank > 2 else y_pred
    flat_labels = reshape(labels, [-1]) if labels.shape.rank > 1 else labels
    matches = cast(_in_top_k(cast(flat_labels, dtypes.int32), flat_pred, k), _FLOAT)
    return reshape(matches, labels_shape) if labels.shape.rank > 1 else matches


def top_k_categorical_accuracy(y_true, y_pred, k=5):
    """1 where the one-hot label's class is among the ``k`` largest predictions."""
    y_pred = convert_to_tensor(y_pred)
    return _flat_top_k(argmax(convert_to_tensor(y_true), axis=-1), y_pred, k)


def sparse_top_k_categorical_accuracy(y_true, y_pred, k=5, from_sorted_ids=False):
    """1 where the label is among the ``k`` largest predictions (or, ``from_sorted_ids``, among
    the first ``k`` of the ids sorted by score)."""
    y_pred = convert_to_tensor(y_pred)
    if from_sorted_ids:
        labels = expand_dims(cast(convert_to_tensor(y_true), y_pred.dtype), -1)
        hits = reduce_sum(cast(equal(labels, y_pred[:, :k]), _FLOAT), axis=-1)
        return cast(greater(hits, 0.0), _FLOAT)
    return _flat_top_k(convert_to_tensor(y_true), y_pred, k)


class Accuracy(MeanMetricWrapper):
    """How often the predictions equal the labels.

    >>> import runtime as rt
    >>> float(rt.keras.metrics.Accuracy()([[1], [2], [3], [4]], [[0], [2], [3], [4]]))
    0.75
    """

    def __init__(self, name="accuracy", dtype=None):
        super().__init__(accuracy, name=name, dtype=dtype)


class BinaryAccuracy(MeanMetricWrapper):
    """How often the predictions, cut at ``threshold``, match the binary labels.

    >>> import runtime as rt
    >>> float(rt.keras.metrics.BinaryAccuracy()([[1], [1], [0], [0]], [[0.98], [1], [0], [0.6]]))
    0.75
    """

    def __init__(self, name="binary_accuracy", dtype=None, threshold=0.5):
        super().__init__(binary_accuracy, name=name, dtype=dtype, threshold=threshold)


class CategoricalAccuracy(MeanMetricWrapper):
    """How often the largest prediction is at the one-hot label's class."""

    def __init__(self, name="categorical_accuracy", dtype=None):
        super().__init__(categorical_accuracy, name=name, dtype=dtype)


class SparseCategoricalAccuracy(MeanMetricWrapper):
    """How often the largest prediction is at the integer label's class."""

    def __init__(self, name="sparse_categorical_accuracy", dtype=None):
        super().__init__(sparse_categorical_accuracy, name=name, dtype=dtype)


class TopKCategoricalAccuracy(MeanMetricWrapper):
    """How often the one-hot label's class is among the ``k`` largest predictions."""

    def __init__(self, k=5, name="top_k_categorical_accuracy", dtype=None):
        super().__init__(top_k_categorical_accuracy, name=name, dtype=dtype, k=k)
        self.k = k


class SparseTopKCategoricalAccuracy(MeanMetricWrapper):
    """How often the integer label is among the ``k`` largest predictions."""

    def __init__(
        self, k=5, name="sparse_top_k_categorical_accuracy", dtype=None, from_sorted_ids=False
    ):
        super().__init__(
            sparse_top_k_categorical_accuracy,
            name=name,
            dtype=dtype,
            k=k,
            from_sorted_ids=from_sorted_ids,
        )
        self.k = k
        self.from_sorted_ids = from_sorted_ids
