"""``rt.summary``, read back the way TensorBoard reads it: its event reader, the data provider its
Scalars tab reads, and its Graphs plugin (the op graph of a tag and the run's step stats)."""

import sys
import warnings

import pytest

from tests.extras import import_extra

import_extra("tensorboard")

from google.protobuf import text_format  # noqa: E402
from tensorboard import context  # noqa: E402
from tensorboard.backend.event_processing import (  # noqa: E402
    data_provider,
    event_accumulator,
    plugin_event_multiplexer,
)
from tensorboard.compat.proto import config_pb2, graph_pb2  # noqa: E402
from tensorboard.plugins import base_plugin  # noqa: E402

with warnings.catch_warnings():  # its HTML sanitizer warns of itself on import
    warnings.simplefilter("ignore", DeprecationWarning)
    from tensorboard.plugins.graph import graphs_plugin  # noqa: E402

import autograph as ag  # noqa: E402
import runtime as rt  # noqa: E402


class TensorBoard:
    """TensorBoard's own view of a log directory, through the objects its server uses."""

    def __init__(self, logdir):
        multiplexer = plugin_event_multiplexer.EventMultiplexer()
        multiplexer.AddRunsFromDirectory(str(logdir))
        multiplexer.Reload()
        self.provider = data_provider.MultiplexerDataProvider(multiplexer, str(logdir))
        tb_context = base_plugin.TBContext(
            logdir=str(logdir), multiplexer=multiplexer, data_provider=self.provider
        )
        self.graphs = graphs_plugin.GraphsPlugin(tb_context)
        self.request = context.RequestContext()

    def graph_tags(self):
        """{run: {tag: what the Graphs tab offers for it}}."""
        info = self.graphs.info_impl(self.request, experiment="")
        return {run: item["tags"] for run, item in info.items()}

    def op_graph(self, tag, run="."):
        text, _ = self.graphs.graph_impl(self.request, run, tag, is_conceptual=False, experiment="")
        return text_format.Parse(text, graph_pb2.GraphDef())

    def step_stats(self, tag, run="."):
        text, _ = self.graphs.run_metadata_impl(self.request, "", run, tag)
        return text_format.Parse(text, config_pb2.RunMetadata()).step_stats

    def scalars(self, tag):
        data = self.provider.read_scalars(
            self.request,
            experiment_id="",
            plugin_name="scalars",
            downsample=100,
            run_tag_filter=None,
        )
        return {
            run: [(d.step, d.value) for d in tags[tag]] for run, tags in data.items() if tag in tags
        }


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


@pytest.fixture(autouse=True)
def no_trace_left_on():
    yield
    rt.summary.trace_off()


def timed_nodes(stats):
    return {n.node_name: n for d in stats.dev_stats for n in d.node_stats}


# --- scalars ------------------------------------------------------------------------------------


def test_scalars_are_the_curve_tensorboard_shows(tmp_path):
    writer = rt.summary.create_file_writer(tmp_path)
    with writer.as_default():
        for step, loss in enumerate([0.9, 0.5, 0.25]):
            assert rt.summary.scalar("loss", loss, step=step) is True
        rt.summary.scalar("loss", rt.constant(0.125), step=rt.constant(3))  # tensors too
    assert TensorBoard(tmp_path).scalars("loss") == {
        ".": [(0, pytest.approx(0.9)), (1, 0.5), (2, 0.25), (3, 0.125)]
    }


def test_the_writers_default_step_and_the_event_file(tmp_path):
    writer = rt.summary.create_file_writer(tmp_path)
    with writer.as_default(step=7):
        rt.summary.scalar("accuracy", 0.75, description="on the held-out set")
    (path,) = tmp_path.glob("events.out.tfevents.*")
    events = event_accumulator.EventAccumulator(str(path))
    events.Reload()
    (event,) = events.Tensors("accuracy")
    assert (event.step, event.tensor_proto.float_val[0]) == (7, 0.75)
    assert events.SummaryMetadata("accuracy").summary_description == "on the held-out set"


def test_without_a_default_writer_nothing_is_written(tmp_path):
    rt.summary.create_file_writer(tmp_path)
    assert rt.summary.scalar("loss", 1.0, step=0) is False


def test_a_scalar_needs_a_step_and_one_number(tmp_path):
    with rt.summary.create_file_writer(tmp_path).as_default():
        with pytest.raises(ValueError, match="no step: give step="):
            rt.summary.scalar("loss", 1.0)
        with pytest.raises(ValueError, match="must be one number"):
            rt.summary.scalar("loss", [1.0, 2.0], step=0)


def test_a_scalar_inside_a_graph_says_to_write_it_outside(tmp_path):
    @ag.function
    def step_fn(x):
        rt.summary.scalar("loss", x, step=0)
        return x

    writer = rt.summary.create_file_writer(tmp_path)
    with writer.as_default(), pytest.raises(NotImplementedError, match="Return the value from"):
        step_fn(rt.constant(1.0))


def test_without_tensorboard_the_error_says_how_to_install_it(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "tensorboard.summary.writer.event_file_writer", None)
    with pytest.raises(ImportError, match=r'pip install "autograph-numpy\[tensorboard\]"'):
        rt.summary.create_file_writer(tmp_path)


# --- trace_on / trace_export: graphs and op times -----------------------------------------------


def test_the_seeds_trace_of_demo_module_shows_its_graph_and_each_ops_time(tmp_path, capsys):
    writer = rt.summary.create_file_writer(tmp_path)
    rt.summary.trace_on(graph=True, profiler=True)
    demo = DemoModule(init_value=rt.constant(0.0))
    demo.add_print(rt.constant(5.0))
    with writer.as_default():
        assert rt.summary.trace_export(name="demomodule", step=0, profiler_outdir=str(tmp_path))
    assert capsys.readouterr().out == "5\n"
    board = TensorBoard(tmp_path)
    assert board.graph_tags() == {
        ".": {
            "demomodule": {
                "tag": "demomodule",
                "conceptual_graph": False,
                "op_graph": True,
                "profile": True,
            }
        }
    }
    nodes = {n.name: n for n in board.op_graph("demomodule").node}
    assert set(nodes) == {
        "a",
        "demo_module/Variable",
        "demo_module/AssignAddVariableOp",
        "demo_module/ReadVariableOp",
        "demo_module/PrintV2",
        "ReadVariableOp",
    }
    assert nodes["demo_module/AssignAddVariableOp"].op == "AssignAddVariableOp"
    assert list(nodes["demo_module/AssignAddVariableOp"].input) == ["demo_module/Variable", "a"]
    assert list(nodes["demo_module/ReadVariableOp"].input) == [
        "demo_module/Variable",
        "^demo_module/AssignAddVariableOp",
    ]
    timed = timed_nodes(board.step_stats("demomodule"))
    assert set(timed) == {
        "demo_module/AssignAddVariableOp",
        "demo_module/ReadVariableOp",
        "demo_module/PrintV2",
        "ReadVariableOp",
    }
    assert set(timed) <= set(nodes)  # each time is shown on a node of the graph
    for stats in timed.values():
        assert stats.all_end_rel_nanos > 0 and stats.all_start_micros > 0


def test_without_the_profiler_only_the_graph_is_written(tmp_path):
    @ag.function
    def strjoin(x, y):
        z = rt.strings.join([x, y], separator=" ")
        rt.print(z)
        return z

    writer = rt.summary.create_file_writer(tmp_path)
    rt.summary.trace_on(graph=True)
    strjoin(x=rt.constant("hello"), y=rt.constant("world"))
    with writer.as_default():
        rt.summary.trace_export(name="autograph", step=0)
    board = TensorBoard(tmp_path)
    assert board.graph_tags()["."]["autograph"]["profile"] is False
    assert [n.op for n in board.op_graph("autograph").node] == [
        "Placeholder",
        "Placeholder",
        "StringJoin",
        "PrintV2",
    ]


def test_several_functions_are_grouped_by_name_and_loops_are_timed(tmp_path):
    @ag.function
    def total(n):
        s = 0
        for i in rt.range(n):
            s += i
        return s

    @ag.function
    def double(x):
        return x * 2

    writer = rt.summary.create_file_writer(tmp_path)
    rt.summary.trace_on(graph=True, profiler=True)
    assert total(rt.constant(4)).numpy() == 6
    assert double(rt.constant([1, 2])).numpy().tolist() == [2, 4]
    total(rt.constant(5))  # the same graph: shown once, timed twice
    with writer.as_default():
        rt.summary.trace_export(name="two", step=3)
    board = TensorBoard(tmp_path)
    names = {n.name for n in board.op_graph("two").node}
    assert "double/mul" in names and "total/while" in names
    assert any(name.startswith("total/while/") for name in names)  # the loop's sub-graphs
    timed = timed_nodes(board.step_stats("two"))
    assert set(timed) <= names
    assert {"total/while", "double/mul"} <= set(timed)
    runs = [n for d in board.step_stats("two").dev_stats for n in d.node_stats]
    assert len([n for n in runs if n.node_name == "total/while"]) == 2


def test_two_graphs_of_one_function_get_groups_of_their_own(tmp_path):
    @ag.function
    def f(x):
        return x * 2

    writer = rt.summary.create_file_writer(tmp_path)
    rt.summary.trace_on(graph=True)
    f(rt.constant(1.0))
    f(rt.constant([1.0, 2.0]))  # a second trace, a second graph named f
    with writer.as_default():
        rt.summary.trace_export(name="both", step=0)
    names = [n.name for n in TensorBoard(tmp_path).op_graph("both").node]
    assert len(names) == len(set(names))  # no node named twice
    groups = {name.split("/")[0] for name in names}
    assert len(groups) == 2 and "f" in groups


def test_calls_of_a_loaded_function_are_traced_too(tmp_path):
    demo = DemoModule(init_value=rt.constant(1.0))
    rt.saved_model.save(demo, str(tmp_path / "saved"))
    loaded = rt.saved_model.load(str(tmp_path / "saved"))
    writer = rt.summary.create_file_writer(tmp_path / "logs")
    rt.summary.trace_on(graph=True, profiler=True)
    loaded.add_print(rt.constant(2.0))
    with writer.as_default():
        rt.summary.trace_export(name="loaded", step=0)
    board = TensorBoard(tmp_path / "logs")
    assert "demo_module/AssignAddVariableOp" in timed_nodes(board.step_stats("loaded"))


def test_profiler_outdir_elsewhere_gets_a_copy(tmp_path):
    @ag.function
    def double(x):
        return x * 2

    writer = rt.summary.create_file_writer(tmp_path / "logs")
    rt.summary.trace_on(graph=True, profiler=True)
    double(rt.constant([1, 2]))
    with writer.as_default():
        rt.summary.trace_export(name="double", step=0, profiler_outdir=str(tmp_path / "profile"))
    for logdir in ("logs", "profile"):
        assert "double" in TensorBoard(tmp_path / logdir).graph_tags()["."]


def test_export_turns_the_trace_off_and_needs_one(tmp_path):
    @ag.function
    def double(x):
        return x * 2

    with rt.summary.create_file_writer(tmp_path).as_default():
        with pytest.raises(ValueError, match="no trace; start one with rt.summary.trace_on"):
            rt.summary.trace_export(name="none", step=0)
        rt.summary.trace_on()
        double(rt.constant(1))
        rt.summary.trace_export(name="first", step=0)
        with pytest.raises(ValueError, match="no trace"):
            rt.summary.trace_export(name="again", step=0)


def test_export_without_a_writer_warns_that_nothing_is_written():
    rt.summary.trace_on()
    with pytest.warns(UserWarning, match="no default writer, so nothing is written"):
        assert rt.summary.trace_export(name="lost", step=0) is False


def test_calls_outside_a_trace_are_not_recorded(tmp_path):
    @ag.function
    def double(x):
        return x * 2

    double(rt.constant(1))  # before trace_on
    writer = rt.summary.create_file_writer(tmp_path)
    rt.summary.trace_on()
    with writer.as_default():
        rt.summary.trace_export(name="empty", step=0)
    (event,) = (
        e for e in event_accumulator.EventAccumulator(str(tmp_path)).Reload().Tensors("empty")
    )
    assert not config_pb2.RunMetadata.FromString(event.tensor_proto.string_val[0]).function_graphs
