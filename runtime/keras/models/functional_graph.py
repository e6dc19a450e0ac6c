"""The graph of a functional model: which layer calls (nodes) lead from its inputs to its
outputs, in which order to run them, and the layers in Keras' order.

Keras 3's rules, kept here because saved configs and ``model.layers`` depend on them: the
nodes reached from the outputs get a depth (an output's node 0, a node feeding a node of
depth ``d`` at least ``d + 1``); a layer takes the largest depth of its nodes; layers are
listed by decreasing depth, ties by the order a depth-first walk from the outputs first met
them. An input nothing uses is still a layer of the model.
"""

from __future__ import annotations

import collections

from runtime.core import nest
from runtime.keras.keras_tensor import KerasTensor, Node, inbound_nodes, node_of
from runtime.keras.layers.input_layer import Input


class LayerGraph:
    """``nodes`` (to run, in order), ``operations`` (the layers, in Keras' order) and
    ``node_keys`` (``(layer, node index)`` of the nodes that belong to the model)."""

    def __init__(self, inputs, outputs):
        walked, first_seen = _walk_from(inputs, outputs)
        node_depths, operation_depths = _depths(walked)
        for tensor in inputs:  # unused inputs still belong to the model
            node = node_of(tensor)
            if node.is_input and node.operation not in operation_depths:
                operation_depths[node.operation] = 0
                first_seen[node.operation] = -1
                node_depths[node] = 0
        by_depth = sorted(set(operation_depths.values()), reverse=True)
        self.operations = [
            operation
            for depth in by_depth
            for operation in sorted(
                (op for op, d in operation_depths.items() if d == depth),
                key=lambda op: first_seen[op],
            )
        ]
        self.nodes = sorted(node_depths, key=lambda node: -node_depths[node])
        self.node_depths = node_depths
        self.node_keys = {
            (id(node.operation), inbound_nodes(node.operation).index(node)) for node in self.nodes
        }
        _check_computable(inputs, self.nodes)
        _check_unique_names(self.operations)


def from_inner_inputs(inputs, outputs):
    """``(inputs, outputs)`` of a model starting at tensors a layer made (not Inputs), as
    Keras 3 makes it: each such tensor is replaced by a new ``Input`` of its shape, and the
    calls between there and ``outputs`` are recorded again on new tensors (new nodes of the
    same layers), leaving the original graph as it was."""
    flat_inputs, flat_outputs = nest.flatten(inputs), nest.flatten(outputs)
    nodes, _ = _walk_from(flat_inputs, flat_outputs)
    swapped = {}
    for x in flat_inputs:
        if node_of(x).is_input:
            swapped[id(x)] = x
        else:
            swapped[id(x)] = Input(batch_shape=x.shape, dtype=x.dtype, name=f"{x.name}CLONE")

    def swap(x):
        if not isinstance(x, KerasTensor):
            return x
        if id(x) not in swapped:
            swapped[id(x)] = KerasTensor(x.shape, x.dtype, name=f"{x.name}_clone")
            swapped[id(x)]._keras_mask = swap(x._keras_mask)
        return swapped[id(x)]

    for node in nodes:
        if not node.is_input:
            outputs_copy = nest.map_structure(swap, node.outputs_structure)
            args, kwargs = nest.map_structure(swap, [list(node.args), node.kwargs])
            Node(node.operation, args, kwargs, outputs_copy)
    return (
        nest.pack_sequence_as(inputs, [swapped[id(x)] for x in flat_inputs]),
        nest.pack_sequence_as(outputs, [swap(x) for x in flat_outputs]),
    )


def _walk_from(inputs, outputs):
    """The nodes behind ``outputs``, each after the nodes feeding it (depth first), stopping
    at the model's inputs; and the order in which the walk first met each layer."""
    input_ids = {id(x) for x in inputs}
    finished, in_progress, ordered, first_seen = set(), set(), [], {}

    def visit(tensor):
        node = node_of(tensor)
        if node in finished:
            return
        if not node.is_input and id(tensor) in input_ids:
            finished.add(node)  # an intermediate tensor given as an input: its past is not ours
            return
        first_seen.setdefault(node.operation, len(first_seen))
        if node in in_progress:
            raise ValueError(
                f"Tensor {tensor} from operation '{node.operation.name}' is part of a cycle."
            )
        in_progress.add(node)
        for parent in node.input_tensors:
            visit(parent)
        finished.add(node)
        in_progress.discard(node)
        ordered.append(node)

    for output in outputs:
        visit(output)
    return ordered, first_seen


def _depths(ordered):
    node_depths, operation_depths = {}, {}
    walked = set(ordered)
    for node in reversed(ordered):
        depth = max(node_depths.setdefault(node, 0), operation_depths.get(node.operation, 0))
        operation_depths[node.operation] = node_depths[node] = depth
        for parent in node.parent_nodes:
            if parent in walked:
                node_depths[parent] = max(depth + 1, node_depths.get(parent, 0))
    return node_depths, operation_depths


def _check_computable(inputs, nodes):
    computable = {id(x) for x in inputs}
    accessed = []
    for node in nodes:
        for tensor in node.input_tensors:
            if id(tensor) not in computable:
                raise ValueError(
                    f"Graph disconnected: cannot find parent for tensor {tensor} at operation "
                    f"'{node.operation}'. The following previous operations were accessed "
                    f"without issue: {accessed}"
                )
        accessed.append(node.operation.name)
        computable.update(id(x) for x in node.outputs + node.output_masks)


def _check_unique_names(operations):
    counts = collections.Counter(op.name for op in operations)
    for name, count in counts.items():
        if count != 1:
            raise ValueError(
                f'The name "{name}" is used {count} times in the model. All operation names '
                "should be unique."
            )


def run(graph, values, call):
    """Runs the nodes on ``values`` (``id(input tensor) -> value``), each as
    ``call(operation, args, kwargs)``, skipping nodes whose inputs were not given; returns
    ``values`` with every output filled in."""
    for node in graph.nodes:
        if node.is_input or any(id(x) not in values for x in node.input_tensors):
            continue
        args, kwargs = node.fill_in(values)
        result = call(node.operation, args, kwargs)
        for tensor, value in zip(node.outputs, nest.flatten(result)):
            values[id(tensor)] = value
            if tensor._keras_mask is not None:  # the mask the call attached, a tensor of its own
                values[id(tensor._keras_mask)] = getattr(value, "_keras_mask", None)
    return values


def reachable(graph, inputs):
    """The ids of the tensors the nodes compute from ``inputs`` (no layer runs)."""
    reached = {id(x) for x in inputs}
    for node in graph.nodes:
        if not node.is_input and all(id(x) in reached for x in node.input_tensors):
            reached.update(id(x) for x in node.outputs + node.output_masks)
    return reached


def paths(structure):
    """The path of each leaf of ``structure``, in ``nest.flatten`` order: ``"0.foo"``."""
    if isinstance(structure, dict):
        keys = sorted(structure)
        return [".".join([str(k), *filter(None, [p])]) for k in keys for p in paths(structure[k])]
    if isinstance(structure, (list, tuple)):
        return [
            ".".join([str(i), *filter(None, [p])])
            for i, item in enumerate(structure)
            for p in paths(item)
        ]
    return [""]
