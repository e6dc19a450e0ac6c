"""``rt.device``: device strings parsed as TensorFlow's ``DeviceSpec`` parses them, recorded on
the ops a graph gets inside the scope, and no change to what the ops compute."""

from __future__ import annotations

import numpy as np
import pytest

import autograph as ag
import runtime as rt


@pytest.mark.parametrize(
    "spec, canonical",
    [
        ("/CPU:0", "/device:CPU:0"),
        ("cpu:0", "/device:CPU:0"),
        ("/gpu:1", "/device:GPU:1"),
        ("GPU", "/device:GPU:*"),
        ("/device:GPU:0", "/device:GPU:0"),
        ("/device:XLA_CPU:0", "/device:XLA_CPU:0"),
        ("/job:worker/replica:0/task:2/device:TPU:3", "/job:worker/replica:0/task:2/device:TPU:3"),
        ("", ""),
    ],
)
def test_each_op_of_a_graph_records_the_canonical_device(spec, canonical):
    with rt.Graph().as_default() as g:
        outside = rt.constant(1.0)
        with rt.device(spec):
            inside = outside * 2.0
    assert inside.op.device == canonical
    assert outside.op.device == ""
    assert rt.Session(g).run(inside) == 2.0


def test_nested_scopes_override_the_parts_they_name_and_none_clears():
    with rt.Graph().as_default(), rt.device("/job:worker/task:1"):
        with rt.device("/GPU:0"):
            a = rt.constant(1)
        with rt.device(None):
            b = rt.constant(1)
        c = rt.constant(1)
    assert a.op.device == "/job:worker/task:1/device:GPU:0"
    assert b.op.device == ""
    assert c.op.device == "/job:worker/task:1"


def test_a_function_traced_in_a_scope_records_it_and_computes_the_same():
    @ag.function
    def f(x):
        with rt.device("/GPU:0"):
            return x * x

    with rt.device("cpu:0"):
        np.testing.assert_allclose(f(rt.constant([1.0, 3.0])).numpy(), [1.0, 9.0])
        eager = rt.constant(4.0) + 1.0
    assert eager.numpy() == 5.0
    graph = f.get_concrete_function(rt.TensorSpec([2], rt.float32)).graph
    multiply = [op for op in graph.get_operations() if op.type == "Mul"]
    assert multiply and all(op.device == "/device:GPU:0" for op in multiply)


@pytest.mark.parametrize(
    "spec, message",
    [
        ("/gpu:0/memory:1", "Unknown attribute: 'memory' in '/gpu:0/memory:1'"),
        ("/banana:0", "Unknown attribute: 'banana'"),
        ("/cpu:0/gpu:0", "Cannot specify multiple device types"),
        ("/cpu:x", "invalid literal for int"),
    ],
)
def test_a_spec_tensorflow_cannot_parse_raises_value_error(spec, message):
    with pytest.raises(ValueError, match=message), rt.device(spec):
        pass


def test_a_device_function_is_refused_as_in_eager_tensorflow():
    with pytest.raises(RuntimeError, match="does not support functions"), rt.device(abs):
        pass
