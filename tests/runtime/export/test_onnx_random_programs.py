"""Random small programs (those of the converter's own random test), exported and run by
onnxruntime: the model gives what the Python function returns."""

from __future__ import annotations

import os

import numpy as np
import pytest

import autograph as ag
import runtime as rt
from tests.autograph.test_random_programs import _FIRST_SEED, _load, program
from tests.runtime.export.onnx_harness import run_model, session

SIGNATURE = [rt.TensorSpec([], rt.int32), rt.TensorSpec([], rt.int32)]
_COUNT = int(os.environ.get("AUTOGRAPH_RANDOM_ONNX_PROGRAMS", 20))


@pytest.mark.parametrize("seed", range(_FIRST_SEED, _FIRST_SEED + _COUNT))
def test_random_program_exports_and_runs_as_python_does(tmp_path, seed):
    source, inputs = program(seed)
    fn = _load(source, tmp_path)
    path = tmp_path / "model.onnx"
    try:
        rt.onnx.export(ag.function(fn), path, input_signature=SIGNATURE)
    except UnboundLocalError:  # `w` unassigned on every path: Python must raise for any input
        for a, b in inputs:
            with pytest.raises(UnboundLocalError):
                fn(a, b)
        return
    sess = session(path)
    for a, b in inputs:
        try:
            expected = fn(a, b)
        except UnboundLocalError:
            continue  # the graph fails there too (its assertion); this test compares values
        expected = list(expected) if isinstance(expected, tuple) else [expected]
        got = run_model(sess, [a, b], SIGNATURE)
        where = f"program {seed} (AUTOGRAPH_RANDOM_SEED={seed}), inputs {a}, {b}"
        assert len(got) == len(expected), (where, got, expected)
        for g, e in zip(got, expected):
            e = np.asarray(e)
            assert g.shape == e.shape and g.dtype.kind == e.dtype.kind, (where, g, e)
            assert g == e, (where, g, e)
