"""Running one traced function both ways: the default executor and XLA, side by side.

``run_both(fn, args)`` traces ``fn`` on placeholders shaped like ``args`` (numpy
values), runs the graph with the default executor (``compile_function``) and
with XLA (``XlaProgram``), and returns both results. ``assert_same_results``
checks that they agree: the same dtypes and shapes, equal integers and bools,
floats to float tolerance (XLA's own summation order and elementary functions).

``results_both_ways(fn, *args)`` does the same through the public API:
``ag.function(fn)`` and ``ag.function(fn, jit_compile=True)`` called on ``args``;
``agreeing_xla_results`` checks those agree (float64 gradients: to 1e-9).
"""

from __future__ import annotations

import numpy as np

import autograph as ag
import runtime as rt
from runtime.execution.compile import compile_function
from runtime.execution.tracing import trace
from runtime.xla.program import XlaProgram

RTOL = {np.dtype(np.float16): 2e-3, np.dtype(np.float32): 2e-5, np.dtype(np.float64): 1e-12}


def traced(fn, args, shapes=None):
    """``fn`` traced into a FuncGraph on placeholders for ``args`` (or ``shapes``)."""
    specs = [
        rt.TensorSpec(
            np.shape(a) if shapes is None else shapes[i], rt.as_dtype(np.asarray(a).dtype)
        )
        for i, a in enumerate(args)
    ]
    return trace(fn, specs, "f")


def run_both(fn, args, shapes=None):
    """(default executor's outputs, XLA's outputs) of ``fn`` on ``args``."""
    graph = traced(fn, args, shapes)
    return compile_function(graph)(*args), XlaProgram(graph)(*args)


def assert_same_value(xla, default, where=""):
    """One output: the same numpy kind, dtype and shape; values equal, floats close."""
    assert isinstance(xla, (np.ndarray, np.generic)), f"{where}: not numpy: {xla!r}"
    assert isinstance(xla, np.ndarray) == isinstance(default, np.ndarray), (where, xla, default)
    assert np.asarray(xla).dtype == np.asarray(default).dtype, (where, xla, default)
    assert np.shape(xla) == np.shape(default), (where, xla, default)
    if np.asarray(default).dtype.kind == "f":
        tol = RTOL[np.asarray(default).dtype]
        np.testing.assert_allclose(
            np.asarray(xla, np.float64), np.asarray(default, np.float64), rtol=tol, atol=tol,
            equal_nan=True, err_msg=where,
        )  # fmt: skip
    else:
        np.testing.assert_array_equal(xla, default, err_msg=where)


def assert_same_results(fn, args, shapes=None):
    default, xla = run_both(fn, args, shapes)
    assert len(default) == len(xla)
    for i, (d, x) in enumerate(zip(default, xla)):
        assert_same_value(x, d, where=f"output {i}")
    return xla


def results_both_ways(fn, *args):
    """``fn``'s results on ``args`` through ``ag.function``, on the default executor and with
    ``jit_compile=True``: two lists of numpy values (its outputs flattened)."""
    results = []
    for jit in (False, True):
        out = ag.function(fn, jit_compile=jit)(*[rt.constant(a) for a in args])
        results.append([np.asarray(t.numpy()) for t in rt.nest.flatten(out)])
    return results


def agreeing_xla_results(fn, *args):
    """XLA's results of ``fn`` on ``args``, once checked against the default executor's."""
    default, xla = results_both_ways(fn, *args)
    for d, x in zip(default, xla):
        np.testing.assert_allclose(x, d, rtol=1e-9, atol=1e-12)
    return xla
