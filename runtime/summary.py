"""``rt.summary``: TensorBoard logs, as ``tf.summary`` writes them (the optional extra ``tensorboard``).

    pip install "autograph-numpy[tensorboard]"

>>> import tempfile, runtime as rt, autograph as ag
>>> @ag.function
... def double(x):
...     return x * 2.0
>>> writer = rt.summary.create_file_writer(tempfile.mkdtemp())
>>> rt.summary.trace_on(graph=True, profiler=True)
>>> _ = double(rt.constant(3.0))
>>> with writer.as_default():
...     rt.summary.trace_export(name="double", step=0)
True

``tensorboard --logdir LOGDIR`` then shows the graph of ``double`` in its Graphs
tab, each op coloured by the time it took ("Compute time");
``runtime.views.summaries`` says how.
"""

from runtime.views.summaries import (
    SummaryWriter,
    create_file_writer,
    flush,
    scalar,
    trace_export,
    trace_off,
    trace_on,
)

__all__ = [
    "SummaryWriter",
    "create_file_writer",
    "flush",
    "scalar",
    "trace_export",
    "trace_off",
    "trace_on",
]
