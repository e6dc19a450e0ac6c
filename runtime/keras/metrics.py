"""Metrics: each a function of ``(y_true, y_pred)`` giving every example's value.

``fit`` and ``evaluate`` report a metric's mean over the examples seen in the
epoch. ``"accuracy"`` (or ``"acc"``) means, as in Keras, binary accuracy when
the predictions have one column, sparse categorical accuracy when the labels
have one axis fewer (or one column against several), else categorical accuracy.

>>> import runtime as rt
>>> y_true, y_pred = rt.constant([2, 0]), rt.constant([[0.1, 0.2, 0.7], [0.3, 0.6, 0.1]])
>>> rt.keras.metrics.sparse_categorical_accuracy(y_true, y_pred).numpy()
array([1., 0.], dtype=float32)
>>> rt.keras.metrics.resolve("accuracy", y_true, y_pred).__name__
'sparse_categorical_accuracy'
"""

from __future__ import annotations

from runtime.core import dtypes
from runtime.keras import losses
from runtime.ops.array_ops import squeeze
from runtime.ops.constant_ops import cast, convert_to_tensor
from runtime.ops.math_ops import equal, greater
from runtime.ops.reduction_ops import argmax, reduce_mean

mean_squared_error = mse = losses.mean_squared_error
mean_absolute_error = mae = losses.mean_absolute_error


def binary_accuracy(y_true, y_pred, threshold=0.5):
    """The fraction of each example's outputs on the right side of ``threshold``."""
    y_true, y_pred = losses.align(y_true, y_pred)
    predicted = cast(greater(y_pred, threshold), y_pred.dtype)
    return reduce_mean(cast(equal(y_true, predicted), dtypes.float32), axis=-1)


def categorical_accuracy(y_true, y_pred):
    """1 where the largest prediction is at the one-hot label's index, else 0."""
    y_true, y_pred = convert_to_tensor(y_true), convert_to_tensor(y_pred)
    return cast(equal(argmax(y_true, axis=-1), argmax(y_pred, axis=-1)), dtypes.float32)


def sparse_categorical_accuracy(y_true, y_pred):
    """1 where the largest prediction is at the label's index, else 0."""
    y_true, y_pred = convert_to_tensor(y_true), convert_to_tensor(y_pred)
    if y_true.shape.rank is not None and y_true.shape.rank == y_pred.shape.rank:
        y_true = squeeze(y_true, axis=-1)
    predicted = cast(argmax(y_pred, axis=-1), y_true.dtype)
    return cast(equal(y_true, predicted), dtypes.float32)


_BY_NAME = {
    "mae": mean_absolute_error,
    "mean_absolute_error": mean_absolute_error,
    "mse": mean_squared_error,
    "mean_squared_error": mean_squared_error,
    "binary_accuracy": binary_accuracy,
    "categorical_accuracy": categorical_accuracy,
    "sparse_categorical_accuracy": sparse_categorical_accuracy,
}


def resolve(identifier, y_true, y_pred):
    """The function a metric given to ``compile`` computes, for these labels and predictions."""
    if callable(identifier):
        return identifier
    if identifier in ("accuracy", "acc"):
        true_shape, pred_shape = y_true.shape.as_list(), y_pred.shape.as_list()
        if pred_shape and pred_shape[-1] == 1:
            return binary_accuracy
        if len(true_shape) < len(pred_shape) or (
            true_shape and true_shape[-1] == 1 and pred_shape[-1] != 1
        ):
            return sparse_categorical_accuracy
        return categorical_accuracy
    if identifier in _BY_NAME:
        return _BY_NAME[identifier]
    raise ValueError(
        f"Unknown metric function: {identifier!r}. Use 'accuracy', one of {sorted(_BY_NAME)}, "
        "or a function of (y_true, y_pred)."
    )


def check(identifier):
    """Raises ValueError now, at ``compile``, for a metric that ``resolve`` would not know."""
    if not (callable(identifier) or identifier in ("accuracy", "acc") or identifier in _BY_NAME):
        resolve(identifier, None, None)


def name_of(identifier):
    """The metric's name in logs and History: the string given, or the function's name."""
    return identifier if isinstance(identifier, str) else getattr(identifier, "__name__", "metric")
