"""``Lion``: the sign of an interpolation of momentum and gradient.

``w -= lr * sign(b1 m + (1 - b1) g)``, then ``m = b2 m + (1 - b2) g``.

>>> import runtime as rt
>>> w = rt.Variable([1.0, 2.0])
>>> _ = rt.keras.optimizers.Lion(0.5).apply_gradients([(rt.constant([3.0, -0.1]), w)])
>>> w.numpy()
array([0.5, 2.5], dtype=float32)
"""

from __future__ import annotations

from runtime.keras.optimizers.base import Optimizer
from runtime.ops.math_ops import sign


class Lion(Optimizer):
    """Lion (EvoLved Sign Momentum): every element moves by exactly ``lr``."""

    slot_names = ("momentum",)

    def __init__(self, learning_rate=0.001, beta_1=0.9, beta_2=0.99, name="Lion", **kwargs):
        super().__init__(learning_rate, name=name, **kwargs)
        if beta_1 <= 0 or beta_1 > 1:
            raise ValueError(
                "Argument `beta_1` must be in the [0, 1] range. Otherwise, the optimizer "
                f"degenerates to SignSGD. Received: beta_1={beta_1}."
            )
        self.beta_1, self.beta_2 = beta_1, beta_2

    def _update(self, grad, variable, slots, lr):
        m = slots["momentum"]
        variable.assign_sub(lr * sign(self.beta_1 * m + (1.0 - self.beta_1) * grad))
        m.assign(self.beta_2 * m + (1.0 - self.beta_2) * grad)

    def get_config(self):
        return {**super().get_config(), "beta_1": self.beta_1, "beta_2": self.beta_2}
