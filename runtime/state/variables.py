"""Variables: named, mutable state that eager code and graphs both read and write.

The value lives in the Variable object. A graph reaches it through a handle
op, so every run reads the current value and assignments write it back.

>>> import runtime as rt
>>> v = rt.Variable(1.0)
>>> v.assign_add(2.0)
<rt.Variable 'Variable:0' shape=() dtype=float32, numpy=3.0>
>>> g = rt.Graph()
>>> with g.as_default():
...     step = v.assign_add(1.0)
>>> with rt.Session(g) as sess:
...     sess.run(step), sess.run(step)
(np.float32(4.0), np.float32(5.0))
"""

from __future__ import annotations

import inspect
import threading
import weakref

import numpy as np

from runtime import errors
from runtime.core import context, dtypes
from runtime.core.attr_kinds import AttrKind
from runtime.core.forms import handle_form
from runtime.core.graph import current_name_scope
from runtime.core.op_def import NO_INPUTS, NotDifferentiable, OpDef
from runtime.core.tensor import EagerTensor, Tensor, TensorRef, to_numpy
from runtime.core.tensor_shape import TensorShape
from runtime.ops.constant_ops import constant_value, convert_to_tensor
from runtime.ops.math_ops import install_operators
from runtime.ops.registry import bind1
from runtime.state.distribution_modes import (
    VariableAggregation,
    VariableSynchronization,
    distribution_modes,
)


def _handle_kernel(variable):
    return variable


# The kind of the attribute naming the variable an op reads or writes.
_VARIABLE = {"variable": AttrKind("a Variable", lambda value: isinstance(value, Variable))}
VAR_HANDLE = OpDef(
    "VarHandleOp",
    _handle_kernel,
    lambda i, a: [(dtypes.resource, TensorShape([]))],
    pure=False,
    attrs=_VARIABLE,
    gradient=NO_INPUTS,
    python_form=handle_form,
)


def handle_in_graph(graph, variable):
    """The handle through which ``graph`` reads and writes ``variable``: one op per variable
    per graph, named after the variable.

    A branch or loop body captures the handle of the graph around it, so the
    If or While op takes the variable as an input, and gradients reach it.
    """
    handle = graph.variable_handles.get(id(variable))
    if handle is None:
        if graph.outer_graph is not None:
            handle = graph.capture(handle_in_graph(graph.outer_graph, variable))
        else:
            # A handle waits on nothing, and is named after the variable, whatever scope is open.
            with graph.at_top_level():
                specs = [(dtypes.resource, TensorShape([]))]
                attrs = {"variable": variable}
                op = graph.create_op(VAR_HANDLE, [], attrs, variable._base_name, specs)
            handle = op.outputs[0]
        graph.variable_handles[id(variable)] = handle
    return handle


def variable_of(handle):
    """The variable a resource tensor is the handle of (through the captures of sub-graphs),
    or None when it is not a variable's handle."""
    t = handle
    while t.op.opdef is not VAR_HANDLE:
        passed = t.graph.variable_arguments.get(id(t))
        if passed is not None:  # a function's variable argument, as traced
            return passed
        outer = next((o for o, inner in getattr(t.graph, "captures", ()) if inner is t), None)
        if outer is None:
            return None
        t = outer
    return t.op.attrs["variable"]


def _outermost(graph):
    while graph.outer_graph is not None:
        graph = graph.outer_graph
    return graph


def _read_kernel(handle, variable):
    return handle._value


def _var_spec(inputs, attrs):
    variable = attrs["variable"]
    if inputs[0].dtype is not dtypes.resource:
        raise TypeError(
            f"reading or writing a variable needs its handle, got {inputs[0].dtype.name}"
        )
    if len(inputs) > 1 and not (
        inputs[1].dtype is variable.dtype and variable.shape.is_compatible_with(inputs[1].shape)
    ):
        raise TypeError(
            f"Cannot write a {inputs[1].dtype.name} value of shape {inputs[1].shape} to "
            f"variable {variable.name!r} ({variable.dtype.name}, shape {variable.shape})"
        )
    return [(variable.dtype, variable.shape)]


# A read passes its gradient to the handle: the gradient of the variable itself.
READ = OpDef(
    "ReadVariableOp",
    _read_kernel,
    _var_spec,
    pure=False,
    default_name="ReadVariableOp",
    attrs=_VARIABLE,
    gradient=lambda op, g: (g,),
)


def _assigner(combine):
    def kernel(handle, value, variable):
        new = combine(handle._value, value)
        if np.shape(new) != np.shape(handle._value):
            raise errors.InvalidArgumentError(
                f"Cannot assign a value of shape {np.shape(new)} to variable {handle.name!r} "
                f"of shape {np.shape(handle._value)}"
            )
        handle._value = new
        return new

    return kernel


_UPDATE = NotDifferentiable(
    "it updates a variable; gradients reach a variable through the ops that read it"
)
ASSIGN = OpDef(
    "AssignVariableOp",
    _assigner(lambda old, new: new),
    _var_spec,
    stateful=True,
    attrs=_VARIABLE,
    gradient=_UPDATE,
)
ASSIGN_ADD = OpDef(
    "AssignAddVariableOp",
    _assigner(np.add),
    _var_spec,
    stateful=True,
    attrs=_VARIABLE,
    gradient=_UPDATE,
)
ASSIGN_SUB = OpDef(
    "AssignSubVariableOp",
    _assigner(np.subtract),
    _var_spec,
    stateful=True,
    attrs=_VARIABLE,
    gradient=_UPDATE,
)


class _Observers(threading.local):
    def __init__(self):
        self.stack = []


# Per thread, as TensorFlow's variable creator scopes are: a trace in one thread must not
# judge the variables another thread creates at the same time.
_creation_observers = _Observers()


class observe_creation:  # noqa: N801 (a context manager, used like a function)
    """Calls ``observer(variable)`` for every Variable created inside the block, in this thread.

    ``ag.function`` uses it to allow variables on the first trace only.
    """

    def __init__(self, observer):
        self.observer = observer

    def __enter__(self):
        _creation_observers.stack.append(self.observer)

    def __exit__(self, *exc):
        _creation_observers.stack.remove(self.observer)


_creators = _Observers()  # this thread's variable creator scopes, outermost first


class variable_creator_scope:  # noqa: N801 (TensorFlow's name; a context manager)
    """Within it, ``rt.Variable(...)`` calls ``creator(next_creator, **kwargs)`` (TensorFlow's
    ``tf.variable_creator_scope``): ``kwargs`` are the constructor's arguments by name, and
    ``next_creator(**kwargs)`` creates the variable, through the scopes around this one. The
    innermost scope's creator is called first; per thread, as TensorFlow's.

    >>> def half_as_big(next_creator, **kwargs):
    ...     kwargs["initial_value"] = kwargs["initial_value"] / 2
    ...     return next_creator(**kwargs)
    >>> with variable_creator_scope(half_as_big):
    ...     Variable(8.0).numpy()
    np.float32(4.0)
    """

    def __init__(self, creator):
        self.creator = creator

    def __enter__(self):
        _creators.stack.append(self.creator)

    def __exit__(self, *exc):
        _creators.stack.remove(self.creator)


class _Created(type):
    """Variable's metaclass: ``Variable(...)`` goes through the creator scopes (a subclass's
    construction does not, as in TensorFlow)."""

    def __call__(cls, *args, **kwargs):
        if cls is not Variable or not _creators.stack:
            return super().__call__(*args, **kwargs)
        bound = _CONSTRUCTOR.bind(None, *args, **kwargs)
        bound.apply_defaults()  # a creator sees every argument by name, as TensorFlow's does
        arguments = dict(bound.arguments)
        del arguments["self"]

        def create(**kw):
            return type.__call__(cls, **kw)

        for creator in list(_creators.stack):  # outermost first: the innermost wraps them all
            create = _next(creator, create)
        return create(**arguments)


def _next(creator, inner):
    return lambda **kwargs: creator(inner, **kwargs)


class lift_initial_values:  # noqa: N801 (a context manager, used like a function)
    """While a function is traced into ``lifter.graph``: a Variable whose initial value is a
    tensor of that graph gets it from ``lifter.evaluate(tensor)``, computed once, at creation,
    as TensorFlow lifts a variable's initializer out of a tf.function (``tf.init_scope``).

    ``ag.function`` gives the lifter (``autograph.lifting``): it runs what the value needs
    on the values of the call being traced.
    """

    def __init__(self, lifter):
        self.lifter = lifter

    def __enter__(self):
        _lifters.stack.append(self.lifter)

    def __exit__(self, *exc):
        _lifters.stack.remove(self.lifter)


_lifters = _Observers()


def _lifted(tensor):
    """The value of ``tensor``, a symbolic initial value, computed now; None if no function
    being traced made it."""
    for lifter in reversed(_lifters.stack):
        if tensor.graph is lifter.graph:
            return lifter.evaluate(tensor)
    return None


class Variable(metaclass=_Created):
    """A mutable tensor-valued state with a name, usable wherever a tensor is.

    Created inside a graph, its value is still computed at once: there is no
    separate initialisation step to run. ``synchronization`` and ``aggregation``
    (``rt.VariableSynchronization``, ``rt.VariableAggregation``) are recorded, for code
    written for several devices; on the runtime's one device they change nothing.

    Values assigned are converted as TensorFlow converts them: a Python or numpy value takes
    the variable's dtype where its kind allows (a float64 array sets a float32 variable); a
    tensor of another dtype is refused.

    >>> import numpy as np
    >>> Variable([0.0, 0.0]).assign(np.array([1.5, 2.5]))
    <rt.Variable 'Variable:0' shape=(2,) dtype=float32, numpy=array([1.5, 2.5], dtype=float32)>
    """

    __array_priority__ = 100  # numpy defers to the variable's operators: np_array * v is a tensor

    def __init__(
        self,
        initial_value,
        dtype=None,
        trainable=None,
        name=None,
        synchronization=None,
        aggregation=None,
    ):
        self._synchronization, self._aggregation, trainable = distribution_modes(
            synchronization, aggregation, trainable, name
        )
        for observer in list(_creation_observers.stack):
            observer(self)  # may refuse: raises before anything is created
        if callable(initial_value):
            with context.eager_mode():
                initial_value = initial_value()
        dtype = dtypes.as_dtype(dtype) if dtype is not None else None
        self._value = _initial_numpy(initial_value, dtype)
        self.dtype = dtype or dtypes.as_dtype(np.asarray(self._value).dtype)
        self._shape = TensorShape(np.shape(self._value))
        self.trainable = bool(trainable)
        base = name or "Variable"
        graph = context.building_graph()
        if graph is None:
            self._base_name = current_name_scope() + base
        else:
            # In a graph the handle op takes the unique, scoped name; the variable is named after it.
            self._base_name = current_name_scope() + base
            self._base_name = handle_in_graph(_outermost(graph), self).op.name
            handle_in_graph(graph, self)
        self.name = self._base_name + ":0"

    # The value is numpy. A compiled program (jit_compile) leaves its result on its device
    # instead, and numpy is made from it only when something else reads it.
    _numpy_value = None
    _device_value = None

    @property
    def _value(self):
        if self._numpy_value is None and self._device_value is not None:
            value = np.asarray(self._device_value)
            self._numpy_value = value[()] if value.ndim == 0 else value
        return self._numpy_value

    @_value.setter
    def _value(self, value):
        self._numpy_value, self._device_value = value, None

    def _set_device_value(self, array):
        """The value is now ``array``, a JAX array left where a compiled program made it."""
        self._numpy_value, self._device_value = None, array

    @property
    def shape(self) -> TensorShape:
        return self._shape

    @property
    def synchronization(self) -> VariableSynchronization:
        return self._synchronization

    @property
    def aggregation(self) -> VariableAggregation:
        return self._aggregation

    def _primary(self):
        """The variable whose state this is: itself (a traced function's stand-in for a variable
        argument says which variable it stands for)."""
        return self

    def ref(self):
        """A hashable reference to this variable, equal to every other reference to it: a key
        of a dict or set that stands for the variable, whatever its value (``.deref()``).

        >>> v = Variable(5)
        >>> refs = {v.ref(): "v"}
        >>> refs[v.ref()], v.ref().deref() is v
        ('v', True)
        """
        return TensorRef(self)

    @property
    def handle(self):
        graph = context.building_graph()
        if graph is None:
            raise ValueError("Variable.handle is only defined while building a graph.")
        return handle_in_graph(graph, self)

    def read_value(self) -> Tensor:
        """The current value: eagerly a tensor holding it, in a graph an op that reads it when run."""
        graph = context.building_graph()
        if graph is None:
            value = EagerTensor(self._value, self.dtype)
            for tape in context.recording_tapes():  # a read is how gradients reach a variable
                tape.record_variable_read(self, value)
            return value
        return bind1(READ, [handle_in_graph(graph, self)], {"variable": self}, "ReadVariableOp")

    value = read_value
    _as_tensor = read_value

    def numpy(self):
        value = self._value
        return value[()] if np.ndim(value) == 0 else np.array(value)

    def _update(self, opdef, value, what):
        value = convert_to_tensor(value, dtype=self.dtype)
        if not self._shape.is_compatible_with(value.shape):
            preposition = "from" if what == "subtract" else "to"
            raise ValueError(
                f"Cannot {what} a value of shape {value.shape} {preposition} variable "
                f"{self.name!r} of shape {self._shape}"
            )
        graph = context.building_graph()
        if graph is None:
            opdef.kernel(self, value._value, self)
            return self
        return bind1(opdef, [handle_in_graph(graph, self), value], {"variable": self}, opdef.type)

    def assign(self, value, read_value=True):
        """Sets the value. Eagerly returns the variable; in a graph, the op's output (the new value)."""
        return self._update(ASSIGN, value, "assign")

    def assign_add(self, delta, read_value=True):
        """Adds ``delta`` to the value (see ``assign``)."""
        return self._update(ASSIGN_ADD, delta, "add")

    def assign_sub(self, delta, read_value=True):
        """Subtracts ``delta`` from the value (see ``assign``)."""
        return self._update(ASSIGN_SUB, delta, "subtract")

    def __getitem__(self, key):
        return self.read_value()[key]

    def __array__(self, dtype=None, copy=None):
        value = np.asarray(self._value)
        return value if dtype is None else value.astype(dtype)

    def __bool__(self):
        return bool(self.read_value())

    def __len__(self):
        return len(self.read_value())

    def __iter__(self):
        return iter(self.read_value())

    def __float__(self):
        return float(self._value)

    def __int__(self):
        return int(self._value)

    def __repr__(self):
        value = EagerTensor(self._value, self.dtype)
        from runtime.core.tensor import _numpy_text

        return (
            f"<rt.Variable '{self.name}' shape={self._shape} dtype={self.dtype.name}, "
            f"numpy={_numpy_text(value, True)}>"
        )


class NeedsVariableIdentity(BaseException):
    """Raised through a trace in which state kept per variable asked which variable an argument
    is: ``ag.function`` then traces again with variable arguments counted by identity. (A
    BaseException: the user's ``except Exception`` around the call must not swallow it.)"""


class ArgumentVariable(Variable):
    """What a traced function's body sees for a variable argument, as TensorFlow gives it a
    variable of its handle placeholder: a variable of the argument's spec whose reads and
    writes in ``graph`` go through ``handle``, the graph's input, which each call feeds with
    the variable it passes. The same variable read from the function's closure is another
    object, captured by its own handle: ``f(g)`` then ``f(w)`` read ``g`` and ``w`` apart.

    Eagerly (``rt.init_scope``) it reads and writes the variable the trace was given, which
    it holds weakly: a graph does not keep the variable it was traced with alive.
    """

    def __init__(self, like, graph, handle):  # no Variable.__init__: nothing is created
        """``like``: the variable the trace is given, or its spec (dtype, shape, trainable)."""
        variable = like if isinstance(like, Variable) else None
        self._synchronization = getattr(like, "synchronization", VariableSynchronization.AUTO)
        self._aggregation = getattr(like, "aggregation", VariableAggregation.NONE)
        self.dtype, self._shape, self.trainable = like.dtype, like.shape, like.trainable
        self._base_name = variable._base_name if variable is not None else handle.op.name
        self.name = self._base_name + ":0"
        self._traced_with = (lambda: None) if variable is None else weakref.ref(variable)
        graph.variable_handles[id(self)] = handle
        graph.variable_arguments[id(handle)] = self

    def passed_variable(self):
        """The variable the trace was given (held weakly), or this stand-in once it is gone or
        when the trace was given a spec."""
        variable = self._traced_with()
        return self if variable is None else variable

    def _primary(self):
        """Asked for by state kept per variable (an optimizer's slots): which variable this is
        cannot be known while the graph serves any variable of its spec, so the trace stops and
        the Function traces again with its variable arguments captured, one graph per variable
        (``NeedsVariableIdentity``)."""
        raise NeedsVariableIdentity(self.name)

    def _traced_variable(self):
        variable = self._traced_with()
        if variable is None:
            raise ValueError(
                f"The variable argument {self.name!r} has no value while tracing (traced from a "
                "VariableSpec, or its variable no longer exists): its value is only known when "
                "the graph runs."
            )
        return variable

    @property
    def _value(self):
        return self._traced_variable()._value

    @_value.setter
    def _value(self, value):
        self._traced_variable()._value = value


class OwnedArray:
    """A numpy array that nothing else holds (a loaded model's value): a Variable given it
    takes it as its value without a copy, so a large variable is not held twice at once."""

    __slots__ = ("array",)

    def __init__(self, array):
        self.array = array


def _initial_numpy(value, dtype):
    if isinstance(value, OwnedArray):
        return to_numpy(value.array, dtype)
    if isinstance(value, Variable):
        value = value._value
    elif isinstance(value, Tensor):
        known = constant_value(value)
        if known is None:
            known = _lifted(value)
        if known is None:
            raise ValueError(
                f"A Variable's initial value must be known when it is created; {value.name!r} is "
                "only computed when the graph runs. Pass a Python or numpy value, or a callable."
            )
        value = known
    arr = to_numpy(value, dtype)
    if isinstance(arr, np.ndarray) and arr.ndim:
        arr = arr.copy()  # the caller may mutate their array later
    return arr


install_operators(Variable)
_CONSTRUCTOR = inspect.signature(Variable.__init__)
Variable.__hash__ = object.__hash__  # variables are keys in sets and dicts, by identity
