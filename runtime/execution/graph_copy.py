"""Copying a graph op by op, as a rule decides each op's fate: what optimisation passes do.

>>> import runtime as rt
>>> from runtime.execution.tracing import trace
>>> g = trace(lambda x: x + 1, [rt.TensorSpec([], rt.int32)], "f")
>>> c = copy_graph(g)
>>> c is g, str(c) == str(g), [t.name for t in c.outputs]
(False, True, ['add:0'])
"""

from __future__ import annotations

from runtime.core import nest
from runtime.core.graph import CONST, FuncGraph, Graph, Operation
from runtime.core.tensor import SymbolicTensor
from runtime.state.variables import VAR_HANDLE

DROP = object()
"""A rule's answer: leave the op out of the new graph."""


class _Copy:
    """One graph being copied into a new FuncGraph, with what each old tensor and op became.

    ``make_rule(graph)`` gives the rule deciding each op's fate, called as
    ``rule(op, inputs, controls, copy)`` with the op's inputs and control inputs
    already mapped into the new graph. It answers None (copy the op as is),
    a list of new tensors standing for the op's outputs, an Operation of the
    new graph standing for the op, or ``DROP``.
    """

    def __init__(self, graph, make_rule, outer=None):
        self.old = graph
        self.make_rule = make_rule
        self.outer = outer  # the _Copy of the enclosing graph, when copying a sub-graph
        outer_graph = outer.graph if outer is not None else graph.outer_graph
        self.graph = FuncGraph(graph.graph_name, outer_graph=outer_graph)
        self.tensors = {}  # id(old tensor) -> new tensor
        self.ops = {}  # id(old op) -> the new ops it became (control inputs point at these)

    def run(self) -> FuncGraph:
        rule = self.make_rule(self.old)
        for op in self.old.get_operations():
            inputs = [self.tensors.get(id(t)) for t in op.inputs]
            controls = self._controls(op)
            self._record(op, inputs, controls, rule(op, inputs, controls, self))
        self._finish()
        return self.graph

    def _controls(self, op):
        """The new ops ``op``'s control inputs became; constants need no waiting for."""
        controls = []
        for c in op.control_inputs:
            for new in self.ops.get(id(c), ()):
                if new.opdef is not CONST and new not in controls:
                    controls.append(new)
        return controls

    def _record(self, op, inputs, controls, result):
        if result is DROP:
            self.ops[id(op)] = []
            return
        if result is None:
            result = self.copy_op(op, inputs, controls)
        if isinstance(result, Operation):
            self.ops[id(op)] = [result]
            result = result.outputs
        else:
            self.ops[id(op)] = _unique(t.op for t in result)
        for old, new in zip(op.outputs, result):
            self.tensors[id(old)] = new

    def copy_op(self, op, inputs, controls) -> Operation:
        """``op`` recreated in the new graph on ``inputs``, its sub-graphs copied by the same rule."""
        if any(t is None for t in inputs):
            raise ValueError(f"op {op.name!r} reads a tensor that was dropped")
        attrs = {
            key: _Copy(value, self.make_rule, self).run() if isinstance(value, Graph) else value
            for key, value in op.attrs.items()
        }
        specs = [(t.dtype, t.shape) for t in op.outputs]
        new = self.graph.create_op(
            op.opdef, inputs, attrs, op.name, specs, control_inputs=controls, source=op._source
        )
        new.device = op.device
        if op.opdef is VAR_HANDLE:
            self.graph.variable_handles[id(op.attrs["variable"])] = new.outputs[0]
        return new

    def _finish(self):
        """Inputs, outputs, structured outputs and captures, mapped into the new graph."""
        old, new = self.old, self.graph
        new.inputs = [self.tensors[id(t)] for t in old.inputs]
        new.outputs = [self.tensors[id(t)] for t in old.outputs]
        new.structured_outputs = nest.map_structure(self._map_leaf, old.structured_outputs)
        outer_tensors = self.outer.tensors if self.outer is not None else {}
        for outer, inner in old.captures:
            outer = outer_tensors.get(id(outer), outer)
            new.captures.append((outer, self.tensors[id(inner)]))
            new._capture_map[id(outer)] = self.tensors[id(inner)]

    def _map_leaf(self, x):
        if isinstance(x, SymbolicTensor) and x.graph is self.old:
            return self.tensors.get(id(x), x)
        if isinstance(x, Operation) and x.graph is self.old:
            new = self.ops.get(id(x), [])
            return new[0] if len(new) == 1 else None
        return x


def _unique(items):
    out = []
    for x in items:
        if x not in out:
            out.append(x)
    return out


def transform(graph, make_rule) -> FuncGraph:
    """A new FuncGraph made from ``graph`` op by op, sub-graphs included, as ``make_rule`` decides.

    See ``_Copy`` for what a rule is. ``copy_graph`` is the rule that keeps every op.
    """
    return _Copy(graph, make_rule).run()


def copy_graph(graph) -> FuncGraph:
    """An op-for-op copy of ``graph`` (sub-graphs copied too)."""
    return transform(graph, lambda g: lambda op, inputs, controls, copy: None)
