"""The rows of the op table that ops registered with ``op_info`` *are*.

``tests/runtime/ops/test_op_infos.py`` runs each registered op every way (eager, graph,
gradients, XLA, ONNX, saving), so the completeness checks of each backend's table count
the row of an op that is one row (``rt.math.log1p``: Log1p) as covered. The rows a
composite is made of are not: its samples run them on one kind of input only.
"""

from __future__ import annotations

import numpy as np

import runtime as rt
from runtime.core.graph import CONST, PLACEHOLDER
from runtime.execution.tracing import trace
from runtime.ops.op_info import OP_INFOS


def rows_of_registered_ops():
    """The OpDefs of registered ops whose graph, on their first sample, holds that one row
    (besides its inputs and constants)."""
    rows = set()
    for info in OP_INFOS.values():
        sample = info.samples(np.random.default_rng(0))[0]
        specs = [rt.TensorSpec(np.shape(a), rt.as_dtype(a.dtype)) for a in sample.args]
        graph = trace(lambda *xs, run=info.run, kw=sample.kwargs: run(*xs, **kw), specs, "f")
        made = {op.opdef for op in graph.get_operations()} - {CONST, PLACEHOLDER}
        if len(made) == 1:
            rows.update(made)
    return rows
