"""The ``CustomGradient`` row: the results of a function given the gradient its author wrote
(``rt.custom_gradient``, in ``runtime.gradients.custom_gradient``).

The op passes the function's results through unchanged. Its inputs are the function's
arguments, the handles of the variables it read, its results, and the tensors its gradient
reads (``captured``, added when the gradient is traced: a ``DeferredGradient`` stands in the
attribute until then); its attribute ``gradient`` is the author's gradient function traced
into a sub-graph from the results' gradients (then the captured tensors) to the arguments'
and variables' gradients, and its rule runs that sub-graph's ops where the gradient is being
built. So the arguments get the author's gradient, and the ops that computed the results get
none. Eagerly a tape records the same row with a Python function as ``gradient``.

>>> CUSTOM_GRADIENT.attrs["connected"].description
'None or a tuple of ints'
"""

from __future__ import annotations

from runtime.core import attr_kinds as kinds
from runtime.core.graph import FUNC_GRAPH, PLACEHOLDER, FuncGraph
from runtime.core.op_def import OpDef
from runtime.ops.array_ops import zeros_like
from runtime.ops.registry import bind


def _results(values, arguments, results):
    return values[arguments : arguments + results]


def _implementation(xp, *values, gradient, arguments, results, connected):
    outputs = _results(values, arguments, results)
    return outputs[0] if results == 1 else tuple(outputs)


def _infer(inputs, attrs):
    arguments, results = attrs["arguments"], attrs["results"]
    if arguments < 0 or results < 1 or arguments + results > len(inputs):
        raise ValueError(
            f"CustomGradient: {arguments} arguments and {results} results do not fit its "
            f"{len(inputs)} inputs"
        )
    return [(t.dtype, t.shape) for t in _results(inputs, arguments, results)]


def _gradient(op, *grads):
    """The author's gradients of the arguments (and variables); None for everything else."""
    attrs = op.attrs
    arguments, results = attrs["arguments"], attrs["results"]
    upstream = [zeros_like(out) if g is None else g for g, out in zip(grads, op.outputs)]
    gradient = attrs["gradient"]
    if hasattr(gradient, "materialize"):  # traced now that a gradient is taken
        gradient.materialize(op)
        gradient = attrs["gradient"]
    if isinstance(gradient, FuncGraph):
        captured = op.inputs[arguments + results :]
        given = run_inline(gradient, [*upstream, *captured])
        input_grads = [None] * arguments
        for i, g in zip(attrs["connected"], given):
            input_grads[i] = g
    else:  # a tape's record of an eager call: the author's function itself
        input_grads = list(gradient(upstream))
    return input_grads + [None] * (len(op.inputs) - arguments)


def run_inline(graph, inputs):
    """The outputs of ``graph`` (a FuncGraph) on ``inputs``, its ops added to the graph being
    built (or run eagerly), one by one as they were traced."""
    values = {id(p): v for p, v in zip(graph.inputs, inputs)}
    for op in graph.get_operations():
        if op.opdef is PLACEHOLDER:
            continue
        outputs = bind(op.opdef, [values[id(t)] for t in op.inputs], dict(op.attrs))
        values.update((id(t), v) for t, v in zip(op.outputs, outputs))
    return [values[id(t)] for t in graph.outputs]


# The gradient sub-graph, or what traces it when first needed (a DeferredGradient).
_GRADIENT = kinds.AttrKind(
    "a function graph, or a gradient traced when first needed",
    lambda value: FUNC_GRAPH.accepts(value) or hasattr(value, "materialize"),
)

CUSTOM_GRADIENT = OpDef(
    "CustomGradient",
    None,
    _infer,
    pure=False,  # never folded into a constant or merged: its gradient is what it is for
    attrs={
        "gradient": _GRADIENT,
        "arguments": kinds.INT,  # the arguments, then the handles of the variables read
        "results": kinds.INT,
        "connected": kinds.AXES,  # the arguments the gradient sub-graph gives gradients for
    },
    gradient=_gradient,
    implementation=_implementation,
)
