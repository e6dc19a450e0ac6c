"""Writing a graph to a TensorBoard log directory (the optional ``tensorboard`` extra).

    pip install -e ".[tensorboard]"

``write_graph(graph, logdir)`` converts the graph to a GraphDef, with the
``tensorboard`` package's own protos, and writes it to an event file with
its own writer; ``tensorboard --logdir LOGDIR`` then shows it in the Graphs
tab. Name scopes (``demo_module/...``) become TensorBoard's nested groups, and
the sub-graphs of a cond or while op are shown inside that op's group.
"""

from __future__ import annotations

import os
import time

from runtime.core.graph import Graph

_DTYPES = {  # TensorFlow's DataType enum
    "float32": 1, "float64": 2, "int32": 3, "uint8": 4, "int16": 5, "int8": 6, "string": 7,
    "int64": 9, "bool": 10, "float16": 19, "resource": 20, "variant": 21,
}  # fmt: skip


def _protos():
    try:
        from tensorboard.compat.proto import attr_value_pb2, event_pb2, graph_pb2, tensor_shape_pb2
        from tensorboard.summary.writer.event_file_writer import EventFileWriter
    except ImportError:
        raise ImportError(
            "Writing TensorBoard logs needs the tensorboard package: pip install 'autograph[tensorboard]'"
        ) from None
    return attr_value_pb2, event_pb2, graph_pb2, tensor_shape_pb2, EventFileWriter


def to_graph_def(graph: Graph):
    """The graph as a TensorBoard GraphDef proto."""
    attr_value_pb2, _, graph_pb2, tensor_shape_pb2, _ = _protos()
    graph_def = graph_pb2.GraphDef()
    _add_nodes(graph_def, graph, "", attr_value_pb2, tensor_shape_pb2)
    return graph_def


def _ref(prefix, t):
    name = prefix + t.op.name
    return name if t.value_index == 0 else f"{name}:{t.value_index}"


def _add_nodes(graph_def, graph, prefix, attr_value_pb2, tensor_shape_pb2):
    for op in graph.get_operations():
        node = graph_def.node.add()
        node.name = prefix + op.name
        node.op = op.type
        node.input.extend(_ref(prefix, t) for t in op.inputs)
        node.input.extend("^" + prefix + c.name for c in op.control_inputs)
        if op.outputs:
            node.attr["T"].type = _DTYPES.get(op.outputs[0].dtype.name, 0)
            shapes = node.attr["_output_shapes"].list
            for t in op.outputs:
                shape = shapes.shape.add()
                if t.shape.rank is None:
                    shape.unknown_rank = True
                else:
                    for d in t.shape:
                        shape.dim.add().size = -1 if d is None else d
        for sub in op.subgraphs():
            _add_nodes(
                graph_def,
                sub,
                f"{prefix}{op.name}/{sub.graph_name}/",
                attr_value_pb2,
                tensor_shape_pb2,
            )


def write_graph(graph, logdir, step=0):
    """Writes ``graph`` (a Graph, or anything with ``.graph``: a ConcreteFunction) to ``logdir``.

    Returns the path of the event file written.
    """
    _, event_pb2, _, _, EventFileWriter = _protos()  # noqa: N806 (a class)
    graph = getattr(graph, "graph", graph)
    graph_def = to_graph_def(graph)
    os.makedirs(logdir, exist_ok=True)
    before = set(os.listdir(logdir))
    writer = EventFileWriter(logdir)
    event = event_pb2.Event(
        wall_time=time.time(), step=step, graph_def=graph_def.SerializeToString()
    )
    writer.add_event(event)
    writer.close()
    (written,) = set(os.listdir(logdir)) - before
    return os.path.join(logdir, written)
