"""Tracing a Python callable into a FuncGraph: the seam that cond, while_loop and functions share.

>>> import runtime as rt
>>> g = trace(lambda x: x * 2, [rt.TensorSpec([], rt.int32)], "double")
>>> g.inputs, g.outputs
([<rt.Tensor 'x:0' shape=() dtype=int32>], [<rt.Tensor 'mul:0' shape=() dtype=int32>])
"""

from __future__ import annotations

from runtime.core import context, nest
from runtime.core.gc_pause import no_cyclic_gc
from runtime.core.graph import FuncGraph, Operation, arg_op_name
from runtime.ops.constant_ops import convert_to_tensor


def trace(fn, args_template, name, outer_graph=None, arg_names=None, shapes=None, convert=True):
    """Calls ``fn`` on placeholders shaped like ``args_template``, in a new FuncGraph.

    ``args_template`` is a list of arguments, each a nested structure whose
    leaves have ``dtype`` and ``shape`` (tensors, TensorSpecs). ``shapes``
    optionally overrides each leaf's shape (a loop's shape invariants).
    The graph's ``outputs`` are the tensors of the result, flattened;
    ``structured_outputs`` keeps the result as ``fn`` returned it. With
    ``convert=False`` the result is kept as Python values and ``outputs`` is
    left for the caller to give with ``set_outputs``.
    """
    graph = FuncGraph(
        name, outer_graph=outer_graph if outer_graph is not None else context.building_graph()
    )
    leaves = nest.flatten(list(args_template))
    shapes = shapes if shapes is not None else [leaf.shape for leaf in leaves]
    names = [arg_op_name(n) for n in arg_names] if arg_names else ["x"] * len(leaves)
    with graph.as_default(), no_cyclic_gc():
        placeholders = [
            graph.add_input(leaf.dtype, shape, name)
            for leaf, shape, name in zip(leaves, shapes, names)
        ]
        args = nest.pack_sequence_as(list(args_template), placeholders)
        result = fn(*args)
    if not convert:
        graph.structured_outputs = result
        return graph
    with graph.as_default():
        graph.structured_outputs = nest.map_structure(lambda x: _output(graph, x), result)
    graph.outputs = [t for t in nest.flatten(graph.structured_outputs) if t is not None]
    return graph


def set_outputs(graph, values):
    """Makes ``values`` (tensors or convertible Python values) the outputs of a traced graph."""
    with graph.as_default():
        graph.outputs = [_output(graph, v) for v in values]
    return graph.outputs


def _output(graph, x):
    # An op returned by fn (a print, an assign) has no value; as a stateful op of a
    # FuncGraph it runs anyway, so its place in the result is None.
    if x is None or isinstance(x, Operation):
        return None
    return graph.prepare_input(convert_to_tensor(x))


def unify_captures(graphs):
    """Gives every sub-graph one placeholder per outer tensor any of them captured, in one order.

    Returns those outer tensors: the inputs, after the explicit ones, of the op running them.
    """
    order, seen = [], set()
    for g in graphs:
        for outer, _ in g.captures:
            if id(outer) not in seen:
                seen.add(id(outer))
                order.append(outer)
    for g in graphs:
        explicit = g.inputs[: len(g.inputs) - len(g.captures)]
        for outer in order:
            g.capture(outer)
        g.inputs = explicit + [g._capture_map[id(outer)] for outer in order]
    return order
