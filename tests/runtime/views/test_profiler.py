"""rt.profiler.experimental.start/stop, TensorFlow's names, mapped onto rt.summary's profiler:
the op times of the calls in between, read back as TensorBoard reads them."""

import contextlib

import pytest

from tests.extras import import_extra

import_extra("tensorboard")

import autograph as ag  # noqa: E402
import runtime as rt  # noqa: E402
from tests.runtime.views.test_summaries import TensorBoard, timed_nodes  # noqa: E402


@pytest.fixture(autouse=True)
def no_profiler_left_on():
    yield
    rt.summary.trace_off()
    with contextlib.suppress(rt.errors.UnavailableError):
        rt.profiler.experimental.stop(save=False)


@ag.function
def double(x):
    return x * 2.0


def test_stop_writes_the_op_times_to_the_logdir(tmp_path):
    rt.profiler.experimental.start(str(tmp_path))
    double(rt.constant([1.0, 2.0]))
    rt.profiler.experimental.stop()
    timed = timed_nodes(TensorBoard(tmp_path).step_stats("profile"))
    assert any(name.startswith("mul") for name in timed)


def test_within_a_summary_trace_the_export_writes_the_times(tmp_path):
    writer = rt.summary.create_file_writer(tmp_path)
    rt.summary.trace_on(graph=True)  # no profiler=True: start() turns it on, as in the guide
    rt.profiler.experimental.start(str(tmp_path))
    double(rt.constant([1.0, 2.0]))
    with writer.as_default():
        rt.summary.trace_export(name="traced", step=0)
    assert any(n.startswith("mul") for n in timed_nodes(TensorBoard(tmp_path).step_stats("traced")))
    rt.profiler.experimental.stop()  # exported already: nothing more to write


def test_one_profiler_at_a_time(tmp_path):
    with pytest.raises(rt.errors.UnavailableError, match="No profiler is running"):
        rt.profiler.experimental.stop()
    rt.profiler.experimental.start(str(tmp_path))
    with pytest.raises(rt.errors.AlreadyExistsError, match="Another profiler is running"):
        rt.profiler.experimental.start(str(tmp_path))
