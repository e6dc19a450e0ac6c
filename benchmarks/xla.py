"""``jit_compile=True`` against the same computation written by hand with ``jax.jit`` and ``lax``.

For each workload with a hand-written JAX version (``benchmarks.jax_workloads``):
the steady-state time of a call, both timed in the same rounds, and the first
call from cold caches (ours: convert + trace + lower + XLA compile + run;
JAX's: trace + XLA compile + run). ``python -m benchmarks.xla`` prints the table.
"""

from __future__ import annotations

import statistics
import time

import jax
import numpy as np

from benchmarks import jax_workloads, workloads
from benchmarks.timing import best_times


def _cold():
    """Forget every conversion, trace and compiled program, ours and JAX's."""
    from autograph.impl import api, transpiler

    transpiler._cache.clear()
    api._instances.clear()
    jax.clear_caches()


def first_call_seconds(candidates, fn, rounds):
    """The median time of ``make(fn)(*args)`` from cold caches, for each ``(make, args)``.

    The rounds alternate between the candidates, as ``benchmarks.timing`` does for the
    steady state: a slow spell of the shared machine hits them all alike.
    """
    times = [[] for _ in candidates]
    for _ in range(rounds):
        for k, (make, args) in enumerate(candidates):
            _cold()
            compiled = make(fn)
            start = time.perf_counter()
            compiled(*args)
            times[k].append(time.perf_counter() - start)
    return [statistics.median(t) for t in times]


def _value(x):
    return x.numpy() if hasattr(x, "numpy") else np.asarray(x)


def run(quick=False, only=None):
    """The rows of the workloads that have a hand-written JAX version (``only``: whose name
    holds this text)."""
    min_seconds, rounds = (0.05, 3) if quick else (0.3, 7)
    rows = []
    for name, (fn, numpy_fn, args, numpy_args) in workloads.workloads().items():
        reference = jax_workloads.reference(fn)
        if reference is None or (only is not None and only not in name):
            continue
        ours = workloads.jit_version(fn)
        expected = numpy_fn(*numpy_args)
        for label, result in (("jit_compile", ours(*args)), ("jax", reference(*numpy_args))):
            scale = float(np.max(np.abs(expected))) or 1.0
            if not np.allclose(_value(result), expected, rtol=1e-4, atol=1e-5 * scale):
                raise AssertionError(f"{name}: {label} gives {_value(result)}, numpy {expected}")
        t_jax, t_ours = best_times([(reference, numpy_args), (ours, args)], min_seconds)
        first_jax, first_ours = first_call_seconds(
            [(jax_workloads.reference, numpy_args), (workloads.jit_version, args)], fn, rounds
        )
        rows.append(
            {
                "workload": name,
                "jax_s": t_jax,
                "jit_compile_s": t_ours,
                "ratio": t_ours / t_jax,
                "jax_first_call_s": first_jax,
                "jit_compile_first_call_s": first_ours,
                "first_call_ratio": first_ours / first_jax,
            }
        )
    return rows


def print_table(rows):
    print(
        f"{'workload (jit_compile=True vs jax.jit)':40} {'jax':>9} {'ours':>9} {'ratio':>6}"
        f" {'1st jax':>9} {'1st ours':>9} {'ratio':>6}"
    )
    for r in rows:
        print(
            f"{r['workload']:40} {r['jax_s'] * 1e6:7.1f}us {r['jit_compile_s'] * 1e6:7.1f}us "
            f"{r['ratio']:5.2f}x {r['jax_first_call_s'] * 1e3:7.1f}ms "
            f"{r['jit_compile_first_call_s'] * 1e3:7.1f}ms {r['first_call_ratio']:5.2f}x"
        )


if __name__ == "__main__":
    print_table(run())
