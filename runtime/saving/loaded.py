"""What loading gives back: objects holding the saved variables, functions and sub-objects; the
functions, which dispatch among their saved concrete functions by their arguments; and the
signatures (a concrete function called as TensorFlow calls a signature).

>>> import tempfile, runtime as rt, autograph as ag
>>> m = rt.Module()
>>> m.double = ag.function(lambda x: 2 * x)
>>> _ = m.double(rt.constant(1.0)), m.double(rt.constant([1, 2]))
>>> path = tempfile.mkdtemp()
>>> rt.saved_model.save(m, path)
>>> loaded = rt.saved_model.load(path)
>>> loaded.double(rt.constant([3, 4]))  # the int32 vector's concrete function
<rt.Tensor: shape=(2,), dtype=int32, numpy=array([6, 8], dtype=int32)>
"""

from __future__ import annotations

from collections.abc import Mapping

from runtime.core import context, nest, tracebacks
from runtime.core.graph import arg_op_name
from runtime.core.tensor import EagerTensor, Tensor
from runtime.core.tensor_spec import TensorSpec
from runtime.execution import profiling
from runtime.execution.compile import compile_function
from runtime.functions.graph_function import GraphFunction
from runtime.ops.constant_ops import convert_to_tensor
from runtime.saving.dispatch import match, no_match_error
from runtime.saving.function_text import output_specs, pretty_signature
from runtime.views import render

# Names a loaded object uses itself: no saved attribute may take them. (A saved attribute
# ``variables`` or ``trainable_variables`` is the user's, and wins over the loaded object's own.)
RESERVED_ATTRIBUTES = frozenset({"signatures", "_trackable_children", "_derived"})


class SignatureMap(Mapping):
    """``loaded.signatures``: the signatures a loaded object came with, by name; read-only, as
    TensorFlow's (assigning an item is a TypeError). Saving the object saves them again; an
    attribute ``signatures`` of any other kind is refused, as TensorFlow refuses it (it would
    shadow them)."""

    def __init__(self, signatures=()):
        self._signatures = dict(signatures)

    def __getitem__(self, name):
        return self._signatures[name]

    def __iter__(self):
        return iter(self._signatures)

    def __len__(self):
        return len(self._signatures)

    def __repr__(self):
        return f"SignatureMap({self._signatures!r})"


class LoadedObject:
    """A saved object as loaded: its saved variables, functions and sub-objects as attributes,
    ``variables`` and ``trainable_variables`` (in the original's order, unless the saved object
    had attributes of those names: then they are those), and ``signatures``.

    It is callable only when the saved object had a ``__call__`` (``CallableLoadedObject``), as
    in TensorFlow. It can be saved again: its attributes are its children in the object graph
    (``runtime.state.trackable``).
    """

    def __init__(self):
        self.signatures = SignatureMap()
        self._derived = {}  # name -> the value loading gave it, not saved as an attribute
        self.set_derived("variables", ())
        self.set_derived("trainable_variables", ())

    def set_derived(self, name, value):
        """Sets an attribute that loading derives (not the saved object's own: saving this
        object again leaves it out, unless it is given another value)."""
        setattr(self, name, value)
        self._derived[name] = value

    def _trackable_children(self):
        return [
            (k, v)
            for k, v in sorted(vars(self).items())
            if k not in RESERVED_ATTRIBUTES and not (k in self._derived and v is self._derived[k])
        ]


class CallableLoadedObject(LoadedObject):
    """A loaded object whose saved object had a ``__call__`` (a function, or an object with
    one): calling it calls that."""

    def __call__(self, *args, **kwargs):
        call, seen = self, set()
        while isinstance(call, LoadedObject):  # a chain of objects, each called by the next
            if id(call) in seen:
                raise TypeError("The loaded object's __call__ chain calls itself")
            seen.add(id(call))
            call = call.__dict__.get("__call__")
            if call is None:
                raise TypeError("The saved object had no __call__ function")
        return call(*args, **kwargs)


class LoadedConcreteFunction(render.GraphDisplays):
    """One saved concrete function, rebuilt from its graph: ``arguments`` are its graph's
    inputs by name, ``input_signature`` their specs; called with tensors by those names.

    Under a ``GradientTape``, or inside a function being traced, a call is one differentiable
    op (``runtime.functions.graph_function``), so gradients reach the variables it reads.
    """

    def __init__(self, name, graph, arguments, traced=None, defaults=None):
        self.name = name
        self.graph = graph
        self.arguments = arguments
        # {input name: tensor}: the Python function's defaults of its inputs, which a
        # signature uses for the inputs a call leaves out (as TensorFlow's do).
        self.defaults = dict(defaults or {})
        self.input_signature = tuple(
            TensorSpec(t.shape, t.dtype, a) for t, a in zip(graph.inputs, arguments)
        )
        # What it was traced for, [(parameter, value)]: TensorSpecs and Python values.
        self._traced = traced if traced is not None else list(zip(arguments, self.input_signature))
        self._program = compile_function(graph)
        self._graph_function = None

    @property
    def structured_input_signature(self):
        """``(args, kwargs)`` as traced, as TensorFlow gives it."""
        return tuple(value for _, value in self._traced), {}

    def __call__(self, *args, **kwargs):
        try:
            return self.call_flat(self._by_name(args, kwargs))
        except Exception as error:
            tracebacks.filter_traceback(error)  # the user's frames only, unless switched off
            raise

    def _by_name(self, args, kwargs):
        if len(args) > len(self.arguments):
            raise TypeError(f"{self.name} takes {len(self.arguments)} arguments, got {len(args)}")
        values = dict(zip(self.arguments, args))
        for key, value in kwargs.items():
            if key not in self.arguments or key in values:
                raise TypeError(f"{self.name}: unexpected or repeated argument {key!r}")
            values[key] = value
        missing = [a for a in self.arguments if a not in values]
        if missing:
            raise TypeError(f"{self.name}: missing argument {missing[0]!r}")
        return [
            self._check(a, spec, values[a]) for a, spec in zip(self.arguments, self.input_signature)
        ]

    def _check(self, name, spec, value):
        if not isinstance(value, Tensor):
            try:
                value = convert_to_tensor(value, dtype=spec.dtype)
            except (TypeError, ValueError) as e:
                raise TypeError(
                    f"{self.name}: argument {name!r} does not fit {spec}: {e}"
                ) from None
        spec.check_argument(self.name, name, value, source="the saved function")
        return value

    def call_flat(self, tensors):
        """Runs the graph on its input tensors, in order; returns the structured outputs."""
        if context.building_graph() is not None or context.recording_tapes():
            if self._graph_function is None:
                # the call's op is named after the function: a valid op name ("<lambda>" is not)
                op_name = arg_op_name(self.name or "function")
                self._graph_function = GraphFunction(self.graph, self._program, op_name)
            return self._structured(self._graph_function(tensors))
        values = [t._value for t in tensors]
        record = profiling.recorder  # set while rt.summary.trace_on is on
        if record is None:
            results = self._program(*values)
        else:
            results = record(self.name, self.graph, self.graph, self._program, values)
        return self._structured(
            [EagerTensor(v, t.dtype) for v, t in zip(results, self.graph.outputs)]
        )

    def _structured(self, tensors):
        return nest.map_structure(
            lambda i: None if i is None else tensors[i], self.graph.structured_outputs
        )

    def __repr__(self):
        return f"<rt.saved_model.LoadedConcreteFunction {self.name}>"


class LoadedFunction(render.GraphDisplays):
    """A saved ``ag.function``: called as the original was (its parameters, their plain
    defaults), it runs the first saved concrete function its arguments match (tensors by dtype
    and shape, Python values by value; then Python values converted to tensors), as TensorFlow's
    restored functions do. No match: a ValueError listing what was saved (a TypeError where the
    function had an input_signature, as TensorFlow binds the call to it).

    ``get_concrete_function(*args, **kwargs)`` gives the saved concrete function that TensorSpecs
    (or tensors, Python values) match; ``concrete_functions`` lists them all. ``graph``,
    ``arguments`` and ``input_signature`` are those of its first concrete function
    (``input_signature`` only when it has one concrete function).
    """

    def __init__(self, name, concrete_functions, signature, has_input_signature=False):
        self.__name__ = self.name = name
        self.concrete_functions = list(concrete_functions)
        self.__signature__ = signature
        self.has_input_signature = has_input_signature  # calls must fit its one trace
        first = self.concrete_functions[0] if self.concrete_functions else None
        self.graph = first.graph if first else None
        self.arguments = first.arguments if first else []
        single = len(self.concrete_functions) == 1
        self.input_signature = first.input_signature if single else None
        self._restored = {}  # id(concrete function) -> its RestoredConcreteFunction

    def _list_all_concrete_functions(self):
        """The saved concrete functions, in the order they were traced (a save saves them)."""
        return list(self.concrete_functions)

    def get_concrete_function(self, *args, **kwargs):
        """The saved concrete function that these arguments match (TensorSpecs match a traced
        spec of their dtype whose shape they fit), as TensorFlow's restored function gives it;
        without arguments, the only one. No match: TensorFlow's ValueError."""
        if not args and not kwargs and len(self.concrete_functions) == 1:
            return self._restored_function(self.concrete_functions[0])
        concrete, _ = self._find(args, kwargs)
        return self._restored_function(concrete)

    def _restored_function(self, concrete):
        if id(concrete) not in self._restored:
            self._restored[id(concrete)] = RestoredConcreteFunction(concrete, self.__signature__)
        return self._restored[id(concrete)]

    def __call__(self, *args, **kwargs):
        try:
            concrete, tensors = self._find(args, kwargs)
            return concrete.call_flat(tensors)
        except Exception as error:
            tracebacks.filter_traceback(error)  # the user's frames only, unless switched off
            raise

    def _find(self, args, kwargs):
        """``(concrete function, its input tensors)`` for this call."""
        if not self.concrete_functions:
            raise ValueError(
                "Found zero restored functions for caller function. The function "
                f"{self.name!r} traced nothing before it was saved: call it (or give it an "
                "input_signature) before saving."
            )
        try:
            bound = self.__signature__.bind(*args, **kwargs)
        except TypeError as e:
            raise TypeError(f"{self.name}(): {e}") from None
        bound.apply_defaults()
        for convert in (False, True):
            for concrete in self.concrete_functions:
                tensors = match(concrete._traced, bound.arguments, convert)
                if tensors is not None:
                    return concrete, tensors
        if self.has_input_signature:
            raise self._binding_error(args, kwargs)
        raise no_match_error(args, kwargs, self.concrete_functions)

    def _binding_error(self, args, kwargs):
        """TensorFlow's TypeError for a call that does not fit the input_signature."""
        (concrete,) = self.concrete_functions
        given = ", ".join([repr(a) for a in args] + [f"{k}={v!r}" for k, v in kwargs.items()])
        signature = pretty_signature(
            concrete._traced, self.__signature__, output_specs(concrete.graph), verbose=False
        )
        return TypeError(
            f"Binding inputs to ag.function failed due to `({given}) do not fit the "
            f"input_signature {list(concrete.input_signature)}` for signature: "
            f"{self.name}{signature}"
        )

    def __repr__(self):
        return f"<rt.saved_model.LoadedFunction {self.name}>"


class RestoredConcreteFunction:
    """A saved concrete function as TensorFlow restores one (an attribute that held a concrete
    function, or what a loaded function's ``get_concrete_function`` gives): called with the
    arguments it was traced for, structured as the Python function took them, or else with
    its graph's tensor inputs one by one, by position or by name. Anything else: a TypeError.
    """

    def __init__(self, concrete: LoadedConcreteFunction, signature):
        self.concrete_function = concrete
        self.name = concrete.name
        self.graph = concrete.graph
        self.inputs, self.outputs = list(concrete.graph.inputs), list(concrete.graph.outputs)
        self.structured_outputs = concrete._structured(self.outputs)
        self._output_specs = output_specs(concrete.graph)
        self.input_signature = concrete.input_signature
        self._traced = concrete._traced
        self._signature = signature
        self._function = LoadedFunction(concrete.name, [concrete], signature)

    @property
    def structured_input_signature(self):
        return self.concrete_function.structured_input_signature

    @property
    def captured_inputs(self):
        """The tensors the graph captured: none, a saved graph holds its constants and reads
        its variables itself."""
        return [outer for outer, _ in getattr(self.graph, "captures", ())]

    def pretty_printed_signature(self, verbose=True):
        """What it was traced for and what it returns, as TensorFlow prints it."""
        return pretty_signature(self._traced, self._signature, self._output_specs, verbose)

    def __call__(self, *args, **kwargs):
        try:
            return self.concrete_function.call_flat(self._tensors(args, kwargs))
        except Exception as error:
            tracebacks.filter_traceback(error)  # the user's frames only, unless switched off
            raise

    def _tensors(self, args, kwargs):
        try:
            return self._function._find(args, kwargs)[1]
        except (TypeError, ValueError) as structured:
            try:
                return self.concrete_function._by_name(args, kwargs)
            except (TypeError, ValueError) as flat:
                raise TypeError(
                    f"{structured}\nFallback to flat signature also failed due to: {flat}"
                ) from None

    def __repr__(self):
        return f"<rt.saved_model.RestoredConcreteFunction {self.name}>"


class SignatureFunction:
    """A function of ``loaded.signatures``: as in TensorFlow, it takes its inputs by name (one
    input also by position) and
    returns a dict of its outputs by name, ``{"output_0": ...}`` (or the keys of the dict the
    function returned). ``loaded.NAME(x)`` calls the same function as the Python one did.

    As in TensorFlow, ``structured_input_signature`` is ``((), {name: TensorSpec})`` and
    ``structured_outputs`` is ``{output name: TensorSpec}``: what to pass and what comes back.
    """

    def __init__(self, function: LoadedConcreteFunction, name=None):
        self.function = self.concrete_function = function
        self.name = name or function.name
        self.graph = function.graph
        self.inputs, self.outputs = list(self.graph.inputs), list(self.graph.outputs)
        self.arguments = function.arguments
        self.input_signature = function.input_signature
        self.output_names = output_names(function.graph.structured_outputs)
        indices = [i for i in nest.flatten(self.graph.structured_outputs) if i is not None]
        self.structured_input_signature = ((), dict(zip(self.arguments, self.input_signature)))
        self.structured_outputs = {
            name: TensorSpec(self.graph.outputs[i].shape, self.graph.outputs[i].dtype, name)
            for name, i in zip(self.output_names, indices, strict=True)
        }

    def __call__(self, *args, **kwargs):
        try:
            if args and len(self.arguments) != 1:  # one input may be given by position
                by_name = ", ".join(f"{a}=..." for a in self.arguments)
                raise TypeError(
                    f"The signature {self.name!r} takes its inputs by name, as TensorFlow's "
                    f"signatures do: {self.name}({by_name}); got {len(args)} positional "
                    f"argument{'s' if len(args) != 1 else ''}"
                )
            given = dict(zip(self.arguments, args))
            missing = {k: v for k, v in self.function.defaults.items() if k not in given}
            kwargs = {**missing, **kwargs}
            results = [t for t in nest.flatten(self.function(*args, **kwargs)) if t is not None]
            return dict(zip(self.output_names, results, strict=True))
        except Exception as error:
            tracebacks.filter_traceback(error)  # the user's frames only, unless switched off
            raise

    def __repr__(self):
        return f"<rt.saved_model.SignatureFunction {self.name}>"


def output_names(structured_outputs):
    """The names a signature gives the outputs of a function returning ``structured_outputs``:
    the keys of a dict of tensors, else ``output_0``, ``output_1``... in flattened order."""
    if isinstance(structured_outputs, dict) and all(
        isinstance(k, str) and not isinstance(v, (dict, list, tuple))
        for k, v in structured_outputs.items()
    ):
        return [k for k in sorted(structured_outputs) if structured_outputs[k] is not None]
    outputs = [t for t in nest.flatten(structured_outputs) if t is not None]
    return [f"output_{i}" for i in range(len(outputs))]
