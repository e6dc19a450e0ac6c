"""Every function of the converter's gallery, traced on scalars, exports and runs in onnxruntime
with the runtime's results, for each of its argument tuples (both ways of each branch, loops
that run zero times and many)."""

from __future__ import annotations

import collections

import pytest

import runtime as rt
from tests.autograph.gallery import GALLERY
from tests.runtime.export.onnx_harness import check_export


def _dtype(value):
    if isinstance(value, bool):
        return rt.bool
    if isinstance(value, float):
        return rt.float32
    return rt.int32


def _cases():
    """One case per gallery function and signature, with all its argument tuples."""
    cases = []
    for c in GALLERY:
        if not c.graph:
            continue
        by_signature = collections.defaultdict(list)
        for args in c.args:
            by_signature[tuple(_dtype(a) for a in args)].append(args)
        for dtypes, calls in by_signature.items():
            label = f"{c.fn.__name__}({','.join(d.name for d in dtypes)})"
            cases.append(pytest.param(c.fn, dtypes, calls, id=label))
    return cases


CASES = _cases()


@pytest.mark.parametrize(("fn", "dtypes", "calls"), CASES)
def test_gallery_function_exports_and_runs_identically(fn, dtypes, calls, tmp_path):
    signature = [rt.TensorSpec([], d) for d in dtypes]
    check_export(fn, signature, calls, tmp_path / "model.onnx")
