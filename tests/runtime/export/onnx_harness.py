"""Export a function, run the model in onnxruntime, and compare with the runtime's own results.

``check_export(fn, signature, calls, path)`` traces ``fn`` for ``signature``
(an ``ag.function`` concrete function), exports it to ``path``, and for each
argument tuple of ``calls`` asserts that onnxruntime's outputs equal the
concrete function's: same dtypes, shapes and values (floats within a
tolerance, everything else exactly). onnxruntime is the reference runner.
"""

from __future__ import annotations

import numpy as np
import pytest

import autograph as ag
import runtime as rt

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")
ort.set_default_logger_severity(3)  # a failing run raises; its log line would only repeat it

_RTOL = {np.dtype(np.float16): 2e-3, np.dtype(np.float32): 2e-6, np.dtype(np.float64): 1e-12}


def session(path):
    return ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])


def run_model(sess, args, specs):
    """onnxruntime's outputs for ``args`` (strings come back as bytes, as the runtime's)."""
    feeds = {}
    for model_input, arg, spec in zip(sess.get_inputs(), args, specs):
        value = np.asarray(arg.numpy() if isinstance(arg, rt.Tensor) else arg)
        if spec.dtype is rt.string:  # onnxruntime takes str, the runtime holds bytes
            value = np.vectorize(_text, otypes=[object])(value) if value.size else value
        else:
            value = value.astype(spec.dtype.as_numpy_dtype)
        feeds[model_input.name] = value
    return [_bytes(v) for v in sess.run(None, feeds)]


def _text(item):
    return item.decode() if isinstance(item, bytes) else str(item)


def _bytes(value):
    if value.dtype == object:
        out = np.empty(value.shape, dtype=object)
        for idx, item in np.ndenumerate(value):
            out[idx] = item.encode() if isinstance(item, str) else item
        return out
    return value


def flat_results(result):
    """A function's results as numpy arrays, flattened in the order of the model's outputs."""
    tensors = [t for t in rt.nest.flatten(result) if isinstance(t, rt.Tensor)]
    return [np.asarray(t.numpy(), dtype=object if t.dtype is rt.string else None) for t in tensors]


def assert_same(got, expected, where=""):
    assert len(got) == len(expected), f"{where}: {len(got)} outputs, expected {len(expected)}"
    for i, (g, e) in enumerate(zip(got, expected)):
        at = f"{where} output {i}"
        assert g.dtype == e.dtype, f"{at}: dtype {g.dtype} != {e.dtype}"
        assert g.shape == e.shape, f"{at}: shape {g.shape} != {e.shape}\n{g}\n{e}"
        if e.dtype.kind == "f":
            np.testing.assert_allclose(g, e, rtol=_RTOL[e.dtype], atol=1e-30, err_msg=at)
        else:
            assert g.tolist() == e.tolist(), f"{at}: {g!r} != {e!r}"


def check_export(fn, signature, calls, path):
    """Exports ``fn`` traced for ``signature``; every call gives the same results in onnxruntime.

    ``fn`` is a Python function (converted by ``ag.function``) or an ``ag.function``.
    Returns the exported model.
    """
    function = fn if hasattr(fn, "get_concrete_function") else ag.function(fn)
    concrete = function.get_concrete_function(*signature)
    model = rt.onnx.export(concrete, path)
    sess = session(path)
    for args in calls:
        expected = flat_results(concrete(*args))
        got = run_model(sess, args, signature)
        assert_same(got, expected, f"{getattr(fn, '__name__', fn)}{tuple(args)!r}")
    return model


def spec(shape, dtype=rt.float32):
    return rt.TensorSpec(shape, dtype)
