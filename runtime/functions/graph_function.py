"""A traced function graph called as one op (``PartitionedCall``), and the call differentiated.

A traced function runs as one compiled program, so a tape cannot see its ops.
When a tape watches a call (an input is watched, or the function reads a
trainable variable), the call is recorded as one ``PartitionedCall`` op, as
in TensorFlow:

- the *backward function* is built once from the forward graph: the backward
  pass over its ops, in a graph whose inputs are the outputs' gradients and
  the forward tensors the gradient rules read (the *intermediates*);
- the call runs a *forward function*: the same graph, returning the
  intermediates too, so the backward function needs no recomputation;
- the call's gradient rule calls the backward function, itself a
  ``GraphFunction``: under an outer tape it is recorded the same way, which
  gives higher-order gradients. A call made while ``d`` tapes record returns
  the intermediates for ``d`` orders of differentiation.

>>> import runtime as rt
>>> from runtime.execution.tracing import trace
>>> cube = GraphFunction(trace(lambda x: x * x * x, [rt.TensorSpec([], rt.float32)], "cube"))
>>> x = rt.constant(2.0)
>>> with rt.GradientTape() as tape:
...     tape.watch(x)
...     y, = cube([x])
>>> y.numpy(), tape.gradient(y, x).numpy()
(np.float32(8.0), np.float32(12.0))
"""

from __future__ import annotations

from runtime.core import context, dtypes
from runtime.core.graph import CONST
from runtime.core.tensor import EagerTensor
from runtime.execution.compile import compile_graph
from runtime.execution.graph_copy import copy_graph
from runtime.execution.optimize import optimize
from runtime.gradients.backprop import backward, is_trainable
from runtime.gradients.control_flow import GradientGraph
from runtime.ops.array_ops import zeros_like
from runtime.ops.function_ops import CALL, CalledFunction
from runtime.ops.list_gradient_ops import grad_list_empty
from runtime.ops.registry import bind
from runtime.state.variables import VAR_HANDLE, Variable


class _Backward:
    """One backward function of a forward graph, and how to call it from a recorded call."""

    def __init__(self, function, targets, needs, sources):
        self.function = function  # a GraphFunction: (target grads..., needed tensors...) -> grads
        self.targets = targets  # indices of the forward outputs whose gradients it takes
        self.needs = needs  # the forward tensors it reads, in the order of its inputs
        self.sources = sources  # for each of its outputs, the index of the input it is for


class GraphFunction(CalledFunction):
    """A function graph called with eager tensors: compiled once, differentiable under a tape.

    ``graph`` is a FuncGraph (inputs, outputs); the variables it reads count
    as inputs for gradients. Calling it returns the output tensors.
    """

    def __init__(self, graph, program=None, name=None):
        self.graph = graph
        self.name = name or graph.graph_name
        self._program = program
        self.variables = [
            h.op.attrs["variable"]
            for h in graph.variable_handles.values()
            if h.op.opdef is VAR_HANDLE
        ]
        self._forward = None  # a copy of graph that grows the intermediates as outputs
        self._levels = []  # _Backward for gradients of order 1, 2, ...
        self._programs = {}  # depth -> the compiled forward function returning intermediates

    def __call__(self, inputs):
        inputs = list(inputs)
        n = len(self.graph.outputs)
        if context.building_graph() is not None:
            # In a graph, a call is ready for one order of gradients (of its tensor inputs).
            return bind(CALL, inputs, {"function": self, "depth": 1}, self.name)[:n]
        tapes = [t for t in context.recording_tapes() if t.watches_call(inputs, self.variables)]
        if not tapes:
            program = self._program or self.forward_program(0)
            values = program(*[_value_of(t) for t in inputs])
            return [EagerTensor(v, t.dtype) for v, t in zip(values, self.graph.outputs)]
        depth = len(tapes)
        values = self.forward_program(depth)(*[_value_of(t) for t in inputs])
        outputs = [EagerTensor(v, t.dtype) for v, t in zip(values, self.forward_outputs(depth))]
        attrs = {"function": self, "depth": depth}
        for tape in tapes:
            tape.record_call(CALL, inputs, attrs, outputs, self.variables)
        return outputs[:n]

    # --- the forward function: the graph, also returning what the gradients read ---------------

    def forward_outputs(self, depth):
        """The outputs of a call made while ``depth`` tapes record: results, then intermediates."""
        self._prepare(depth)
        return self._forward.outputs[: self._output_count(depth)]

    def forward_program(self, depth):
        program = self._programs.get(depth)
        if program is None:
            self._prepare(depth)
            forward = self._forward if depth else self.graph
            saved = forward.outputs
            forward.outputs = list(saved[: self._output_count(depth)])
            try:
                optimized = optimize(forward)[0]
                program = compile_graph(
                    optimized, optimized.inputs, optimized.outputs, True, self.name
                )
            finally:
                forward.outputs = saved
            self._programs[depth] = program
        return program

    def _output_count(self, depth):
        if depth == 0:
            return len(self.graph.outputs)
        return self._counts[depth - 1]

    def _prepare(self, depth):
        """Builds the backward functions of orders 1..depth (each adding intermediates)."""
        if self._forward is None:
            # Differentiating grows the forward graph (a loop stacks values): a copy grows.
            self._forward = copy_graph(self.graph)
            self._counts = []
        while len(self._levels) < depth:
            self._levels.append(self._build_backward(len(self._levels) + 1))
            self._counts.append(len(self._forward.outputs))

    def _build_backward(self, order):
        """The backward function taking gradients of every output known so far."""
        forward = self._forward
        targets = [i for i, t in enumerate(forward.outputs) if is_trainable(t.dtype)]
        needs = []

        def resolve(grad_graph, t):
            if t.op.opdef is CONST:
                return grad_graph.copy_constant(t)
            needs.append(t)
            return grad_graph.add_input(t.dtype, t.shape, t.op.name.replace("/", "_"))

        graph = GradientGraph(f"{self.name}_backward_{order}", None, forward, resolve)
        handles = [forward.variable_handles[id(v)] for v in self.variables]
        with graph.as_default():
            grads_in = [
                graph.add_input(forward.outputs[i].dtype, forward.outputs[i].shape, "grad")
                for i in targets
            ]
            sources = [*forward.inputs, *handles]
            grads = backward(
                forward.get_operations(), [forward.outputs[i] for i in targets], grads_in, sources
            )
            kept = [i for i, g in enumerate(grads) if g is not None]
            graph.outputs = [graph.prepare_input(grads[i]) for i in kept]
        returned = {id(out) for out in forward.outputs}  # a set: a long graph has many needs
        for t in needs:
            if id(t) not in returned:
                returned.add(id(t))
                forward.outputs.append(t)
        return _Backward(GraphFunction(graph), targets, needs, kept)

    # --- the gradient of a recorded call -------------------------------------------------------

    def call_gradient(self, op, grads):
        """The gradients of a call's inputs (then of the variables it read) from its outputs'."""
        forward = self._forward
        given = [i for i, g in enumerate(grads) if g is not None]
        level = next(
            (b for b in self._levels if all(i in b.targets for i in given)),
            None,
        )
        if level is None:
            raise NotImplementedError(
                f"The call of {self.name} was differentiated more times than tapes recorded it"
            )
        args = [
            grads[i] if grads[i] is not None else _zeros_for(op.outputs[i]) for i in level.targets
        ]
        outputs = {id(out): i for i, out in reversed(list(enumerate(forward.outputs)))}
        inputs = {id(p): j for j, p in reversed(list(enumerate(forward.inputs)))}
        for t in level.needs:
            args.append(_recorded_value(op, outputs, inputs, t))
        results = level.function(args)
        input_grads = [None] * len(op.inputs)
        for source, g in zip(level.sources, results):
            if source < len(input_grads):  # a call op in a graph has no variables as inputs
                input_grads[source] = g
        return input_grads


def _value_of(t):
    # A resource input's value is the variable itself, as its handle op's is.
    return t if isinstance(t, Variable) else t._value


def _recorded_value(op, outputs, inputs, t):
    """The call's own tensor for the forward tensor ``t``: ``outputs`` and ``inputs`` map the
    forward graph's outputs and inputs (by id) to their positions."""
    if id(t) in outputs:
        return op.outputs[outputs[id(t)]]
    if id(t) in inputs:
        return op.inputs[inputs[id(t)]]
    raise NotImplementedError("a gradient of this call needs a value its forward did not return")


def _zeros_for(t):
    return grad_list_empty() if t.dtype is dtypes.variant else zeros_like(t)
