"""A loaded If's, While's or call's sub-graph inputs know no more than the tensors they are given.

A sub-graph's placeholder stands for the outer tensor its op feeds in. A save
gives it that tensor's shape, or one that knows less (a loop variable's shape
invariant); a shape knowing more would be trusted by every op after it, and by
the op's outputs: a branch placeholder forged to (2,) for an input of shape
(None,) makes a cond that declares (2,) and returns (6,) for 6 values. (A
cond gradient's branch reads an output of the forward cond as the cond gives
it, knowing what both forward branches allow: ``GradientGraph.capture_from_around``.)

>>> import runtime as rt
>>> from runtime.core.tensor_shape import TensorShape
>>> from runtime.execution.tracing import trace
>>> pred = rt.TensorSpec([], rt.bool)
>>> g = trace(lambda p, x: rt.cond(p, lambda: x * 2.0, lambda: x), [pred, rt.TensorSpec([None])], "f")
>>> cond = g.outputs[0].op
>>> check_sub_graph_inputs(cond.opdef, cond.inputs, cond.attrs)  # as traced: nothing to say
>>> cond.attrs["then_graph"].inputs[0].set_shape(TensorShape([2]))
>>> check_sub_graph_inputs(cond.opdef, cond.inputs, cond.attrs)
Traceback (most recent call last):
...
runtime.saving.format.Damage: the true branch's input 'x_1_capture' is float32 (2,), but the \
op gives it float32 (None,): a sub-graph input may know less than what it is given, never more
"""

from __future__ import annotations

from runtime.ops.control_flow_ops import IF, WHILE
from runtime.ops.function_ops import CALL
from runtime.saving.format import Damage, shape_text


def check_sub_graph_inputs(opdef, inputs, attrs):
    """Raises Damage when a placeholder of the op's sub-graphs knows more than its input.

    ``opdef``, ``inputs`` and ``attrs`` are an op's as the loader rebuilds it,
    already checked by the op's row (the placeholders are compatible with the
    inputs, in number and dtype); ops without sub-graphs pass.
    """
    for what, graph, outer in _sub_graphs(opdef, inputs, attrs):
        for placeholder, given in zip(graph.inputs, outer):
            if given.shape.is_subtype_of(placeholder.shape):
                continue
            raise Damage(
                f"{what}'s input {placeholder.op.name!r} is {placeholder.dtype.name} "
                f"{shape_text(placeholder.shape)}, but the op gives it {given.dtype.name} "
                f"{shape_text(given.shape)}: a sub-graph input may know less than what it is "
                "given, never more"
            )


def _sub_graphs(opdef, inputs, attrs):
    """``(what, graph, outer inputs)`` for each sub-graph of the op."""
    if opdef is IF:
        yield "the true branch", attrs["then_graph"], inputs[1:]
        yield "the false branch", attrs["else_graph"], inputs[1:]
    elif opdef is WHILE:
        loop_inputs = inputs[:-1] if attrs["has_maximum_iterations"] else inputs
        yield "the loop's test", attrs["cond_graph"], loop_inputs
        yield "the loop's body", attrs["body_graph"], loop_inputs
    elif opdef is CALL:
        yield "the called function", attrs["function"].graph, inputs
