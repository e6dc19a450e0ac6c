"""Timing calls side by side: the best per-call time of several functions, rounds in turn."""

from __future__ import annotations

import time


def _calls_per_round(fn, args, seconds):
    """How many calls of ``fn(*args)`` take about ``seconds`` (at least 3)."""
    fn(*args)
    calls, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds or calls < 3:
        fn(*args)
        calls += 1
    return calls


def best_times(candidates, min_seconds=0.2, repeat=7):
    """The best per-call time of each ``(fn, args)``, over ``repeat`` rounds taken in turn.

    The rounds alternate between the candidates, so a slow spell of the
    machine hits them all alike and the ratios between them hold.
    """
    counts = [_calls_per_round(fn, args, min_seconds / repeat) for fn, args in candidates]
    best = [float("inf")] * len(candidates)
    for _ in range(repeat):
        for k, ((fn, args), calls) in enumerate(zip(candidates, counts)):
            start = time.perf_counter()
            for _ in range(calls):
                fn(*args)
            best[k] = min(best[k], (time.perf_counter() - start) / calls)
    return best
