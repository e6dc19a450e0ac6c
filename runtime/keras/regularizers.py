"""Regularizers: penalties on a layer's weights or outputs, added to the training loss.

A layer given ``kernel_regularizer=L2(0.01)`` reports ``0.01 * sum(kernel**2)`` in
``layer.losses``; ``model.fit`` adds ``model.losses`` to the loss it minimizes.

>>> import numpy as np, runtime as rt
>>> float(rt.keras.regularizers.L1L2(l1=0.1, l2=0.2)(np.array([1.0, -2.0])))
1.3
>>> rt.keras.regularizers.serialize(rt.keras.regularizers.L2(0.5))["config"]
{'l2': 0.5}
"""

from __future__ import annotations

import math
import numbers

from runtime.keras import _math as math_ops
from runtime.keras import backend
from runtime.keras._config import deserialize_object, serialize_object
from runtime.ops.array_ops import transpose
from runtime.ops.constant_ops import cast, convert_to_tensor
from runtime.ops.linalg_ops import eye
from runtime.ops.math_ops import matmul


def _float_arg(value, name):
    """A penalty factor as a float; anything but a finite non-negative number is refused."""
    valid = isinstance(value, numbers.Real) and not isinstance(value, bool)
    if not valid or not math.isfinite(value) or value < 0:
        raise ValueError(
            f"Invalid value for argument {name}: expected a non-negative float."
            f"Received: {name}={value}"
        )
    return float(value)


def _as_float_tensor(x):
    x = convert_to_tensor(x)
    return x if x.dtype.is_floating else cast(x, backend.floatx())


class Regularizer:
    """``regularizer(weights)`` -> a scalar penalty."""

    def __call__(self, x):
        return 0.0

    def get_config(self):
        raise NotImplementedError(f"{self} does not implement get_config()")

    @classmethod
    def from_config(cls, config):
        return cls(**config)


class L1(Regularizer):
    """``l1 * sum(abs(x))``."""

    def __init__(self, l1=0.01):
        self.l1 = _float_arg(l1, "l1")

    def __call__(self, x):
        return self.l1 * math_ops.reduce_sum(math_ops.abs(_as_float_tensor(x)))

    def get_config(self):
        return {"l1": self.l1}


class L2(Regularizer):
    """``l2 * sum(square(x))``."""

    def __init__(self, l2=0.01):
        self.l2 = _float_arg(l2, "l2")

    def __call__(self, x):
        return self.l2 * math_ops.reduce_sum(math_ops.square(_as_float_tensor(x)))

    def get_config(self):
        return {"l2": self.l2}


class L1L2(Regularizer):
    """``l1 * sum(abs(x)) + l2 * sum(square(x))``."""

    def __init__(self, l1=0.0, l2=0.0):
        self.l1, self.l2 = _float_arg(l1, "l1"), _float_arg(l2, "l2")

    def __call__(self, x):
        x = _as_float_tensor(x)
        penalty = convert_to_tensor(0.0, dtype=x.dtype)
        if self.l1:
            penalty += self.l1 * math_ops.reduce_sum(math_ops.abs(x))
        if self.l2:
            penalty += self.l2 * math_ops.reduce_sum(math_ops.square(x))
        return penalty

    def get_config(self):
        return {"l1": self.l1, "l2": self.l2}


class OrthogonalRegularizer(Regularizer):
    """``factor`` times the mean absolute cosine between distinct rows (``mode="rows"``) or
    columns of a 2-D weight: 0 when they are orthogonal."""

    def __init__(self, factor=0.01, mode="rows"):
        self.factor = _float_arg(factor, "factor")
        if mode not in ("rows", "columns"):
            raise ValueError(
                'Invalid value for argument `mode`. Expected one of {"rows", "columns"}. '
                f"Received: mode={mode}"
            )
        self.mode = mode

    def __call__(self, inputs):
        x = _as_float_tensor(inputs)
        if x.shape.rank != 2:
            raise ValueError(
                "Inputs to OrthogonalRegularizer must have rank 2. Received: "
                f"inputs.shape={tuple(x.shape.as_list())}"
            )
        if self.mode == "columns":
            x = transpose(x)
        norms = math_ops.sqrt(math_ops.reduce_sum(math_ops.square(x), axis=1, keepdims=True))
        unit = x / math_ops.maximum(norms, 1e-12)
        cosines = matmul(unit, unit, transpose_b=True)
        size = x.shape[0]
        off_diagonal = cosines * (1.0 - eye(size, dtype=x.dtype))
        return self.factor * math_ops.reduce_sum(math_ops.abs(off_diagonal)) / (size * (size - 1))

    def get_config(self):
        return {"factor": self.factor, "mode": self.mode}


# Keras 3's lower-case aliases.
l1, l2, l1_l2, orthogonal_regularizer = L1, L2, L1L2, OrthogonalRegularizer

_BY_NAME = {
    "Regularizer": Regularizer,
    "L1": L1,
    "L2": L2,
    "L1L2": L1L2,
    "OrthogonalRegularizer": OrthogonalRegularizer,
    "l1": L1,
    "l2": L2,
    "l1l2": L1L2,
    "l1_l2": L1L2,
    "orthogonal_regularizer": OrthogonalRegularizer,
}


def serialize(regularizer):
    """Keras 3's serialized form (None for None)."""
    return serialize_object(regularizer)


def deserialize(config, custom_objects=None):
    """The regularizer a serialized form or a name describes."""
    return deserialize_object(config, {**_BY_NAME, **(custom_objects or {})}, "regularizer")


def get(identifier):
    """The regularizer ``identifier`` names (``"l2"``, a serialized dict), a callable as it
    is, None for None."""
    if identifier is None:
        return None
    if isinstance(identifier, (str, dict)):
        return deserialize(identifier)
    if callable(identifier):
        return identifier
    raise ValueError(f"Could not interpret regularizer identifier: {identifier}")
