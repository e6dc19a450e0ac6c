"""The ``PartitionedCall`` row: one op that calls a traced function graph.

The row reads the function it calls (its ``function`` attribute) through
``CalledFunction``: the few methods a call needs. ``GraphFunction``
(``runtime.functions.graph_function``) implements them a layer above, where
graphs are compiled and differentiated.

>>> CALL.attrs["function"].accepts(object()), CALL.attrs["function"].description
(False, 'a graph function')
"""

from __future__ import annotations

from runtime.core import attr_kinds as kinds
from runtime.core.op_def import OpDef


class CalledFunction:
    """What a ``PartitionedCall`` op calls: a function graph, ready for gradients of ``depth``
    orders when ``depth`` tapes record the call (its outputs then include what they read).

    Its ``graph`` (a FuncGraph) and ``name`` are attributes; a subclass
    (``runtime.functions.graph_function.GraphFunction``) gives the methods.
    """

    graph = None
    name = None

    def forward_outputs(self, depth):
        """The outputs of a call made while ``depth`` tapes record: results, then intermediates."""
        raise NotImplementedError

    def forward_program(self, depth):
        """The compiled function from the inputs' values to ``forward_outputs(depth)``' values."""
        raise NotImplementedError

    def call_gradient(self, op, grads):
        """The gradients of the call ``op``'s inputs (then of the variables it read)."""
        raise NotImplementedError


def _call_kernel(*values, function, depth):
    return tuple(function.forward_program(depth)(*values))


def _call_infer(inputs, attrs):
    function, depth = attrs["function"], attrs["depth"]
    if not 1 <= depth <= _MAX_ORDER:
        raise ValueError(f"PartitionedCall: depth must be in [1, {_MAX_ORDER}], got {depth}")
    params = function.graph.inputs
    if len(params) != len(inputs):
        raise ValueError(f"{function.name} takes {len(params)} inputs but is given {len(inputs)}")
    for i, (param, arg) in enumerate(zip(params, inputs)):
        if param.dtype is not arg.dtype or not param.shape.is_compatible_with(arg.shape):
            raise TypeError(
                f"{function.name}: input {i} is {param.dtype.name} {param.shape} but is given "
                f"{arg.dtype.name} {arg.shape}"
            )
    return [(t.dtype, t.shape) for t in function.forward_outputs(depth)]


def _call_gradient(op, *grads):
    return op.attrs["function"].call_gradient(op, grads)


_MAX_ORDER = 16  # orders of gradients a call is ready for: more is a damaged file, not a model

# The outputs of a call: the function's, then the intermediates its gradients read.
CALL = OpDef(
    "PartitionedCall",
    _call_kernel,
    _call_infer,
    stateful=True,  # the function may print, assign or draw random numbers
    default_name="PartitionedCall",
    attrs={
        "function": kinds.AttrKind(
            "a graph function", lambda value: isinstance(value, CalledFunction)
        ),
        "depth": kinds.INT,
    },
    gradient=_call_gradient,
)
