"""Timing the ops of a compiled graph as it runs, for ``rt.summary``'s profiler.

A compiled program (``runtime.execution.compile``) gives each op its own line,
and knows which op each line computes (``Program.line_ops``). ``timed_call``
runs the program with a line tracer on its frame (``sys.settrace``) and gives
each op the time from its line's start to the next line's: the time of that
op, and of any scalar op written into its expression (the compiler inlines
those), or, for the line of a loop or a branch, of that control flow itself.
The tracer's own cost falls within the times, so they are for comparing ops
with each other, not for timing a program (``python -m benchmarks`` does that).

``recorder`` is where function calls are seen: None, or while a trace is on
(``rt.summary.trace_on``) a callable that each call of a function graph goes
through, ``recorder(name, graph, graph_run, program, values) -> results``: ``graph``
is the function's graph as traced, ``graph_run`` the (optimised) one ``program`` runs.
"""

from __future__ import annotations

import sys
import time

recorder = None


def timed_call(program, values):
    """``program(*values)``, and ``[(op, start, nanoseconds)]`` for each op that ran.

    ``start`` is when the op first ran, in nanoseconds since the epoch (as
    TensorBoard's step stats have it); ``nanoseconds`` the time of all its lines,
    in every iteration of the loops around them.
    """
    filename, line_ops = program.filename, program.line_ops
    clock = time.perf_counter_ns
    wall_offset = time.time_ns() - clock()
    timings = {}  # op -> [start, nanoseconds], in the order the ops first ran
    current = [None, 0]  # the line running in the program's frame, since when

    def close_line():
        line, started = current
        if line is not None:
            op = line_ops.get(line)
            if op is not None:
                timing = timings.setdefault(op, [wall_offset + started, 0])
                timing[1] += clock() - started
            current[0] = None

    def in_program(frame, event, arg):
        close_line()
        if event == "line":
            current[0], current[1] = frame.f_lineno, clock()
        return in_program

    def on_call(frame, event, arg):
        # Only the program's own frame is traced line by line; the kernels it calls are not.
        return in_program if frame.f_code.co_filename == filename else None

    previous = sys.gettrace()
    sys.settrace(on_call)
    try:
        results = program(*values)
    finally:
        sys.settrace(previous)
        close_line()
    return results, [(op, start, nanoseconds) for op, (start, nanoseconds) in timings.items()]
