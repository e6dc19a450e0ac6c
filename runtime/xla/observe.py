"""Observing a call on the default executor: the values XLA needs when compiling.

XLA fixes every shape when compiling. Most are known then (from the inputs'
shapes); some are values the graph computes: ``rt.zeros([n])`` or
``rt.TensorArray(size=n)`` with ``n`` an argument, or the size an AutoGraph
list appended to in a loop reaches. For those, a compiled program runs the
call once on the default executor first, with its effects held back (prints
kept, variables restored), and watches what those values are; it then compiles
for them, and checks them on every call (``Lowering._speculate``).

>>> import numpy as np
>>> import runtime as rt
>>> from runtime.execution.tracing import trace
>>> g = trace(lambda n: rt.zeros(rt.stack([n])), [rt.TensorSpec([], rt.int32)], "f")
>>> observation = observe(g, [np.int32(3)], [])
>>> [(op.type, position, value) for (op, position), value in observation.values.items()]
[('Fill', 0, array([3], dtype=int32))]
"""

from __future__ import annotations

import numpy as np

from runtime.execution.compile import compile_graph
from runtime.ops import list_gradient_ops, logging_ops, tensor_array_ops
from runtime.ops.tensor_array_buffer import ElementBuffer
from runtime.xla.lowerings import STATIC_OPERANDS


class Observation:
    """What a watched run saw: ``values`` ((op, input position) -> value), ``capacities``
    (a dynamic TensorArray's reserve op -> its largest size; a stack op -> the length it
    stacked; a ``GradientListElement`` -> one more than its largest index), ``varies`` (ops
    whose value changed within the call), and ``error`` (what the run raised, if it did)."""

    def __init__(self):
        self.values = {}
        self.capacities = {}
        self.varies = []
        self.error = None

    def see(self, op, position, value):
        key = (op, position)
        seen = self.values.get(key)
        if seen is None:
            self.values[key] = value.copy()
        elif (seen.shape != value.shape or (seen != value).any()) and op not in self.varies:
            self.varies.append(op)

    def grew(self, op, size):
        if size > self.capacities.get(op, -1):
            self.capacities[op] = size

    def stacked(self, op, length):
        if self.capacities.setdefault(op, length) != length and op not in self.varies:
            self.varies.append(op)


def observe(graph, values, variables):
    """Runs ``graph`` on ``values`` with the default executor, effects held back, and watches it."""
    observation = Observation()
    kernels = {}
    for op in all_ops(graph):
        kernel = op.opdef.kernel
        if op.opdef is logging_ops.PRINT:
            kernels[op] = _silent
            continue
        if op.opdef is tensor_array_ops.RESERVE and op.attrs["dynamic_size"]:
            kernel = _watched_reserve(op, observation)
        elif op.opdef is list_gradient_ops.GRAD_LIST_ELEMENT:
            kernel = _watched_element(op, observation)
        elif op.opdef is tensor_array_ops.STACK:
            kernel = _watched_stack(op, observation)
        positions = STATIC_OPERANDS.get(op.opdef)
        if positions or kernel is not op.opdef.kernel:
            kernels[op] = _watching(op, positions or (), kernel, observation)
    program = compile_graph(
        graph, graph.inputs, graph.outputs, run_all_stateful=True, states={}, kernels=kernels
    )
    saved = [v._value for v in variables]
    try:
        program(*values)
    except Exception as e:  # the compiled program fails there too: its own checks report it
        observation.error = e
    finally:
        for variable, value in zip(variables, saved):
            variable._value = value
    return observation


def all_ops(graph):
    """The ops of ``graph`` and of the graphs its ops run (branches, loop bodies, calls)."""
    for op in graph.get_operations():
        yield op
        for sub in op.subgraphs():
            yield from all_ops(sub)
        function = op.attrs.get("function")
        if function is not None and hasattr(function, "forward_outputs"):
            outputs = function.forward_outputs(op.attrs["depth"])
            yield from all_ops(outputs[0].graph if outputs else function.graph)


def _silent(*values, **attrs):
    """A print that prints nothing: the compiled program does the printing."""


def _watching(op, positions, kernel, observation):
    def watched(*values, **attrs):
        for p in positions:
            observation.see(op, p, np.asarray(values[p]))
        return kernel(*values, **attrs)

    return watched


class _WatchedBuffer(ElementBuffer):
    """A dynamic TensorArray's elements that report each length they grow to."""

    __slots__ = ("op", "observation")

    def write_growing(self, index, value):
        buffer = super().write_growing(index, value)
        self.observation.grew(self.op, len(self))
        return buffer


def _watched_element(op, observation):
    def element(index, value):
        observation.grew(op, int(index) + 1)
        return op.opdef.kernel(index, value)

    return element


def _watched_stack(op, observation):
    def stack(items, **attrs):
        observation.stacked(op, len(items))
        return op.opdef.kernel(items, **attrs)

    return stack


def _watched_reserve(op, observation):
    def reserve(size, dynamic_size):
        items = _WatchedBuffer(size)
        items.op, items.observation = op, observation
        observation.grew(op, len(items))
        return items

    return reserve
