"""Scale: trace + compile time for graphs of 1k, 10k and 100k ops, and memory of long loops.

Trace + compile should grow linearly with the number of ops; running a loop
must not use memory that grows with its number of iterations.
"""

from __future__ import annotations

import time
import tracemalloc

import numpy as np

import runtime as rt
from runtime.execution.compile import compile_function
from runtime.execution.tracing import trace


def chain(n_ops):
    def build(x):
        for _ in range(n_ops // 2):
            x = x * 1.0001 + 0.5
        return x

    return build


def trace_and_compile_seconds(n_ops):
    start = time.perf_counter()
    graph = trace(chain(n_ops), [rt.TensorSpec([], rt.float32)], "chain")
    program = compile_function(graph)
    seconds = time.perf_counter() - start
    program(np.float32(1))
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
    print("trace + compile, by graph size:")
    for _, seconds, ops in results["trace_compile"]:
        print(f"  {ops:>7} ops: {seconds * 1e3:9.1f} ms  ({seconds / ops * 1e6:6.1f} us per op)")
    print("peak memory while running a while loop, by iterations:")
    for iterations, peak in results["loop_memory"]:
        print(f"  {iterations:>9} iterations: {peak / 1024:8.1f} KiB")
