"""The tensorboard extra: a graph written as a GraphDef event file, read back with TensorBoard's reader."""

import autograph as ag
import runtime as rt
from tests.extras import import_extra

import_extra("tensorboard")

from tensorboard.backend.event_processing.event_file_loader import EventFileLoader  # noqa: E402
from tensorboard.compat.proto import graph_pb2  # noqa: E402

from runtime.views import tensorboard  # noqa: E402


class DemoModule(rt.Module):
    def __init__(self):
        super().__init__()
        with self.name_scope:
            self.x = rt.Variable(0.0)

    @ag.function(input_signature=[rt.TensorSpec([], rt.float32)])
    def add_print(self, a):
        with self.name_scope:
            self.x.assign_add(a)
            rt.print(self.x)
            return self.x


def read_graph(path):
    for event in EventFileLoader(path).Load():
        if event.graph_def:
            graph_def = graph_pb2.GraphDef()
            graph_def.ParseFromString(event.graph_def)
            return graph_def
    raise AssertionError("no graph in the event file")


def test_a_module_function_is_written_with_its_name_scope(tmp_path):
    demo = DemoModule()
    cf = demo.add_print.get_concrete_function()
    graph_def = read_graph(tensorboard.write_graph(cf, str(tmp_path)))
    names = {node.name: node for node in graph_def.node}
    assert set(names) == {op.name for op in cf.graph.get_operations()}
    assert any(n.startswith("demo_module/") for n in names)  # the module groups its ops
    assign = next(n for n in graph_def.node if n.op == "AssignAddVariableOp")
    assert assign.attr["T"].type == 1  # DT_FLOAT
    op = cf.graph.get_operation_by_name(assign.name)
    assert list(assign.input) == [t.op.name for t in op.inputs]


def test_loop_bodies_are_grouped_under_their_op_and_shapes_are_kept(tmp_path):
    @ag.function(input_signature=[rt.TensorSpec([None], rt.int32)])
    def f(xs):
        total = 0
        for x in xs:
            total += x
        return total

    graph_def = read_graph(tensorboard.write_graph(f.get_concrete_function(), str(tmp_path)))
    names = [n.name for n in graph_def.node]
    assert any(n.startswith("while/while_body/") for n in names)
    xs = next(n for n in graph_def.node if n.name == "xs")
    (shape,) = xs.attr["_output_shapes"].list.shape
    assert [d.size for d in shape.dim] == [-1]
