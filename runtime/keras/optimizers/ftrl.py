"""``Ftrl``: Follow The Regularized Leader, as Keras 3 defines it.

Per element, with ``n`` the accumulated squared gradients (from
``initial_accumulator_value``), ``z`` the linear term, ``p = learning_rate_power``
(at most 0) and ``g' = g + 2 * l2_shrinkage * w``:
``z += g' - (n_new^-p - n^-p) / lr * w`` with ``n_new = n + g^2``; then
``w = (clip(z, -l1, l1) - z) / (n_new^-p / lr + 2 * (l2 + beta / (2 lr)))``: a weight
whose ``|z|`` stays below ``l1`` is exactly 0.

>>> import runtime as rt
>>> w = rt.Variable([1.0, 2.0])
>>> _ = rt.keras.optimizers.Ftrl(0.5).apply_gradients([(rt.constant([1.0, 6.0]), w)])
>>> w.numpy().round(4)
array([0.2218, 1.3954], dtype=float32)
"""

from __future__ import annotations

import numpy as np

from runtime.keras.optimizers.base import Optimizer
from runtime.ops.clip_ops import clip_by_value
from runtime.ops.math_ops import pow, square

_NON_NEGATIVE = (
    "initial_accumulator_value",
    "l1_regularization_strength",
    "l2_regularization_strength",
    "l2_shrinkage_regularization_strength",
)


class Ftrl(Optimizer):
    """FTRL-Proximal: sparse weights through L1, with L2 and L2-shrinkage regularization."""

    slot_names = ("accumulator", "linear")

    def __init__(
        self,
        learning_rate=0.001,
        learning_rate_power=-0.5,
        initial_accumulator_value=0.1,
        l1_regularization_strength=0.0,
        l2_regularization_strength=0.0,
        l2_shrinkage_regularization_strength=0.0,
        beta=0.0,
        name="Ftrl",
        **kwargs,
    ):
        super().__init__(learning_rate, name=name, **kwargs)
        strengths = {
            "initial_accumulator_value": initial_accumulator_value,
            "l1_regularization_strength": l1_regularization_strength,
            "l2_regularization_strength": l2_regularization_strength,
            "l2_shrinkage_regularization_strength": l2_shrinkage_regularization_strength,
        }
        _check(strengths, learning_rate_power)
        self.learning_rate_power = learning_rate_power
        for argument, value in strengths.items():
            setattr(self, argument, value)
        self.beta = beta

    def _slot_initial_value(self, slot, zeros):
        if slot == "accumulator":
            return np.full_like(zeros, self.initial_accumulator_value)
        return zeros

    def _update(self, grad, variable, slots, lr):
        power = -self.learning_rate_power
        accumulator, linear = slots["accumulator"], slots["linear"]
        shrunk = grad + 2.0 * self.l2_shrinkage_regularization_strength * variable
        new_accumulator = accumulator + square(grad)
        step_size_change = (pow(new_accumulator, power) - pow(accumulator, power)) / lr
        z = linear.assign_add(shrunk - step_size_change * variable)
        l2 = self.l2_regularization_strength + self.beta / (2.0 * lr)
        quadratic = pow(new_accumulator, power) / lr + 2.0 * l2
        l1 = self.l1_regularization_strength
        variable.assign((clip_by_value(z, -l1, l1) - z) / quadratic)
        accumulator.assign(new_accumulator)

    def get_config(self):
        own = {
            "learning_rate_power": self.learning_rate_power,
            **{argument: getattr(self, argument) for argument in _NON_NEGATIVE},
            "beta": self.beta,
        }
        return {**super().get_config(), **own}


def _check(strengths, learning_rate_power):
    """ValueError (Keras' words) for a negative strength or a positive power."""
    for argument, value in strengths.items():
        if value < 0.0:
            raise ValueError(
                f"`{argument}` needs to be positive or zero. Received: {argument}={value}."
            )
    if learning_rate_power > 0.0:
        raise ValueError(
            "`learning_rate_power` needs to be negative or zero. Received: "
            f"learning_rate_power={learning_rate_power}."
        )
