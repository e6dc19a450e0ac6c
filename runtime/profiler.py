"""``rt.profiler.experimental``: TensorFlow's ``tf.profiler.experimental.start`` and ``stop``,
mapped onto ``rt.summary``'s profiler (``runtime.views.summaries``).

``start(logdir)`` times the ops of every ``ag.function`` called from then on: within an
``rt.summary.trace_on`` trace, ``trace_export`` writes those times with the graphs (as the
TensorFlow guide calls it, the times going to ``profiler_outdir``); otherwise ``stop()``
writes them to ``logdir``, where TensorBoard's Graphs tab shows them as "Compute time".
Its format is TensorBoard's graph run metadata, not TensorFlow's profiler trace files.

>>> import tempfile, runtime as rt, autograph as ag
>>> double = ag.function(lambda x: x * 2.0, autograph=False)
>>> rt.profiler.experimental.start(tempfile.mkdtemp())
>>> _ = double(rt.constant(3.0))
>>> rt.profiler.experimental.stop()
"""

from __future__ import annotations

import types

from runtime import errors
from runtime.views import summaries

_session = None  # (logdir, the summary trace its op times go to)


def _start(logdir, options=None):
    """Times the ops of the functions called from now on (TensorFlow's profiler ``start``)."""
    global _session
    if _session is not None and _session[1] is summaries.current_trace():
        raise errors.AlreadyExistsError("Another profiler is running.")
    _session = (logdir, summaries.time_ops())


def _stop(save=True):
    """Stops timing; with ``save``, the times go to the ``logdir`` given to ``start`` (unless
    ``rt.summary.trace_export`` wrote them already, with the graphs)."""
    global _session
    session, _session = _session, None
    if session is None or session[1] is not summaries.current_trace():
        if session is None:
            raise errors.UnavailableError(
                "Cannot export profiling results. No profiler is running."
            )
        return  # exported with its trace
    logdir, _ = session
    if not save:
        summaries.trace_off()
        return
    writer = summaries.create_file_writer(logdir)
    with writer.as_default():
        summaries.trace_export("profile", step=0)
    writer.close()


experimental = types.SimpleNamespace(start=_start, stop=_stop)
"""``rt.profiler.experimental``: ``start(logdir)`` and ``stop(save=True)``."""
