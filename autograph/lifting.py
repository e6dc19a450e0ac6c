"""Initial values computed while tracing, computed once: TensorFlow's lifting of a variable's
initializer out of a ``tf.function``.

``rt.Variable(rt.random.uniform([3]))`` or ``rt.Variable(2.0 * x)`` in the first trace of an
``ag.function`` gives the variable a symbolic initial value. The part of the graph it needs
runs at once, eagerly, on the values of the call being traced, and the variable holds the
result (``runtime.state.variables.lift_initial_values`` asks).

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

from runtime import errors
from runtime.core import context
from runtime.execution.compile import compile_graph


class InitialValues:
    """Computes tensors of ``graph`` (being traced) from ``feeds``: its placeholders, each with
    the value of the call being traced (an argument traced from a TensorSpec has none)."""

    def __init__(self, graph, feeds):
        self.graph = graph
        self.feeds = feeds

    def evaluate(self, tensor):
        placeholders = [p for p, _ in self.feeds]
        try:
            program = compile_graph(self.graph, placeholders, [tensor], name="initial_value")
        except errors.InvalidArgumentError as e:
            raise ValueError(
                f"A Variable's initial value {tensor.name!r} depends on an argument that has no "
                "value while tracing (a TensorSpec given to get_concrete_function or "
                f"input_signature): {e.message}. Compute it from the call's tensors, or pass a "
                "Python or numpy value."
            ) from None
        with context.init_scope():
            return program(*(value for _, value in self.feeds))[0]
