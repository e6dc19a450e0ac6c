"""Initial values computed while tracing, computed once: TensorFlow's lifting of a variable's
initializer out of a ``tf.function``.

``rt.Variable(rt.random.uniform([3]))`` or ``rt.Variable(2.0 * x)`` in the first trace of an
``ag.function`` gives the variable a symbolic initial value. The part of the graph it needs
runs at once, eagerly, on the values of the call being traced, and the variable holds the
result (``runtime.state.variables.lift_initial_values`` asks).

The initial values of one trace are computed as one run of the graph would compute them:
a tensor computed once is remembered, so ``r = rt.random.uniform([3])`` given to two
variables gives both the same draw; and a value that reads a variable the trace assigned
before sees the assignment (``counter.assign_add(1.0)`` then
``rt.Variable(counter.read_value() + x)``), as TensorFlow, which initialises such a
variable inside the graph. The assignment itself is undone once the value is known: it
happens when the graph runs.

>>> import autograph as ag
>>> import runtime as rt
>>> @ag.function
... def scale(x):
...     if scale.w is None:
...         scale.w = rt.Variable(2.0 * x)
...     return scale.w * x
>>> scale.w = None
>>> scale(rt.constant(3.0)).numpy(), scale.w.numpy()
(np.float32(18.0), np.float32(6.0))
"""

from __future__ import annotations

import numpy as np

from runtime import errors
from runtime.core import context
from runtime.execution.compile import compile_graph
from runtime.execution.schedule import ops_to_run
from runtime.state.variables import READ


class InitialValues:
    """Computes tensors of ``graph`` (being traced) from ``feeds``: its placeholders, each with
    the value of the call being traced (an argument traced from a TensorSpec has none).
    Every tensor computed is remembered, for the next initial value of the same trace."""

    def __init__(self, graph, feeds):
        self.graph = graph
        self.known = {id(t): (t, value) for t, value in feeds}  # id -> (tensor, its value)

    def evaluate(self, tensor):
        if id(tensor) not in self.known:
            self._run(tensor)
        return self.known[id(tensor)][1]

    def _run(self, tensor):
        ops = self._ops_for(tensor)
        fed = [t for t, _ in self.known.values()]
        outputs = [t for op in ops for t in op.outputs]
        try:
            program = compile_graph(self.graph, fed, outputs, name="initial_value")
        except errors.InvalidArgumentError as e:
            raise ValueError(
                f"A Variable's initial value {tensor.name!r} depends on an argument that has no "
                "value while tracing (a TensorSpec given to get_concrete_function or "
                f"input_signature): {e.message}. Compute it from the call's tensors, or pass a "
                "Python or numpy value."
            ) from None
        written = [op.attrs["variable"] for op in ops if _writes(op)]
        before = [np.array(v._value, copy=True) for v in written]
        try:
            with context.init_scope():
                values = program(*(value for _, value in self.known.values()))
        finally:  # the trace's assignments happen when the graph runs, not now
            for variable, value in zip(written, before):
                variable._value = value
        for t, value in zip(outputs, values):
            self.known[id(t)] = (t, value)

    def _ops_for(self, tensor):
        """The ops ``tensor`` needs, with the assignments made before each variable read
        among them (and what those need in turn)."""
        order = {id(op): i for i, op in enumerate(self.graph.get_operations())}
        targets = [tensor]
        while True:
            ops = ops_to_run(self.graph, targets, set(self.known), False)
            reads = [op for op in ops if op.opdef is READ]
            writes = [
                op
                for op in self.graph.get_operations()
                if _writes(op)
                and id(op) not in {id(o) for o in ops}
                and any(op.inputs[0] is r.inputs[0] and order[id(op)] < order[id(r)] for r in reads)
            ]
            if not writes:
                return ops
            targets += writes


def _writes(op):
    return op.opdef.stateful and op.opdef is not READ and "variable" in op.attrs
