"""``RMSprop``, ``Adagrad`` and ``Adadelta``: the gradient scaled by a running root mean square.

- RMSprop: ``ms = rho ms + (1 - rho) g^2``, ``w -= lr g / sqrt(ms + epsilon)``
  (centered: ``ms - mg^2 + epsilon`` under the root, ``mg = rho mg + (1 - rho) g``; with
  momentum ``mom = momentum mom + lr g / sqrt(...)``, ``w -= mom``). Unlike Adam's,
  RMSprop's epsilon is under the root, as in Keras 3.
- Adagrad: ``acc += g^2`` (from ``initial_accumulator_value``), ``w -= lr g / sqrt(acc +
  epsilon)``.
- Adadelta: ``acc = rho acc + (1 - rho) g^2``, ``d = -sqrt(acc_d + eps) g / sqrt(acc + eps)``,
  ``acc_d = rho acc_d + (1 - rho) d^2``, ``w += lr d``.

>>> import runtime as rt
>>> w = rt.Variable([1.0])
>>> _ = rt.keras.optimizers.Adagrad(0.5).apply_gradients([(rt.constant([1.0]), w)])
>>> w.numpy().round(4)                          # 1 - 0.5 / sqrt(0.1 + 1)
array([0.5233], dtype=float32)
"""

from __future__ import annotations

import numpy as np

from runtime.keras.optimizers.base import Optimizer
from runtime.ops.math_ops import sqrt, square


class RMSprop(Optimizer):
    """RMSprop: the gradient divided by the root of a moving average of its square."""

    def __init__(
        self,
        learning_rate=0.001,
        rho=0.9,
        momentum=0.0,
        epsilon=1e-7,
        centered=False,
        name="RMSprop",
        **kwargs,
    ):
        super().__init__(learning_rate, name=name, **kwargs)
        self.rho, self.momentum, self.epsilon, self.centered = rho, momentum, epsilon, centered
        self.slot_names = (
            ("rms",) + (("momentum",) if momentum else ()) + (("mg",) if centered else ())
        )

    def _update(self, grad, variable, slots, lr):
        rho = self.rho
        ms = slots["rms"].assign(rho * slots["rms"] + (1.0 - rho) * square(grad))
        if self.centered:
            mg = slots["mg"].assign(rho * slots["mg"] + (1.0 - rho) * grad)
            ms = ms - square(mg)
        scaled = lr * grad / sqrt(ms + self.epsilon)  # under the root, as Keras 3 has it
        if self.momentum:
            scaled = slots["momentum"].assign(self.momentum * slots["momentum"] + scaled)
        variable.assign_sub(scaled)

    def get_config(self):
        own = {"rho": self.rho, "momentum": self.momentum, "epsilon": self.epsilon}
        return {**super().get_config(), **own, "centered": self.centered}


class Adagrad(Optimizer):
    """Adagrad: each element's rate shrinks with the sum of its squared gradients."""

    slot_names = ("accumulator",)

    def __init__(
        self,
        learning_rate=0.001,
        initial_accumulator_value=0.1,
        epsilon=1e-7,
        name="Adagrad",
        **kwargs,
    ):
        super().__init__(learning_rate, name=name, **kwargs)
        self.initial_accumulator_value, self.epsilon = initial_accumulator_value, epsilon

    def _slot_initial_value(self, slot, zeros):
        if slot == "accumulator":
            return np.full_like(zeros, self.initial_accumulator_value)
        return zeros

    def _update(self, grad, variable, slots, lr):
        accumulator = slots["accumulator"].assign_add(square(grad))
        variable.assign_sub(lr * grad / sqrt(accumulator + self.epsilon))

    def get_config(self):
        own = {"initial_accumulator_value": self.initial_accumulator_value}
        return {**super().get_config(), **own, "epsilon": self.epsilon}


class Adadelta(Optimizer):
    """Adadelta: steps scaled by the ratio of running RMS of past steps and of gradients."""

    slot_names = ("accumulated_grad", "accumulated_delta_var")

    def __init__(self, learning_rate=0.001, rho=0.95, epsilon=1e-7, name="Adadelta", **kwargs):
        super().__init__(learning_rate, name=name, **kwargs)
        self.rho, self.epsilon = rho, epsilon

    def _update(self, grad, variable, slots, lr):
        rho, eps = self.rho, self.epsilon
        grads_ms = slots["accumulated_grad"].assign(
            rho * slots["accumulated_grad"] + (1.0 - rho) * square(grad)
        )
        deltas_ms = slots["accumulated_delta_var"]
        delta = -sqrt(deltas_ms + eps) * grad / sqrt(grads_ms + eps)
        deltas_ms.assign(rho * deltas_ms + (1.0 - rho) * square(delta))
        variable.assign_add(lr * delta)

    def get_config(self):
        return {**super().get_config(), "rho": self.rho, "epsilon": self.epsilon}
