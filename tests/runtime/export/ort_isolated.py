"""Running an ONNX model in onnxruntime in a separate process, so that a crash of
onnxruntime (a segmentation fault while it optimises a model) fails the test that
made the model instead of killing pytest.

``run_isolated(path, calls)`` creates a session with onnxruntime's default options
in a worker process (started once, restarted after a crash) and returns the
outputs for each call (a list of numpy arrays, fed to the model's inputs in order).
"""

from __future__ import annotations

import multiprocessing
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool

_executor = None


def _session_outputs(path, calls):
    import onnxruntime

    session = onnxruntime.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    names = [i.name for i in session.get_inputs()]
    return [session.run(None, dict(zip(names, args, strict=True))) for args in calls]


def run_isolated(path, calls):
    """onnxruntime's outputs for each argument list of ``calls``; AssertionError if it crashes."""
    global _executor
    if _executor is None:
        _executor = ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn"))
    try:
        return _executor.submit(_session_outputs, str(path), calls).result()
    except BrokenProcessPool:
        _executor = None
        raise AssertionError(
            f"onnxruntime crashed creating or running a session for {path}"
        ) from None
