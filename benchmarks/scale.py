"""Scale: trace + optimise + compile time for graphs of 1k, 10k and 100k adds, and memory of long loops.

Trace + optimise + compile should grow linearly with the number of ops (what
``ag.function`` does on a first call, conversion apart); running a loop must
not use memory that grows with its number of iterations.
"""

from __future__ import annotations

import time
import tracemalloc

import numpy as np

import runtime as rt
from runtime.execution.compile import compile_function
from runtime.execution.optimize import optimize
from runtime.execution.tracing import trace


def chain(n_adds):
    def build(x):
        for _ in range(n_adds):
            x = x + 1.0
        return x

    return build


def trace_and_compile_seconds(n_adds):
    """CPU seconds to trace, optimise and compile a chain of ``n_adds`` adds, and its op count.

    CPU time, not wall time: the work is single-threaded, and on a shared machine the
    time the process waits for a core would otherwise count.
    """
    start = time.process_time()
    graph = trace(chain(n_adds), [rt.TensorSpec([], rt.float32)], "chain")
    program = compile_function(optimize(graph)[0])
    seconds = time.process_time() - start
    if program(np.float32(1))[0] != np.float32(1 + n_adds):
        raise AssertionError("the chain of adds computes a wrong sum")
    return seconds, len(graph.get_operations())


def loop_peak_bytes(iterations):
    def body(i, acc):
        return i + 1, acc + rt.cast(i, rt.float32)

    graph = trace(
        lambda n: rt.while_loop(lambda i, acc: i < n, body, (0, rt.constant(0.0)))[1],
        [rt.TensorSpec([], rt.int32)],
        "loop",
    )
    program = compile_function(graph)
    program(np.int32(10))
    tracemalloc.start()
    program(np.int32(iterations))
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return peak


def run(quick=False):
    sizes = [1_000, 10_000] if quick else [1_000, 10_000, 100_000]
    loops = [10, 1_000, 100_000] if quick else [10, 1_000, 100_000, 1_000_000]
    return {
        "trace_compile": [(n, *trace_and_compile_seconds(n)) for n in sizes],
        "loop_memory": [(n, loop_peak_bytes(n)) for n in loops],
    }


def print_results(results):
    print("trace + optimise + compile (CPU time), by graph size:")
    for adds, seconds, ops in results["trace_compile"]:
        print(
            f"  {adds:>7} adds ({ops:>7} ops): {seconds * 1e3:9.1f} ms  "
            f"({seconds / adds * 1e6:6.1f} us per add, {seconds / ops * 1e6:6.1f} us per op)"
        )
    print("peak memory while running a while loop, by iterations:")
    for iterations, peak in results["loop_memory"]:
        print(f"  {iterations:>9} iterations: {peak / 1024:8.1f} KiB")
