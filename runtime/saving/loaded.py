"""What loading gives back: an object of saved functions and variables, those functions, and
its signatures (the same functions called as TensorFlow calls a signature)."""

from __future__ import annotations

from runtime.core import nest, tracebacks
from runtime.core.tensor import EagerTensor, Tensor
from runtime.core.tensor_spec import TensorSpec
from runtime.execution import profiling
from runtime.execution.compile import compile_function
from runtime.ops.constant_ops import convert_to_tensor
from runtime.views import render


class LoadedObject:
    """What ``load`` returns: saved functions and variables as attributes, and ``signatures``.

    Calling it calls the saved ``__call__``, when the saved object had one.
    """

    def __init__(self):
        self.signatures = {}
        self.variables = ()
        self.trainable_variables = ()

    def __call__(self, *args, **kwargs):
        call = self.__dict__.get("__call__")
        if call is None:
            raise TypeError("The saved object had no __call__ function with an input_signature")
        return call(*args, **kwargs)


class LoadedFunction:
    """A saved function, rebuilt from its graph: called with tensors, checked against its inputs."""

    def __init__(self, name, graph, arguments):
        self.name = name
        self.graph = graph
        self.arguments = arguments
        self.input_signature = tuple(
            TensorSpec(t.shape, t.dtype, a) for t, a in zip(graph.inputs, arguments)
        )
        self._program = compile_function(graph)

    def __call__(self, *args, **kwargs):
        try:
            return self._call(args, kwargs)
        except Exception as error:
            tracebacks.filter_traceback(error)  # the user's frames only, unless switched off
            raise

    def _call(self, args, kwargs):
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
        flat = [
            self._check(a, spec, values[a]) for a, spec in zip(self.arguments, self.input_signature)
        ]
        record = profiling.recorder  # set while rt.summary.trace_on is on
        if record is None:
            results = self._program(*flat)
        else:
            results = record(self.name, self.graph, self.graph, self._program, flat)
        tensors = [EagerTensor(v, t.dtype) for v, t in zip(results, self.graph.outputs)]
        return nest.map_structure(
            lambda i: None if i is None else tensors[i], self.graph.structured_outputs
        )

    def _check(self, name, spec, value):
        if not isinstance(value, Tensor):
            try:
                value = convert_to_tensor(value, dtype=spec.dtype)
            except (TypeError, ValueError) as e:
                raise TypeError(
                    f"{self.name}: argument {name!r} does not fit {spec}: {e}"
                ) from None
        spec.check_argument(self.name, name, value, source="the saved function")
        return value._value

    def __repr__(self):
        return f"<rt.saved_model.LoadedFunction {self.name}>"

    def _repr_html_(self):
        """A notebook shows the graph drawn, where Graphviz is installed, else its text."""
        return render.html(self.graph, heading=repr(self))

    def _repr_svg_(self):
        return self.graph._repr_svg_()

    def _repr_pretty_(self, printer, cycle):
        printer.text(repr(self) if cycle else f"{self!r}\n{self.graph}")


class SignatureFunction:
    """A function of ``loaded.signatures``: as in TensorFlow, it takes its inputs by name and
    returns a dict of its outputs by name, ``{"output_0": ...}`` (or the keys of the dict the
    function returned). ``loaded.NAME(x)`` calls the same function as the Python one did.

    As in TensorFlow, ``structured_input_signature`` is ``((), {name: TensorSpec})`` and
    ``structured_outputs`` is ``{output name: TensorSpec}``: what to pass and what comes back.
    """

    def __init__(self, function: LoadedFunction):
        self.function = function
        self.name = function.name
        self.graph = function.graph
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
            if args:
                by_name = ", ".join(f"{a}=..." for a in self.arguments)
                raise TypeError(
                    f"The signature {self.name!r} takes its inputs by name, as TensorFlow's "
                    f"signatures do: {self.name}({by_name}); got {len(args)} positional "
                    f"argument{'s' if len(args) != 1 else ''}"
                )
            results = [t for t in nest.flatten(self.function(**kwargs)) if t is not None]
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
