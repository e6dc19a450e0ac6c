"""Timing calls side by side: per-call times of several functions, their rounds in turn.

Times are the CPU time of this process (``time.process_time``): the workloads run
on one thread, so on a shared machine the time spent waiting for a core, which
would otherwise swamp the differences measured, does not count.
"""

from __future__ import annotations

import statistics
import time

clock = time.process_time


def _calls_per_round(fn, args, seconds):
    """How many calls of ``fn(*args)`` take about ``seconds`` (at least 3)."""
    fn(*args)
    calls, start = 0, clock()
    while clock() - start < seconds or calls < 3:
        fn(*args)
        calls += 1
    return calls


def round_times(candidates, min_seconds=0.2, repeat=7):
    """Per-call times of each ``(fn, args)``: one list of ``repeat`` rounds per candidate.

    The rounds alternate between the candidates, so a slow spell of the
    machine hits them all alike and the ratios between them hold.
    """
    counts = [_calls_per_round(fn, args, min_seconds / repeat) for fn, args in candidates]
    rounds = [[] for _ in candidates]
    for _ in range(repeat):
        for k, ((fn, args), calls) in enumerate(zip(candidates, counts)):
            start = clock()
            for _ in range(calls):
                fn(*args)
            rounds[k].append((clock() - start) / calls)
    return rounds


def best_times(candidates, min_seconds=0.2, repeat=7):
    """The best per-call time of each ``(fn, args)`` over alternating rounds."""
    return [min(r) for r in round_times(candidates, min_seconds, repeat)]


def spread(times):
    """How far the rounds of one candidate spread: (slowest - fastest) / median."""
    return (max(times) - min(times)) / statistics.median(times)
