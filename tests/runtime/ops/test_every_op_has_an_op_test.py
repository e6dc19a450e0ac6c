"""Every row of the op table has an op test: a test of ``tests/runtime/ops``, ``state`` or
``core`` adds it to a graph or runs it eagerly, and checks what it gives
(``tests/runtime/conftest.py`` records the rows used).
"""

from __future__ import annotations

import pytest

import runtime  # noqa: F401 (OPS is complete once the runtime's modules are imported)
from runtime.core.op_def import OPS
from tests.runtime import conftest


def test_every_op_has_an_op_test(request):
    if not conftest.every_op_test_ran(request.session):
        pytest.skip(
            "judges only a session that runs every op test (tests/runtime/{ops,state,core})"
        )
    missing = sorted(op.type for op in set(OPS.values()) - conftest.USED)
    assert not missing, f"rows of OPS that no op test uses: {missing}"
