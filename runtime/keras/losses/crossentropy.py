"""Each example's cross-entropy, as Keras 3 defines them (binary, categorical, sparse, focal).

Each example's loss is a mean (or sum) over the last axis. Probabilities are clipped
to ``[1e-7, 1 - 1e-7]`` before their logarithm, as in Keras; with
``from_logits=True`` the logits go through a stable log-softmax (or
log-sigmoid) instead. Cross-entropies refuse labels whose shape differs from the
predictions' rather than broadcast them.

>>> import runtime as rt
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
from runtime.keras.loss_base import as_loss_dtype, as_prediction
from runtime.ops.array_ops import expand_dims, squeeze, stop_gradient, zeros_like
from runtime.ops.broadcast_ops import where
from runtime.ops.clip_ops import clip_by_value
from runtime.ops.constant_ops import cast, convert_to_tensor
from runtime.ops.math_ops import abs as abs_
from runtime.ops.math_ops import exp, log, maximum, not_equal, pow, sigmoid
from runtime.ops.nn_ops import softmax, sparse_softmax_cross_entropy_with_logits
from runtime.ops.reduction_ops import reduce_max, reduce_mean, reduce_sum
from runtime.ops.shape_ops import shape as shape_op

# --- each example's loss -------------------------------------------------------------------------


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
    y_pred = as_prediction(y_pred)
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
    y_pred = as_prediction(y_pred)
    y_true = as_loss_dtype(y_true, y_pred.dtype)
    _warn_single_class(y_pred, axis, "categorical_crossentropy")
    if y_true.shape.rank == 0:
        raise ValueError(
            "Arguments `target` and `output` must be at least rank 1. "
            f"Received: {_shapes(y_true, y_pred)}"
        )
    if label_smoothing:
        y_true = y_true * (1.0 - label_smoothing) + label_smoothing / _classes(y_pred, axis)
    check_same_shape(y_true, y_pred)
    if from_logits:
        log_p = _log_softmax(y_pred, axis)
    else:
        log_p = log(_clipped(y_pred / reduce_sum(y_pred, axis=axis, keepdims=True)))
    return -reduce_sum(y_true * log_p, axis=axis)


def _classes(y_pred, axis):
    """The number of classes: the size of ``axis``, as a number of ``y_pred``'s dtype."""
    known = y_pred.shape[axis] if y_pred.shape.rank else None
    if known is not None:
        return float(known)
    return cast(shape_op(y_pred)[axis], y_pred.dtype)


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


# --- focal cross-entropies ---------------------------------------------------------------------


def binary_focal_crossentropy(
    y_true,
    y_pred,
    apply_class_balancing=False,
    alpha=0.25,
    gamma=2.0,
    from_logits=False,
    label_smoothing=0.0,
    axis=-1,
):
    """The binary cross-entropy of each element times ``(1 - p_t) ** gamma`` (``p_t`` the
    probability given to the true label), easy examples counting less; with
    ``apply_class_balancing`` also times ``alpha`` for label 1 and ``1 - alpha`` for label 0.
    The mean over ``axis``.

    >>> binary_focal_crossentropy([[0, 1], [0, 0]], [[0.6, 0.4], [0.4, 0.6]], gamma=2.0
    ...                           ).numpy().round(3)
    array([0.33 , 0.206], dtype=float32)
    """
    y_pred = convert_to_tensor(y_pred)
    y_true = as_loss_dtype(y_true, y_pred.dtype)
    if label_smoothing:
        y_true = y_true * (1.0 - label_smoothing) + 0.5 * label_smoothing
    if from_logits:
        y_pred = sigmoid(y_pred)
    check_same_shape(y_true, y_pred)
    p = _clipped(y_pred)
    bce = -(y_true * log(p) + (1.0 - y_true) * log(1.0 - p))
    p_true = y_true * y_pred + (1.0 - y_true) * (1.0 - y_pred)
    focal = pow(1.0 - p_true, gamma) * bce
    if apply_class_balancing:
        focal = (y_true * alpha + (1.0 - y_true) * (1.0 - alpha)) * focal
    return reduce_mean(focal, axis=axis)


def categorical_focal_crossentropy(
    y_true, y_pred, alpha=0.25, gamma=2.0, from_logits=False, label_smoothing=0.0, axis=-1
):
    """``sum(-alpha * (1 - p) ** gamma * y_true * log p, axis)``: the categorical
    cross-entropy with each class's term scaled down where its probability is high
    (``0.25 * 0.05^2 * -log 0.95`` and ``0.25 * 0.9^2 * -log 0.1`` below).

    >>> categorical_focal_crossentropy([[0, 1, 0], [0, 0, 1]], [[0.05, 0.95, 0], [0.1, 0.8, 0.1]]
    ...                                ).numpy().round(6)
    array([3.20000e-05, 4.66273e-01], dtype=float32)
    """
    _check_axis(axis)
    y_pred = convert_to_tensor(y_pred)
    y_true = as_loss_dtype(y_true, y_pred.dtype)
    _warn_single_class(y_pred, axis, "categorical_focal_crossentropy")
    if label_smoothing:
        y_true = y_true * (1.0 - label_smoothing) + label_smoothing / _classes(y_pred, axis)
    if from_logits:
        y_pred = softmax(y_pred, axis=axis)
    p = _clipped(y_pred / reduce_sum(y_pred, axis=axis, keepdims=True))
    focal = alpha * pow(1.0 - p, gamma) * -y_true * log(p)
    return reduce_sum(focal, axis=axis)


def _warn_single_class(y_pred, axis, loss_name):
    """SyntaxWarning (Keras') for predictions with one class along ``axis``."""
    rank = y_pred.shape.rank
    if rank and y_pred.shape[axis] == 1:
        warnings.warn(
            f"In loss {loss_name}, expected y_pred.shape to be (batch_size, num_classes) with "
            f"num_classes > 1. Received: y_pred.shape={y_pred.shape}. Consider using "
            "'binary_crossentropy' if you only have 2 classes.",
            SyntaxWarning,
            stacklevel=3,
        )
