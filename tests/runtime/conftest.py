"""Records which rows of the op table the op tests use, for ``test_every_op_has_an_op_test``.

The op tests are the tests of the packages that hold rows: ``runtime/ops`` (tests in
``tests/runtime/ops``), the variables' rows of ``runtime/state`` and the ``Const``,
``Placeholder`` rows of ``runtime/core/graph.py``. Each of their tests runs with a
recorder: every op it adds to a graph or runs eagerly (through ``bind``) is noted by its
row. The coverage test runs last, and judges only a session that ran every op test (not
one file, not a ``-k`` selection).
"""

from __future__ import annotations

import pathlib

import pytest

from runtime.core.graph import Graph
from runtime.ops import registry

OP_TEST_FOLDERS = [pathlib.Path(__file__).parent / name for name in ("ops", "state", "core")]
COVERAGE_TEST = "test_every_op_has_an_op_test.py"

USED = set()  # the rows (OpDef objects) the op tests have used so far in this session
_collected = {}  # the op tests as collected, before any -k / -m selection


def _is_op_test(item):
    return pathlib.Path(item.path).parent in OP_TEST_FOLDERS


@pytest.fixture(autouse=True)
def _record_the_ops_used(request, monkeypatch):
    if not _is_op_test(request.node):
        yield
        return
    # Graphs are noted as they are made and read after the test: wrapping create_op itself
    # would make the recorder the "user code" each op says it comes from.
    graphs, graph_init, run_eagerly = [], Graph.__init__, registry._run_eagerly

    def recorded_graph_init(self, *args, **kwargs):
        graph_init(self, *args, **kwargs)
        graphs.append(self)

    def recorded_run_eagerly(opdef, *args, **kwargs):
        USED.add(opdef)
        return run_eagerly(opdef, *args, **kwargs)

    monkeypatch.setattr(Graph, "__init__", recorded_graph_init)
    monkeypatch.setattr(registry, "_run_eagerly", recorded_run_eagerly)
    yield
    USED.update(op.opdef for graph in graphs for op in graph.get_operations())


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items):
    _collected["ids"] = {item.nodeid for item in items if _is_op_test(item)}
    _collected["files"] = {pathlib.Path(item.path) for item in items if _is_op_test(item)}


@pytest.hookimpl(trylast=True)
def pytest_collection_finish(session):
    # The coverage test runs after every other test of the session.
    last = [i for i in session.items if pathlib.Path(i.path).name == COVERAGE_TEST]
    session.items[:] = [i for i in session.items if i not in last] + last


def every_op_test_ran(session):
    """Whether this session selected every op test."""
    files = {path for folder in OP_TEST_FOLDERS for path in folder.glob("test_*.py")}
    selected = {item.nodeid for item in session.items if _is_op_test(item)}
    return _collected.get("files") == files and _collected.get("ids") == selected
