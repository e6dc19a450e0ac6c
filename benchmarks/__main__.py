"""Run every benchmark and print the ratio table: ``python -m benchmarks``.

Our graph and our eager mode are timed against hand-written numpy on the same
workload, in the same run, so the ratios hold across machines; with JAX
installed, ``jit_compile=True`` is timed against hand-written ``jax.jit`` too
(``benchmarks.xla``), and so are JAX programs converted by ``ag.to_graph``
(``benchmarks.jax_autograph``). Options: ``--quick`` (fewer repetitions), ``--json FILE``
(write the results).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import platform
import sys

import numpy as np

from benchmarks import conversion, first_call, scale, workloads
from benchmarks.timing import best_times


def _value(x):
    return x.numpy() if hasattr(x, "numpy") else np.asarray(x)


def run(quick=False):
    min_seconds = 0.05 if quick else 0.3
    rows = []
    for name, (fn, numpy_fn, args, numpy_args) in workloads.workloads().items():
        graph, eager = workloads.graph_version(fn), workloads.eager_version(fn)
        expected = numpy_fn(*numpy_args)
        for label, result in (("graph", graph(*args)), ("eager", eager(*args))):
            if not np.allclose(_value(result), expected, rtol=1e-4):
                raise AssertionError(f"{name}: {label} gives {_value(result)}, numpy {expected}")
        t_numpy, t_graph, t_eager = best_times(
            [(numpy_fn, numpy_args), (graph, args), (eager, args)], min_seconds
        )
        rows.append(
            {
                "workload": name,
                "numpy_s": t_numpy,
                "graph_s": t_graph,
                "eager_s": t_eager,
                "graph_ratio": t_graph / t_numpy,
                "eager_ratio": t_eager / t_numpy,
            }
        )
    singles = {
        "first call of a small function (s)": first_call.first_call_seconds(
            rounds=10 if quick else 30
        ),
        "conversion of a 100-line function (s)": conversion.time_conversion(
            conversion.load(conversion.hundred_line_source()), rounds=10 if quick else 30
        ),
    }
    return rows, singles, scale.run(quick)


def run_xla(quick=False):
    """The ``jit_compile=True`` rows and the converted JAX programs' rows, or None without JAX
    (the optional extra)."""
    if importlib.util.find_spec("jax") is None:
        return None
    from benchmarks import jax_autograph, xla

    return xla.run(quick), jax_autograph.run(quick)


def print_table(rows, singles, scaling):
    print(
        f"machine: {platform.machine()}, {platform.processor() or 'cpu'}, "
        f"Python {platform.python_version()}, numpy {np.__version__}"
    )
    print()
    print(
        f"{'workload':36} {'numpy':>10} {'graph':>10} {'eager':>10} {'graph/np':>9} {'eager/np':>9}"
    )
    for r in rows:
        print(
            f"{r['workload']:36} {r['numpy_s'] * 1e6:8.1f}us {r['graph_s'] * 1e6:8.1f}us "
            f"{r['eager_s'] * 1e6:8.1f}us {r['graph_ratio']:8.2f}x {r['eager_ratio']:8.2f}x"
        )
    print()
    for name, seconds in singles.items():
        print(f"{name:44} {seconds * 1e3:8.2f} ms")
    print()
    scale.print_results(scaling)


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m benchmarks")
    parser.add_argument("--quick", action="store_true", help="fewer repetitions")
    parser.add_argument("--json", help="also write the results to this file")
    options = parser.parse_args(argv)
    rows, singles, scaling = run(options.quick)
    print_table(rows, singles, scaling)
    xla_rows = converted_rows = None
    jax_rows = run_xla(options.quick)
    if jax_rows is not None:
        from benchmarks import jax_autograph, xla

        xla_rows, converted_rows = jax_rows
        print()
        xla.print_table(xla_rows)
        print()
        jax_autograph.print_table(converted_rows)
    if options.json:
        results = {
            "workloads": rows,
            "single": singles,
            "scale": scaling,
            "xla": xla_rows,
            "jax_autograph": converted_rows,
        }
        with open(options.json, "w") as f:
            json.dump(results, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
