"""The rows of the op table that the ops registered with ``op_info`` are made of.

``tests/runtime/ops/test_op_infos.py`` runs each registered op every way (eager, graph,
gradients, XLA, ONNX, saving), so the completeness checks of each backend's table count
these rows as covered.
"""

from __future__ import annotations

import numpy as np

import runtime as rt
from runtime.execution.tracing import trace
from runtime.ops.op_info import OP_INFOS


def rows_of_registered_ops():
    """The OpDefs that a graph of each registered op, on its first sample, holds."""
    rows = set()
    for info in OP_INFOS.values():
        sample = info.samples(np.random.default_rng(0))[0]
        specs = [rt.TensorSpec(np.shape(a), rt.as_dtype(a.dtype)) for a in sample.args]
        graph = trace(lambda *xs, run=info.run, kw=sample.kwargs: run(*xs, **kw), specs, "f")
        rows.update(op.opdef for op in graph.get_operations())
    return rows
