"""An ``If`` whose condition is known when exporting is written as the branch it takes.

onnxruntime inlines such a branch itself when it optimises a model (its "If branch
constant folding"), and onnxruntime 1.32 can crash with a segmentation fault doing so
when the branch holds a further ``If`` or ``Loop`` (whether it does depends on the names
in the model, even the graph's). The model of ``f`` made it crash before the exporter
inlined these branches; the sessions run in a worker process, so a crash fails these
tests rather than killing pytest.
"""

from __future__ import annotations

import numpy as np
import pytest

import autograph as ag
import runtime as rt
from tests.extras import import_extra
from tests.runtime.export.ort_isolated import run_isolated

onnx = import_extra("onnx")
import_extra("onnxruntime")

SIGNATURE = [rt.TensorSpec([], rt.int32), rt.TensorSpec([], rt.int32)]
CALLS = [(0, 0), (3, 4), (7, 2), (-5, 9), (30, -11), (2, 2)]


def f(a, b):
    # Named f, as the random program that crashed onnxruntime 1.32 was: the crash depends on
    # the names. The loops' tests run first on their constant initial counters: Ifs of known
    # conditions, branches holding Ifs.
    x = a
    y = b
    z = (a * 3 + b) % 1000
    c0 = 0
    while c0 < 1 and (2 <= x and 2 < x):  # noqa: SIM300 (the program as generated)
        c0 += 1
        x = (z // (x % 5 + 1)) % 1000
    c1 = 0
    while c1 < 2 and (z % 2 <= 0 and z < z):
        c1 += 1
        z = (y if y <= y and x % 2 < 1 else x - z) % 1000
        break
    else:
        x = z
    return x + 3 * y - 7 * z


def while_true_with_a_nested_loop(a, b):
    total = 0
    while True:
        if 3 > 2:  # always taken: its branch holds a loop
            for i in rt.range(a % 5 + 1):
                total += i * b
        if total > 100 or total < -100:
            break
        total += 50
    return total


def _constant_values(graph, known):
    """Names of ``graph``'s values computed from initializers alone (of it or enclosing graphs)."""
    known = known | {t.name for t in graph.initializer}
    for node in graph.node:
        subgraphs = [a.g for a in node.attribute if a.type == onnx.AttributeProto.GRAPH]
        if not subgraphs and node.input and all(i in known for i in node.input if i):
            known |= set(node.output)
    return known


def _ifs_of_constant_conditions(graph, known=frozenset()):
    known = _constant_values(graph, set(known))
    found = []
    for node in graph.node:
        if node.op_type == "If" and node.input[0] in known:
            found.append(node.name)
        for attribute in node.attribute:
            if attribute.type == onnx.AttributeProto.GRAPH:
                found += _ifs_of_constant_conditions(attribute.g, known)
    return found


@pytest.mark.parametrize("fn", [f, while_true_with_a_nested_loop])
def test_known_conditions_are_inlined_and_onnxruntime_runs_the_model(tmp_path, fn):
    path = tmp_path / "model.onnx"
    model = rt.onnx.export(ag.function(fn), path, input_signature=SIGNATURE)
    assert _ifs_of_constant_conditions(model.graph) == []
    calls = [[np.asarray(a, np.int32), np.asarray(b, np.int32)] for a, b in CALLS]
    for (a, b), (got,) in zip(CALLS, run_isolated(path, calls)):
        assert got.dtype == np.int32 and got.tolist() == fn(a, b), (a, b)


def test_a_condition_known_only_when_running_stays_an_if(tmp_path):
    def choose(a, b):
        if a > b:
            return a - b
        return b

    model = rt.onnx.export(ag.function(choose), tmp_path / "m.onnx", input_signature=SIGNATURE)
    assert [n.op_type for n in model.graph.node].count("If") == 1
