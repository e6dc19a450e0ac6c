"""Graphs as TensorBoard shows them (the optional ``tensorboard`` extra).

    pip install "autograph-numpy[tensorboard]"

``to_graph_def(graph)`` converts a graph to a GraphDef with the ``tensorboard``
package's own protos: name scopes (``demo_module/...``) become TensorBoard's
nested groups, the sub-graphs of a cond or while op are nested inside that op's
group, control inputs (and the order a function graph runs its stateful ops
in, ``runtime.views.ordering``) are ``^op`` inputs. ``write_graph(graph,
logdir)`` writes one to an event file with TensorBoard's own writer;
``tensorboard --logdir LOGDIR`` shows it in the Graphs tab. ``rt.summary``
(``runtime.views.summaries``) writes the graphs of traced calls, and their
op times, through ``run_metadata``.
"""

from __future__ import annotations

import os
import time

from runtime.core.graph import Graph
from runtime.extras import require
from runtime.views.ordering import order_inputs

_DTYPES = {  # TensorFlow's DataType enum
    "float32": 1, "float64": 2, "int32": 3, "uint8": 4, "int16": 5, "int8": 6, "string": 7,
    "int64": 9, "bool": 10, "float16": 19, "resource": 20, "variant": 21,
}  # fmt: skip
CPU = "/job:localhost/replica:0/task:0/device:CPU:0"  # the device TensorBoard is told ops ran on


def protos(name):
    """The module ``name`` of TensorBoard's protos (``event_pb2``...), or ImportError saying how
    to install the extra."""
    return require(f"tensorboard.compat.proto.{name}", "tensorboard", "Writing TensorBoard logs")


def to_graph_def(graph: Graph, prefix=""):
    """The graph as a TensorBoard GraphDef proto; ``prefix`` goes before every node's name."""
    graph_def = protos("graph_pb2").GraphDef()
    _add_nodes(graph_def, graph, prefix)
    return graph_def


def node_names(graph, prefix="") -> dict:
    """``{id(op): node name}`` for every op of ``graph`` and its sub-graphs, as ``to_graph_def``
    names them (a timing of an op is reported under its node's name)."""
    names = {}
    for op in graph.get_operations():
        names[id(op)] = prefix + op.name
        for sub in op.subgraphs():
            names.update(node_names(sub, f"{prefix}{op.name}/{sub.graph_name}/"))
    return names


def _ref(prefix, t):
    name = prefix + t.op.name
    return name if t.value_index == 0 else f"{name}:{t.value_index}"


def _add_nodes(graph_def, graph, prefix):
    order = order_inputs(graph)
    for op in graph.get_operations():
        node = graph_def.node.add()
        node.name = prefix + op.name
        node.op = op.type
        node.device = CPU
        node.input.extend(_ref(prefix, t) for t in op.inputs)
        controls = list(op.control_inputs) + order.get(op, [])
        node.input.extend("^" + prefix + c.name for c in controls)
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
            _add_nodes(graph_def, sub, f"{prefix}{op.name}/{sub.graph_name}/")


def run_metadata(graph_defs, timings=()):
    """A RunMetadata proto: ``graph_defs`` as the graphs of functions, and ``timings`` (``(node
    name, start in nanoseconds since the epoch, nanoseconds it took)``) as the step stats that
    TensorBoard's Graphs tab colours nodes by ("Compute time")."""
    metadata = protos("config_pb2").RunMetadata()
    for graph_def in graph_defs:
        metadata.function_graphs.add().pre_optimization_graph.CopyFrom(graph_def)
    if timings:
        device = metadata.step_stats.dev_stats.add(device=CPU)
        for name, start, nanoseconds in timings:
            micros = max(1, round(nanoseconds / 1000))
            device.node_stats.add(
                node_name=name,
                all_start_micros=start // 1000,
                op_end_rel_micros=micros,
                all_end_rel_micros=micros,
                all_start_nanos=start,
                op_end_rel_nanos=nanoseconds,
                all_end_rel_nanos=nanoseconds,
            )
    return metadata


def event_writer(logdir, **options):
    """TensorBoard's own event file writer for ``logdir`` (made if missing); ``options`` are
    its ``max_queue_size``, ``flush_secs`` and ``filename_suffix``."""
    writer_module = require(
        "tensorboard.summary.writer.event_file_writer", "tensorboard", "Writing TensorBoard logs"
    )
    os.makedirs(logdir, exist_ok=True)
    return writer_module.EventFileWriter(logdir, **options)


def write_graph(graph, logdir, step=0):
    """Writes ``graph`` (a Graph, or anything with ``.graph``: a ConcreteFunction) to ``logdir``.

    Returns the path of the event file written.
    """
    graph_def = to_graph_def(getattr(graph, "graph", graph))
    event = protos("event_pb2").Event(
        wall_time=time.time(), step=step, graph_def=graph_def.SerializeToString()
    )
    before = set(os.listdir(logdir)) if os.path.isdir(logdir) else set()
    writer = event_writer(logdir)
    writer.add_event(event)
    writer.close()
    (written,) = set(os.listdir(logdir)) - before
    return os.path.join(logdir, written)
