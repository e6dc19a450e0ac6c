"""Auto-packing: a list or tuple holding tensors, where a tensor is expected, becomes one tensor
(TensorFlow packs it with a Pack op); ``zip``/``enumerate`` mixing Python iterables and tensors.

Each program runs as plain Python (the reference), converted, and traced (``_harness_builtins``).
"""

from __future__ import annotations

import numpy as np
import pytest

import autograph as ag
import runtime as rt
from tests.autograph.conformance._harness_builtins import assert_agree, traced

# --- the programs (modelled on TensorFlow's AutoGraph tests and the conformance corpus) ---------


def concat_with_list_of_tensor(a):
    v = rt.constant([1, 2])
    return rt.concat((v, [a]), 0)


def concat_loop_index_python_loop(n):
    v = rt.constant([0])
    for i in range(3):
        v = rt.concat((v, [i * n]), 0)
    return v


def constant_of_list_with_tensor(a):
    return rt.constant([a, 1])


def convert_to_tensor_of_list_with_tensor(a):
    return rt.convert_to_tensor([a, 0])


def nested_list_with_tensors(a):
    return rt.convert_to_tensor([[a, 1], [2, a]])


def stack_list_with_python_number(a):
    return rt.stack([a, 1])


def reduce_sum_of_list(a):
    return rt.reduce_sum([a, a * 2, 3])


def maximum_with_list(a):
    return rt.maximum(rt.constant([0, 0]), [a, -a])


def tensor_plus_list_with_tensor(a):
    return rt.constant([1, 1]) + [a, a]


def where_with_list_branches(a):
    return rt.where(rt.constant([True, False]), [a, 1], [2, 3])


def gather_from_list(a):
    return rt.gather([a, a + 1, a + 2], 1)


def cast_list_with_tensor(a):
    return rt.cast([a, 1], rt.float32)


def expand_dims_list(a):
    return rt.expand_dims([a, a], 0)


def tuple_of_tensors(a):
    return rt.convert_to_tensor((a, a * 3))


def list_of_tensors_to_tensor_after_python_loop(a):
    parts = []
    for k in range(3):
        parts.append(a + k)
    return rt.convert_to_tensor(parts)


def concat_in_staged_loop_fixed_shape(n):
    v = rt.constant([0, 0])
    for i in rt.range(n):
        v = rt.concat((v[1:], [i]), 0)
    return v


def range_from_symbolic_pair(n):
    bounds = [1, n + 1]
    return rt.reduce_sum(rt.range(bounds[0], bounds[1]))


PACKING = [
    concat_with_list_of_tensor,
    concat_loop_index_python_loop,
    constant_of_list_with_tensor,
    convert_to_tensor_of_list_with_tensor,
    nested_list_with_tensors,
    stack_list_with_python_number,
    reduce_sum_of_list,
    maximum_with_list,
    tensor_plus_list_with_tensor,
    where_with_list_branches,
    gather_from_list,
    cast_list_with_tensor,
    expand_dims_list,
    tuple_of_tensors,
    list_of_tensors_to_tensor_after_python_loop,
    concat_in_staged_loop_fixed_shape,
    range_from_symbolic_pair,
]


@pytest.mark.parametrize("fn", PACKING, ids=lambda f: f.__name__)
@pytest.mark.parametrize("a", [2, -3, 0])
def test_a_list_holding_tensors_is_packed_into_one(fn, a):
    assert_agree(fn, a)


def zip_list_of_tensors_with_rt_range(a, n):
    s = 0
    for x, i in zip([a, a + 1], rt.range(n)):
        s = s * 10 + x + i
    return s


def zip_python_range_with_range(n):
    s = 0
    for x, i in zip(range(3), range(n)):
        s = s * 10 + x + i
    return s


def enumerate_rt_range_with_start(n):
    s = 0
    for k, i in enumerate(rt.range(n), 5):
        s = s * 100 + k * 10 + i
    return s


def zip_unequal_tensors(a, b):
    s = 0
    for x, y in zip(a, b):
        s = s * 10 + x + y
    return s


def zip_python_list_with_tensor(n):
    s = 0
    for w, i in zip([10, 20, 30], range(n)):
        s += w * (i + 1)
    return s


@pytest.mark.parametrize("a", [1, 5])
@pytest.mark.parametrize("n", [0, 2, 3])
def test_zip_of_a_list_of_tensors_and_a_staged_range(a, n):
    assert_agree(zip_list_of_tensors_with_rt_range, a, n)


@pytest.mark.parametrize(
    "fn", [zip_python_range_with_range, enumerate_rt_range_with_start, zip_python_list_with_tensor]
)
@pytest.mark.parametrize("n", [0, 2, 5])
def test_zip_and_enumerate_mixing_python_iterables_and_tensors(fn, n):
    assert_agree(fn, n)


@pytest.mark.parametrize("a, b", [([1, 2, 3], [4, 5]), ([7], [1, 2])])
def test_zip_stops_at_the_shortest(a, b):
    assert_agree(zip_unequal_tensors, a, b)


def test_a_zip_with_a_staged_range_is_one_staged_loop():
    graph = (
        ag.function(zip_python_range_with_range)
        .get_concrete_function(rt.TensorSpec([], rt.int32))
        .graph
    )
    assert [op.type for op in graph.get_operations()].count("While") == 1


# --- what packing builds, and what it refuses ---------------------------------------------------


def test_packing_in_a_graph_makes_pack_ops_not_constants():
    g = rt.Graph()
    with g.as_default():
        a = rt.placeholder(rt.int32, [], name="a")
        t = rt.convert_to_tensor([[a, 1], [2, a]])
    assert t.shape == (2, 2) and t.dtype is rt.int32
    assert t.op.type == "Pack"
    assert [op.type for op in g.get_operations()].count("Pack") == 3
    np.testing.assert_array_equal(rt.Session(g).run(t, {a: 4}), [[4, 1], [2, 4]])


def test_python_numbers_take_the_dtype_of_the_first_tensor():
    g = rt.Graph()
    with g.as_default():
        x = rt.placeholder(rt.float64, [])
        t = rt.constant([1, x, 2.5])
    assert t.dtype is rt.float64
    np.testing.assert_array_equal(rt.Session(g).run(t, {x: 0.5}), [1.0, 0.5, 2.5])


def test_packing_never_converts_a_tensor_silently():
    with rt.Graph().as_default():
        i = rt.placeholder(rt.int32, [])
        with pytest.raises(TypeError, match="float"):
            rt.convert_to_tensor([i, 1.5])  # a float does not silently become int32
        with pytest.raises(TypeError, match="int32"):
            rt.convert_to_tensor([i, 1], dtype=rt.float32)
        with pytest.raises(ValueError, match="shapes"):
            rt.convert_to_tensor([i, [1, 2]])  # not rectangular
        with pytest.raises(TypeError, match="reshape"):
            rt.constant([i, 1], shape=[2, 1])


def test_eager_tensors_in_a_list_still_make_a_constant():
    one = rt.constant(1)  # eager: made outside the graph
    with rt.Graph().as_default() as g:
        t = rt.constant([one, 2])
    assert t.op.type == "Const"
    assert [op.type for op in g.get_operations()] == ["Const"]


def test_a_packed_list_passes_through_a_traced_function_each_run():
    out = traced(concat_in_staged_loop_fixed_shape, 3, runs=2)
    assert out.error is None
    np.testing.assert_array_equal(out.value.numpy(), [1, 2])
