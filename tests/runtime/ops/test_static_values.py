"""What a graph knows of a tensor's value before running: ``constant_value`` asks the row of
the tensor's op (``OpDef.static_value``), so a loaded graph, whose ops get their rows from the
op table by name, knows as much as the traced one.

The reference is numpy on the values the ops would compute.
"""

import numpy as np
import pytest

import autograph as ag
import runtime as rt
from runtime.core.op_def import OPS
from runtime.ops.constant_ops import constant_value
from runtime.ops.shape_ops import shape_from_tensor


def _in_graph(build):
    with rt.Graph().as_default():
        x = rt.placeholder(rt.float32, shape=[None, 3], name="x")
        return build(x)


@pytest.mark.parametrize(
    "build, expected",
    [
        (lambda x: rt.constant([1.5, 2.5]), np.array([1.5, 2.5], np.float32)),
        (lambda x: rt.shape(rt.zeros([2, 3])), np.array([2, 3], np.int32)),
        (lambda x: rt.shape(rt.zeros([4]), out_type=rt.int64), np.array([4], np.int64)),
        (lambda x: rt.stack([rt.constant(1), rt.constant(2)]), np.array([1, 2], np.int32)),
        (
            lambda x: rt.stack([rt.constant([1, 2]), rt.constant([3, 4])], axis=1),
            np.stack([[1, 2], [3, 4]], axis=1).astype(np.int32),
        ),
        (lambda x: rt.cast(rt.constant([1.7, -1.7]), rt.int32), np.array([1, -1], np.int32)),
        (
            lambda x: rt.cast(rt.stack([rt.shape(rt.zeros([5])), rt.constant([2])]), rt.float32),
            np.array([[5.0], [2.0]], np.float32),
        ),
        # Shape arithmetic TensorFlow's shape inference evaluates (its constant_value and
        # constant_value_as_shape): the ops' kernels run on the known inputs.
        (lambda x: rt.shape(rt.zeros([5, 4]))[0], np.int32(5)),
        (lambda x: rt.unstack(rt.shape(rt.zeros([5, 4])))[1], np.int32(4)),
        (
            lambda x: rt.concat([[rt.constant(1)], rt.shape(rt.zeros([2, 3]))], 0),
            np.array([1, 2, 3], np.int32),
        ),
        (lambda x: rt.shape(rt.zeros([20, 2]))[0] // rt.constant(4), np.int32(5)),
        (lambda x: rt.constant(7) % rt.constant(4), np.int32(3)),
    ],
    ids=[
        "const",
        "shape",
        "shape-int64",
        "pack",
        "pack-axis",
        "cast",
        "cast-of-pack-of-shape",
        "strided-slice",
        "unpack",
        "concat",
        "floordiv",
        "floormod",
    ],  # fmt: skip
)
def test_a_value_known_while_tracing_is_the_value_the_ops_compute(build, expected):
    known = _in_graph(build)
    value = constant_value(known)
    assert value is not None
    assert np.asarray(value).dtype == expected.dtype
    np.testing.assert_array_equal(value, expected)


@pytest.mark.parametrize(
    "build",
    [
        lambda x: x,  # a placeholder
        lambda x: rt.shape(x),  # a shape with an unknown dim
        lambda x: rt.stack([rt.constant(1.0), x[0, 0]]),  # one input unknown
        lambda x: rt.cast(x, rt.int32),
        lambda x: rt.constant(1.0) + rt.constant(2.0),  # Add's row says nothing before running
    ],
    ids=["placeholder", "partial-shape", "pack-of-unknown", "cast-of-unknown", "add"],
)
def test_a_value_not_known_while_tracing_is_none(build):
    assert constant_value(_in_graph(build)) is None


def test_the_rows_that_know_their_value_while_tracing():
    rows = [row for row in OPS.values() if row.static_value is not None]
    assert {row.type for row in rows} == {
        "Const", "Shape", "Pack", "Cast", "ConcatV2", "Unpack", "StridedSlice", "FloorDiv",
        "FloorMod",
    }  # fmt: skip


def test_a_value_too_big_to_fold_is_not_known():
    big = np.arange(2000, dtype=np.int32)  # more than MAX_FOLDED_ELEMENTS
    assert constant_value(_in_graph(lambda x: rt.constant(big)[:3])) is None


def test_a_shape_tensor_stands_for_its_input_shape_as_far_as_known():
    assert _in_graph(lambda x: shape_from_tensor(rt.shape(x))).as_list() == [None, 3]


def test_a_loaded_graph_knows_what_the_traced_one_knew(tmp_path):
    module = rt.Module()

    @ag.function(input_signature=[rt.TensorSpec([None, 3], rt.float32)], autograph=False)
    def reshape_like(x):
        return rt.reshape(x, rt.shape(x)) * 2.0

    module.reshape_like = reshape_like
    rt.saved_model.save(module, str(tmp_path))
    graph = rt.saved_model.load(str(tmp_path)).reshape_like.graph

    assert all(op.opdef is OPS[op.type] for op in graph.get_operations())
    shapes = [op for op in graph.get_operations() if op.type == "Shape"]
    assert shapes and shape_from_tensor(shapes[0].outputs[0]).as_list() == [None, 3]
    consts = [op for op in graph.get_operations() if op.type == "Const"]
    assert [constant_value(op.outputs[0]) for op in consts] == [np.float32(2.0)]
    assert [t.op.type for t in graph.inputs] == ["Placeholder"]


@pytest.mark.parametrize(
    "build, rank",
    [
        (lambda x: rt.reshape(x, rt.ones([300], rt.int32)), 300),  # a shape given as a tensor
        (lambda x: rt.fill(rt.ones([255], rt.int32), 1.0), 255),
        (lambda x: x[(None,) * 253], 255),  # x has two dimensions: 253 more make 255
        (lambda x: x[(None,) * 300 + (0, 0)], 300),
    ],
)
def test_a_shape_inferred_from_data_has_at_most_tensorflows_254_dimensions(build, rank):
    with pytest.raises(ValueError, match=f"would have {rank} dimensions: too many dimensions in "):
        _in_graph(build)


def test_254_dimensions_inferred_from_data_are_allowed():
    assert _in_graph(lambda x: x[(None,) * 252]).shape.as_list() == [1] * 252 + [None, 3]
    ones = np.ones(254, np.int32)
    assert _in_graph(lambda x: rt.fill(rt.constant(ones), 1.0)).shape == (1,) * 254


def test_a_long_chain_of_shape_arithmetic_is_not_folded_and_does_not_crash():
    # Folding follows inputs recursively; a chain longer than Python's recursion allows is
    # simply not known while building (it was a RecursionError).
    @ag.function(autograph=False, input_signature=[rt.TensorSpec([None, 4])])
    def reshaped(x):
        n = rt.shape(x)[1]
        for _ in range(1500):
            n = n // 1
        return rt.reshape(x, [-1, n])

    assert reshaped(rt.zeros([2, 4])).shape == (2, 4)
