"""What loading gives back: an object of saved functions and variables, and those functions."""

from __future__ import annotations

from runtime.core import nest
from runtime.core.tensor import EagerTensor, Tensor
from runtime.core.tensor_spec import TensorSpec
from runtime.execution.compile import compile_function
from runtime.ops.constant_ops import convert_to_tensor


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
        results = self._program(*flat)
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
