"""AutoGraph for JAX: ``jax.jit(ag.to_graph(f))`` against the same program written with ``lax``.

The programs are the workloads of ``benchmarks.workloads`` written as a JAX
user would write them with Python control flow (``jax.numpy``, ``range``, ``if``,
``break``, ``continue``); the references are the hand-written ``lax`` versions
of ``benchmarks.jax_workloads``. Conversion only changes how the program is
traced, so the compiled programs should run at the same speed: the table gives
the steady-state time of a call of each, timed in the same rounds, and the first
call from cold caches (ours: convert + trace + compile; JAX's: trace + compile).
``python -m benchmarks.jax_autograph`` prints it.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

import autograph as ag
from benchmarks import jax_workloads, workloads
from benchmarks.timing import best_times
from benchmarks.xla import first_call_seconds

collatz = workloads.collatz  # plain Python, no rt op: the same program serves under JAX


def vector_loop(x, n):
    acc = jnp.zeros_like(x)
    for i in range(n):
        acc = acc + x * i
    return acc


def nested_loops(n):
    total = 0
    for i in range(n):
        if i % 3 == 0:
            continue
        for j in range(i):
            if j > 5:
                break
            total += i * j
    return total


def rnn(xs):
    h = jnp.zeros((xs.shape[1], workloads.WH.shape[0]), jnp.float32)
    for x in xs:
        h = jnp.tanh(x @ workloads.WX + h @ workloads.WH + workloads.BH)
    return h


PROGRAMS = [collatz, vector_loop, nested_loops, rnn]


def converted(fn):
    """A fresh ``jax.jit`` of ``fn`` converted (numpy in, numpy out, as the references)."""
    jitted = jax.jit(ag.to_graph(fn))
    return lambda *args: np.asarray(jitted(*args))


def run(quick=False, only=None):
    min_seconds, rounds = (0.05, 3) if quick else (0.3, 7)
    numpy_args = {
        entry[0].__name__: (name, entry[3]) for name, entry in workloads.workloads().items()
    }
    rows = []
    for fn in PROGRAMS:
        name, args = numpy_args[fn.__name__]
        if only is not None and only not in name:
            continue
        reference, ours = jax_workloads.reference(fn), converted(fn)
        expected = reference(*args)
        if not np.allclose(ours(*args), expected, rtol=1e-5):
            raise AssertionError(f"{fn.__name__}: converted gives {ours(*args)}, lax {expected}")
        t_lax, t_ours = best_times([(reference, args), (ours, args)], min_seconds)
        first_lax, first_ours = first_call_seconds(
            [(jax_workloads.reference, args), (converted, args)], fn, rounds
        )
        rows.append(
            {
                "workload": name,
                "lax_s": t_lax,
                "converted_s": t_ours,
                "ratio": t_ours / t_lax,
                "lax_first_call_s": first_lax,
                "converted_first_call_s": first_ours,
            }
        )
    return rows


def print_table(rows):
    print(
        f"{'program (jax.jit(ag.to_graph(f)) vs lax)':40} {'lax':>9} {'ours':>9} {'ratio':>6}"
        f" {'1st lax':>9} {'1st ours':>9} {'ratio':>6}"
    )
    for r in rows:
        first_ratio = r["converted_first_call_s"] / r["lax_first_call_s"]
        print(
            f"{r['workload']:40} {r['lax_s'] * 1e6:7.1f}us {r['converted_s'] * 1e6:7.1f}us "
            f"{r['ratio']:5.2f}x {r['lax_first_call_s'] * 1e3:7.1f}ms "
            f"{r['converted_first_call_s'] * 1e3:7.1f}ms {first_ratio:5.2f}x"
        )


if __name__ == "__main__":
    print_table(run())
