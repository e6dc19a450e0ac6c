"""``rt.summary``: TensorBoard logs of training curves, and of the graphs functions ran.

Written with the ``tensorboard`` package's own protos and event file writer (the
optional extra ``tensorboard``), read by TensorBoard as it reads TensorFlow's:

- ``scalar(name, data, step)``: one point of a curve in the Scalars tab.
- ``trace_on(graph=True, profiler=False)``, calls of ``ag.function``s (and of
  loaded saved functions), then ``trace_export(name, step)``: the graphs of the
  functions called in between, in the Graphs tab under the tag ``name``. With
  ``profiler=True`` each call is timed op by op (``runtime.execution.profiling``)
  and the times go with the graphs as the run's step stats: the Graphs tab then
  offers "Compute time" and colours each op by the time it took.

Each call of ``scalar`` and ``trace_export`` writes to the default writer, the
innermost ``with writer.as_default():``; with none, they write nothing (and
return False), as TensorFlow's do.
"""

from __future__ import annotations

import contextlib
import os
import time
import warnings

import numpy as np

from runtime.core.tensor import EagerTensor, SymbolicTensor
from runtime.execution import profiling
from runtime.extras import require
from runtime.views import tensorboard

_default_writers = []  # (writer, its default step), innermost last


class SummaryWriter:
    """Writes summaries to an event file in ``logdir`` (``create_file_writer``)."""

    def __init__(self, logdir, max_queue=None, flush_millis=None, filename_suffix=None):
        self.logdir = os.fspath(logdir)
        self._writer = tensorboard.event_writer(
            self.logdir,
            max_queue_size=10 if max_queue is None else max_queue,
            flush_secs=120 if flush_millis is None else flush_millis / 1000,
            filename_suffix=filename_suffix or "",
        )
        self._closed = False

    @contextlib.contextmanager
    def as_default(self, step=None):
        """Makes this the writer summaries go to inside the block; ``step`` is their default
        step. Flushes when the block ends."""
        _default_writers.append((self, step))
        try:
            yield self
        finally:
            _default_writers.pop()
            self.flush()

    def set_as_default(self, step=None):
        """Makes this the default writer from now on (until another is made default)."""
        _default_writers.append((self, step))

    def write(self, summary, step):
        """Writes one ``Summary`` proto at ``step``."""
        if self._closed:
            raise RuntimeError(f"The summary writer of {self.logdir} is closed")
        event = tensorboard.protos("event_pb2").Event(
            wall_time=time.time(), step=int(step), summary=summary
        )
        self._writer.add_event(event)

    def write_graph(self, graph, step=0):
        """Writes ``graph`` (a Graph, or a concrete function's ``.graph``) for the Graphs tab."""
        graph_def = tensorboard.to_graph_def(getattr(graph, "graph", graph))
        event = tensorboard.protos("event_pb2").Event(
            wall_time=time.time(), step=int(step), graph_def=graph_def.SerializeToString()
        )
        self._writer.add_event(event)

    def flush(self):
        """Writes out what is queued."""
        if not self._closed:
            self._writer.flush()

    def close(self):
        """Flushes and closes the event file; the writer writes nothing more."""
        if not self._closed:
            self._writer.close()
            self._closed = True

    def __repr__(self):
        return f"<rt.summary.SummaryWriter {self.logdir!r}>"


def create_file_writer(logdir, max_queue=None, flush_millis=None, filename_suffix=None):
    """A ``SummaryWriter`` of a new event file in ``logdir`` (made if missing).

    >>> import tempfile, runtime as rt
    >>> writer = rt.summary.create_file_writer(tempfile.mkdtemp())
    >>> with writer.as_default():
    ...     for step, loss in enumerate([0.9, 0.5, 0.3]):
    ...         _ = rt.summary.scalar("loss", loss, step=step)
    """
    return SummaryWriter(logdir, max_queue, flush_millis, filename_suffix)


def _default():
    return _default_writers[-1] if _default_writers else (None, None)


def _step(step, where):
    if step is None:
        step = _default()[1]
    if step is None:
        raise ValueError(
            f"{where}: no step: give step=..., or one for the writer: writer.as_default(step=...)"
        )
    if isinstance(step, SymbolicTensor):
        raise TypeError(
            f"{where}: the step must be a number, not the symbolic tensor {step.name!r}"
        )
    return int(step.numpy() if isinstance(step, EagerTensor) else step)


def scalar(name, data, step=None, description=None) -> bool:
    """Writes ``data`` (a number or a scalar tensor) as the point ``step`` of the curve ``name``.

    Returns True when written, False when there is no default writer. Summaries
    are written at once, from eager code: inside an ``ag.function``, return the
    value and write it where the function is called.
    """
    if isinstance(data, SymbolicTensor):
        raise NotImplementedError(
            f"rt.summary.scalar({name!r}) is given the symbolic tensor {data.name!r}: summaries "
            "are written at once, outside graphs. Return the value from the ag.function and "
            "write it where the function is called."
        )
    writer = _default()[0]
    if writer is None:
        return False
    value = np.asarray(data.numpy() if isinstance(data, EagerTensor) else data)
    if value.shape != () or value.dtype.kind not in "biuf":
        raise ValueError(f"rt.summary.scalar({name!r}): data must be one number, got {data!r}")
    summary_v2 = require("tensorboard.plugins.scalar.summary_v2", "tensorboard", "rt.summary")
    writer.write(summary_v2.scalar_pb(name, value, description), _step(step, "rt.summary.scalar"))
    return True


def flush(writer=None):
    """Flushes ``writer``, or the default writer."""
    writer = writer or _default()[0]
    if writer is not None:
        writer.flush()


# --- tracing: the graphs of the functions called, and their op times ---------------------------


class _Trace:
    def __init__(self, graph, profiler):
        self.graph, self.profiler = graph, profiler
        self.functions = {}  # id(graph) -> [name, graph]: the graphs called, in order
        self.timings = []  # (id(graph), node name, start, nanoseconds)
        self.names = {}  # id(program) -> node names of the graph it runs

    def record(self, name, graph, graph_run, program, values):
        self.functions.setdefault(id(graph), [name, graph])
        if not self.profiler or getattr(program, "line_ops", None) is None:  # XLA: no lines
            return program(*values)
        results, timings = profiling.timed_call(program, values)
        names = self.names.get(id(program))
        if names is None:  # the ops that ran are the optimised graph's, named as the graph's
            names = self.names[id(program)] = tensorboard.node_names(graph_run)
        self.timings += [(id(graph), names[id(op)], start, ns) for op, start, ns in timings]
        return results


_trace = None


def trace_on(graph=True, profiler=False):
    """Starts recording the graphs (and with ``profiler``, the op times) of the functions called,
    until ``trace_export`` writes them or ``trace_off`` drops them."""
    global _trace
    if _trace is not None:
        warnings.warn("rt.summary.trace_on: a trace is already on; it goes on", stacklevel=2)
        return
    _trace = _Trace(bool(graph), bool(profiler))
    profiling.recorder = _trace.record


def time_ops():
    """Times the ops of the trace that is on (``profiler=True`` from now), starting one that
    records no graph if none is; returns it (``rt.profiler``)."""
    if _trace is None:
        trace_on(graph=False, profiler=True)
    _trace.profiler = True
    return _trace


def current_trace():
    """The trace that is on, or None."""
    return _trace


def trace_off():
    """Stops the trace without writing it."""
    global _trace
    _trace = None
    profiling.recorder = None


def trace_export(name, step=None, profiler_outdir=None):
    """Writes what the trace recorded under the tag ``name`` at ``step``, and stops it.

    The graphs of the functions called go where TensorBoard's Graphs tab shows
    them; with the profiler on, each op's time too ("Compute time"). They are
    written to the default writer's log; ``profiler_outdir``, when it names
    another directory, gets a copy there.
    """
    trace = _trace
    if trace is None:
        raise ValueError("rt.summary.trace_export: no trace; start one with rt.summary.trace_on()")
    trace_off()
    writer = _default()[0]
    if writer is None:
        warnings.warn(
            f"rt.summary.trace_export({name!r}): no default writer, so nothing is written; "
            "export inside `with writer.as_default():`",
            stacklevel=2,
        )
        return False
    summary = _run_metadata_summary(name, trace)
    step = _step(step, "rt.summary.trace_export")
    writer.write(summary, step)
    writer.flush()
    elsewhere = profiler_outdir is not None and os.path.abspath(profiler_outdir) != os.path.abspath(
        writer.logdir
    )
    if trace.profiler and elsewhere:
        copy = SummaryWriter(profiler_outdir)
        copy.write(summary, step)
        copy.close()
    return True


def _run_metadata_summary(name, trace):
    functions = list(trace.functions.items())
    # One function's graph as it is; several, each in a group named after its function.
    prefixes, used = {}, set()
    for key, (fn_name, _) in functions:
        prefix = fn_name if fn_name not in used else f"{fn_name}_{len(prefixes)}"
        used.add(prefix)
        prefixes[key] = f"{prefix}/" if len(functions) > 1 else ""
    # One GraphDef for all (TensorBoard would put several under graph_1/, graph_2/...).
    merged = tensorboard.protos("graph_pb2").GraphDef()
    for key, (_, graph) in functions:
        merged.node.extend(tensorboard.to_graph_def(graph, prefixes[key]).node)
    timings = [(prefixes[key] + node, start, ns) for key, node, start, ns in trace.timings]
    metadata = tensorboard.run_metadata([merged] if trace.graph and functions else [], timings)
    summary_pb2 = tensorboard.protos("summary_pb2")
    tensor_pb2, types_pb2 = tensorboard.protos("tensor_pb2"), tensorboard.protos("types_pb2")
    summary = summary_pb2.Summary()
    value = summary.value.add(tag=name)
    # TensorBoard's graph plugin reads these two plugin names, with the content b"1".
    value.metadata.plugin_data.plugin_name = (
        "graph_run_metadata" if trace.profiler else "graph_run_metadata_graph"
    )
    value.metadata.plugin_data.content = b"1"
    value.tensor.CopyFrom(
        tensor_pb2.TensorProto(dtype=types_pb2.DT_STRING, string_val=[metadata.SerializeToString()])
    )
    return summary
