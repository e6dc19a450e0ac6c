"""Writing an ``If`` whose condition is known when exporting as the branch it takes.

A loop's test runs once on the loop's initial values (see ``onnx_control_flow``),
which are often constants, and ``while True`` or ``if 3 > 2`` tests a constant:
such an ``If`` would always take one branch. onnxruntime's constant folding
inlines that branch itself (its "If branch constant folding"), and onnxruntime
1.32 can crash doing so (a segmentation fault while creating the session) when
the branch holds a further ``If`` or ``Loop``, depending on the values' names.
So the exporter inlines such branches first: onnxruntime then finds no ``If`` of
a constant condition to fold, and the model is smaller.

A condition is known when it is computed, by the elementwise ops below, from
initializers only (of this graph or an enclosing one), through branches already
inlined. Those ops are evaluated here with numpy exactly as ONNX defines them.
"""

from __future__ import annotations

import numpy as np

_MAX_ELEMENTS = 4096  # conditions are scalars; larger constants are not worth evaluating

_UNARY = {
    "Identity": lambda x: x,
    "Not": np.logical_not,
    "Neg": np.negative,
    "Abs": np.abs,
}
_BINARY = {
    "And": np.logical_and,
    "Or": np.logical_or,
    "Xor": np.logical_xor,
    "Equal": np.equal,
    "Less": np.less,
    "LessOrEqual": np.less_equal,
    "Greater": np.greater,
    "GreaterOrEqual": np.greater_equal,
    "Add": np.add,
    "Sub": np.subtract,
    "Mul": np.multiply,
}
_VARIADIC = {"Max": np.maximum, "Min": np.minimum}


def inline_constant_branches(onnx, model):
    """Replaces, in ``model`` and all its sub-graphs, each ``If`` of a known condition by the
    nodes of the branch it takes (and an ``Identity`` per output).

    >>> import onnx
    >>> from onnx import TensorProto, helper
    >>> def branch(name, value):
    ...     return helper.make_graph(
    ...         [helper.make_node("Identity", [value], [name])], name, [],
    ...         [helper.make_tensor_value_info(name, TensorProto.INT32, [])])
    >>> graph = helper.make_graph(
    ...     [helper.make_node("Not", ["no"], ["yes"]),
    ...      helper.make_node("If", ["yes"], ["y"], then_branch=branch("t", "x"),
    ...                       else_branch=branch("e", "zero"))],
    ...     "f", [helper.make_tensor_value_info("x", TensorProto.INT32, [])],
    ...     [helper.make_tensor_value_info("y", TensorProto.INT32, [])],
    ...     initializer=[helper.make_tensor("no", TensorProto.BOOL, [], [False]),
    ...                  helper.make_tensor("zero", TensorProto.INT32, [], [0])])
    >>> model = helper.make_model(graph)
    >>> inline_constant_branches(onnx, model)
    >>> [(n.op_type, list(n.input), list(n.output)) for n in model.graph.node]
    [('Not', ['no'], ['yes']), ('Identity', ['x'], ['t']), ('Identity', ['t'], ['y'])]
    """
    _inline(onnx, model.graph, _initializer_values(onnx, model.graph, {}))


def _initializer_values(onnx, graph, known):
    known = dict(known)
    for tensor in graph.initializer:
        if tensor.data_type != onnx.TensorProto.STRING:
            known[tensor.name] = onnx.numpy_helper.to_array(tensor)
    return known


def _inline(onnx, graph, known):
    pending = list(reversed(graph.node))
    nodes = []
    while pending:
        node = pending.pop()
        taken = _taken_branch(node, known)
        if taken is not None:
            graph.initializer.extend(taken.initializer)
            known.update(_initializer_values(onnx, taken, {}))
            graph.value_info.extend(taken.value_info)
            graph.value_info.extend(taken.output)  # now values inside this graph
            forwards = [
                onnx.helper.make_node("Identity", [branch_out.name], [out], name=out)
                for branch_out, out in zip(taken.output, node.output, strict=True)
            ]
            pending.extend(reversed(list(taken.node) + forwards))
            continue
        for attribute in node.attribute:
            if attribute.type == onnx.AttributeProto.GRAPH:
                _inline(onnx, attribute.g, _initializer_values(onnx, attribute.g, known))
        value = _evaluate(onnx, node, known)
        if value is not None:
            known[node.output[0]] = value
        nodes.append(node)
    del graph.node[:]
    graph.node.extend(nodes)


def _taken_branch(node, known):
    if node.op_type != "If":
        return None
    condition = known.get(node.input[0])
    if condition is None or condition.size != 1:
        return None
    wanted = "then_branch" if bool(condition.reshape(-1)[0]) else "else_branch"
    return next(a.g for a in node.attribute if a.name == wanted)


def _evaluate(onnx, node, known):
    """``node``'s single output when its inputs are known and small, else None."""
    if node.domain not in ("", "ai.onnx") or len(node.output) != 1 or not node.input:
        return None
    args = [known.get(name) for name in node.input]
    if any(a is None or a.dtype == object or a.size > _MAX_ELEMENTS for a in args):
        return None
    with np.errstate(all="ignore"):  # integers wrap, as in ONNX
        return _apply(onnx, node, args)


def _apply(onnx, node, args):
    op = node.op_type
    if op in _UNARY and len(args) == 1:
        return np.asarray(_UNARY[op](args[0]))
    if op in _BINARY and len(args) == 2:
        return np.asarray(_BINARY[op](*args))
    if op in _VARIADIC:
        result = args[0]
        for arg in args[1:]:
            result = _VARIADIC[op](result, arg)
        return np.asarray(result)
    if op == "Cast" and len(args) == 1:
        to = next(a.i for a in node.attribute if a.name == "to")
        if to == onnx.TensorProto.STRING or args[0].dtype.kind == "f":
            return None  # float to integer casts are not evaluated: out of range is undefined
        return args[0].astype(onnx.helper.tensor_dtype_to_np_dtype(to))
    return None
