"""``SGD``: gradient descent, with momentum and Nesterov momentum.

``w -= lr * g``; with momentum ``v = momentum * v - lr * g; w += v`` (Nesterov:
``w += momentum * v - lr * g``).

>>> import runtime as rt
>>> w = rt.Variable([1.0, 2.0])
>>> sgd = rt.keras.optimizers.SGD(learning_rate=0.5, momentum=0.5)
>>> for _ in range(2):
...     _ = sgd.apply_gradients([(rt.constant([1.0, 1.0]), w)])
>>> w.numpy()                                   # -0.5, then -(0.25 + 0.5)
array([-0.25,  0.75], dtype=float32)
"""

from __future__ import annotations

from runtime.keras.optimizers.base import Optimizer


class SGD(Optimizer):
    """Gradient descent, with momentum (and Nesterov momentum) when ``momentum > 0``."""

    def __init__(self, learning_rate=0.01, momentum=0.0, nesterov=False, name="SGD", **kwargs):
        super().__init__(learning_rate, name=name, **kwargs)
        if not isinstance(momentum, float | int) or not 0 <= momentum <= 1:
            raise ValueError("`momentum` must be a float between [0, 1].")
        self.momentum = momentum
        self.nesterov = nesterov
        self.slot_names = ("momentum",) if momentum else ()

    def _update(self, grad, variable, slots, lr):
        if not self.momentum:
            variable.assign_sub(lr * grad)
            return
        velocity = slots["momentum"].assign(self.momentum * slots["momentum"] - lr * grad)
        if self.nesterov:
            variable.assign_add(self.momentum * velocity - lr * grad)
        else:
            variable.assign_add(velocity)

    def get_config(self):
        return {**super().get_config(), "momentum": self.momentum, "nesterov": self.nesterov}
