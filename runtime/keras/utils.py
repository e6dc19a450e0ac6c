"""``rt.keras.utils``: ``to_categorical``, ``normalize``, ``set_random_seed``, and the
``pack_x_y_sample_weight``/``unpack_x_y_sample_weight`` of a custom ``train_step``.

>>> import runtime as rt
>>> rt.keras.utils.to_categorical([0, 2, 1], num_classes=3)
array([[1., 0., 0.],
       [0., 0., 1.],
       [0., 1., 0.]])
>>> rt.keras.utils.normalize([[3.0, 4.0]])
array([[0.6, 0.8]])
"""

from __future__ import annotations

import random

import numpy as np

from runtime.core.tensor import Tensor
from runtime.keras import backend
from runtime.keras.models.data_adapters import (  # noqa: F401  (Keras' utils)
    pack_x_y_sample_weight,
    unpack_x_y_sample_weight,
)
from runtime.ops import random_ops
from runtime.ops.array_ops import squeeze
from runtime.ops.constant_ops import cast, convert_to_tensor
from runtime.ops.indexing_ops import one_hot
from runtime.ops.math_ops import abs as abs_
from runtime.ops.math_ops import maximum, pow
from runtime.ops.reduction_ops import reduce_max, reduce_sum


def to_categorical(x, num_classes=None):
    """Class indices as one-hot vectors on a new last axis (a trailing axis of size 1
    replaced): a float numpy array for an array or list, a float tensor for a tensor.
    ``num_classes`` defaults to ``max(x) + 1``."""
    if isinstance(x, Tensor):
        if x.shape.rank is not None and x.shape.rank > 1 and x.shape[-1] == 1:
            x = squeeze(x, axis=-1)
        if num_classes is None:
            num_classes = int(reduce_max(x).numpy()) + 1
        return one_hot(cast(x, "int64"), int(num_classes), dtype=backend.floatx())
    x = np.asarray(x, dtype="int64")
    shape = x.shape
    if len(shape) > 1 and shape[-1] == 1:
        shape = shape[:-1]
    x = x.reshape(-1)
    if not num_classes:
        num_classes = int(np.max(x)) + 1
    categorical = np.zeros((x.shape[0], num_classes))
    categorical[np.arange(x.shape[0]), x] = 1
    return categorical.reshape(shape + (num_classes,))


def normalize(x, axis=-1, order=2):
    """``x`` divided by its ``order``-norm along ``axis`` (zero vectors stay zero): a numpy
    array for an array or list, a tensor for a tensor."""
    if not isinstance(x, Tensor):
        x = np.asarray(x)
        norm = np.atleast_1d(np.linalg.norm(x, order, axis))
        norm[norm == 0] = 1
        return x / np.expand_dims(norm, -1 if axis is None else axis)
    x = convert_to_tensor(x)
    if order == 2:
        norm = pow(reduce_sum(x * x, axis=axis, keepdims=True), 0.5)
    else:
        norm = pow(reduce_sum(pow(abs_(x), float(order)), axis=axis, keepdims=True), 1.0 / order)
    return x / maximum(norm, backend.epsilon())


def set_random_seed(seed):
    """Seeds Python's ``random``, numpy's global generator and ``rt.random`` (hence also
    ``rt.keras.random`` draws without a seed, and layers' initializers), so a program draws
    the same numbers on every run."""
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise ValueError(
            f"Expected `seed` argument to be an integer. Received: seed={seed} (of type "
            f"{type(seed)})"
        )
    random.seed(seed)
    np.random.seed(seed)
    random_ops.set_seed(seed)


__all__ = ["normalize", "set_random_seed", "to_categorical"]
