"""Random small programs (those of the converter's own random test), exported and run by
onnxruntime: the model gives what the Python function returns.

onnxruntime runs in a worker process (``ort_isolated``): a program whose model made it
crash while optimising (as onnxruntime 1.32 did on ``If``s of constant conditions, which
the exporter now inlines) fails its example instead of killing the test run."""

from __future__ import annotations

import os

import numpy as np
import pytest

import autograph as ag
import runtime as rt
from tests.autograph.test_random_programs import _FIRST_SEED, _is_hidden_change, _load, program
from tests.extras import import_extra
from tests.runtime.export.ort_isolated import run_isolated

import_extra("onnx")
import_extra("onnxruntime")

SIGNATURE = [rt.TensorSpec([], rt.int32), rt.TensorSpec([], rt.int32)]
_COUNT = int(os.environ.get("AUTOGRAPH_RANDOM_ONNX_PROGRAMS", 20))


@pytest.mark.parametrize("seed", range(_FIRST_SEED, _FIRST_SEED + _COUNT))
def test_random_program_exports_and_runs_as_python_does(tmp_path, seed):
    source, inputs = program(seed)
    fn = _load(source, tmp_path)
    path = tmp_path / "model.onnx"
    try:
        rt.onnx.export(ag.function(fn), path, input_signature=SIGNATURE)
    except ValueError as error:  # bump(xs) changed xs while a staged statement was traced
        assert _is_hidden_change(error, source), error
        return
    except UnboundLocalError:  # `w` unassigned on every path: Python must raise for any input
        for a, b in inputs:
            with pytest.raises(UnboundLocalError):
                fn(a, b)
        return
    calls = []
    for a, b in inputs:
        try:
            expected = fn(a, b)
        except UnboundLocalError:
            continue  # the graph fails there too (its assertion); this test compares values
        calls.append((a, b, list(expected) if isinstance(expected, tuple) else [expected]))
    outputs = run_isolated(
        path, [[np.asarray(a, np.int32), np.asarray(b, np.int32)] for a, b, _ in calls]
    )
    for (a, b, expected), got in zip(calls, outputs, strict=True):
        where = f"program {seed} (AUTOGRAPH_RANDOM_SEED={seed}), inputs {a}, {b}"
        assert len(got) == len(expected), (where, got, expected)
        for g, e in zip(got, expected):
            e = np.asarray(e)
            assert g.shape == e.shape and g.dtype.kind == e.dtype.kind, (where, g, e)
            assert g == e, (where, g, e)
