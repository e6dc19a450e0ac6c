"""The tracing side of ``ag.function``: a call's signature missed, so the Python function is
traced into a new graph (a ConcreteFunction), and what tracing counts and warns about.

``Function`` (``autograph.function``) takes these methods from ``Tracing``:

- ``_find_or_trace``: a graph of more general shapes may serve; else ``_trace``, relaxing
  shapes for ``reduce_retracing``;
- ``_trace_once``: the tensor arguments become placeholders, a variable argument the handle
  placeholder its reads and writes go through (``_pass_variables``: the body gets a variable
  of that handle, apart from the same variable read from the closure), and a variable the
  first trace makes gets its initial value computed once (``autograph.lifting``);
- the retracing warnings: the project's ``RetracingWarning`` saying what changed, and
  TensorFlow's log line (``autograph.retracing``); ``experimental_get_tracing_count()``;
- a method's Function, kept in its descriptor's cache, holds its instance weakly; what
  ``obj.method`` gives (``BoundFunction``) holds ``obj``, as a Python bound method does.

>>> import autograph as ag
>>> import runtime as rt
>>> @ag.function
... def double(v):
...     return v.read_value() * 2.0
>>> double(rt.Variable(1.0)).numpy(), double(rt.Variable(2.0)).numpy()
(np.float32(2.0), np.float32(4.0))
>>> double.experimental_get_tracing_count()   # one graph: both variables are float32 scalars
1
"""

from __future__ import annotations

import operator
import types
import weakref

import runtime as rt
from autograph import retracing, signatures
from autograph.argument_changes import call_unchanged
from autograph.input_signature import var_keyword
from autograph.lifting import InitialValues
from runtime.core import context, source
from runtime.execution.tracing import set_outputs, trace
from runtime.state.variables import (
    ArgumentVariable,
    NeedsVariableIdentity,
    lift_initial_values,
    observe_creation,
)


class RetracingWarning(UserWarning):
    """A Function traced many times: each new signature costs a trace."""


class Tracing:
    """The tracing methods of ``Function`` (a mixin: the state is ``Function``'s)."""

    _weak_self = None

    def _hold_weakly(self, instance):
        """This Function, bound to ``instance`` and kept in its descriptor's cache, holds it
        weakly, as TensorFlow's does: else the cache would keep every instance alive."""
        self._weak_self = weakref.ref(instance)
        self._python_function = self._python_function.__func__
        self.__wrapped__ = self._python_function
        self.__signature__ = self._signature  # (what inspect would find through the method)

    @property
    def python_function(self):
        """The Python function this Function traces (a method: bound to its instance)."""
        if self._weak_self is None:
            return self._python_function
        instance = self._weak_self()
        if instance is None:
            raise ReferenceError(
                f"{self.__name__} is a method of an object that no longer exists: keep a "
                "reference to the object while its method is used"
            )
        return types.MethodType(self._python_function, instance)

    @python_function.setter
    def python_function(self, fn):
        self._python_function, self._weak_self = fn, None

    def _count_trace(self):
        # TensorFlow counts the eager calls of one Python function, traced or not (a call
        # that did not trace only adds to the detector's ``untraced``), and logs a warning
        # when most of the recent ones traced (autograph.retracing).
        frequent = self._detector.traced()
        if frequent is not None:
            retracing.warn(self.python_function, *frequent)

    def experimental_get_tracing_count(self):
        """How many graphs this Function has traced (TensorFlow's name for ``tracing_count``).

        >>> import autograph as ag
        >>> double = ag.function(lambda x: 2 * x)
        >>> _ = double(1), double(2), double(2)
        >>> double.experimental_get_tracing_count()
        2
        """
        return self.tracing_count

    def _find_or_trace(self, key, arguments):
        # A graph traced for more general shapes (None dims) serves any call that fits it.
        rank_key = signatures.signature_key(arguments, shapes=False)
        shapes = [signatures.spec_of(leaf).shape for leaf in signatures.tensor_leaves(arguments)]
        concrete = self._cache.find_general(rank_key, shapes)
        if concrete is None:
            newest = self._cache.newest(rank_key)
            relaxed = None
            if self.reduce_retracing and newest is not None:
                relaxed = [
                    g.most_specific_compatible_shape(s) for g, s in zip(newest.input_shapes, shapes)
                ]
            concrete = self._trace(arguments, relaxed)
        general = not all(s.is_fully_defined() for s in concrete.input_shapes)
        objects = signatures.objects_in(arguments)
        self._cache.store(key, rank_key, concrete, objects, general)
        return concrete

    def _trace(self, arguments, shapes=None):
        if self.tracing_count:
            self._note_retrace(arguments)
        concrete = self._trace_once(arguments, shapes)
        if self._made_variables and self.tracing_count == 1:
            # Variables made on the first trace are kept; the graph that runs is a second
            # trace, which must not make any (a function that makes one per call cannot run).
            concrete = self._trace_once(arguments, shapes)
        self._last_arguments = [(name, signatures.detached(v)) for name, v in arguments]
        return concrete

    def _trace_once(self, arguments, shapes):
        try:
            return self._trace_counted(arguments, shapes)
        except NeedsVariableIdentity:
            self.tracing_count -= 1  # (the trace is done again, with the variables captured)
            raise

    def _trace_counted(self, arguments, shapes):
        first = self.tracing_count == 0
        self.tracing_count += 1

        def on_variable(variable):
            if not first:
                raise ValueError(
                    f"ag.function only supports singleton rt.Variables created on the first call: "
                    f"{self.__name__} creates one on a later trace. Make sure the rt.Variable is "
                    "only created once, or create it outside the function."
                )
            self._made_variables = True

        named = signatures.tensor_leaves_named(arguments, var_keyword(self._signature))
        # (A symbolic tensor, given while another function traces, has no value to lift with.)
        values = [
            None
            if isinstance(v, (rt.TensorSpec, signatures.VariableSpec, rt.SymbolicTensor))
            else signatures.as_value(v)
            for _, v in named
        ]

        def call(*placeholders):  # the tensor arguments become the graph's placeholders
            seen = _pass_variables(context.building_graph(), placeholders, named)
            args, kwargs = self._rebuild(arguments, iter(seen))
            # A variable's initial value computed here is computed once, from this call's
            # values, as TensorFlow lifts it out of the graph.
            feeds = [(p, v) for p, v in zip(placeholders, values) if v is not None]
            lifting = lift_initial_values(InitialValues(context.building_graph(), feeds))
            with observe_creation(on_variable), lifting:
                return call_unchanged(self._traceable(), self.__name__, *args, **kwargs)

        graph = trace(
            call,
            [signatures.spec_of(v) for _, v in named],
            self.__name__,
            arg_names=[n for n, _ in named],
            shapes=shapes,
            convert=False,
        )
        set_outputs(
            graph,
            [
                x
                for x in rt.nest.flatten(graph.structured_outputs)
                if x is not None and not signatures.is_op(x)
            ],
        )
        return self._new_concrete(graph, arguments)  # (autograph.function's ConcreteFunction)

    def _rebuild(self, arguments, placeholders):
        values = {name: signatures.replace_leaves(value, placeholders) for name, value in arguments}
        bound = self._signature.bind_partial()
        bound.arguments.update(values)
        return bound.args, bound.kwargs

    def _note_retrace(self, arguments):
        if self.tracing_count + 1 >= retracing.THRESHOLD and not self._warned:
            self._warned = True
            reason = (
                signatures.describe_change(self._last_arguments, arguments)
                if self._last_arguments
                else ""
            )
            source.warn(
                f"{self.__name__} was traced {self.tracing_count + 1} times. Each new signature "
                f"traces a new graph, which is expensive; this time {reason}. Pass tensors rather "
                "than Python values, give an input_signature, or use reduce_retracing=True.",
                RetracingWarning,
            )


class BoundFunction:
    # ``obj.method`` for an ``ag.function`` method: ``obj``'s own Function (its graphs; kept in
    # the descriptor's cache, which holds ``obj`` weakly) with ``obj`` held, as a Python bound
    # method holds its object. So ``Model().method(x)`` runs on a live object, and ``obj`` is
    # freed, with its Function, once nothing but the cache refers to it. Everything else is
    # the Function's.

    __slots__ = ("_function", "__self__", "__weakref__")

    def __new__(cls, function, instance):
        bound = object.__new__(cls)
        _set_function(bound, function)
        _set_self(bound, instance)
        return bound

    # A call is the Function's own: the property gives it (operator.attrgetter: no Python
    # frame), and Python calls what it gives, so a method call costs one frame more, not two.
    __call__ = property(operator.attrgetter("_function"))

    def __getattr__(self, name):
        return getattr(self._function, name)

    def __setattr__(self, name, value):
        setattr(self._function, name, value)

    def __eq__(self, other):
        other = other._function if isinstance(other, BoundFunction) else other
        return self._function is other

    def __hash__(self):
        return hash(self._function)

    def __repr__(self):
        return repr(self._function)

    def __reduce__(self):
        """Pickled as its object's attribute, as Python pickles a bound method."""
        return getattr, (self.__self__, self._function.__name__)

    # isinstance(obj.method, ag.Function) holds, as in TensorFlow (isinstance asks __class__).
    __class__ = property(lambda self: type(self._function))
    __doc__ = property(lambda self: self._function.__doc__)
    __module__ = property(lambda self: self._function.__module__)


_set_function = BoundFunction._function.__set__
_set_self = BoundFunction.__self__.__set__


def _pass_variables(graph, placeholders, named):
    """What the traced function is given for each input: a tensor's placeholder, or, for a
    variable, a variable whose reads and writes in ``graph`` go through its placeholder (the
    handle of whichever variable a call passes), as TensorFlow passes a variable's handle.
    The same variable read from the closure keeps its own, captured handle; ``f(v, v)`` gives
    both parameters one (the signature key tells it from ``f(v, w)``)."""
    seen, passed = [], {}
    for placeholder, (_, leaf) in zip(placeholders, named):
        if isinstance(leaf, (rt.Variable, signatures.VariableSpec)):
            if id(leaf) not in passed:
                passed[id(leaf)] = ArgumentVariable(leaf, graph, placeholder)
            seen.append(passed[id(leaf)])
        else:
            seen.append(placeholder)
    return seen
