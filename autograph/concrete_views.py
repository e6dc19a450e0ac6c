"""What a ConcreteFunction shows of itself beyond its call: its function type, the atomic
function its graph runs as, and what it captured, under TensorFlow's names.

>>> import autograph as ag
>>> import runtime as rt
>>> @ag.function
... def double(a):
...     return a + a
>>> cf = double.get_concrete_function(rt.TensorSpec([], rt.string))
>>> print(cf.function_type)
(a: TensorSpec(shape=(), dtype=rt.string, name=None)) -> TensorSpec(shape=(), dtype=rt.string, name=None)
>>> cf.inference_fn(rt.constant("a"))
<rt.Tensor: shape=(), dtype=string, numpy=b'aa'>
"""

from __future__ import annotations

import runtime as rt
from autograph import concrete_calls, signatures
from runtime.saving.function_text import type_text


class Views:
    """What a ConcreteFunction shows under TensorFlow's names (a mixin of ``ConcreteFunction``,
    whose ``graph`` it reads)."""

    @property
    def function_type(self):
        """Each parameter with its traced type, and the output's."""
        return FunctionType(self)

    @property
    def inference_fn(self):
        """The graph as one callable taking its tensor inputs one by one."""
        return InferenceFunction(self)

    @property
    def variables(self):
        """The variables the graph reads or writes (its graph's ``variables``)."""
        return self.graph.variables

    @property
    def trainable_variables(self):
        return self.graph.trainable_variables

    @property
    def captured_inputs(self):
        """The outer tensors and variables the graph captured (not its arguments)."""
        return captured_inputs(self)


class FunctionType:
    """TensorFlow's FunctionType of a trace: each parameter with the type it was traced
    for, and the output's type; printed ``(a: TensorSpec(...), b: Literal[2]) -> ...``."""

    def __init__(self, concrete):
        self.parameters = {name: text for name, _, text in concrete_calls._parameters(concrete)}
        outputs = concrete.structured_outputs
        self.output = "None" if outputs is None else type_text(outputs)

    def __str__(self):
        inner = ", ".join(f"{name}: {text}" for name, text in self.parameters.items())
        return f"({inner}) -> {self.output}"

    def __repr__(self):
        return f"<ag.FunctionType {self}>"


class InferenceFunction:
    """The graph of a ConcreteFunction as one callable (TensorFlow's AtomicFunction): it takes
    the graph's tensor inputs one by one, as the flat signature orders them, and returns the
    outputs nested as traced."""

    def __init__(self, concrete):
        self._concrete = concrete
        self.name = concrete.name

    def __call__(self, *tensors):
        inputs = self._concrete.inputs[: len(self._concrete._flat_names)]  # (not captures)
        if len(tensors) != len(inputs):
            raise TypeError(
                f"{self.name}'s graph takes {len(inputs)} tensors, one per input, "
                f"got {len(tensors)}"
            )
        values = [
            t if isinstance(t, rt.Variable) else rt.convert_to_tensor(t, dtype=p.dtype)
            for t, p in zip(tensors, inputs)
        ]
        return self._concrete._call_flat([signatures.as_value(v) for v in values])

    def __repr__(self):
        return f"<ag.AtomicFunction {self.name}>"


def captured_inputs(concrete):
    """What the graph reads from outside besides its arguments: the tensors of enclosing graphs
    it captured, then the variables it reads without being passed them (TensorFlow lists
    their handles)."""
    graph = concrete.graph
    arguments = {id(v.passed_variable()) for v in graph.variable_arguments.values()}
    captured = [v for v in graph.variables if id(v) not in arguments]
    return concrete.graph.external_captures + captured


def printed(concrete):
    """What ``print(cf)`` shows: the header ``name(x, n=3)`` (a Python argument with the value
    it was traced for), each tensor argument under ``Args``, the outputs under ``Returns``."""
    header, args = [], []
    variadic = {
        p.name
        for p in concrete._signature.parameters.values()
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
    }
    for (name, traced), (_, described) in zip(concrete._traced, concrete._arguments):
        if signatures.tensor_leaves([(name, traced)]):
            header.append(name)
            args.append(f"    {name}: {described}")
        elif name in variadic:  # (an empty *args or **kwargs, as the signature has them)
            header.append(name)
        else:  # a Python value: part of the graph, shown with the value traced
            header.append(f"{name}={described}")
    outputs = rt.nest.flatten(concrete.structured_outputs)
    returns = [f"    {signatures.describe_value(o)}" for o in outputs] or ["    None"]
    lines = [f"ConcreteFunction {concrete.name}({', '.join(header)})", "  Args:"]
    return "\n".join(lines + args + ["  Returns:"] + returns)
