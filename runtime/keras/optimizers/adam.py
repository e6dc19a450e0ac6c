"""The Adam family: ``Adam`` (and ``amsgrad``), ``AdamW``, ``Adamax``, ``Nadam``.

With ``g`` the gradient, ``t`` the step (from 1) and ``lr`` the learning rate:

- Adam: ``m = b1 m + (1 - b1) g``, ``v = b2 v + (1 - b2) g^2``,
  ``w -= lr sqrt(1 - b2^t) / (1 - b1^t) * m / (sqrt(v) + epsilon)`` (amsgrad: the running
  maximum of ``v`` in its place).
- AdamW: Adam with a weight decay of 0.004 by default (``w -= w * weight_decay * lr`` first).
- Adamax: ``m`` as Adam's, ``u = max(b2 u, |g|)``, ``w -= lr m / ((1 - b1^t)(u + epsilon))``.
- Nadam: Adam with Nesterov momentum and Dozat's momentum schedule
  ``u_t = b1 (1 - 0.5 * 0.96^t)``.

>>> import runtime as rt
>>> w = rt.Variable([1.0, 2.0])
>>> _ = rt.keras.optimizers.Adam(learning_rate=0.5).apply_gradients([(rt.constant([1.0, -6.0]), w)])
>>> w.numpy().round(4)                                # the first step moves by lr: m / sqrt(v) = 1
array([0.5, 2.5], dtype=float32)
"""

from __future__ import annotations

from runtime.core import dtypes
from runtime.keras.optimizers.base import Optimizer
from runtime.ops.constant_ops import cast
from runtime.ops.math_ops import abs as abs_
from runtime.ops.math_ops import maximum, pow, sqrt, square


class _Moments(Optimizer):
    """An optimizer with ``beta_1``, ``beta_2`` and ``epsilon`` in its config."""

    def __init__(self, learning_rate, beta_1, beta_2, epsilon, name, **kwargs):
        super().__init__(learning_rate, name=name, **kwargs)
        self.beta_1, self.beta_2, self.epsilon = beta_1, beta_2, epsilon

    def get_config(self):
        moments = {"beta_1": self.beta_1, "beta_2": self.beta_2, "epsilon": self.epsilon}
        return {**super().get_config(), **moments}


class Adam(_Moments):
    """Adam: moving averages of the gradient and its square, with bias correction."""

    slots_made_apart = ("vhat",)

    def __init__(
        self,
        learning_rate=0.001,
        beta_1=0.9,
        beta_2=0.999,
        epsilon=1e-7,
        amsgrad=False,
        name="Adam",
        **kwargs,
    ):
        super().__init__(learning_rate, beta_1, beta_2, epsilon, name, **kwargs)
        self.amsgrad = amsgrad
        self.slot_names = ("m", "v", "vhat") if amsgrad else ("m", "v")

    def _rate(self, lr):
        step = self._step_number(lr.dtype)
        return lr * sqrt(1.0 - pow(self.beta_2, step)) / (1.0 - pow(self.beta_1, step))

    def _update(self, grad, variable, slots, lr_t):
        b1, b2 = self.beta_1, self.beta_2
        m = slots["m"].assign(b1 * slots["m"] + (1.0 - b1) * grad)
        v = slots["v"].assign(b2 * slots["v"] + (1.0 - b2) * square(grad))
        if self.amsgrad:
            v = slots["vhat"].assign(maximum(slots["vhat"], v))
        variable.assign_sub(lr_t * m / (sqrt(v) + self.epsilon))

    def get_config(self):
        return {**super().get_config(), "amsgrad": self.amsgrad}


class AdamW(Adam):
    """Adam with decoupled weight decay (``weight_decay=0.004`` unless given).

    >>> import runtime as rt
    >>> w = rt.Variable(1.0)
    >>> _ = rt.keras.optimizers.AdamW(0.5).apply_gradients([(rt.constant(1.0), w)])
    >>> round(float(w.numpy()), 4)                   # 1 * (1 - 0.004 * 0.5) - 0.5
    0.498
    """

    def __init__(
        self,
        learning_rate=0.001,
        weight_decay=0.004,
        beta_1=0.9,
        beta_2=0.999,
        epsilon=1e-7,
        amsgrad=False,
        name="AdamW",
        **kwargs,
    ):
        if weight_decay is None:
            raise ValueError("Argument `weight_decay` must be a float. Received: weight_decay=None")
        super().__init__(
            learning_rate,
            beta_1,
            beta_2,
            epsilon,
            amsgrad,
            name,
            weight_decay=weight_decay,
            **kwargs,
        )


class Adamax(_Moments):
    """Adam with the infinity norm: ``u = max(b2 u, |g|)`` in place of the second moment."""

    slot_names = ("m", "u")

    def __init__(
        self, learning_rate=0.001, beta_1=0.9, beta_2=0.999, epsilon=1e-7, name="Adamax", **kwargs
    ):
        super().__init__(learning_rate, beta_1, beta_2, epsilon, name, **kwargs)

    def _rate(self, lr):
        return lr / (1.0 - pow(self.beta_1, self._step_number(lr.dtype)))

    def _update(self, grad, variable, slots, lr_t):
        m = slots["m"].assign(self.beta_1 * slots["m"] + (1.0 - self.beta_1) * grad)
        u = slots["u"].assign(maximum(self.beta_2 * slots["u"], abs_(grad)))
        variable.assign_sub(lr_t * m / (u + self.epsilon))


class Nadam(_Moments):
    """Adam with Nesterov momentum (Dozat): the momentum's weight follows ``u_t = b1 (1 -
    0.5 * 0.96^t)``, whose running product the optimizer keeps in a variable."""

    slot_names = ("m", "v")

    def __init__(
        self, learning_rate=0.001, beta_1=0.9, beta_2=0.999, epsilon=1e-7, name="Nadam", **kwargs
    ):
        super().__init__(learning_rate, beta_1, beta_2, epsilon, name, **kwargs)
        self._u_product = self.add_variable((), initializer="ones", name="u_product")
        self._step_terms = None

    def _momentum_weight(self, step):
        return self.beta_1 * (1.0 - 0.5 * pow(0.96, step))

    def _rate(self, lr):
        step = self._step_number(dtypes.float32)
        u_t, u_next = self._momentum_weight(step), self._momentum_weight(step + 1.0)
        product = self._u_product.assign(self._u_product * u_t)
        # This step's terms, the same for every variable.
        self._step_terms = (u_t, u_next, product, product * u_next, pow(self.beta_2, step))
        return lr

    def _update(self, grad, variable, slots, lr):
        u_t, u_next, product, product_next, b2_power = (
            cast(term, variable.dtype) for term in self._step_terms
        )
        m = slots["m"].assign(slots["m"] + (grad - slots["m"]) * (1.0 - self.beta_1))
        v = slots["v"].assign(slots["v"] + (square(grad) - slots["v"]) * (1.0 - self.beta_2))
        m_hat = u_next * m / (1.0 - product_next) + (1.0 - u_t) * grad / (1.0 - product)
        v_hat = v / (1.0 - b2_power)
        variable.assign_sub(m_hat * lr / (sqrt(v_hat) + self.epsilon))
