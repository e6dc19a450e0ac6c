"""The first call of a small ``ag.function``: convert + trace + compile + run, from a cold cache.

python -m benchmarks.first_call
"""

from __future__ import annotations

import statistics

import autograph as ag
import runtime as rt
from autograph.impl import api, transpiler
from benchmarks.timing import clock


def small(x, n):
    total = x * 0
    for i in rt.range(n):
        if i % 2 == 0:
            total += x
        else:
            total -= 1
    return total


def first_call_seconds(rounds=30):
    x, n = rt.constant(3), rt.constant(10)
    times = []
    for _ in range(rounds):
        transpiler._cache.clear()
        api._instances.clear()
        fn = ag.function(small)
        start = clock()
        fn(x, n)
        times.append(clock() - start)
    return statistics.median(times)


def main():
    seconds = first_call_seconds()
    print(f"first call of a small function (convert + trace + compile): {seconds * 1e3:.2f} ms")
    return seconds


if __name__ == "__main__":
    main()
