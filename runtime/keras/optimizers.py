"""Optimizers: ``SGD`` (with momentum), ``Adam``, ``RMSprop``, each Keras' update rule.

An optimizer's state (the iteration count, the learning rate, each variable's
slots: momentum, moments) lives in variables, made at the first
``apply_gradients``, and every update is an assign op: the same code runs
eagerly and inside a traced training step. With ``g`` the gradient, ``t`` the
step (from 1) and ``lr`` the learning rate:

- SGD: ``w -= lr * g``; with momentum ``v = momentum * v - lr * g; w += v``
  (nesterov: ``w += momentum * v - lr * g``).
- Adam: ``m = b1 m + (1 - b1) g``, ``v = b2 v + (1 - b2) g^2``,
  ``w -= lr sqrt(1 - b2^t) / (1 - b1^t) * m / (sqrt(v) + epsilon)``.
- RMSprop: ``ms = rho ms + (1 - rho) g^2``, ``w -= lr g / sqrt(ms + epsilon)``
  (centered: ``ms - mg^2 + epsilon`` under the root, ``mg = rho mg + (1 - rho) g``; with
  momentum ``mom = momentum mom + lr g / sqrt(...)``, ``w -= mom``). Unlike Adam's, RMSprop's
  epsilon is under the root, as in Keras 3.

>>> import runtime as rt
>>> w = rt.Variable([1.0, 2.0])
>>> sgd = rt.keras.optimizers.SGD(learning_rate=0.1)
>>> _ = sgd.apply_gradients([(rt.constant([1.0, -1.0]), w)])
>>> w.numpy(), int(sgd.iterations.numpy())
(array([0.9, 2.1], dtype=float32), 1)
"""

from __future__ import annotations

import numpy as np

from runtime.core import context, dtypes
from runtime.core.graph import name_scope
from runtime.gradients.tape import GradientTape
from runtime.keras import constraints
from runtime.ops.constant_ops import cast, convert_to_tensor
from runtime.ops.math_ops import maximum, pow, sqrt, square
from runtime.state import deferred
from runtime.state.variables import Variable


class Optimizer:
    """The base of optimizers: ``apply_gradients(zip(grads, variables))``, ``minimize``."""

    def __init__(self, learning_rate, name):
        self.name = name
        # Made now, as Keras 3 makes them: a checkpoint restored later assigns them at once,
        # and a learning rate set after the restore stays.
        self._iterations = self._state_variable(0, "iter", dtypes.int64)
        self._learning_rate = self._state_variable(float(learning_rate), "learning_rate")
        self._slots = {}  # id(variable) -> {slot name: Variable}
        self._slot_primaries = {}  # id(variable) -> variable (held, as Keras holds them)

    # --- state -------------------------------------------------------------------------------

    def _state_variable(self, value, name, dtype=dtypes.float32):
        with context.eager_mode(), name_scope(self.name + "/"):
            return Variable(value, dtype=dtype, trainable=False, name=name)

    @property
    def iterations(self):
        """How many times ``apply_gradients`` ran: an int64 variable."""
        return self._iterations

    @property
    def learning_rate(self):
        return self._learning_rate

    @learning_rate.setter
    def learning_rate(self, value):
        self._learning_rate.assign(value)

    lr = learning_rate

    def get_slot(self, variable, name):
        """The slot ``name`` (``"momentum"``, ``"m"``, ``"v"``, ``"rms"``...) of ``variable``."""
        return self._slots[id(variable._primary())][name]

    def variables(self):
        """The optimizer's own variables: iterations, learning rate, then the slots."""
        own = [self._iterations, self._learning_rate]
        return own + [v for slots in self._slots.values() for v in slots.values()]

    def _slots_of(self, variable):
        # A variable passed to a traced function is a stand-in there: its slots are the
        # variable's own, on every trace.
        variable = variable._primary()
        slots = self._slots.get(id(variable))
        if slots is None:
            slots = self._slots[id(variable)] = {}
            self._slot_primaries[id(variable)] = variable
            base = variable.name.removesuffix(":0")
            zeros = np.zeros(variable.shape.as_list(), variable.dtype.as_numpy_dtype)
            for slot in self.slot_names:  # zeros, as Keras: not ``variable * 0`` (NaN for inf)
                slots[slot] = self._state_variable(zeros, f"{base}/{slot}", variable.dtype)
                # A restored checkpoint may wait for it, by its variable.
                deferred.attached(self, deferred.slot_key(variable, slot), slots[slot])
        return slots

    def _trackable_children(self):
        """The optimizer's own state for a checkpoint: ``iterations``, ``learning_rate``. Its
        slots are saved with their variables (``_slot_variables``), as TensorFlow records them
        on the variable's node: a restore finds a slot by its variable's path."""
        return {"iterations": self._iterations, "learning_rate": self._learning_rate}

    def _slot_variables(self):
        """``[(variable, slot name, slot variable)]``, in the order the slots were made."""
        return [
            (self._slot_primaries[key], name, slot)
            for key, slots in self._slots.items()
            for name, slot in slots.items()
        ]

    def _existing_slot(self, variable, name):
        """``variable``'s slot ``name``, or None before the first update of ``variable``."""
        variable = variable._primary()
        if self._slot_primaries.get(id(variable)) is not variable:
            return None
        return self._slots[id(variable)].get(name)

    slot_names = ()

    # --- updating ----------------------------------------------------------------------------

    def apply_gradients(self, grads_and_vars):
        """Updates each variable with its gradient (pairs whose gradient is None are skipped);
        then counts one iteration. Returns the new iteration count."""
        pairs = list(grads_and_vars)
        given = [(g, v) for g, v in pairs if g is not None]
        if not given:
            names = [getattr(v, "name", repr(v)) for _, v in pairs]
            raise ValueError(f"No gradients provided for any variable: {names}.")
        rate = self._rate(self.learning_rate.read_value())
        for grad, variable in given:
            if not isinstance(variable, Variable):
                raise TypeError(f"apply_gradients needs variables, got {variable!r}")
            grad = convert_to_tensor(grad, dtype=variable.dtype)
            self._update(grad, variable, self._slots_of(variable), cast(rate, variable.dtype))
        constraints.apply_constraints(v for _, v in given)  # Keras: after the updates
        return self.iterations.assign_add(1)

    def _rate(self, lr):
        """The rate this update applies to every variable: the learning rate (Adam corrects
        it for the step), computed once per update."""
        return lr

    def _update(self, grad, variable, slots, lr):
        """Updates ``variable`` (and its ``slots``) with assign ops, at rate ``lr``."""
        raise NotImplementedError

    def minimize(self, loss, var_list, tape=None):
        """Computes the gradients of ``loss`` (a function of no arguments, or a tensor computed
        under ``tape``) for ``var_list`` and applies them."""
        if callable(loss):
            with GradientTape() as tape:
                value = loss()
        elif tape is None:
            raise ValueError("`tape` is required when a `Tensor` loss is passed to minimize()")
        else:
            value = loss
        var_list = list(var_list() if callable(var_list) else var_list)
        grads = tape.gradient(value, var_list)
        return self.apply_gradients(zip(grads, var_list))

    def __repr__(self):
        return f"<rt.keras.optimizers.{type(self).__name__}>"


class SGD(Optimizer):
    """Gradient descent, with momentum (and Nesterov momentum) when ``momentum > 0``."""

    def __init__(self, learning_rate=0.01, momentum=0.0, nesterov=False, name="SGD"):
        super().__init__(learning_rate, name)
        if not 0 <= momentum <= 1:
            raise ValueError(f"`momentum` must be between [0, 1]. Received: momentum={momentum}")
        self.momentum = float(momentum)
        self.nesterov = bool(nesterov)
        self.slot_names = ("momentum",) if self.momentum else ()

    def _update(self, grad, variable, slots, lr):
        if not self.momentum:
            variable.assign_sub(lr * grad)
            return
        velocity = slots["momentum"].assign(self.momentum * slots["momentum"] - lr * grad)
        if self.nesterov:
            variable.assign_add(self.momentum * velocity - lr * grad)
        else:
            variable.assign_add(velocity)


class Adam(Optimizer):
    """Adam: moving averages of the gradient and its square, with bias correction."""

    def __init__(
        self,
        learning_rate=0.001,
        beta_1=0.9,
        beta_2=0.999,
        epsilon=1e-7,
        amsgrad=False,
        name="Adam",
    ):
        super().__init__(learning_rate, name)
        self.beta_1, self.beta_2, self.epsilon = float(beta_1), float(beta_2), float(epsilon)
        self.amsgrad = bool(amsgrad)
        self.slot_names = ("m", "v", "vhat") if amsgrad else ("m", "v")

    def _rate(self, lr):
        step = cast(self.iterations.read_value() + 1, lr.dtype)  # this update's number, from 1
        return lr * sqrt(1.0 - pow(self.beta_2, step)) / (1.0 - pow(self.beta_1, step))

    def _update(self, grad, variable, slots, lr_t):
        b1, b2 = self.beta_1, self.beta_2
        m = slots["m"].assign(b1 * slots["m"] + (1.0 - b1) * grad)
        v = slots["v"].assign(b2 * slots["v"] + (1.0 - b2) * square(grad))
        if self.amsgrad:
            v = slots["vhat"].assign(maximum(slots["vhat"], v))
        variable.assign_sub(lr_t * m / (sqrt(v) + self.epsilon))


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
    ):
        super().__init__(learning_rate, name)
        self.rho, self.momentum, self.epsilon = float(rho), float(momentum), float(epsilon)
        self.centered = bool(centered)
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


_BY_NAME = {"sgd": SGD, "adam": Adam, "rmsprop": RMSprop}


def get(identifier):
    """An optimizer: by name (``"sgd"``, ``"adam"``, ``"rmsprop"``, any case), or as it is."""
    if isinstance(identifier, Optimizer):
        return identifier
    if isinstance(identifier, type) and issubclass(identifier, Optimizer):
        name = identifier.__name__
        raise TypeError(f"optimizer={name} is a class: pass an instance, {name}()")
    if isinstance(identifier, str) and identifier.lower() in _BY_NAME:
        return _BY_NAME[identifier.lower()]()
    raise ValueError(
        f"Could not interpret optimizer identifier: {identifier!r}. Use one of "
        f"{sorted(_BY_NAME)} or an optimizer object."
    )
