"""Constraints: projections applied to a weight after each optimizer update.

>>> import numpy as np, runtime as rt
>>> rt.keras.constraints.NonNeg()(np.array([-1.0, 2.0])).numpy()
array([0., 2.])
>>> rt.keras.layers.Dense(2, kernel_constraint="non_neg").kernel_constraint
NonNeg()
"""

from __future__ import annotations

from runtime.keras import _math as math_ops
from runtime.keras import backend
from runtime.keras._config import deserialize_object, serialize_object
from runtime.ops.constant_ops import convert_to_tensor


def _norms(w, axis):
    return math_ops.sqrt(math_ops.reduce_sum(math_ops.square(w), axis=axis, keepdims=True))


class Constraint:
    """``constraint(w)`` -> the projected weight; the base class leaves it as it is."""

    def __call__(self, w):
        return w

    def get_config(self):
        return {}

    @classmethod
    def from_config(cls, config):
        return cls(**config)

    def __repr__(self):
        arguments = ", ".join(f"{k}={v!r}" for k, v in self.get_config().items())
        return f"{type(self).__name__}({arguments})"


class MaxNorm(Constraint):
    """Scales the slices along ``axis`` whose L2 norm exceeds ``max_value`` down to it."""

    def __init__(self, max_value=2, axis=0):
        self.max_value, self.axis = max_value, axis

    def __call__(self, w):
        w = convert_to_tensor(w)
        norms = _norms(w, self.axis)
        desired = math_ops.minimum(math_ops.maximum(norms, 0.0), self.max_value)
        return w * (desired / (backend.epsilon() + norms))

    def get_config(self):
        return {"max_value": self.max_value, "axis": self.axis}


class NonNeg(Constraint):
    """``max(w, 0)``."""

    def __call__(self, w):
        return math_ops.maximum(convert_to_tensor(w), 0.0)


class UnitNorm(Constraint):
    """Scales the slices along ``axis`` to unit L2 norm."""

    def __init__(self, axis=0):
        self.axis = axis

    def __call__(self, w):
        w = convert_to_tensor(w)
        return w / (backend.epsilon() + _norms(w, self.axis))

    def get_config(self):
        return {"axis": self.axis}


class MinMaxNorm(Constraint):
    """Moves the L2 norms of the slices along ``axis`` into ``[min_value, max_value]``, by
    the fraction ``rate`` of the way at each update."""

    def __init__(self, min_value=0.0, max_value=1.0, rate=1.0, axis=0):
        self.min_value, self.max_value, self.rate, self.axis = min_value, max_value, rate, axis

    def __call__(self, w):
        w = convert_to_tensor(w)
        norms = _norms(w, self.axis)
        clipped = math_ops.minimum(math_ops.maximum(norms, self.min_value), self.max_value)
        desired = self.rate * clipped + (1 - self.rate) * norms
        return w * (desired / (backend.epsilon() + norms))

    def get_config(self):
        return {
            "min_value": self.min_value,
            "max_value": self.max_value,
            "rate": self.rate,
            "axis": self.axis,
        }


# Keras 3's lower-case aliases.
max_norm, non_neg, unit_norm, min_max_norm = MaxNorm, NonNeg, UnitNorm, MinMaxNorm

_BY_NAME = {cls.__name__: cls for cls in (Constraint, MaxNorm, NonNeg, UnitNorm, MinMaxNorm)}
_BY_NAME.update(
    constraint=Constraint,
    max_norm=MaxNorm,
    non_neg=NonNeg,
    unit_norm=UnitNorm,
    min_max_norm=MinMaxNorm,
)


def serialize(constraint):
    """Keras 3's serialized form (None for None)."""
    return serialize_object(constraint)


def deserialize(config, custom_objects=None):
    """The constraint a serialized form or a name describes."""
    return deserialize_object(config, {**_BY_NAME, **(custom_objects or {})}, "constraint")


def get(identifier):
    """The constraint ``identifier`` names (``"non_neg"``, a serialized dict), a callable as
    it is, None for None."""
    if identifier is None:
        return None
    if isinstance(identifier, (str, dict)):
        return deserialize(identifier)
    if callable(identifier):
        return identifier
    raise ValueError(f"Could not interpret constraint identifier: {identifier}")
