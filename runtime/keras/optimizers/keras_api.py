"""What a Keras 3 optimizer written by a user calls: ``build`` making variables with
``add_variable_from_reference``, ``update_step(gradient, variable, learning_rate)`` updating
one variable with ``assign``/``assign_add``/``assign_sub``.

The base optimizer calls a subclass's ``update_step`` for every variable (after clipping and
weight decay, as for the built-in rules); the variables it adds are among ``variables``.

>>> import runtime as rt
>>> class MomentumSGD(rt.keras.optimizers.Optimizer):
...     def __init__(self, learning_rate=0.1, momentum=0.5, **kwargs):
...         super().__init__(learning_rate, **kwargs)
...         self.momentum = momentum
...     def build(self, variables):
...         super().build(variables)
...         self.velocities = [self.add_variable_from_reference(v, "velocity") for v in variables]
...     def update_step(self, gradient, variable, learning_rate):
...         v = self.velocities[self._get_variable_index(variable)]
...         self.assign(v, v * self.momentum - gradient * learning_rate)
...         self.assign_add(variable, v)
>>> w = rt.Variable([1.0])
>>> opt = MomentumSGD()
>>> for _ in range(2):
...     _ = opt.apply_gradients([(rt.constant([1.0]), w)])
>>> w.numpy(), [v.name for v in opt.variables]       # 1 - 0.1, then - (0.05 + 0.1)
(array([0.75], dtype=float32), ['MomentumSGD/iter:0', 'MomentumSGD/learning_rate:0', 'MomentumSGD/Variable/velocity:0'])
"""

from __future__ import annotations

from runtime.core import dtypes
from runtime.keras import initializers


class KerasOptimizerAPI:
    """Keras 3's methods for optimizers written by users (a mixin of ``Optimizer``)."""

    def update_step(self, gradient, variable, learning_rate):
        """A user's rule for one variable; the built-in optimizers define ``_update``."""
        raise NotImplementedError

    def _has_update_step(self):
        return type(self).update_step is not KerasOptimizerAPI.update_step

    def add_variable(self, shape, initializer="zeros", dtype=None, aggregation="none", name=None):
        """A variable of the optimizer's own (in ``variables``), made by ``initializer``."""
        dtype = dtypes.as_dtype(dtype or dtypes.float32)
        value = initializers.get(initializer)(tuple(shape), dtype)
        variable = self._state_variable(value, name or "Variable", dtype)
        self._added_variables.append(variable)
        return variable

    def add_variable_from_reference(self, reference_variable, name=None, initializer="zeros"):
        """A variable of ``reference_variable``'s shape and dtype, named after it."""
        reference = reference_variable._primary()
        base = reference.name.removesuffix(":0")
        return self.add_variable(
            reference.shape.as_list(),
            initializer,
            reference.dtype,
            name=f"{base}/{name}" if name else base,
        )

    def _get_variable_index(self, variable):
        """The position of ``variable`` in the list the optimizer was built with."""
        return self._variable_index[id(variable._primary())]

    def assign(self, variable, value):
        variable.assign(value)

    def assign_add(self, variable, value):
        variable.assign_add(value)

    def assign_sub(self, variable, value):
        variable.assign_sub(value)
