"""The ONNX table covers the op table: every row of ``OPS`` is lowered, dropped or declared
unexportable with a reason (no onnx package needed to check it)."""

from __future__ import annotations

import runtime  # noqa: F401 (OPS is complete once the runtime's modules are imported)
from runtime.core.op_def import OPS
from runtime.export.onnx_ops import DROPPED, LOWERINGS, UNEXPORTABLE


def test_every_op_is_lowered_dropped_or_declared_unexportable():
    rows = set(OPS.values())
    tables = [set(LOWERINGS), set(DROPPED), set(UNEXPORTABLE)]
    missing = rows - set().union(*tables)
    assert not missing, f"ops with no ONNX entry: {sorted(op.type for op in missing)}"
    for a in range(3):
        for b in range(a + 1, 3):
            assert not tables[a] & tables[b], tables[a] & tables[b]
    assert set().union(*tables) <= rows, "an ONNX entry for an op that is not in OPS"


def test_every_dropped_or_unexportable_op_says_why():
    for table in (DROPPED, UNEXPORTABLE):
        for opdef, reason in table.items():
            assert isinstance(reason, str) and len(reason) > 10, (opdef, reason)
