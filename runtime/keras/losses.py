"""Losses as Keras 3 defines them: each example's loss, then weighted and reduced.

A loss object, ``loss(y_true, y_pred, sample_weight=None)``, gives by default
the mean of every example's loss (Keras' ``"sum_over_batch_size"``; see
``runtime.keras.loss_base`` for the weights and the other reductions). Each
example's loss is a mean (or sum) over the last axis. Probabilities are clipped
to ``[1e-7, 1 - 1e-7]`` before their logarithm, as in Keras; with
``from_logits=True`` the logits go through a stable log-softmax (or
log-sigmoid) instead. Cross-entropies refuse labels whose shape differs from the
predictions' rather than broadcast them.

>>> import runtime as rt
>>> mse = rt.keras.losses.MeanSquaredError()
>>> mse(rt.constant([[0.0, 1.0], [1.0, 1.0]]), rt.constant([[1.0, 1.0], [1.0, 0.0]])).numpy()
np.float32(0.5)
>>> scce = rt.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
>>> round(float(scce(rt.constant([0, 1]), rt.constant([[0.0, 0.0], [0.0, 0.0]]))), 6)  # log 2
0.693147
>>> bce = rt.keras.losses.BinaryCrossentropy()     # 1 - 1e-7 against a label 0: -log(1e-7)
>>> round(float(bce([[1, 0], [1, 0]], [[1.0, 1.0], [1.0, 0.0]])), 4)
3.9856
"""

from __future__ import annotations

import warnings

from runtime.core import dtypes
from runtime.keras import backend
from runtime.keras.loss_base import (
    Loss,
    LossFunctionWrapper,
    as_loss_dtype,
    squeeze_or_expand_to_same_rank,
)
from runtime.ops.array_ops import expand_dims, squeeze, stop_gradient, zeros_like
from runtime.ops.broadcast_ops import where
from runtime.ops.clip_ops import clip_by_value
from runtime.ops.constant_ops import cast, convert_to_tensor
from runtime.ops.math_ops import abs as abs_
from runtime.ops.math_ops import exp, log, maximum, not_equal, square
from runtime.ops.nn_ops import sparse_softmax_cross_entropy_with_logits
from runtime.ops.reduction_ops import reduce_max, reduce_mean, reduce_sum
from runtime.ops.shape_ops import shape as shape_op

# --- each example's loss -------------------------------------------------------------------------


def align(y_true, y_pred):
    """The two as tensors of ``y_pred``'s dtype, brought to the same rank where they differ by a
    trailing axis of size 1 (labels ``(n,)`` against predictions ``(n, 1)``), as Keras does."""
    y_pred = convert_to_tensor(y_pred)
    y_true = as_loss_dtype(y_true, y_pred.dtype)
    return squeeze_or_expand_to_same_rank(y_true, y_pred)


def mean_squared_error(y_true, y_pred):
    """``mean(square(y_true - y_pred), axis=-1)``."""
    y_true, y_pred = align(y_true, y_pred)
    return reduce_mean(square(y_true - y_pred), axis=-1)


def mean_absolute_error(y_true, y_pred):
    """``mean(abs(y_true - y_pred), axis=-1)``."""
    y_true, y_pred = align(y_true, y_pred)
    return reduce_mean(abs_(y_true - y_pred), axis=-1)


def _clipped(p):
    eps = backend.epsilon()
    return clip_by_value(p, eps, 1.0 - eps)


def _shapes(target, output):
    return f"target.shape={target.shape}, output.shape={output.shape}"


def check_same_shape(target, output):
    """ValueError, with Keras' words, unless the labels have the predictions' shape (where both
    are known): a cross-entropy never broadcasts one against the other."""
    if target.shape.rank is None or output.shape.rank is None:
        return
    if target.shape.rank != output.shape.rank:
        raise ValueError(
            "Arguments `target` and `output` must have the same rank (ndim). "
            f"Received: {_shapes(target, output)}"
        )
    for known_target, known_output in zip(target.shape.as_list(), output.shape.as_list()):
        if known_target is not None and known_output is not None and known_target != known_output:
            raise ValueError(
                "Arguments `target` and `output` must have the same shape. "
                f"Received: {_shapes(target, output)}"
            )


def binary_crossentropy(y_true, y_pred, from_logits=False, label_smoothing=0.0, axis=-1):
    """``mean(-(y log p + (1 - y) log(1 - p)), axis)``, ``p`` clipped to ``[eps, 1 - eps]``;
    from logits ``x``: ``mean(max(x, 0) - x y + log(1 + exp(-|x|)), axis)``. Labels are
    smoothed towards 0.5: ``y (1 - label_smoothing) + 0.5 label_smoothing``.

    >>> binary_crossentropy([[0.0, 1.0], [0.0, 0.0]], [[0.6, 0.4], [0.4, 0.6]]).numpy().round(3)
    array([0.916, 0.714], dtype=float32)
    """
    y_pred = convert_to_tensor(y_pred)
    y_true = as_loss_dtype(y_true, y_pred.dtype)
    if label_smoothing:
        y_true = y_true * (1.0 - label_smoothing) + 0.5 * label_smoothing
    check_same_shape(y_true, y_pred)
    if from_logits:
        x = y_pred
        losses = maximum(x, 0.0) - x * y_true + log(1.0 + exp(-abs_(x)))
    else:
        p = _clipped(y_pred)
        losses = -(y_true * log(p) + (1.0 - y_true) * log(1.0 - p))
    return reduce_mean(losses, axis=axis)


def _log_softmax(logits, axis):
    """``logits - log(sum(exp(logits)))`` along ``axis``, shifted by the max to stay finite.

    The shift cancels out of the value and of the gradient, so it is a constant to the tape.
    """
    shifted = logits - stop_gradient(reduce_max(logits, axis=axis, keepdims=True))
    return shifted - log(reduce_sum(exp(shifted), axis=axis, keepdims=True))


def _check_axis(axis):
    if isinstance(axis, bool):
        raise ValueError(
            f"`axis` must be of type `int`. Received: axis={axis} of type {type(axis)}"
        )


def categorical_crossentropy(y_true, y_pred, from_logits=False, label_smoothing=0.0, axis=-1):
    """``-sum(y_true * log p, axis)``: ``y_true`` one-hot (or a distribution), ``p`` the
    predictions rescaled to sum to 1 and clipped to ``[eps, 1 - eps]`` (or the softmax of
    logits). Labels are smoothed to ``y (1 - s) + s / classes``.

    >>> categorical_crossentropy([[0, 1, 0], [0, 0, 1]], [[0.05, 0.95, 0], [0.1, 0.8, 0.1]]
    ...                          ).numpy().round(4)
    array([0.0513, 2.3026], dtype=float32)
    """
    _check_axis(axis)
    y_pred = convert_to_tensor(y_pred)
    y_true = as_loss_dtype(y_true, y_pred.dtype)
    if y_pred.shape.rank and y_pred.shape[-1] == 1:
        warnings.warn(
            "In loss categorical_crossentropy, expected y_pred.shape to be "
            f"(batch_size, num_classes) with num_classes > 1. Received: y_pred.shape={y_pred.shape}"
            ". Consider using 'binary_crossentropy' if you only have 2 classes.",
            SyntaxWarning,
            stacklevel=2,
        )
    if y_true.shape.rank == 0:
        raise ValueError(
            "Arguments `target` and `output` must be at least rank 1. "
            f"Received: {_shapes(y_true, y_pred)}"
        )
    if label_smoothing:
        y_true = y_true * (1.0 - label_smoothing) + label_smoothing / _classes(y_true)
    check_same_shape(y_true, y_pred)
    if from_logits:
        log_p = _log_softmax(y_pred, axis)
    else:
        log_p = log(_clipped(y_pred / reduce_sum(y_pred, axis=axis, keepdims=True)))
    return -reduce_sum(y_true * log_p, axis=axis)


def _classes(y_true):
    """The size of the last axis, as a number of ``y_true``'s dtype."""
    known = y_true.shape[-1] if y_true.shape.rank else None
    if known is not None:
        return float(known)
    return cast(shape_op(y_true)[-1], y_true.dtype)


def sparse_categorical_crossentropy(y_true, y_pred, from_logits=False, ignore_class=None, axis=-1):
    """``-log p[y_true]``: ``y_true`` holds class indices (any number type; a trailing axis of
    size 1 is dropped), ``p`` the clipped probabilities renormalised (or the softmax of
    logits). Examples labelled ``ignore_class`` have loss 0 (and the loss object leaves them
    out of its mean).

    >>> sparse_categorical_crossentropy([1, 2], [[0.05, 0.95, 0], [0.1, 0.8, 0.1]]
    ...                                 ).numpy().round(4)
    array([0.0513, 2.3026], dtype=float32)
    """
    y_pred = convert_to_tensor(y_pred)
    rank = y_pred.shape.rank
    if axis != -1 and axis != (rank or 0) - 1:
        raise ValueError(f"Only axis=-1 is currently supported. Received: axis={axis}")
    labels = _sparse_labels(y_true, y_pred)
    valid = None
    if ignore_class is not None:
        valid = valid_labels(labels, ignore_class)
        labels = labels * cast(valid, labels.dtype)
        y_pred = y_pred * expand_dims(cast(valid, y_pred.dtype), -1)
    _check_sparse_shapes(labels, y_pred)
    if not labels.dtype.is_integer:
        labels = cast(labels, dtypes.int64)
    # Keras clips probabilities, then takes them as logits of their logarithms (renormalised).
    logits = y_pred if from_logits else log(_clipped(y_pred))
    losses = sparse_softmax_cross_entropy_with_logits(labels, logits)
    if valid is not None:
        losses = where(valid, losses, zeros_like(losses))
    return losses


def _sparse_labels(y_true, y_pred):
    """The labels as a tensor, without a trailing axis of 1 that the predictions lack."""
    labels = convert_to_tensor(y_true)
    rank = labels.shape.rank
    if rank is not None and rank == y_pred.shape.rank and labels.shape[-1] == 1:
        labels = squeeze(labels, axis=-1)
    return labels


def valid_labels(labels, ignore_class):
    """True where a label is not ``ignore_class``."""
    return not_equal(labels, cast(ignore_class, labels.dtype))


def _check_sparse_shapes(target, output):
    if output.shape.rank == 0:
        raise ValueError(
            f"Argument `output` must be at least rank 1. Received: output.shape={output.shape}"
        )
    if target.shape.rank is None or output.shape.rank is None:
        return
    if target.shape.rank != output.shape.rank - 1:
        raise ValueError(
            "Argument `output` must have rank (ndim) `target.ndim - 1`. "
            f"Received: {_shapes(target, output)}"
        )
    for known_target, known_output in zip(target.shape.as_list(), output.shape.as_list()[:-1]):
        if known_target is not None and known_output is not None and known_target != known_output:
            raise ValueError(
                "Arguments `target` and `output` must have the same shape up until the last "
                f"dimension: {_shapes(target, output)}"
            )


# --- loss objects ----------------------------------------------------------------------------


class MeanSquaredError(LossFunctionWrapper):
    """``mean(square(y_true - y_pred))``."""

    def __init__(self, reduction="sum_over_batch_size", name="mean_squared_error", dtype=None):
        super().__init__(mean_squared_error, reduction, name, dtype)


class MeanAbsoluteError(LossFunctionWrapper):
    """``mean(abs(y_true - y_pred))``."""

    def __init__(self, reduction="sum_over_batch_size", name="mean_absolute_error", dtype=None):
        super().__init__(mean_absolute_error, reduction, name, dtype)


class _Crossentropy(LossFunctionWrapper):
    """A cross-entropy loss object: ``from_logits``, ``label_smoothing`` and ``axis`` are its
    function's, kept as attributes as Keras keeps them."""

    def __init__(self, fn, from_logits, label_smoothing, axis, reduction, name, dtype):
        super().__init__(
            fn,
            reduction,
            name,
            dtype,
            from_logits=from_logits,
            label_smoothing=label_smoothing,
            axis=axis,
        )
        self.from_logits = from_logits
        self.label_smoothing = label_smoothing
        self.axis = axis


class BinaryCrossentropy(_Crossentropy):
    """``binary_crossentropy`` as a loss object: labels 0 or 1, predictions probabilities (or
    logits with ``from_logits=True``) of the same shape."""

    def __init__(
        self,
        from_logits=False,
        label_smoothing=0.0,
        axis=-1,
        reduction="sum_over_batch_size",
        name="binary_crossentropy",
        dtype=None,
    ):
        fn = binary_crossentropy
        super().__init__(fn, from_logits, label_smoothing, axis, reduction, name, dtype)


class CategoricalCrossentropy(_Crossentropy):
    """``categorical_crossentropy`` as a loss object: one-hot labels of the predictions'
    shape."""

    def __init__(
        self,
        from_logits=False,
        label_smoothing=0.0,
        axis=-1,
        reduction="sum_over_batch_size",
        name="categorical_crossentropy",
        dtype=None,
    ):
        fn = categorical_crossentropy
        super().__init__(fn, from_logits, label_smoothing, axis, reduction, name, dtype)


class SparseCategoricalCrossentropy(LossFunctionWrapper):
    """``sparse_categorical_crossentropy`` as a loss object: labels are class indices. With
    ``ignore_class``, the examples of that label are left out of the mean."""

    def __init__(
        self,
        from_logits=False,
        ignore_class=None,
        reduction="sum_over_batch_size",
        name="sparse_categorical_crossentropy",
        dtype=None,
    ):
        super().__init__(
            sparse_categorical_crossentropy,
            reduction,
            name,
            dtype,
            from_logits=from_logits,
            ignore_class=ignore_class,
        )
        self.from_logits = from_logits
        self.ignore_class = ignore_class

    def _losses_and_mask(self, y_true, y_pred):
        losses = self.call(y_true, y_pred)
        if self.ignore_class is None:
            return losses, None
        return losses, valid_labels(_sparse_labels(y_true, y_pred), self.ignore_class)


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
