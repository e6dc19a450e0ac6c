"""``@ag.function``: convert, trace once per input signature, cache, and run the graph.

>>> import autograph as ag
>>> import runtime as rt
>>> @ag.function
... def scale(x, factor):
...     print("tracing")                     # Python: runs only while tracing
...     return x * factor
>>> scale(rt.constant(2.0), 3.0)
tracing
<rt.Tensor: shape=(), dtype=float32, numpy=6.0>
>>> scale(rt.constant(5.0), 3.0)           # same signature: the graph runs, no tracing
<rt.Tensor: shape=(), dtype=float32, numpy=15.0>
>>> scale.tracing_count
1

A call's signature is made of its tensors' dtypes and shapes and its Python
values (by value), element by element in lists, tuples and dicts; other
objects count by identity. A new signature traces a new graph.
"""

from __future__ import annotations

import copy
import functools
import inspect
import operator
import sys
import threading
import types

import runtime as rt
from autograph import concrete_calls, concrete_inline, concrete_views, retracing, signatures
from autograph.argument_changes import call_unchanged, check_keyable
from autograph.eager_switch import state as _eager
from autograph.impl import features
from autograph.input_signature import (
    apply_signature,
    constraints_of,
    defaults_of,
    positional_count,
    validated,
    var_positional,
)
from autograph.trace_cache import IdentityWeakMap, TraceCache
from autograph.tracing import BoundFunction, Tracing
from runtime import xla
from runtime.core import context, source, tracebacks
from runtime.execution import profiling
from runtime.execution.compile import compile_function
from runtime.execution.entry import MISS, entry_function
from runtime.execution.optimize import optimize
from runtime.extras import require
from runtime.functions.graph_function import GraphFunction
from runtime.state.variables import NeedsVariableIdentity
from runtime.views import render


def function(
    fn=None,
    input_signature=None,
    autograph=True,
    reduce_retracing=False,
    jit_compile=False,
    experimental_autograph_options=None,
):
    """Makes ``fn`` a Function: traced into a graph once per call signature, then run as a graph.

    Usable as ``@ag.function`` or ``@ag.function(input_signature=[...])``. With
    ``jit_compile=True`` each graph is lowered to JAX and compiled by XLA
    (docs/xla.md); that needs the optional extra ``jax``, and raises ImportError
    naming it when JAX is missing. ``experimental_autograph_options``: an
    ``ag.experimental.Feature`` or a tuple of them, as TensorFlow's;
    ``Feature.BUILTIN_FUNCTIONS`` makes ``print`` of tensors print on every call.
    """
    if jit_compile:
        require("jax", "jax", "jit_compile=True")
    features.as_features(experimental_autograph_options)  # a wrong value fails here
    if fn is None:
        return functools.partial(
            function,
            input_signature=input_signature,
            autograph=autograph,
            reduce_retracing=reduce_retracing,
            jit_compile=jit_compile,
            experimental_autograph_options=experimental_autograph_options,
        )
    made = Function(fn, input_signature, autograph, reduce_retracing, jit_compile=jit_compile)
    made.experimental_autograph_options = experimental_autograph_options
    return made


def _name_of(fn):
    """The name a Function takes from ``fn``: a partial's function's, a callable object's class's.

    >>> _name_of(functools.partial(functools.partial(divmod, 7), 2))
    'divmod'
    """
    while isinstance(fn, (functools.partial, types.MethodType)) and not hasattr(fn, "__name__"):
        fn = fn.func if isinstance(fn, functools.partial) else fn.__func__
    return getattr(fn, "__name__", None) or type(fn).__name__


class Function(Tracing):
    """A Python function with a cache of graphs (ConcreteFunctions), one per call signature."""

    experimental_autograph_options = None  # TensorFlow's: ag.experimental.Feature(s)

    def __init__(
        self,
        python_function,
        input_signature=None,
        autograph=True,
        reduce_retracing=False,
        jit_compile=False,
    ):
        self.python_function = python_function
        self.input_signature = validated(python_function, input_signature)
        self.autograph = autograph
        self.reduce_retracing = reduce_retracing
        self.jit_compile = bool(jit_compile)
        # Whether variable arguments count by identity and are captured (not passed by handle):
        # under XLA, and once state kept per variable needed to know which one (an optimizer).
        self._variables_by_identity = self.jit_compile
        self.tracing_count = 0
        self._cache = TraceCache()  # its lock is held while tracing: one trace at a time
        self._entry = None  # the entry function of the last call that had one: tried first
        self._last_arguments = None  # those of the last trace, detached (for the warning)
        self._made_variables = False
        self._warned = False
        self._detector = retracing.detector_for(python_function)
        self._instances = IdentityWeakMap()  # instance (by identity) -> its Function
        self._instances_lock = threading.Lock()
        self._signature = inspect.signature(python_function)
        self._constraints_cache = None  # (signature, its input_signature constraints)
        self._defaults = defaults_of(python_function)
        # A call giving this many positional arguments fills in no default: the fast path
        # may keep its graph, whatever happens to the function's defaults later.
        self._positional = positional_count(self._signature)
        functools.update_wrapper(self, python_function, updated=())
        if not hasattr(self, "__name__"):  # a partial or a callable object
            self.__name__ = _name_of(python_function)

    # --- methods: one Function (one cache) per instance --------------------------------------

    def __get__(self, instance, owner):
        if instance is None:
            return self
        try:
            bound = self._instances.get(instance)
        except TypeError:  # not weak-referenceable: its Function is kept on the instance
            return self._bound_in_dict(instance)
        if bound is None:
            with self._instances_lock:  # threads binding one instance at once share one Function
                bound = self._instances.get(instance)
                if bound is None:
                    bound = self._bind(instance)
                    self._instances.set(instance, bound)
                    bound._hold_weakly(instance)
        return BoundFunction(bound, instance)

    def _bound_in_dict(self, instance):
        """The Function of an instance that cannot be referenced weakly, kept in its
        ``__dict__`` (a cycle the garbage collector frees); one that has none gets a new
        Function on each access, which traces on each call."""
        own = getattr(instance, "__dict__", None)
        if own is None:
            return self._bind(instance)
        key = f"__ag_function_{id(self)}"  # ("__": not an attribute a saved model exports)
        bound = own.get(key)
        if bound is None:
            bound = own[key] = self._bind(instance)
        return bound

    def _bind(self, instance):
        return self._same_options(
            Function(
                types.MethodType(self.python_function, instance),
                self.input_signature,
                self.autograph,
                self.reduce_retracing,
                self.jit_compile,
            )
        )

    def _same_options(self, other):
        other.experimental_autograph_options = self.experimental_autograph_options
        return other

    # --- calling --------------------------------------------------------------------------

    def __call__(self, /, *args, **kwargs):
        try:
            # The common call repeats the last: the entry function checks the arguments are
            # tensors as it was made for, and runs the whole call (runtime.execution.entry).
            entry = self._entry
            # (Not while rt.summary traces calls: profiling.recorder sees each through _call_flat.)
            off = kwargs or context.active or _eager["on"] or profiling.recorder is not None
            if entry is not None and not off:
                result = entry(args)
                if result is not MISS:
                    self._detector.untraced += 1  # (no call: this path is two frames)
                    return result
            if _eager["on"]:
                return self.python_function(*args, **kwargs)
            graph = context.building_graph()
            if graph is not None:  # inside another graph: inline
                arguments = self._arguments(args, kwargs)  # checks the input_signature
                if self.input_signature is not None:
                    arguments = concrete_inline.specific(arguments, self._constraints())
                bound = self._signature.bind_partial()
                bound.arguments.update(arguments)
                call = functools.partial(
                    call_unchanged, self._traceable(), self.__name__, *bound.args, **bound.kwargs
                )
                return concrete_inline.call_with_effects(graph, call)
            # The common call, eager tensors by position, skips binding and signature keys: the
            # graph chosen the first time is the one the full path would choose again.
            call_key = None if kwargs else signatures.call_key(args)
            concrete = self._cache.by_call.get(call_key)
            if concrete is not None:
                self._detector.untraced += 1
                if context.recording_tapes():  # a tape sees the call as one differentiable op
                    return concrete._call_recorded(list(args))
                self._entry = self._entry_of(call_key, concrete)
                return concrete._call_flat([a._value for a in args])
            if self._variables_by_identity and not signatures.capturing_variables():
                # An XLA program takes arrays only, and state kept per variable (an optimizer's
                # slots) needs to know which variable it is: a variable argument is captured.
                with signatures.variables_captured():
                    return self(*args, **kwargs)
            arguments = self._arguments(args, kwargs)
            traces, by_identity = self.tracing_count, self._variables_by_identity
            concrete = self._concrete_function_for(self._as_signature(arguments))
            if self._variables_by_identity and not by_identity:
                self._count_trace()  # traced again with variables captured: called so, too
                with signatures.variables_captured():
                    return self(*args, **kwargs)
            if self.tracing_count == traces:
                self._detector.untraced += 1
            else:
                self._count_trace()
            leaves = signatures.tensor_leaves(arguments)
            if call_key is not None and len(args) >= self._positional and len(leaves) == len(args):
                # (no defaults filled in, and the args are all the inputs)
                with self._cache.lock:
                    self._cache.remember_call(call_key, concrete)
            return concrete._call_leaves(leaves)
        except Exception as error:
            tracebacks.filter_traceback(error)  # the user's frames only, unless switched off
            raise

    def _entry_of(self, call_key, concrete):
        entries = self._cache.entries
        entry = entries.get(call_key, MISS)
        if entry is MISS:  # called a second time: worth an entry function
            entry = concrete._entry_function(call_key)
            with self._cache.lock:
                if call_key in self._cache.by_call:  # (not forgotten meanwhile)
                    entries[call_key] = entry
        return entry

    def get_concrete_function(self, /, *args, **kwargs):
        """The ConcreteFunction for these arguments (tensors or TensorSpecs), traced if needed.

        Thread-safe: threads asking at once for one signature get one ConcreteFunction.
        """
        try:
            if not args and not kwargs and self.input_signature is not None:
                args = self.input_signature
            arguments = self._arguments(args, kwargs, specs_allowed=True)
            return self._concrete_function(self._as_signature(arguments))
        except Exception as error:
            tracebacks.filter_traceback(error)  # the user's frames only, unless switched off
            raise

    def _list_all_concrete_functions(self):
        """Every ConcreteFunction traced so far (and still cached), in the order traced: what
        ``rt.saved_model.save`` saves of this function, as TensorFlow saves them all."""
        with self._cache.lock:
            return self._cache.graphs()

    def pretty_printed_concrete_signatures(self, verbose=True):
        """Each traced ConcreteFunction's ``pretty_printed_signature``, in the order traced."""
        joiner = "\n\n" if verbose else "\n"
        signatures_ = (
            c.pretty_printed_signature(verbose) for c in self._list_all_concrete_functions()
        )
        return joiner.join(signatures_)

    def clear_cache(self):
        """Forgets every traced graph (and those of this method's instances, when called on the
        class's): the next call traces again, and may make its variables again."""
        with self._cache.lock:
            self._cache.clear()
            self._entry = None
            self.tracing_count = 0
            self._made_variables = False
            self._last_arguments = None
        for bound in list(self._instances.values()):
            bound.clear_cache()

    def _traceable(self):
        if inspect.isgeneratorfunction(self.python_function):
            raise NotImplementedError(
                f"{self.__name__} is a generator function (it uses `yield`): generators are not "
                "supported in a graph, as in TensorFlow; return a list or a tensor instead."
            )
        if not self.autograph:
            return self.python_function
        from autograph.impl.api import to_graph
        from autograph.pyct.parser import ConversionError

        try:
            return to_graph(
                self.python_function,
                experimental_optional_features=self.experimental_autograph_options,
            )
        except ConversionError as e:
            # As TensorFlow does: trace it unconverted (fine unless it branches on tensors).
            source.warn(f"AutoGraph could not convert {self.__name__} and traces it as it is: {e}")
            return self.python_function

    # --- signatures -----------------------------------------------------------------------

    def _arguments(self, args, kwargs, specs_allowed=False):
        """The call's arguments as [(name, value)], checked against input_signature."""
        defaults = defaults_of(self._python_function)  # (a method's: its function's)
        if any(map(operator.is_not, defaults, self._defaults)):  # assigned since the last call
            self._signature, self._defaults = inspect.signature(self.python_function), defaults
        try:
            bound = self._signature.bind(*args, **kwargs)
        except TypeError as e:
            raise TypeError(f"{self.__name__}(): {e}") from None
        given = set(bound.arguments)
        bound.apply_defaults()
        arguments = list(bound.arguments.items())
        check_keyable(self.__name__, arguments)
        if self.input_signature is None:
            return arguments
        constraints = self._constraints()
        varargs = var_positional(self._signature)
        return apply_signature(self.__name__, arguments, constraints, specs_allowed, given, varargs)

    def _constraints(self):
        """Each parameter's input_signature entry (``*args``: a tuple, one per argument),
        worked out once per signature (a call asks twice: to check, then to trace)."""
        cached = self._constraints_cache
        if cached is None or cached[0] is not self._signature:
            found = constraints_of(self.__name__, self._signature, self.input_signature)
            cached = self._constraints_cache = (self._signature, found)
        return cached[1]

    def _as_signature(self, arguments):
        """What the graph is traced for: the input_signature's specs when there is one."""
        if self.input_signature is None:
            return arguments
        constraints = self._constraints()
        return [(name, constraints[name]) for name, _ in arguments]

    def _concrete_function(self, arguments):
        # (An XLA program takes arrays only: there a variable argument is captured.)
        with signatures.variables_captured(self._variables_by_identity):
            return self._concrete_function_for(arguments)

    def _concrete_function_for(self, arguments):
        try:
            return self._lookup_or_trace(arguments)
        except NeedsVariableIdentity:
            # State kept per variable (an optimizer's slots) asked which variable an argument
            # is: from now on this Function counts variable arguments by identity, as it traces
            # one graph per variable (TensorFlow's Keras would refuse a variable it was not
            # built with; the user's answer is the eager one).
            self._variables_by_identity = True
            with signatures.variables_captured():
                return self._lookup_or_trace(arguments)

    def _lookup_or_trace(self, arguments):
        key = signatures.signature_key(arguments)
        concrete = self._cache.lookup(key)
        if concrete is not None:
            return concrete
        # One trace at a time, as TensorFlow's lock does: threads missing the same signature
        # at once get one graph, and only the first trace may create variables.
        with self._cache.lock:
            concrete = self._cache.lookup(key)  # (traced by another thread while this waited)
            return self._find_or_trace(key, arguments) if concrete is None else concrete

    def _new_concrete(self, graph, arguments):
        return ConcreteFunction(graph, self.__name__, arguments, self._signature, self.jit_compile)

    def __deepcopy__(self, memo):
        """A deep copy traces its own graphs: of a copy of the function (a method of a copied
        object reads that object), with the cache and its locks new."""
        return self._same_options(
            Function(
                copy.deepcopy(self.python_function, memo),
                self.input_signature,
                self.autograph,
                self.reduce_retracing,
                self.jit_compile,
            )
        )

    def __reduce__(self):
        """Pickled as its Python function and options: an unpickled Function traces its own
        graphs (TensorFlow's pickles the same way, leaving its caches and lock behind). A
        Function that is what its module's name for it holds (``@ag.function`` on a module's
        function or a class's method) is pickled by that name, as Python pickles functions."""
        if _found_by_name(self):
            return self.__qualname__
        options = (self.input_signature, self.autograph, self.reduce_retracing, self.jit_compile)
        return _unpickled, (self.python_function, *options, self.experimental_autograph_options)

    def __repr__(self):
        return f"<ag.Function {self.__name__}>"


def _found_by_name(function):
    """Whether ``function``'s module, followed along its qualified name, holds ``function``."""
    found = sys.modules.get(getattr(function, "__module__", None))
    for part in getattr(function, "__qualname__", "<").split("."):
        found = getattr(found, part, None)
    return found is function


def _unpickled(python_function, input_signature, autograph, reduce_retracing, jit, options):
    made = Function(python_function, input_signature, autograph, reduce_retracing, jit)
    made.experimental_autograph_options = options
    return made


class ConcreteFunction(concrete_views.Views, render.GraphDisplays):
    """One traced graph of a Function: callable with tensors, printable, walkable (``.graph``);
    what it shows under TensorFlow's names (``function_type``, ``variables``...): ``Views``."""

    def __init__(self, graph, name, arguments, signature, jit_compile=False):
        self.graph = graph
        self.name = name
        self.inputs = list(graph.inputs)
        self.outputs = list(graph.outputs)
        self.structured_outputs = graph.structured_outputs
        self._returns_one_tensor = isinstance(self.structured_outputs, rt.SymbolicTensor)
        self._signature = signature
        # What was traced: each tensor argument as its placeholder's spec (the shape relaxed
        # when reduce_retracing generalised it; the name a TensorSpec gave kept).
        # (traced with variable arguments captured: under XLA, or counted by identity)
        self._variables_captured = signatures.capturing_variables()
        leaves = signatures.tensor_leaves(arguments)
        specs = iter(
            signatures.VariableSpec.of(v)
            if isinstance(v, rt.Variable)
            else v
            if isinstance(v, signatures.VariableSpec)
            else rt.TensorSpec(t.shape, t.dtype, signatures.spec_name(v))
            for t, v in zip(self.inputs, leaves)
        )
        self._traced = [
            (n, signatures.detached(signatures.replace_leaves(v, specs))) for n, v in arguments
        ]
        self.input_shapes = [t.shape for t in self.inputs[: len(leaves)]]
        self._flat_names = [t.op.name for t in self.inputs[: len(leaves)]]  # TensorFlow's flat call
        self._arguments = [(n, signatures.describe_value(v)) for n, v in self._traced]
        optimized, self.optimization_report = optimize(graph)
        # The optimised graph runs on numpy, or lowered to JAX and compiled by XLA.
        self._program = (xla.compile_function if jit_compile else compile_function)(optimized)
        self._optimized = optimized  # the graph that runs (rt.summary names its ops' times)
        self._graph_function = None  # made when a tape first watches a call

    @property
    def structured_input_signature(self):
        """``(args, kwargs)`` as traced: TensorSpecs, and the Python values (TensorFlow's);
        the arguments ``*args`` took one by one, keyword-only ones and ``**kwargs`` in the dict."""
        return concrete_calls.structured_input_signature(self)

    @property
    def output_shapes(self):
        """The outputs' shapes, nested as ``structured_outputs`` (None where there is none)."""
        return self._map_outputs(lambda t: t.shape)

    @property
    def output_dtypes(self):
        """The outputs' dtypes, nested as ``structured_outputs`` (None where there is none)."""
        return self._map_outputs(lambda t: t.dtype)

    def _map_outputs(self, fn):
        return rt.nest.map_structure(
            lambda x: fn(x) if isinstance(x, rt.Tensor) else None, self.structured_outputs
        )

    def pretty_printed_signature(self, verbose=True):
        """TensorFlow's description of what was traced: each parameter with its kind and type,
        the output's type, the captures; ``verbose=False``: ``(x: ...) -> ...``."""
        return concrete_calls.pretty_signature(self, verbose)

    def __call__(self, /, *args, **kwargs):
        """Runs the graph on arguments bound as the Python function binds them (tensors must fit
        their placeholders, and Python values must be the ones traced), or else, as TensorFlow
        allows, on the tensor inputs one by one, by position or by their placeholders' names."""
        try:
            with signatures.variables_captured(self._variables_captured):
                tensors = concrete_calls.tensors_for(self, args, kwargs)
            graph = context.building_graph()
            if graph is not None:  # inside another graph: its ops are copied there
                return concrete_inline.call_with_effects(
                    graph, lambda: concrete_inline.inline(self, tensors)
                )
            if context.recording_tapes():
                return self._call_recorded(tensors)
            return self._call_flat([signatures.as_value(t) for t in tensors])
        except Exception as error:
            tracebacks.filter_traceback(error)  # the user's frames only, unless switched off
            raise

    def _call_leaves(self, leaves):
        """Runs the graph on the arguments' tensors and variables (``signatures.tensor_leaves``)."""
        if context.recording_tapes():
            return self._call_recorded([signatures.as_tensor(x) for x in leaves])
        return self._call_flat([signatures.as_value(leaf) for leaf in leaves])

    def _entry_function(self, call_key):
        """The entry function for calls with eager tensors of the dtypes and shapes of
        ``call_key`` (runtime.execution.entry), or None where there is none to make."""
        if not all(dtype.is_numeric or dtype.is_bool for dtype, _ in call_key):
            return None  # a string tensor's value may be bytes: the general path
        structured = self.structured_outputs
        if self._returns_one_tensor:
            structure = None
        elif type(structured) in (tuple, list) and all(
            isinstance(x, rt.SymbolicTensor) for x in structured
        ):
            structure = type(structured)
        else:
            structure = self._structured
        dtypes = [t.dtype for t in self.outputs]
        return entry_function(self._program, call_key, dtypes, structure)

    def _call_flat(self, values):
        record = profiling.recorder  # set while rt.summary.trace_on is on
        if record is None:
            results = self._program(*values)
        else:
            results = record(self.name, self.graph, self._optimized, self._program, values)
        if self._returns_one_tensor:
            return rt.EagerTensor(results[0], self.outputs[0].dtype)
        return self._structured([rt.EagerTensor(v, t.dtype) for v, t in zip(results, self.outputs)])

    def _structured(self, tensors):
        if self._returns_one_tensor:
            return tensors[0]
        tensors = iter(tensors)
        return rt.nest.map_structure(
            lambda x: None if x is None or signatures.is_op(x) else next(tensors),
            self.structured_outputs,
        )

    def _call_recorded(self, tensors):
        """A call under a recording GradientTape: one op the tape can differentiate
        (``runtime.functions.graph_function``: the backward function is built from this graph)."""
        if self._graph_function is None:
            self._graph_function = GraphFunction(self.graph, self._program, self.name)
        return self._structured(self._graph_function(tensors))

    def __str__(self):
        return concrete_views.printed(self)

    def __repr__(self):
        return f"<ag.ConcreteFunction {self.name}>"

    def _display_heading(self):
        return str(self)
