"""Losses: ``loss(y_true, y_pred)`` -> the mean over the batch of each example's loss.

Each example's loss is its mean over the last axis (Keras' reduction
``SUM_OVER_BATCH_SIZE``). Probabilities are clipped to ``[1e-7, 1 - 1e-7]``
before their logarithm, as in Keras; with ``from_logits=True`` the logits go
through a stable log-softmax (or log-sigmoid) instead.

>>> import runtime as rt
>>> mse = rt.keras.losses.MeanSquaredError()
>>> mse(rt.constant([[0.0, 1.0], [1.0, 1.0]]), rt.constant([[1.0, 1.0], [1.0, 0.0]])).numpy()
np.float32(0.5)
>>> scce = rt.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
>>> round(float(scce(rt.constant([0, 1]), rt.constant([[0.0, 0.0], [0.0, 0.0]]))), 6)  # log 2
0.693147
"""

from __future__ import annotations

from runtime.core import dtypes
from runtime.core.tensor import Tensor
from runtime.keras import backend
from runtime.ops.array_ops import expand_dims, squeeze, stop_gradient
from runtime.ops.clip_ops import clip_by_value
from runtime.ops.constant_ops import cast, convert_to_tensor
from runtime.ops.math_ops import abs as abs_
from runtime.ops.math_ops import exp, log, maximum, square
from runtime.ops.nn_ops import sparse_softmax_cross_entropy_with_logits
from runtime.ops.reduction_ops import reduce_max, reduce_mean, reduce_sum
from runtime.ops.shape_ops import size

# --- each example's loss -------------------------------------------------------------------------


def align(y_true, y_pred):
    """The two as tensors of one dtype, ``y_true`` given a last axis of 1 when ``y_pred`` has
    one more axis of size 1 (labels ``(n,)`` against predictions ``(n, 1)``), as Keras does."""
    y_pred = convert_to_tensor(y_pred)
    y_true = y_true if isinstance(y_true, Tensor) else convert_to_tensor(y_true)
    y_true = cast(y_true, y_pred.dtype)
    true_rank, pred_rank = y_true.shape.rank, y_pred.shape.rank
    one_column_more = true_rank is not None and pred_rank == true_rank + 1
    if one_column_more and y_pred.shape[-1] == 1:
        y_true = expand_dims(y_true, -1)
    return y_true, y_pred


def mean_squared_error(y_true, y_pred):
    """``mean((y_true - y_pred) ** 2, axis=-1)``."""
    y_true, y_pred = align(y_true, y_pred)
    return reduce_mean(square(y_pred - y_true), axis=-1)


def mean_absolute_error(y_true, y_pred):
    """``mean(abs(y_true - y_pred), axis=-1)``."""
    y_true, y_pred = align(y_true, y_pred)
    return reduce_mean(abs_(y_pred - y_true), axis=-1)


def _clipped(p):
    eps = backend.epsilon()
    return clip_by_value(p, eps, 1.0 - eps)


def binary_crossentropy(y_true, y_pred, from_logits=False):
    """``-mean(y log p + (1 - y) log(1 - p), axis=-1)``, ``p`` clipped; from logits ``x``:
    ``mean(max(x, 0) - x y + log(1 + exp(-|x|)), axis=-1)``."""
    y_true, y_pred = align(y_true, y_pred)
    if from_logits:
        x = y_pred
        losses = maximum(x, 0.0) - x * y_true + log(1.0 + exp(-abs_(x)))
    else:
        p = _clipped(y_pred)
        eps = backend.epsilon()
        losses = -(y_true * log(p + eps) + (1.0 - y_true) * log(1.0 - p + eps))
    return reduce_mean(losses, axis=-1)


def _log_softmax(logits):
    """``logits - log(sum(exp(logits)))`` along the last axis, shifted by the max to stay finite.

    The shift cancels out of the value and of the gradient, so it is a constant to the tape.
    """
    shifted = logits - stop_gradient(reduce_max(logits, axis=-1, keepdims=True))
    return shifted - log(reduce_sum(exp(shifted), axis=-1, keepdims=True))


def _log_probabilities(y_pred, from_logits):
    if from_logits:
        return _log_softmax(y_pred)
    # Keras rescales the probabilities to sum to 1, then clips them.
    return log(_clipped(y_pred / reduce_sum(y_pred, axis=-1, keepdims=True)))


def categorical_crossentropy(y_true, y_pred, from_logits=False):
    """``-sum(y_true * log p, axis=-1)``: ``y_true`` one-hot (or a distribution)."""
    y_true, y_pred = align(y_true, y_pred)
    return -reduce_sum(y_true * _log_probabilities(y_pred, from_logits), axis=-1)


def sparse_categorical_crossentropy(y_true, y_pred, from_logits=False):
    """``-log p[y_true]``: ``y_true`` holds class indices (any number type; a trailing axis of
    size 1 is dropped)."""
    y_pred = convert_to_tensor(y_pred)
    labels = convert_to_tensor(y_true)
    if labels.shape.rank is not None and labels.shape.rank == y_pred.shape.rank:
        labels = squeeze(labels, axis=-1)
    if not labels.dtype.is_integer:
        labels = cast(labels, dtypes.int32)
    # Keras clips probabilities, then takes them as logits of their logarithms (renormalised).
    logits = y_pred if from_logits else log(_clipped(y_pred))
    return sparse_softmax_cross_entropy_with_logits(labels, logits)


# --- loss objects ----------------------------------------------------------------------------


class Loss:
    """``loss(y_true, y_pred)``: the mean of ``call(y_true, y_pred)`` (each example's loss)."""

    def __init__(self, name=None):
        self.name = name or backend.to_snake_case(type(self).__name__)

    def __call__(self, y_true, y_pred, sample_weight=None):
        losses = self.call(y_true, y_pred)
        if sample_weight is not None:
            weights = convert_to_tensor(sample_weight, dtype=losses.dtype)
            return reduce_sum(losses * weights) / cast(size(losses), losses.dtype)
        return reduce_mean(losses)

    def call(self, y_true, y_pred):
        raise NotImplementedError

    def __repr__(self):
        return f"<rt.keras.losses.{type(self).__name__}>"


class LossFunctionWrapper(Loss):
    """A Loss made of a function of ``(y_true, y_pred)`` giving each example's loss."""

    def __init__(self, fn, name=None, **kwargs):
        super().__init__(name or getattr(fn, "__name__", None))
        self.fn = fn
        self._kwargs = kwargs

    def call(self, y_true, y_pred):
        return self.fn(y_true, y_pred, **self._kwargs)


class MeanSquaredError(LossFunctionWrapper):
    def __init__(self, name="mean_squared_error"):
        super().__init__(mean_squared_error, name)


class MeanAbsoluteError(LossFunctionWrapper):
    def __init__(self, name="mean_absolute_error"):
        super().__init__(mean_absolute_error, name)


class BinaryCrossentropy(LossFunctionWrapper):
    def __init__(self, from_logits=False, name="binary_crossentropy"):
        super().__init__(binary_crossentropy, name, from_logits=from_logits)
        self.from_logits = from_logits


class CategoricalCrossentropy(LossFunctionWrapper):
    def __init__(self, from_logits=False, name="categorical_crossentropy"):
        super().__init__(categorical_crossentropy, name, from_logits=from_logits)
        self.from_logits = from_logits


class SparseCategoricalCrossentropy(LossFunctionWrapper):
    def __init__(self, from_logits=False, name="sparse_categorical_crossentropy"):
        super().__init__(sparse_categorical_crossentropy, name, from_logits=from_logits)
        self.from_logits = from_logits


mse = MSE = mean_squared_error
mae = MAE = mean_absolute_error

_BY_NAME = {
    "mse": MeanSquaredError,
    "mean_squared_error": MeanSquaredError,
    "mae": MeanAbsoluteError,
    "mean_absolute_error": MeanAbsoluteError,
    "binary_crossentropy": BinaryCrossentropy,
    "categorical_crossentropy": CategoricalCrossentropy,
    "sparse_categorical_crossentropy": SparseCategoricalCrossentropy,
}


def get(identifier):
    """A Loss: by name (``"mse"``, ``"sparse_categorical_crossentropy"``...), a Loss as it is,
    or a function of ``(y_true, y_pred)`` wrapped to take the batch mean."""
    if isinstance(identifier, Loss):
        return identifier
    if isinstance(identifier, type) and issubclass(identifier, Loss):
        name = identifier.__name__
        raise TypeError(f"loss={name} is a class: pass an instance, {name}()")
    if isinstance(identifier, str):
        if identifier not in _BY_NAME:
            raise ValueError(
                f"Unknown loss function: {identifier!r}. Use one of {sorted(_BY_NAME)}."
            )
        return _BY_NAME[identifier]()
    if callable(identifier):
        return LossFunctionWrapper(identifier)
    raise ValueError(f"Could not interpret loss function identifier: {identifier!r}")
