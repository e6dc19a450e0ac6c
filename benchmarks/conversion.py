"""How long AutoGraph takes to convert a 100-line function (the converter's cost, not the graph's).

    python -m benchmarks.conversion

The function is written to a real module file (conversion reads source), then
converted afresh each round with the cache cleared; the median is reported.
"""

from __future__ import annotations

import importlib.util
import statistics
import sys
import tempfile
from pathlib import Path

import autograph as ag
from autograph.impl import transpiler
from benchmarks.timing import clock


def hundred_line_source():
    """A function of about 100 lines mixing loops, branches, breaks and returns."""
    lines = ["import runtime as rt", "", "", "def big(n, m):", "    total = 0", "    count = 0"]
    for block in range(9):
        lines += [
            f"    for i{block} in rt.range(n):",
            f"        if i{block} % {block + 2} == 0:",
            f"            total += i{block} * {block + 1}",
            f"        elif total > m and count < {block + 3}:",
            "            count += 1",
            "            continue",
            "        else:",
            f"            total -= {block}",
            f"        if total > {1000 * (block + 1)}:",
            "            break",
        ]
    lines += [
        "    while count < 5:",
        "        count += 1",
        "        if count == m:",
        "            return total",
        "    return total + count",
    ]
    return "\n".join(lines) + "\n"


def load(source):
    path = Path(tempfile.mkdtemp()) / "hundred_lines.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location("hundred_lines", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.big


def time_conversion(fn, rounds=30):
    times = []
    for _ in range(rounds):
        transpiler._cache.clear()
        start = clock()
        transpiler.convert(fn)
        times.append(clock() - start)
    return statistics.median(times)


def main():
    source = hundred_line_source()
    fn = load(source)
    n_lines = source.count("\n") - 3
    seconds = time_conversion(fn)
    print(f"conversion of a {n_lines}-line function: {seconds * 1e3:.2f} ms (median of 30)")
    assert ag.to_graph(fn)(20, 50) == fn(20, 50)
    return seconds


if __name__ == "__main__":
    sys.exit(main() and 0)
