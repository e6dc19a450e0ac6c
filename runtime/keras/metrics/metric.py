"""``Metric``: a value accumulated over batches in non-trainable variables (Keras 3's base).

``update_state`` adds a batch to the state, ``result`` reads the value,
``reset_state`` starts again; calling the metric does the first two. The state
lives in ``rt.Variable``s made with ``add_variable`` (eagerly, even while a graph
is traced), so a metric updated inside an ``ag.function`` (``fit``'s staged
step) keeps its value between calls, as it does eagerly.

>>> import runtime as rt
>>> class Count(rt.keras.metrics.Metric):
...     def __init__(self, name="count"):
...         super().__init__(name=name)
...         self.seen = self.add_variable(shape=(), initializer="zeros", name="seen")
...     def update_state(self, values):
...         self.seen.assign_add(rt.cast(rt.size(values), "float32"))
...     def result(self):
...         return self.seen.read_value()
>>> m = Count()
>>> float(m([1, 2, 3])), float(m([4]))
(3.0, 4.0)
>>> m.reset_state(); float(m.result()), [v.name for v in m.variables]
(0.0, ['count/seen:0'])
"""

from __future__ import annotations

from runtime.core import context, dtypes
from runtime.core.graph import name_scope
from runtime.keras import backend, initializers
from runtime.ops.constant_ops import cast, convert_to_tensor
from runtime.state.variables import Variable


class Metric:
    """The base of stateful metrics (``keras.metrics.Metric``): subclass it, make the state
    with ``add_variable`` in ``__init__``, and define ``update_state`` and ``result``."""

    def __init__(self, dtype=None, name=None):
        self.name = name or backend.unique_object_name(backend.to_snake_case(type(self).__name__))
        self._tensor_dtype = dtypes.as_dtype(dtype or backend.floatx())
        self._dtype = self._tensor_dtype.name  # Keras keeps the name
        self._variables = []

    @property
    def dtype(self):
        """The dtype of the state and the result, as its name (``"float32"``), as in Keras."""
        return self._dtype

    def add_variable(self, shape, initializer, dtype=None, aggregation="sum", name=None):
        """A non-trainable variable of this metric's state, ``<metric name>/<name>:0``.
        ``aggregation`` is accepted for Keras' signature: one device sums nothing."""
        if "_variables" not in self.__dict__:
            raise RuntimeError(
                "You forgot to call `super().__init__()` in the `__init__()` method. Go add it!"
            )
        dtype = dtypes.as_dtype(dtype or self._tensor_dtype)
        initial = initializers.get(initializer)
        shape = tuple(int(d) for d in shape)
        with context.eager_mode(), name_scope(self.name.replace("/", ">") + "/"):
            variable = Variable(
                initial(shape, dtype=dtype),
                dtype=dtype,
                trainable=False,
                name=name or "Variable",
            )
        self._variables.append(variable)
        return variable

    def add_weight(self, shape=(), initializer=None, dtype=None, name=None):
        """``add_variable`` by its older name."""
        return self.add_variable(shape, initializer or "zeros", dtype=dtype, name=name)

    @property
    def variables(self):
        """This metric's state variables, then those held in its attributes (directly or in
        lists, tuples and dicts), its inner metrics' included."""
        found = list(self.__dict__.get("_variables", ()))
        for name, value in vars(self).items():
            if name != "_variables":
                _collect_variables(value, found, {id(self)})
        return _unique(found)

    def stateless_update_state(self, metric_variables, *args, **kwargs):
        """The values ``variables`` would have after ``update_state(*args, **kwargs)`` from
        ``metric_variables``; the metric's own state is left as it was."""
        return self._statelessly(metric_variables, lambda: self.update_state(*args, **kwargs))[1]

    def stateless_result(self, metric_variables):
        """``result()`` computed from ``metric_variables`` instead of the state."""
        return self._statelessly(metric_variables, self.result)[0]

    def stateless_reset_state(self):
        """The values ``variables`` would have after ``reset_state()``."""
        return self._statelessly(None, self.reset_state)[1]

    def _statelessly(self, values, compute):
        variables = self.variables
        saved = [v.numpy() for v in variables]
        try:
            for variable, value in zip(variables, values or ()):
                variable.assign(cast(convert_to_tensor(value), variable.dtype))
            result = compute()
            return result, [v.read_value() for v in variables]
        finally:
            for variable, value in zip(variables, saved):
                variable.assign(value)

    def update_state(self, *args, **kwargs):
        """Adds a batch to the state."""
        raise NotImplementedError

    def result(self):
        """The metric's value from the state so far."""
        raise NotImplementedError

    def reset_state(self):
        """Sets every state variable back to zeros."""
        for variable in self.variables:
            variable.assign(initializers.Zeros()(variable.shape.as_list(), variable.dtype))

    def __call__(self, *args, **kwargs):
        """``update_state(...)``, then ``result()``."""
        if "_variables" not in self.__dict__:
            raise RuntimeError(
                "You forgot to call `super().__init__()` in the `__init__()` method. Go add it!"
            )
        self.update_state(*args, **kwargs)
        return self.result()

    def get_config(self):
        return {"name": self.name, "dtype": self.dtype}

    @classmethod
    def from_config(cls, config):
        return cls(**config)

    def __repr__(self):
        return f"<{type(self).__name__} name={self.name}>"

    __str__ = __repr__


def _collect_variables(value, found, seen):
    if id(value) in seen:
        return
    seen.add(id(value))
    if isinstance(value, Variable):
        found.append(value)
    elif isinstance(value, Metric):
        found.extend(value.variables)
    elif isinstance(value, (list, tuple)):
        for item in value:
            _collect_variables(item, found, seen)
    elif isinstance(value, dict):
        for item in value.values():
            _collect_variables(item, found, seen)


def _unique(variables):
    unique = {}
    for variable in variables:
        unique.setdefault(id(variable), variable)
    return list(unique.values())
