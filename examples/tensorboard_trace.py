"""The seeds' TensorBoard logs: the graph of strjoin, then DemoModule's with the time of each op,
and a training curve; read back with TensorBoard's own event reader.

    pip install -e ".[tensorboard]"
    python examples/tensorboard_trace.py [LOGDIR]
    tensorboard --logdir LOGDIR          # the Graphs tab, and the Scalars tab for "loss"
"""

import datetime
import os
import sys
import tempfile

import autograph as ag
import runtime as rt


@ag.function
def strjoin(x, y):
    z = rt.strings.join([x, y], separator=" ")
    rt.print(z)
    return z


class DemoModule(rt.Module):
    def __init__(self, init_value=rt.constant(0.0), name=None):  # noqa: B008 (as in the seed)
        super().__init__(name=name)
        with self.name_scope:
            self.x = rt.Variable(init_value, dtype=rt.float32, trainable=True)

    @ag.function(input_signature=[rt.TensorSpec(shape=[], dtype=rt.float32)])
    def add_print(self, a):
        with self.name_scope:
            self.x.assign_add(a)
            rt.print(self.x)
            return self.x


def trace_strjoin(root):
    """Seed 000, "查看计算图": the graph of one call of strjoin."""
    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    logdir = os.path.join(root, "autograph", stamp)
    writer = rt.summary.create_file_writer(logdir)
    rt.summary.trace_on(graph=True, profiler=True)
    strjoin(x="hello", y="world")
    with writer.as_default():
        # The seed writes profile_outdir; TensorFlow's argument is profiler_outdir.
        rt.summary.trace_export(name="autograph", step=0, profiler_outdir=logdir)
    return logdir


def trace_demo_module(root):
    """Seed 003, "在tensorboard中查看计算图": the module's ops grouped under demo_module."""
    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    logdir = os.path.join(root, "demomodule", stamp)
    writer = rt.summary.create_file_writer(logdir)
    rt.summary.trace_on(graph=True, profiler=True)
    demo = DemoModule(init_value=rt.constant(0.0))
    demo.add_print(rt.constant(5.0))
    with writer.as_default():
        rt.summary.trace_export(name="demomodule", step=0, profiler_outdir=logdir)
    return logdir


def write_curve(root):
    """A training curve: one point per step, for the Scalars tab."""
    logdir = os.path.join(root, "train")
    writer = rt.summary.create_file_writer(logdir)
    with writer.as_default():
        for step, loss in enumerate([1.0, 0.5, 0.25]):
            rt.summary.scalar("loss", rt.constant(loss), step=step)
    return logdir


def describe(logdir, tag):
    """What TensorBoard's reader finds under ``tag``: the graph's ops, and how many were timed."""
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator
    from tensorboard.compat.proto.config_pb2 import RunMetadata

    events = EventAccumulator(logdir)
    events.Reload()
    (event,) = events.Tensors(tag)
    metadata = RunMetadata.FromString(event.tensor_proto.string_val[0])
    (graph,) = [g.pre_optimization_graph for g in metadata.function_graphs]
    timed = {n.node_name for d in metadata.step_stats.dev_stats for n in d.node_stats}
    nodes = [n.name for n in graph.node]
    print(f"tag {tag!r}: a graph of {len(nodes)} ops ({', '.join(nodes)}), {len(timed)} timed")


def main(argv):
    root = argv[0] if argv else tempfile.mkdtemp(prefix="logs_")
    describe(trace_strjoin(root), "autograph")
    describe(trace_demo_module(root), "demomodule")
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    curve = EventAccumulator(write_curve(root))
    curve.Reload()
    points = [(e.step, e.tensor_proto.float_val[0]) for e in curve.Tensors("loss")]
    print("loss:", ", ".join(f"step {step}: {value}" for step, value in points))


if __name__ == "__main__":
    main(sys.argv[1:])
