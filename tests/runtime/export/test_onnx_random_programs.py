"""Random small programs (those of the converter's own random test), exported and run by
onnxruntime: the model gives what the Python function returns."""

from __future__ import annotations

import os

import numpy as np
from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st

import autograph as ag
import runtime as rt
from tests.autograph.test_random_programs import _load, programs
from tests.runtime.export.onnx_harness import run_model, session

SIGNATURE = [rt.TensorSpec([], rt.int32), rt.TensorSpec([], rt.int32)]


@settings(
    max_examples=int(os.environ.get("AUTOGRAPH_RANDOM_PROGRAMS", 40)) // 2,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    source=programs(),
    calls=st.lists(st.tuples(st.integers(-30, 60), st.integers(-30, 60)), min_size=1, max_size=3),
)
def test_random_program_exports_and_runs_as_python_does(tmp_path, source, calls):
    note(source)
    fn = _load(source, tmp_path)
    path = tmp_path / "model.onnx"
    rt.onnx.export(ag.function(fn), path, input_signature=SIGNATURE)
    sess = session(path)
    for a, b in calls:
        expected = fn(a, b)
        expected = list(expected) if isinstance(expected, tuple) else [expected]
        got = run_model(sess, [a, b], SIGNATURE)
        assert len(got) == len(expected), (got, expected)
        for g, e in zip(got, expected):
            e = np.asarray(e)
            assert g.shape == e.shape and g.dtype.kind == e.dtype.kind, (a, b, g, e)
            assert g == e, (a, b, g, e)
