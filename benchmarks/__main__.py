"""Run every benchmark and print the ratio table: ``python -m benchmarks``.

Our graph and our eager mode are timed against hand-written numpy on the same
workload, in the same run, so the ratios hold across machines. Each time is
the median of rounds taken in turn; ``spread`` says how far a workload's
rounds spread (the noise of that run). With JAX installed, ``jit_compile=True``
is timed against hand-written ``jax.jit`` too (``benchmarks.xla``), and so are
JAX programs converted by ``ag.to_graph`` (``benchmarks.jax_autograph``). Options:
``--quick`` (fewer repetitions), ``--json FILE`` (write the results),
``--only TEXT`` (only the workloads whose name holds it).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import platform
import statistics
import sys

import numpy as np

from benchmarks import conversion, first_call, keras, scale, workloads
from benchmarks.timing import round_times, spread


def _value(x):
    return x.numpy() if hasattr(x, "numpy") else np.asarray(x)


def run(quick=False, only=None, on_row=None):
    """The workload rows (each given to ``on_row`` as soon as it is timed, so a reader sees
    progress), the single timings in seconds, and the scale results; ``only``: just the
    workloads whose name holds this text."""
    min_seconds = 0.05 if quick else 0.3
    rows = []
    for name, (fn, numpy_fn, args, numpy_args) in workloads.workloads().items():
        if only is not None and only not in name:
            continue
        graph, eager = workloads.graph_version(fn), workloads.eager_version(fn)
        expected = numpy_fn(*numpy_args)
        for label, result in (("graph", graph(*args)), ("eager", eager(*args))):
            if not np.allclose(_value(result), expected, rtol=1e-4):
                raise AssertionError(f"{name}: {label} gives {_value(result)}, numpy {expected}")
        rounds = round_times([(numpy_fn, numpy_args), (graph, args), (eager, args)], min_seconds)
        t_numpy, t_graph, t_eager = (statistics.median(r) for r in rounds)
        rows.append(
            {
                "workload": name,
                "numpy_s": t_numpy,
                "graph_s": t_graph,
                "eager_s": t_eager,
                "graph_ratio": t_graph / t_numpy,
                "eager_ratio": t_eager / t_numpy,
                "spread": max(spread(r) for r in rounds),
            }
        )
        if on_row is not None:
            on_row(rows[-1])
    if only is None or only in KERAS_STEP:
        rows.append(_keras_step_row(min_seconds))
        if on_row is not None:
            on_row(rows[-1])
    if only is not None:
        return rows, {}, None
    singles = {
        "fit overhead per batch, beyond the step (s)": keras.fit_overhead_per_batch(),
        "first call of a small function (s)": first_call.first_call_seconds(
            rounds=10 if quick else 30
        ),
        "conversion of a 100-line function (s)": conversion.time_conversion(
            conversion.load(conversion.hundred_line_source()), rounds=10 if quick else 30
        ),
    }
    return rows, singles, scale.run(quick)


def run_xla(quick=False, only=None):
    """The ``jit_compile=True`` rows and the converted JAX programs' rows, or None without JAX
    (the optional extra)."""
    if importlib.util.find_spec("jax") is None:
        return None
    from benchmarks import jax_autograph, xla

    return xla.run(quick, only), jax_autograph.run(quick, only)


KERAS_STEP = "seed MLP training step (SGD)"


def _keras_step_row(min_seconds):
    """The seed's MLP training step: checked against numpy (without dropout) inside
    ``step_workload``, then timed with dropout, three ways."""
    candidates = keras.step_workload()
    rounds = round_times(list(candidates), min_seconds)
    t_numpy, t_graph, t_eager = (statistics.median(r) for r in rounds)
    return {
        "workload": KERAS_STEP,
        "numpy_s": t_numpy,
        "graph_s": t_graph,
        "eager_s": t_eager,
        "graph_ratio": t_graph / t_numpy,
        "eager_ratio": t_eager / t_numpy,
        "spread": max(spread(r) for r in rounds),
    }


def print_header():
    print(
        f"machine: {platform.machine()}, {platform.processor() or 'cpu'}, "
        f"Python {platform.python_version()}, numpy {np.__version__}"
    )
    print()
    print(
        f"{'workload':40} {'numpy':>10} {'graph':>10} {'eager':>10} {'graph/np':>9} "
        f"{'eager/np':>9} {'spread':>7}",
        flush=True,
    )


def print_row(r):
    print(
        f"{r['workload']:40} {r['numpy_s'] * 1e6:8.1f}us {r['graph_s'] * 1e6:8.1f}us "
        f"{r['eager_s'] * 1e6:8.1f}us {r['graph_ratio']:8.2f}x {r['eager_ratio']:8.2f}x "
        f"{r['spread']:6.0%}",
        flush=True,
    )


def print_table(rows, singles, scaling):
    """The whole table at once (``main`` prints its rows as they are timed)."""
    print_header()
    for r in rows:
        print_row(r)
    print_rest(singles, scaling)


def print_rest(singles, scaling):
    print()
    for name, seconds in singles.items():  # the names say "(s)": the JSON holds seconds
        label = name.removesuffix(" (s)")
        if seconds < 1e-3:
            print(f"{label:44} {seconds * 1e6:8.1f} us")
        else:
            print(f"{label:44} {seconds * 1e3:8.2f} ms")
    if scaling is not None:
        print()
        scale.print_results(scaling)


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m benchmarks")
    parser.add_argument("--quick", action="store_true", help="fewer repetitions")
    parser.add_argument("--json", help="also write the results to this file")
    parser.add_argument("--only", help="only the workloads whose name holds this text")
    options = parser.parse_args(argv)
    print_header()
    rows, singles, scaling = run(options.quick, options.only, on_row=print_row)
    print_rest(singles, scaling)
    xla_rows = converted_rows = None
    jax_rows = run_xla(options.quick, options.only)
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
