"""Staging Python code as graph functions from inside the runtime: hooks that autograph fills.

Parts of the runtime run Python code as graphs on their own: Keras' ``model.fit``
traces its training step once per input signature and runs the graph, and a
layer's ``call`` traced there should be converted (a tensor ``if`` becomes a
cond) as ``ag.function`` converts what it traces. Converting and caching traced
functions is autograph's work, and runtime never imports autograph: the
dependency runs one way (docs/architecture.md). So autograph, when imported,
registers its two entry points here (``register``), as it registers its
translator of source lines with ``runtime.core.source``:

- ``function(python_function, name, input_signature)``: ``ag.function(
  python_function, input_signature=..., autograph=False)``, a traced, cached
  function (the staged code is the runtime's own; what it calls is converted
  through ``converted``), which ``ag.run_functions_eagerly`` runs as Python;
- ``converted(fn)``: ``fn`` as converted code calls it (user code converted,
  library code as it is).

A program that imports runtime alone gets ``TracedFunction`` instead: the same
tracing (``runtime.execution.tracing``), optimisation and compilation, one graph
per input signature, with the Python code traced as written (no conversion).

>>> import runtime as rt
>>> double = TracedFunction(lambda x: x * 2, "double", [rt.TensorSpec([None])])
>>> double(rt.constant([1.0, 2.0]))
<rt.Tensor: shape=(2,), dtype=float32, numpy=array([2., 4.], dtype=float32)>
>>> _ = double(rt.constant([3.0, 4.0, 5.0])); double.tracing_count
1
"""

from __future__ import annotations

import inspect

from runtime.core import nest
from runtime.core.tensor import EagerTensor
from runtime.execution.compile import compile_function
from runtime.execution.optimize import optimize
from runtime.execution.tracing import trace
from runtime.ops.constant_ops import convert_to_tensor

# The attribute ``ag.do_not_convert`` sets: autograph calls a function that has it as it is.
DO_NOT_CONVERT = "__autograph_do_not_convert__"

_hooks = {"function": None, "converted": None}
_xla = {"compile_function": None}  # set by runtime.xla when imported (a layer above this one)


def register(function, converted):
    """Called by autograph when it is imported: see the module's docstring."""
    _hooks["function"] = function
    _hooks["converted"] = converted


def register_xla(compile_function):
    """Called by ``runtime.xla`` when imported: how a graph is compiled by XLA."""
    _xla["compile_function"] = compile_function


def function(python_function, name, input_signature, jit_compile=False):
    """``python_function`` staged for arguments fitting ``input_signature`` (TensorSpecs, dims
    may be None): an ``ag.function`` when autograph is loaded, else a ``TracedFunction``.
    Either is called with tensors, and has ``get_concrete_function()`` and ``tracing_count``.
    With ``jit_compile`` its graphs are compiled by XLA, as ``ag.function(jit_compile=True)``."""
    make = _hooks["function"] or TracedFunction
    return make(python_function, name, list(input_signature), jit_compile=jit_compile)


def converted(fn):
    """``fn`` as converted code would call it; ``fn`` itself when autograph is not loaded."""
    convert = _hooks["converted"]
    return convert(fn) if convert is not None else fn


def do_not_convert(fn):
    """Marks ``fn`` (library code that stages itself) to be called by autograph as it is."""
    setattr(fn, DO_NOT_CONVERT, True)
    return fn


class TracedFunction:
    """A Python function of tensors traced into one graph for its ``input_signature`` (``None``
    dims match any size) at the first call, then run as that compiled graph."""

    def __init__(self, python_function, name, input_signature, jit_compile=False):
        self.python_function = python_function
        self.__name__ = name
        self.input_signature = list(input_signature)
        self.jit_compile = bool(jit_compile)
        self.tracing_count = 0
        self._traced = None

    def get_concrete_function(self):
        if self._traced is None:
            self.tracing_count += 1
            names = _argument_names(self.python_function)
            names = names if len(names or ()) == len(self.input_signature) else None
            graph = trace(
                self.python_function, self.input_signature, self.__name__, arg_names=names
            )
            compile_program = _xla_compiler() if self.jit_compile else compile_function
            self._traced = TracedGraph(graph, self.__name__, self.input_signature, compile_program)
        return self._traced

    def __call__(self, *args):
        tensors = [convert_to_tensor(a, dtype=s.dtype) for a, s in zip(args, self.input_signature)]
        if len(tensors) != len(args) or not self.get_concrete_function().accepts(tensors):
            raise TypeError(
                f"{self.__name__}: arguments {[(t.dtype.name, t.shape) for t in tensors]} do not "
                f"fit its input_signature {self.input_signature}"
            )
        return self._traced(*tensors)


class TracedGraph:
    """One traced graph of a ``TracedFunction``: what ``rt.saved_model.save`` needs of a
    concrete function (``graph``, ``name``, ``structured_input_signature``), and callable."""

    def __init__(self, graph, name, specs, compile_program=compile_function):
        self.graph = graph
        self.name = name
        self.structured_input_signature = (tuple(specs), {})
        self._specs = specs
        self._program = compile_program(optimize(graph)[0])

    def accepts(self, specs):
        return len(specs) == len(self._specs) and all(
            s.dtype is t.dtype and s.shape.is_subtype_of(t.shape)
            for s, t in zip(specs, self._specs)
        )

    def __call__(self, *tensors):
        results = self._program(*[t._value for t in tensors])
        outputs = iter(EagerTensor(v, t.dtype) for v, t in zip(results, self.graph.outputs))
        return nest.map_structure(
            lambda x: None if x is None else next(outputs), self.graph.structured_outputs
        )


def _xla_compiler():
    if _xla["compile_function"] is None:
        raise RuntimeError("jit_compile=True: XLA is not loaded (import runtime.xla)")
    return _xla["compile_function"]


def _argument_names(fn):
    try:
        return list(inspect.signature(fn).parameters)
    except (TypeError, ValueError):
        return None
