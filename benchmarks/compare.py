"""Before and after, side by side in one run: ``python -m benchmarks.compare REV``.

Checks out ``REV`` (a commit, a branch) into a temporary git worktree and runs
``python -m benchmarks --json`` there and in this tree, in turn, ``--rounds``
times each (before, after, after, before, ...: each side goes first as often), so
that both see the machine in the same state. Each row compares the ratios against hand-written numpy (or
jax.jit / lax), which already cancel the machine's speed, taking each side's
median over its rounds, and the single timings (first call, conversion, fit's
overhead) and the time to trace and compile per op, in seconds; ``change`` is
after over before, less one, and a row more than ``--limit`` slower is marked. Options: ``--quick``, ``--rounds N``
(default 3), ``--only TEXT``, ``--limit`` (default 0.05), ``--json FILE``.
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import statistics
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent

# (section of the results, its ratio columns): what each table compares
COLUMNS = {
    "workloads": ("graph_ratio", "eager_ratio"),
    "xla": ("ratio", "first_call_ratio"),
    "jax_autograph": ("ratio",),
}


def _run_benchmarks(tree, out, quick, only):
    command = [sys.executable, "-m", "benchmarks", "--json", str(out)]
    command += ["--quick"] if quick else []
    command += ["--only", only] if only else []
    env = {**os.environ, "PYTHONPATH": str(tree)}
    subprocess.run(command, cwd=tree, env=env, check=True, stdout=subprocess.DEVNULL)
    with open(out) as f:
        return json.load(f)


def _measures(results):
    """Each (section, workload, column) of one run's results, and its value: the ratios of the
    tables, the single timings in seconds, and the time to trace and compile per add."""
    for section, columns in COLUMNS.items():
        for row in results.get(section) or ():
            for column in columns:
                yield (section, row["workload"], column), row[column]
    for name, seconds in (results.get("single") or {}).items():
        yield ("single", name.removesuffix(" (s)"), "seconds"), seconds
    for adds, seconds, _ in (results.get("scale") or {}).get("trace_compile", ()):
        yield ("scale", f"trace + compile, {adds} adds", "seconds per add"), seconds / adds


def _medians(runs):
    """{(section, workload, column): the median over the runs}."""
    values = {}
    for results in runs:
        for key, value in _measures(results):
            values.setdefault(key, []).append(value)
    return {key: statistics.median(v) for key, v in values.items()}


def compare(before_runs, after_runs, limit):
    """The rows of the comparison: (section, workload, column, before, after, change, slower);
    a row timed on one side only has None for the other side and the change."""
    before, after = _medians(before_runs), _medians(after_runs)
    rows = []
    for key in [*before, *(k for k in after if k not in before)]:
        old, new = before.get(key), after.get(key)
        change = None if old is None or new is None else new / old - 1
        rows.append((*key, old, new, change, change is not None and change > limit))
    return rows


def print_rows(rows, rev, limit):
    print(f"{'workload':40} {'ratio':17} {'before':>8} {'after':>8} {'change':>8}")
    for section, workload, column, old, new, change, slower in rows:
        label = column if section == "workloads" else f"{section} {column}"
        if change is None:
            side = "after" if old is None else "before"
            print(f"{workload:40} {label:17} timed {side} only")
            continue
        mark = f"  <- over {limit:.0%} slower" if slower else ""
        if section in ("single", "scale"):  # seconds: shown in microseconds
            print(f"{workload:44} {old * 1e6:9.1f}us {new * 1e6:9.1f}us {change:+7.1%}{mark}")
        else:
            print(f"{workload:40} {label:17} {old:7.2f}x {new:7.2f}x {change:+7.1%}{mark}")
    print(
        f"\nbefore: {rev}; after: this tree. Medians of the rounds: ratios against hand-written"
        " numpy/JAX; single timings and trace + compile per op in microseconds."
    )


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m benchmarks.compare")
    parser.add_argument("rev", help="the commit to compare with (before)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--only")
    parser.add_argument("--limit", type=float, default=0.05)
    parser.add_argument("--json", help="also write the rows to this file")
    options = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        base = pathlib.Path(tmp) / "before"
        subprocess.run(
            ["git", "-C", str(ROOT), "worktree", "add", "--detach", "-q", str(base), options.rev],
            check=True,
        )
        try:
            before_runs, after_runs = [], []
            for k in range(options.rounds):
                print(f"round {k + 1} of {options.rounds}", file=sys.stderr, flush=True)
                out = pathlib.Path(tmp) / f"{k}.json"
                sides = [(base, before_runs), (ROOT, after_runs)]
                for tree, runs in sides if k % 2 == 0 else sides[::-1]:
                    runs.append(_run_benchmarks(tree, out, options.quick, options.only))
        finally:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(base)])
    rows = compare(before_runs, after_runs, options.limit)
    print_rows(rows, options.rev, options.limit)
    if options.json:
        with open(options.json, "w") as f:
            json.dump({"before": options.rev, "rows": rows}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
