"""Every op of the runtime's public API against numpy (or hand-computed) references.

Each op runs eagerly and in a graph (placeholders + ``Session.run``) through
``op_harness.check_op``, which checks value, dtype and shape of both results and
that they are identical; unknown placeholder dims check the static shapes the ops
infer. Also covered: TensorFlow's dtype rules (defaults, no promotion, Python
scalars taking the tensor's dtype, integer ``/`` giving floats), the operators on
tensors, and hypothesis-generated broadcasting for the elementwise binary ops.
"""

from __future__ import annotations

import re
import warnings

import hypothesis.extra.numpy as hnp
import hypothesis.strategies as st
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings

import runtime as rt
from tests.runtime.ops.op_harness import (
    assert_static_shape,
    assert_value,
    build_graph,
    check_op,
    eager_and_graph_raise,
    run_graph,
    strings,
)

InvalidArgument = rt.errors.InvalidArgumentError

F32 = np.array([[-2.5, -1.0, 0.0], [0.5, 1.0, 3.0]], np.float32)
I32 = np.array([[-3, -1, 0], [1, 2, 7]], np.int32)
B = np.array([[True, False, True], [False, False, True]])
X3 = np.arange(24, dtype=np.float32).reshape(2, 3, 4) / 4 - 2.5
I3 = (np.arange(24, dtype=np.int32).reshape(2, 3, 4) % 7) - 3

HYPOTHESIS = settings(
    max_examples=25,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)


def f32(x):
    return np.array(x, np.float32)


def i32(x):
    return np.array(x, np.int32)


# --- the harness itself can fail --------------------------------------------------------------


def test_harness_rejects_a_wrong_value():
    with pytest.raises(AssertionError):
        check_op(rt.negative, [I32], I32, rt.int32)


def test_harness_rejects_a_wrong_dtype():
    with pytest.raises(AssertionError):
        check_op(rt.identity, [I32], I32.astype(np.int64), rt.int64)


def test_harness_rejects_a_wrong_static_shape():
    with pytest.raises(AssertionError):
        check_op(rt.identity, [I32], I32, rt.int32, shapes=[[None, 3]], static_shape=[2, 3])


# --- constant and convert_to_tensor: TensorFlow's default dtypes ---------------------------


@pytest.mark.parametrize(
    "value, dtype, expected",
    [
        (1, rt.int32, np.int32(1)),
        (-(2**31), rt.int32, np.int32(-(2**31))),
        (2**40, rt.int64, np.int64(2**40)),
        (1.5, rt.float32, np.float32(1.5)),
        (True, rt.bool, np.bool_(True)),
        ("hé", rt.string, "hé".encode()),
        (b"ab", rt.string, b"ab"),
        ([1, 2, 3], rt.int32, i32([1, 2, 3])),
        ([[1.0, 2.0], [3.0, 4.0]], rt.float32, f32([[1, 2], [3, 4]])),
        ([1, 2.5], rt.float32, f32([1, 2.5])),
        ([True, False], rt.bool, np.array([True, False])),
        (["a", "bc"], rt.string, strings(["a", "bc"])),
        ([[b"a"], [b"b"]], rt.string, strings([[b"a"], [b"b"]])),
        ([], rt.float32, np.zeros([0], np.float32)),
        (np.arange(3, dtype=np.int64), rt.int64, np.arange(3, dtype=np.int64)),
        (np.array([0.5, 1.5]), rt.float64, np.array([0.5, 1.5])),
        (np.float16(1.5), rt.float16, np.float16(1.5)),
        (np.uint8(200), rt.uint8, np.uint8(200)),
        (np.array(["a", "bc"]), rt.string, strings(["a", "bc"])),
    ],
    ids=repr,
)
def test_constant_default_dtypes(value, dtype, expected):
    check_op(lambda: rt.constant(value), [], expected, dtype)


@pytest.mark.parametrize(
    "value, kwargs, dtype, expected",
    [
        (1, {"dtype": rt.float32}, rt.float32, np.float32(1)),
        ([1, 2], {"dtype": rt.int64}, rt.int64, np.array([1, 2], np.int64)),
        ([1, 2], {"dtype": rt.float64}, rt.float64, np.array([1, 2], np.float64)),
        (1, {"dtype": "int16"}, rt.int16, np.int16(1)),
        (1.0, {"dtype": np.float64}, rt.float64, np.float64(1)),
        (0, {"shape": [2, 3]}, rt.int32, np.zeros((2, 3), np.int32)),
        (7.0, {"shape": [2]}, rt.float32, f32([7, 7])),
        ([1, 2, 3, 4], {"shape": [2, 2]}, rt.int32, i32([[1, 2], [3, 4]])),
        (
            list(range(6)),
            {"shape": (3, 2), "dtype": rt.uint8},
            rt.uint8,
            np.arange(6, dtype=np.uint8).reshape(3, 2),
        ),
        ("x", {"shape": [2]}, rt.string, strings(["x", "x"])),
        (True, {"shape": [1, 2]}, rt.bool, np.ones((1, 2), bool)),
    ],
    ids=repr,
)
def test_constant_dtype_and_shape_arguments(value, kwargs, dtype, expected):
    check_op(lambda: rt.constant(value, **kwargs), [], expected, dtype)


def test_constant_refuses_a_float_for_an_int_dtype():
    with pytest.raises(TypeError):
        rt.constant(1.5, dtype=rt.int32)


def test_constant_refuses_a_value_that_does_not_fit_the_shape():
    with pytest.raises(
        TypeError, match=r"Expected a value with 4 elements for shape \[2, 2\], got 3"
    ):
        rt.constant([1, 2, 3], shape=[2, 2])


def test_convert_to_tensor_passes_tensors_through():
    t = rt.constant([1, 2])
    assert rt.convert_to_tensor(t) is t
    g = rt.Graph()
    with g.as_default():
        p = rt.placeholder(rt.float32, [None])
        assert rt.convert_to_tensor(p) is p


@pytest.mark.parametrize(
    "value, kwargs, dtype, expected",
    [
        (3, {}, rt.int32, np.int32(3)),
        (3.0, {}, rt.float32, np.float32(3)),
        ("s", {}, rt.string, b"s"),
        ([[1, 2]], {}, rt.int32, i32([[1, 2]])),
        (3, {"dtype": rt.float32}, rt.float32, np.float32(3)),
        ([1, 2], {"dtype": rt.int64}, rt.int64, np.array([1, 2], np.int64)),
        (np.array([1.5], np.float64), {}, rt.float64, np.array([1.5])),
    ],
    ids=repr,
)
def test_convert_to_tensor_values(value, kwargs, dtype, expected):
    check_op(lambda: rt.convert_to_tensor(value, **kwargs), [], expected, dtype)


def test_convert_to_tensor_never_changes_a_requested_dtype_silently():
    with pytest.raises(TypeError):
        rt.convert_to_tensor(1.5, dtype=rt.int32)
    with pytest.raises(TypeError):
        rt.convert_to_tensor("a", dtype=rt.int32)
    with pytest.raises(TypeError, match="requested dtype float32 for a tensor of dtype int32"):
        rt.convert_to_tensor(rt.constant(1), dtype=rt.float32)


# --- zeros, ones, zeros_like, ones_like, fill, range ------------------------------------------


@pytest.mark.parametrize(
    "fn, dtype, expected",
    [
        (lambda: rt.zeros([2, 3]), rt.float32, np.zeros((2, 3), np.float32)),
        (lambda: rt.zeros([2], rt.int32), rt.int32, np.zeros(2, np.int32)),
        (lambda: rt.zeros([], rt.bool), rt.bool, np.bool_(False)),
        (lambda: rt.zeros((0, 2), rt.float64), rt.float64, np.zeros((0, 2))),
        (lambda: rt.ones([3]), rt.float32, np.ones(3, np.float32)),
        (lambda: rt.ones([2, 1], rt.int64), rt.int64, np.ones((2, 1), np.int64)),
        (lambda: rt.ones([2], rt.bool), rt.bool, np.ones(2, bool)),
        (lambda: rt.ones(rt.TensorShape([1, 2]), rt.uint8), rt.uint8, np.ones((1, 2), np.uint8)),
        (lambda: rt.fill([2, 3], 7), rt.int32, np.full((2, 3), 7, np.int32)),
        (lambda: rt.fill([2], 1.5), rt.float32, f32([1.5, 1.5])),
        (lambda: rt.fill([], True), rt.bool, np.bool_(True)),
        (lambda: rt.fill([2], "ab"), rt.string, strings(["ab", "ab"])),
        (lambda: rt.fill([1, 2], rt.constant(3, rt.int64)), rt.int64, np.full((1, 2), 3, np.int64)),
    ],
)
def test_zeros_ones_fill(fn, dtype, expected):
    check_op(fn, [], expected, dtype)


@pytest.mark.parametrize(
    "fn, dtype, fill_value",
    [
        (lambda d: rt.zeros(d), rt.float32, 0),
        (lambda d: rt.zeros(d, rt.int32), rt.int32, 0),
        (lambda d: rt.ones(d, rt.float64), rt.float64, 1),
        (lambda d: rt.fill(d, 9), rt.int32, 9),
    ],
)
def test_zeros_ones_fill_with_a_shape_tensor(fn, dtype, fill_value):
    dims = i32([2, 3])
    expected = np.full((2, 3), fill_value, dtype.as_numpy_dtype)
    check_op(fn, [dims], expected, dtype, static_shape=[None, None])


def test_fill_with_placeholder_value():
    check_op(
        rt.fill, [i32([3]), np.float32(2.5)], f32([2.5, 2.5, 2.5]), rt.float32, static_shape=[None]
    )


def test_zeros_of_strings_are_empty_strings():
    # TensorFlow: tf.zeros([2], tf.string) and tf.zeros_like(strings) hold b"".
    check_op(lambda: rt.zeros([2], rt.string), [], strings(["", ""]), rt.string)
    check_op(rt.zeros_like, [strings(["a", "bc"])], strings(["", ""]), rt.string)


@pytest.mark.parametrize(
    "fn, arg, dtype, expected",
    [
        (rt.zeros_like, I32, rt.int32, np.zeros_like(I32)),
        (rt.ones_like, I32, rt.int32, np.ones_like(I32)),
        (rt.zeros_like, F32, rt.float32, np.zeros_like(F32)),
        (rt.ones_like, B, rt.bool, np.ones_like(B)),
        (rt.zeros_like, B, rt.bool, np.zeros_like(B)),
        (lambda x: rt.zeros_like(x, dtype=rt.float64), I32, rt.float64, np.zeros(I32.shape)),
        (lambda x: rt.ones_like(x, dtype=rt.int64), F32, rt.int64, np.ones(F32.shape, np.int64)),
        (rt.ones_like, np.float32(5), rt.float32, np.float32(1)),
    ],
)
def test_zeros_like_ones_like(fn, arg, dtype, expected):
    check_op(fn, [arg], expected, dtype)
    if np.ndim(arg):
        check_op(fn, [arg], expected, dtype, shapes=[[None, 3]], static_shape=[None, 3])
        check_op(fn, [arg], expected, dtype, shapes=[None], static_shape=None)


@pytest.mark.parametrize(
    "args, kwargs, dtype, expected",
    [
        ((5,), {}, rt.int32, np.arange(5, dtype=np.int32)),
        ((2, 11, 3), {}, rt.int32, i32([2, 5, 8])),
        ((5, 0, -2), {}, rt.int32, i32([5, 3, 1])),
        ((0,), {}, rt.int32, np.zeros(0, np.int32)),
        ((5, 2), {}, rt.int32, np.zeros(0, np.int32)),
        ((1.0, 2.0, 0.5), {}, rt.float32, f32([1.0, 1.5])),
        ((0, 1, 0.25), {}, rt.float32, f32([0, 0.25, 0.5, 0.75])),
        ((4,), {"dtype": rt.float64}, rt.float64, np.arange(4, dtype=np.float64)),
        ((1, 4), {"dtype": rt.int64}, rt.int64, np.array([1, 2, 3], np.int64)),
        ((3,), {"dtype": rt.float32}, rt.float32, f32([0, 1, 2])),
    ],
    ids=repr,
)
def test_range(args, kwargs, dtype, expected):
    check_op(lambda: rt.range(*args, **kwargs), [], expected, dtype)


def test_range_with_placeholders_has_unknown_length():
    check_op(rt.range, [np.int32(4)], np.arange(4, dtype=np.int32), rt.int32, static_shape=[None])
    check_op(
        rt.range,
        [np.int32(10), np.int32(1), np.int32(-3)],
        i32([10, 7, 4]),
        rt.int32,
        static_shape=[None],
    )
    check_op(
        lambda a, b: rt.range(a, b, 0.5),
        [np.float32(1), np.float32(3)],
        f32([1, 1.5, 2, 2.5]),
        rt.float32,
        static_shape=[None],
    )


def test_range_with_zero_delta_is_an_error():
    with pytest.raises(ValueError, match="delta must not be 0"):
        rt.range(0, 5, 0)
    with pytest.raises(InvalidArgument):
        run_graph(lambda d: rt.range(0, 5, d), [np.int32(0)])


# --- cast, reshape, transpose, concat, stack, unstack, expand_dims, squeeze -------------------


@pytest.mark.parametrize(
    "value, dtype, expected",
    [
        (f32([1.7, -1.7, 0.5, -0.5, 3.0]), rt.int32, i32([1, -1, 0, 0, 3])),
        (i32([1, -2, 3]), rt.float32, f32([1, -2, 3])),
        (i32([1, -2, 3]), rt.float64, np.array([1.0, -2.0, 3.0])),
        (np.array([True, False]), rt.int32, i32([1, 0])),
        (np.array([True, False]), rt.float32, f32([1, 0])),
        (i32([0, 2, -1]), rt.bool, np.array([False, True, True])),
        (f32([0.0, 0.5, -2.0]), rt.bool, np.array([False, True, True])),
        (i32([1, -2, 127]), rt.int8, np.array([1, -2, 127], np.int8)),
        (np.array([2**33, -5], np.int64), rt.float64, np.array([2.0**33, -5.0])),
        (f32([1.5, -2.25]), rt.float16, np.array([1.5, -2.25], np.float16)),
        (np.array([1.9, -1.9]), rt.int64, np.array([1, -1], np.int64)),
        (i32(5), rt.int32, i32(5)),
    ],
    ids=repr,
)
def test_cast(value, dtype, expected):
    check_op(lambda x: rt.cast(x, dtype), [value], expected, dtype)
    static = [None] * np.ndim(value)
    check_op(
        lambda x: rt.cast(x, dtype), [value], expected, dtype, shapes=[static], static_shape=static
    )


def test_cast_of_python_values():
    check_op(lambda: rt.cast(3, rt.float32), [], np.float32(3), rt.float32)
    check_op(lambda: rt.cast([1.5, -2.5], rt.int32), [], i32([1, -2]), rt.int32)


@pytest.mark.parametrize(
    "value, new_shape, expected_shape",
    [
        (np.arange(6, dtype=np.int32), [2, 3], (2, 3)),
        (np.arange(6, dtype=np.int32), [2, -1], (2, 3)),
        (np.arange(6, dtype=np.int32), (-1, 2, 1), (3, 2, 1)),
        (I32, [-1], (6,)),
        (X3, [4, 6], (4, 6)),
        (np.float32(4), [1, 1], (1, 1)),
        (np.ones((1, 1), np.int32), [], ()),
        (strings([["a", "b"], ["c", "d"]]), [4], (4,)),
    ],
    ids=repr,
)
def test_reshape(value, new_shape, expected_shape):
    dtype = rt.as_dtype(value.dtype)
    expected = np.reshape(value, expected_shape)
    check_op(lambda x: rt.reshape(x, new_shape), [value], expected, dtype)


@pytest.mark.parametrize(
    "shape, new_shape, static",
    [
        ([None, 3], [-1], [None]),
        ([None, 3], [-1, 3], [None, 3]),
        ([None, 3], [3, -1], [3, None]),
        ([2, None], [-1, 2, 1], [None, 2, 1]),
        (None, [2, -1], [2, None]),
        ([None, None], [6], [6]),
    ],
)
def test_reshape_with_unknown_dims(shape, new_shape, static):
    value = np.arange(6, dtype=np.int32).reshape(2, 3)
    expected = np.reshape(value, new_shape)
    check_op(
        lambda x: rt.reshape(x, new_shape),
        [value],
        expected,
        rt.int32,
        shapes=[shape],
        static_shape=static,
    )


def test_reshape_with_a_shape_tensor():
    value = np.arange(6, dtype=np.float32)
    expected = value.reshape(3, 2)
    check_op(rt.reshape, [value, i32([3, 2])], expected, rt.float32, static_shape=[None, None])


def test_reshape_to_a_wrong_size_is_an_error():
    with pytest.raises(ValueError, match=r"6 elements to shape \[4, 2\]"):
        rt.reshape(rt.range(6), [4, 2])
    with pytest.raises(ValueError):
        build_graph(lambda x: rt.reshape(x, [4, 2]), [np.arange(6, dtype=np.int32)])
    with pytest.raises(InvalidArgument):
        run_graph(lambda x: rt.reshape(x, [4, -1]), [np.arange(6, dtype=np.int32)], shapes=[[None]])


@pytest.mark.parametrize(
    "value, perm",
    [
        (I32, None),
        (F32, (1, 0)),
        (X3, None),
        (X3, (1, 0, 2)),
        (X3, (0, 2, 1)),
        (I3, [2, 0, 1]),
        (strings([["a", "b"]]), None),
        (np.int32(3), None),
    ],
    ids=repr,
)
def test_transpose(value, perm):
    dtype = rt.as_dtype(np.asarray(value).dtype)
    check_op(lambda x: rt.transpose(x, perm), [value], np.transpose(value, perm), dtype)


def test_transpose_with_unknown_dims():
    check_op(rt.transpose, [I32], I32.T, rt.int32, shapes=[[None, 3]], static_shape=[3, None])
    check_op(
        lambda x: rt.transpose(x, (2, 0, 1)),
        [X3],
        np.transpose(X3, (2, 0, 1)),
        rt.float32,
        shapes=[[None, 3, None]],
        static_shape=[None, None, 3],
    )


def test_transpose_rejects_a_bad_perm():
    with pytest.raises(ValueError, match=r"perm \[0, 0\] is not a permutation of 2 dims"):
        rt.transpose(rt.constant(I32), [0, 0])


@pytest.mark.parametrize("axis", [0, 1, -1, -2])
def test_concat(axis):
    a, b = I32, I32 * 10
    check_op(lambda x, y: rt.concat([x, y], axis), [a, b], np.concatenate([a, b], axis), rt.int32)
    c = F32[:, :1]
    if axis in (1, -1):
        check_op(
            lambda x, y, z: rt.concat([x, y, z], axis),
            [F32, c, F32],
            np.concatenate([F32, c, F32], axis),
            rt.float32,
        )


def test_concat_python_lists_and_strings():
    check_op(lambda: rt.concat([[1, 2], [3]], 0), [], i32([1, 2, 3]), rt.int32)
    s1, s2 = strings(["a"]), strings(["b", "c"])
    check_op(lambda x, y: rt.concat([x, y], 0), [s1, s2], strings(["a", "b", "c"]), rt.string)


@pytest.mark.parametrize(
    "a_shape, b_shape, shapes, axis, static",
    [
        ((3, 3), (2, 3), [[None, 3], [2, 3]], 0, [None, 3]),
        ((2, 3), (2, 4), [[2, None], [2, 4]], 1, [2, None]),
        ((2, 3), (2, 4), [[None, 3], [None, 4]], 1, [None, 7]),
        ((2, 3), (2, 4), [[None, None], [2, 4]], -1, [2, None]),
        ((3, 4), (2, 4), [None, [2, 4]], 0, [None, 4]),
    ],
)
def test_concat_with_unknown_dims(a_shape, b_shape, shapes, axis, static):
    a, b = np.ones(a_shape, np.float32), np.zeros(b_shape, np.float32)
    expected = np.concatenate([a, b], axis)
    check_op(
        lambda x, y: rt.concat([x, y], axis),
        [a, b],
        expected,
        rt.float32,
        shapes=shapes,
        static_shape=static,
    )


def test_concat_errors():
    with pytest.raises(TypeError):
        rt.concat([rt.constant([1]), rt.constant([1.0])], 0)
    with pytest.raises(ValueError, match=r"concat: dimension 1 differs between inputs \(2 vs 3\)"):
        rt.concat([rt.constant([[1, 2]]), rt.constant([[1, 2, 3]])], 0)


@pytest.mark.parametrize("axis", [0, 1, 2, -1, -3])
def test_stack(axis):
    a, b, c = I32, I32 + 1, I32 * 2
    check_op(
        lambda x, y, z: rt.stack([x, y, z], axis), [a, b, c], np.stack([a, b, c], axis), rt.int32
    )


def test_stack_scalars_python_values_and_unknown_dims():
    check_op(lambda: rt.stack([1, 2, 3]), [], i32([1, 2, 3]), rt.int32)
    check_op(
        lambda x, y: rt.stack([x, y]),
        [np.float32(1), np.float32(2)],
        f32([1, 2]),
        rt.float32,
    )
    check_op(
        lambda x, y: rt.stack([x, y], axis=1),
        [F32, F32 * 2],
        np.stack([F32, F32 * 2], axis=1),
        rt.float32,
        shapes=[[None, 3], [2, None]],
        static_shape=[2, 2, 3],
    )
    check_op(
        lambda x, y: rt.stack([x, y], axis=1),
        [F32, F32 * 2],
        np.stack([F32, F32 * 2], axis=1),
        rt.float32,
        shapes=[[None, 3], [None, 3]],
        static_shape=[None, 2, 3],
    )


def test_list_inputs_convert_python_values_to_the_dtype_of_their_tensors():
    # TensorFlow converts the non-tensor items of a list input (stack, concat) to the
    # dtype of the tensors in it: a Python scalar next to a tensor takes its dtype.
    check_op(lambda x: rt.stack([x, 2.0]), [np.float64(1)], np.array([1.0, 2.0]), rt.float64)
    check_op(lambda x: rt.stack([1, x]), [np.int64(2)], np.array([1, 2], np.int64), rt.int64)
    check_op(
        lambda x: rt.concat([x, [2.0]], 0), [np.array([1.0])], np.array([1.0, 2.0]), rt.float64
    )


def test_stack_and_concat_of_no_tensors_raise_value_error():
    with pytest.raises(ValueError):
        rt.stack([])
    with pytest.raises(ValueError):
        rt.concat([], 0)


def test_stack_errors():
    with pytest.raises(TypeError):
        rt.stack([rt.constant(1), rt.constant(1.0)])
    with pytest.raises(ValueError, match=r"stack: shapes \(2,\) and \(3,\) of the inputs differ"):
        rt.stack([rt.constant([1, 2]), rt.constant([1, 2, 3])])


@pytest.mark.parametrize("axis", [0, 1, 2, -1])
def test_unstack(axis):
    expected = list(np.moveaxis(X3, axis, 0))
    check_op(lambda x: rt.unstack(x, axis=axis), [X3], expected, rt.float32)


def test_unstack_with_unknown_dims():
    expected = list(I32.T)
    check_op(
        lambda x: rt.unstack(x, axis=1),
        [I32],
        expected,
        rt.int32,
        shapes=[[None, 3]],
        static_shape=[[None]] * 3,
    )
    check_op(
        lambda x: rt.unstack(x, num=2),
        [I32],
        list(I32),
        rt.int32,
        shapes=[[None, 3]],
        static_shape=[[3], [3]],
    )
    with pytest.raises(ValueError):
        build_graph(rt.unstack, [I32], shapes=[[None, 3]])


@pytest.mark.parametrize("axis", [0, 1, 2, -1, -3])
def test_expand_dims(axis):
    check_op(lambda x: rt.expand_dims(x, axis), [I32], np.expand_dims(I32, axis), rt.int32)


def test_expand_dims_scalar_and_unknown_dims():
    check_op(lambda x: rt.expand_dims(x, 0), [np.float32(2)], f32([2]), rt.float32)
    check_op(
        lambda x: rt.expand_dims(x, -1),
        [I32],
        I32[..., None],
        rt.int32,
        shapes=[[None, 3]],
        static_shape=[None, 3, 1],
    )
    check_op(
        lambda x: rt.expand_dims(x, 0),
        [I32],
        I32[None],
        rt.int32,
        shapes=[[None, 3]],
        static_shape=[1, None, 3],
    )


@pytest.mark.parametrize("axis", [None, 0, 2, -2, [0], (0, 2), [-2, 0]])
def test_squeeze(axis):
    value = np.arange(6, dtype=np.int32).reshape(1, 2, 1, 3, 1)[..., 0]
    np_axis = tuple(axis) if isinstance(axis, (list, tuple)) else axis
    check_op(lambda x: rt.squeeze(x, axis), [value], np.squeeze(value, np_axis), rt.int32)


def test_squeeze_with_unknown_dims():
    value = np.ones((2, 1, 3), np.float32)
    check_op(
        lambda x: rt.squeeze(x, axis=1),
        [value],
        value[:, 0],
        rt.float32,
        shapes=[[None, 1, 3]],
        static_shape=[None, 3],
    )
    check_op(
        lambda x: rt.squeeze(x, axis=[1]),
        [value],
        value[:, 0],
        rt.float32,
        shapes=[[2, None, 3]],
        static_shape=[2, 3],
    )


def test_squeeze_of_a_dim_that_is_not_1_is_an_error():
    with pytest.raises(ValueError, match="cannot squeeze dimension 0 of size 2"):
        rt.squeeze(rt.constant(I32), axis=0)
    with pytest.raises(InvalidArgument):
        run_graph(lambda x: rt.squeeze(x, axis=0), [I32], shapes=[[None, 3]])


# --- shape, size, rank, identity ------------------------------------------------------------


@pytest.mark.parametrize(
    "value", [I32, X3, np.float32(1), strings(["a", "b"]), np.zeros((0, 2), bool)], ids=repr
)
def test_shape_size_rank(value):
    dtype_shape = np.array(np.shape(value), np.int32)
    check_op(rt.shape, [value], dtype_shape, rt.int32)
    check_op(
        lambda x: rt.shape(x, out_type=rt.int64), [value], dtype_shape.astype(np.int64), rt.int64
    )
    check_op(rt.size, [value], np.int32(np.size(value)), rt.int32)
    check_op(lambda x: rt.size(x, out_type=rt.int64), [value], np.int64(np.size(value)), rt.int64)
    check_op(rt.rank, [value], np.int32(np.ndim(value)), rt.int32)


def test_shape_size_rank_of_unknown_dims_are_computed_when_run():
    value = np.zeros((4, 3), np.float32)
    check_op(rt.shape, [value], i32([4, 3]), rt.int32, shapes=[[None, 3]], static_shape=[2])
    check_op(rt.shape, [value], i32([4, 3]), rt.int32, shapes=[None], static_shape=[None])
    check_op(rt.size, [value], np.int32(12), rt.int32, shapes=[[None, None]], static_shape=[])
    check_op(rt.rank, [value], np.int32(2), rt.int32, shapes=[None], static_shape=[])


@pytest.mark.parametrize(
    "value", [I32, F32, B, strings([["x"], ["yz"]]), np.int64(3), strings("s")], ids=repr
)
def test_identity(value):
    dtype = rt.as_dtype(np.asarray(value).dtype)
    check_op(rt.identity, [value], value, dtype)
    static = [None] * np.ndim(value)
    check_op(rt.identity, [value], value, dtype, shapes=[static], static_shape=static)


# --- where, gather --------------------------------------------------------------------------


def test_where_selects_elementwise():
    x, y = I32, -I32
    check_op(rt.where, [B, x, y], np.where(B, x, y), rt.int32)
    check_op(rt.where, [B, F32, F32 * 10], np.where(B, F32, F32 * 10), rt.float32)
    sx, sy = strings([["a", "b", "c"]] * 2), strings("z")
    check_op(rt.where, [B, sx, sy], np.where(B, sx, sy), rt.string)


def test_where_broadcasts():
    c = np.array([[True], [False]])
    x = f32([[1, 2, 3]])
    y = np.float32(-1)
    check_op(rt.where, [c, x, y], np.where(c, x, y), rt.float32)
    check_op(
        rt.where,
        [c, x, y],
        np.where(c, x, y),
        rt.float32,
        shapes=[[None, 1], [1, 3], []],
        static_shape=[None, 3],
    )
    check_op(lambda c: rt.where(c, 1, 0), [B], np.where(B, 1, 0).astype(np.int32), rt.int32)


@pytest.mark.parametrize(
    "cond",
    [
        np.array([False, True, True, False]),
        B,
        np.zeros((2, 2), bool),
        np.array([[[True], [False]], [[True], [True]]]),
        np.bool_(True),
    ],
    ids=repr,
)
def test_where_with_only_a_condition_gives_int64_indices(cond):
    expected = np.argwhere(cond).astype(np.int64)
    check_op(rt.where, [cond], expected, rt.int64, static_shape=[None, np.ndim(cond)])
    static = [None] * np.ndim(cond)
    check_op(
        rt.where, [cond], expected, rt.int64, shapes=[static], static_shape=[None, np.ndim(cond)]
    )


def test_where_errors():
    with pytest.raises(TypeError):
        rt.where(rt.constant([1, 0]), 1, 2)
    with pytest.raises(TypeError):
        rt.where(rt.constant([True]), rt.constant(1), rt.constant(1.0))
    with pytest.raises(ValueError):
        rt.where([True], x=1)


@pytest.mark.parametrize(
    "indices, axis",
    [
        (i32([2, 0, 2]), 0),
        (i32([[0, 1], [3, 2]]), 0),
        (np.int32(3), 0),
        (np.array([1, 1], np.int64), 0),
        (i32([2, 0]), 1),
        (i32([[0], [2]]), 1),
        (i32([1]), -1),
        (np.zeros(0, np.int32), 0),
    ],
    ids=repr,
)
def test_gather(indices, axis):
    params = np.arange(12, dtype=np.int32).reshape(4, 3)
    expected = np.take(params, indices, axis=axis)
    check_op(lambda p, i: rt.gather(p, i, axis=axis), [params, indices], expected, rt.int32)


def test_gather_strings_and_unknown_dims():
    words = strings(["a", "b", "c"])
    check_op(rt.gather, [words, i32([2, 2, 0])], strings(["c", "c", "a"]), rt.string)
    params = np.arange(12, dtype=np.float32).reshape(4, 3)
    idx = i32([3, 1])
    check_op(
        rt.gather,
        [params, idx],
        params[[3, 1]],
        rt.float32,
        shapes=[[None, 3], [None]],
        static_shape=[None, 3],
    )
    check_op(
        lambda p, i: rt.gather(p, i, axis=1),
        [params, i32([2, 0])],
        params[:, [2, 0]],
        rt.float32,
        shapes=[[None, 3], [2]],
        static_shape=[None, 2],
    )


@pytest.mark.parametrize("bad", [4, -1])
def test_gather_out_of_range_is_an_error(bad):
    params = np.arange(4, dtype=np.int32)
    eager_and_graph_raise(rt.gather, [params, i32([0, bad])], InvalidArgument)


def test_gather_needs_integer_indices():
    with pytest.raises(TypeError):
        rt.gather(rt.constant([1, 2]), rt.constant([0.0]))


# --- binary elementwise ops: explicit cases ---------------------------------------------------

INT_BINARY = {
    "add": (rt.add, np.add),
    "subtract": (rt.subtract, np.subtract),
    "multiply": (rt.multiply, np.multiply),
    "floordiv": (rt.floordiv, np.floor_divide),
    "mod": (rt.mod, np.mod),
    "pow": (rt.pow, np.power),
    "maximum": (rt.maximum, np.maximum),
    "minimum": (rt.minimum, np.minimum),
    "equal": (rt.equal, np.equal),
    "not_equal": (rt.not_equal, np.not_equal),
    "less": (rt.less, np.less),
    "less_equal": (rt.less_equal, np.less_equal),
    "greater": (rt.greater, np.greater),
    "greater_equal": (rt.greater_equal, np.greater_equal),
}
COMPARISONS = {"equal", "not_equal", "less", "less_equal", "greater", "greater_equal"}


@pytest.mark.parametrize("name", sorted(INT_BINARY))
@pytest.mark.parametrize(
    "np_dtype", [np.int32, np.int64, np.float32, np.float64, np.int8, np.uint8, np.float16]
)
def test_binary_ops_keep_the_dtype(name, np_dtype):
    rt_fn, np_fn = INT_BINARY[name]
    x = np.array([[1, 2, 3], [4, 5, 6]], np_dtype)
    y = np.array([3, 2, 1], np_dtype)
    expected = np_fn(x, y)
    dtype = rt.bool if name in COMPARISONS else rt.as_dtype(np_dtype)
    check_op(rt_fn, [x, y], expected, dtype)


def test_floordiv_and_mod_follow_python_with_negatives():
    x = i32([7, -7, 7, -7, 0, 6])
    y = i32([2, 2, -2, -2, 3, -3])
    floor = i32([7 // 2, -7 // 2, 7 // -2, -7 // -2, 0, 6 // -3])
    assert floor.tolist() == [3, -4, -4, 3, 0, -2]
    check_op(rt.floordiv, [x, y], floor, rt.int32)
    check_op(rt.mod, [x, y], i32([1, 1, -1, -1, 0, 0]), rt.int32)
    fx, fy = f32([7.5, -7.5, 7.5, -7.5]), f32([2, 2, -2, -2])
    check_op(rt.floordiv, [fx, fy], f32([3, -4, -4, 3]), rt.float32)
    check_op(rt.mod, [fx, fy], f32([1.5, 0.5, -0.5, -1.5]), rt.float32)


@pytest.mark.parametrize("fn", [rt.floordiv, rt.mod], ids=["floordiv", "mod"])
@pytest.mark.parametrize("np_dtype", [np.int32, np.int64, np.uint8])
def test_integer_division_by_zero_is_an_error(fn, np_dtype):
    x, y = np.array([4, 5], np_dtype), np.array([2, 0], np_dtype)
    eager_and_graph_raise(fn, [x, y], InvalidArgument)


def test_float_division_by_zero_gives_inf_and_nan():
    x, y = f32([1, -1, 0]), f32([0, 0, 0])
    check_op(rt.divide, [x, y], f32([np.inf, -np.inf, np.nan]), rt.float32)
    check_op(rt.floordiv, [x[:2], y[:2]], f32([np.inf, -np.inf]), rt.float32)


@pytest.mark.parametrize(
    "np_dtype, out",
    [
        (np.int8, rt.float32),
        (np.int16, rt.float32),
        (np.uint8, rt.float32),
        (np.int32, rt.float64),
        (np.int64, rt.float64),
        (np.float16, rt.float16),
        (np.float32, rt.float32),
        (np.float64, rt.float64),
    ],
)
def test_divide_of_integers_gives_floats_like_tensorflow_truediv(np_dtype, out):
    x, y = np.array([7, 1, 9], np_dtype), np.array([2, 4, 3], np_dtype)
    expected = np.array([3.5, 0.25, 3.0], out.as_numpy_dtype)
    check_op(rt.divide, [x, y], expected, out)
    check_op(lambda a, b: a / b, [x, y], expected, out)


def test_divide_python_ints_and_integer_division_by_zero():
    check_op(lambda: rt.divide(7, 2), [], np.float64(3.5), rt.float64)
    check_op(rt.divide, [i32([1, -1, 0]), i32(0)], np.array([np.inf, -np.inf, np.nan]), rt.float64)


def test_pow_cases():
    check_op(rt.pow, [i32([2, -3, 5]), i32([0, 3, 2])], i32([1, -27, 25]), rt.int32)
    check_op(rt.pow, [f32([4, 2, 9]), f32([0.5, -1, 0.5])], f32([2, 0.5, 3]), rt.float32)
    check_op(lambda x: 2**x, [i32([1, 2, 3])], i32([2, 4, 8]), rt.int32)
    check_op(lambda x: x**2, [f32([1.5, -2])], f32([2.25, 4]), rt.float32)


def test_comparisons_and_equality_on_other_dtypes():
    words, word = strings(["a", "b", "a"]), strings("a")
    check_op(rt.equal, [words, word], np.array([True, False, True]), rt.bool)
    check_op(rt.not_equal, [words, word], np.array([False, True, False]), rt.bool)
    p, q = np.array([True, True, False]), np.array([True, False, False])
    check_op(rt.equal, [p, q], np.array([True, False, True]), rt.bool)
    check_op(rt.not_equal, [p, q], np.array([False, True, False]), rt.bool)
    check_op(lambda: rt.equal(["a", "b"], "a"), [], np.array([True, False]), rt.bool)
    check_op(lambda: rt.less(1, 2), [], np.bool_(True), rt.bool)


def test_ordering_comparisons_reject_strings_and_bools():
    for fn in (rt.less, rt.less_equal, rt.greater, rt.greater_equal):
        with pytest.raises(TypeError):
            fn(rt.constant(["a"]), rt.constant(["b"]))


@pytest.mark.parametrize(
    "name, fn, table",
    [
        ("and", rt.logical_and, [True, False, False, False]),
        ("or", rt.logical_or, [True, True, True, False]),
    ],
)
def test_logical_binary_ops(name, fn, table):
    p = np.array([True, True, False, False])
    q = np.array([True, False, True, False])
    check_op(fn, [p, q], np.array(table), rt.bool)
    check_op(fn, [p, np.bool_(True)], p & True if name == "and" else p | True, rt.bool)
    check_op(fn, [p, q], np.array(table), rt.bool, shapes=[[None], [None]], static_shape=[None])


def test_logical_not():
    check_op(rt.logical_not, [B], ~B, rt.bool)
    check_op(rt.logical_not, [np.bool_(False)], np.bool_(True), rt.bool)
    check_op(rt.logical_not, [B], ~B, rt.bool, shapes=[[None, 3]], static_shape=[None, 3])


def test_logical_ops_reject_non_bools():
    with pytest.raises(TypeError):
        rt.logical_and(rt.constant([1]), rt.constant([0]))
    with pytest.raises(TypeError):
        rt.logical_or(rt.constant([1.0]), rt.constant([0.0]))
    with pytest.raises(TypeError):
        rt.logical_not(rt.constant([1]))


def test_arithmetic_rejects_strings_and_bools():
    with pytest.raises(TypeError):
        rt.subtract(rt.constant(["a"]), rt.constant(["b"]))
    with pytest.raises(TypeError):
        rt.multiply(rt.constant(True), rt.constant(False))
    with pytest.raises(TypeError):
        rt.add(rt.constant([True]), rt.constant([False]))


def test_broadcasting_static_shapes_with_unknown_dims():
    a, b = np.ones((2, 3), np.float32), np.ones((3,), np.float32)
    check_op(rt.add, [a, b], a + b, rt.float32, shapes=[[None, 3], [3]], static_shape=[None, 3])
    c, d = np.ones((2, 1), np.float32), np.ones((4,), np.float32)
    check_op(
        rt.multiply, [c, d], c * d, rt.float32, shapes=[[None, 1], [4]], static_shape=[None, 4]
    )
    check_op(rt.subtract, [a, b], a - b, rt.float32, shapes=[None, [3]], static_shape=None)
    check_op(rt.less, [a, a], a < a, rt.bool, shapes=[[None, 3], [2, None]], static_shape=[2, 3])


def test_incompatible_broadcast_is_an_error():
    with pytest.raises(ValueError, match=re.escape("Incompatible shapes: [2,3] vs. [4] [Op:Add]")):
        rt.add(rt.ones([2, 3]), rt.ones([4]))
    with pytest.raises(ValueError):
        build_graph(rt.add, [np.ones((2, 3), np.float32), np.ones(4, np.float32)])
    with pytest.raises(InvalidArgument):
        run_graph(
            rt.add,
            [np.ones((2, 3), np.float32), np.ones(4, np.float32)],
            shapes=[[None, 3], [None]],
        )


# --- binary elementwise ops: hypothesis over broadcasting shapes -----------------------------


def _int_operands(name):
    if name == "pow":
        return st.integers(-4, 4), st.integers(0, 4)
    if name in ("floordiv", "mod"):
        return st.integers(-50, 50), st.integers(-9, 9).filter(bool)
    return st.integers(-50, 50), st.integers(-50, 50)


def _float_operands(name):
    if name == "pow":
        return st.floats(0.125, 8, width=32), st.floats(-3, 3, width=32)
    if name in ("floordiv", "mod", "divide"):
        return (
            st.floats(-100, 100, width=32),
            st.one_of(st.floats(0.25, 100, width=32), st.floats(-100, -0.25, width=32)),
        )
    return st.floats(-100, 100, width=32), st.floats(-100, 100, width=32)


@st.composite
def _operands(draw, np_dtype, elements):
    shapes = draw(hnp.mutually_broadcastable_shapes(num_shapes=2, max_dims=3, max_side=3))
    a_shape, b_shape = shapes.input_shapes
    a = draw(hnp.arrays(np_dtype, a_shape, elements=elements[0]))
    b = draw(hnp.arrays(np_dtype, b_shape, elements=elements[1]))
    return a, b


def _check_broadcast(rt_fn, ref, a, b, dtype):
    check_op(rt_fn, [a, b], ref, dtype)
    unknown = [[None] * a.ndim, [None] * b.ndim]
    check_op(rt_fn, [a, b], ref, dtype, shapes=unknown, static_shape=[None] * np.ndim(ref))


@pytest.mark.parametrize("name", sorted(INT_BINARY))
@HYPOTHESIS
@given(data=st.data())
def test_int32_binary_ops_broadcast_like_numpy(name, data):
    rt_fn, np_fn = INT_BINARY[name]
    a, b = data.draw(_operands(np.int32, _int_operands(name)))
    ref = np.asarray(np_fn(a, b))
    dtype = rt.bool if name in COMPARISONS else rt.int32
    _check_broadcast(rt_fn, ref, a, b, dtype)


FLOAT_BINARY = dict(INT_BINARY, divide=(rt.divide, np.true_divide))


@pytest.mark.parametrize("name", sorted(FLOAT_BINARY))
@HYPOTHESIS
@given(data=st.data())
def test_float32_binary_ops_broadcast_like_numpy(name, data):
    rt_fn, np_fn = FLOAT_BINARY[name]
    a, b = data.draw(_operands(np.float32, _float_operands(name)))
    with np.errstate(all="ignore"):
        ref = np.asarray(np_fn(a, b))
    dtype = rt.bool if name in COMPARISONS else rt.float32
    _check_broadcast(rt_fn, ref, a, b, dtype)


@HYPOTHESIS
@given(data=st.data())
def test_int32_divide_broadcasts_to_float64(data):
    a, b = data.draw(_operands(np.int32, (st.integers(-50, 50), st.integers(-9, 9).filter(bool))))
    ref = a.astype(np.float64) / b.astype(np.float64)
    _check_broadcast(rt.divide, ref, a, b, rt.float64)


@pytest.mark.parametrize("name", ["logical_and", "logical_or", "equal", "not_equal"])
@HYPOTHESIS
@given(data=st.data())
def test_bool_binary_ops_broadcast_like_numpy(name, data):
    np_fn = {"logical_and": np.logical_and, "logical_or": np.logical_or}.get(name) or getattr(
        np, name
    )
    a, b = data.draw(_operands(np.bool_, (st.booleans(), st.booleans())))
    _check_broadcast(getattr(rt, name), np.asarray(np_fn(a, b)), a, b, rt.bool)


# --- unary elementwise ops --------------------------------------------------------------------

POSITIVE = f32([[0.25, 1.0, 2.0], [4.0, 9.0, 100.0]])


def _sigmoid_ref(x):
    return (1 / (1 + np.exp(-x.astype(np.float64)))).astype(x.dtype)


UNARY = [
    ("negative", rt.negative, np.negative, [F32, I32, X3.astype(np.float64), np.int64(-5)]),
    ("abs", rt.abs, np.abs, [F32, I32, np.array([-128 + 1, 5], np.int8), np.float32(-0.5)]),
    ("sign", rt.sign, np.sign, [F32, I32, np.array([-2.0, 0.0, 3.0])]),
    ("square", rt.square, np.square, [F32, I32, np.int64(-7)]),
    ("sqrt", rt.sqrt, np.sqrt, [POSITIVE, POSITIVE.astype(np.float64), np.float32(16)]),
    ("exp", rt.exp, np.exp, [F32, X3.astype(np.float64), np.float16(1)]),
    ("log", rt.log, np.log, [POSITIVE, POSITIVE.astype(np.float64)]),
    ("sin", rt.sin, np.sin, [F32, X3]),
    ("cos", rt.cos, np.cos, [F32, X3.astype(np.float64)]),
    ("tanh", rt.tanh, np.tanh, [F32, X3.astype(np.float64), f32([-50, 50])]),
    ("sigmoid", rt.sigmoid, _sigmoid_ref, [F32, X3.astype(np.float64), f32([-100, 0, 100])]),
    (
        "relu",
        rt.nn.relu,
        lambda x: np.maximum(x, np.zeros_like(x)),
        [F32, I32, X3.astype(np.float64)],
    ),
    ("logical_not", rt.logical_not, np.logical_not, [B]),
]


@pytest.mark.parametrize(
    "rt_fn, np_fn, value",
    [(fn, ref, v) for _, fn, ref, values in UNARY for v in values],
    ids=[
        f"{name}-{np.asarray(v).dtype}-{np.shape(v)}"
        for name, _, _, values in UNARY
        for v in values
    ],
)
def test_unary_ops(rt_fn, np_fn, value):
    expected = np.asarray(np_fn(value)).astype(np.asarray(value).dtype)
    dtype = rt.as_dtype(np.asarray(value).dtype)
    check_op(rt_fn, [value], expected, dtype)
    static = [None] * np.ndim(value)
    check_op(rt_fn, [value], expected, dtype, shapes=[static], static_shape=static)
    check_op(rt_fn, [value], expected, dtype, shapes=[None], static_shape=None)


def test_unary_hand_computed_values():
    check_op(rt.abs, [f32([-1.5, 2.0])], f32([1.5, 2.0]), rt.float32)
    check_op(rt.sign, [i32([-7, 0, 3])], i32([-1, 0, 1]), rt.int32)
    check_op(rt.sqrt, [f32([4.0, 0.0])], f32([2.0, 0.0]), rt.float32)
    check_op(rt.sigmoid, [np.float32(0)], np.float32(0.5), rt.float32)
    check_op(rt.exp, [f32([0.0, 1.0])], f32([1.0, np.e]), rt.float32)
    check_op(rt.log, [f32([1.0, np.e])], f32([0.0, 1.0]), rt.float32)
    check_op(rt.nn.relu, [i32([-1, 0, 2])], i32([0, 0, 2]), rt.int32)
    check_op(rt.square, [i32([-3, 4])], i32([9, 16]), rt.int32)
    check_op(rt.tanh, [np.float64(0)], np.float64(0), rt.float64)


def test_log_and_sqrt_of_out_of_domain_values_are_nan_or_inf_not_errors():
    check_op(rt.log, [f32([0.0, -1.0])], f32([-np.inf, np.nan]), rt.float32)
    check_op(rt.sqrt, [f32([-1.0])], f32([np.nan]), rt.float32)


@pytest.mark.parametrize(
    "fn, args, expected, dtype",
    [
        (rt.divide, [f32([1, 0]), f32([0, 0])], f32([np.inf, np.nan]), rt.float32),
        (rt.log, [f32([0])], f32([-np.inf]), rt.float32),
        (rt.exp, [f32([100])], f32([np.inf]), rt.float32),
        (rt.multiply, [f32([3e38]), f32([10])], f32([np.inf]), rt.float32),
        (rt.add, [f32([3e38]), f32([3e38])], f32([np.inf]), rt.float32),
        (rt.square, [f32([1e30])], f32([np.inf]), rt.float32),
        (rt.reduce_sum, [f32([3e38, 3e38])], np.float32(np.inf), rt.float32),
        (rt.reduce_mean, [np.zeros(0, np.float32)], np.float32(np.nan), rt.float32),
        (rt.multiply, [i32([2**30]), i32([4])], i32([0]), rt.int32),
        (rt.add, [np.int32(2**31 - 1), np.int32(1)], np.int32(-(2**31)), rt.int32),
    ],
    ids=[
        "div0",
        "log0",
        "exp-overflow",
        "mul-overflow",
        "add-overflow",
        "square-overflow",
        "sum-overflow",
        "mean-empty",
        "int-mul-wraps",
        "int-add-wraps",
    ],
)
def test_inf_nan_and_wrapping_results_are_silent(fn, args, expected, dtype):
    # As in TensorFlow: IEEE results (inf, nan) and integer wrap-around, with no numpy warnings.
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_op(fn, args, expected, dtype)


def test_integer_pow_with_a_negative_exponent_is_an_error():
    eager_and_graph_raise(rt.pow, [i32([2, 3]), i32([1, -1])], InvalidArgument)


@pytest.mark.parametrize(
    "fn",
    [rt.sqrt, rt.exp, rt.log, rt.sin, rt.cos, rt.tanh, rt.sigmoid, rt.nn.softmax],
    ids=["sqrt", "exp", "log", "sin", "cos", "tanh", "sigmoid", "softmax"],
)
def test_float_only_ops_reject_integers(fn):
    with pytest.raises(TypeError):
        fn(rt.constant([1, 2]))
    with pytest.raises(TypeError):
        build_graph(fn, [i32([1, 2])])


def test_unary_ops_on_python_values():
    check_op(lambda: rt.negative([1, -2]), [], i32([-1, 2]), rt.int32)
    check_op(lambda: rt.sqrt(4.0), [], np.float32(2), rt.float32)
    check_op(lambda: rt.abs(-3), [], np.int32(3), rt.int32)


# --- matmul -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "a_shape, b_shape, kwargs",
    [
        ((2, 3), (3, 4), {}),
        ((1, 1), (1, 1), {}),
        ((3, 2), (3, 4), {"transpose_a": True}),
        ((2, 3), (4, 3), {"transpose_b": True}),
        ((3, 2), (4, 3), {"transpose_a": True, "transpose_b": True}),
        ((2, 2, 3), (2, 3, 4), {}),
        ((2, 2, 3), (3, 4), {}),
        ((2, 1, 2, 3), (3, 3, 2), {}),
        ((2, 3, 2), (2, 4, 3), {"transpose_a": True, "transpose_b": True}),
    ],
)
@pytest.mark.parametrize("np_dtype", [np.int32, np.float32, np.float64])
def test_matmul(a_shape, b_shape, kwargs, np_dtype):
    a = (np.arange(np.prod(a_shape)) % 5 - 2).reshape(a_shape).astype(np_dtype)
    b = (np.arange(np.prod(b_shape)) % 7 - 3).reshape(b_shape).astype(np_dtype)
    ea = np.swapaxes(a, -1, -2) if kwargs.get("transpose_a") else a
    eb = np.swapaxes(b, -1, -2) if kwargs.get("transpose_b") else b
    expected = np.matmul(ea, eb)
    dtype = rt.as_dtype(np_dtype)
    check_op(lambda x, y: rt.matmul(x, y, **kwargs), [a, b], expected, dtype)
    if not kwargs:
        check_op(lambda x, y: x @ y, [a, b], expected, dtype)


def test_matmul_hand_computed_and_unknown_dims():
    check_op(lambda: rt.matmul([[1, 2]], [[3], [4]]), [], i32([[11]]), rt.int32)
    a = f32([[1, 2, 3], [4, 5, 6]])
    b = f32([[1, 0], [0, 1], [1, 1]])
    expected = f32([[4, 5], [10, 11]])
    check_op(
        rt.matmul, [a, b], expected, rt.float32, shapes=[[None, 3], [3, 2]], static_shape=[None, 2]
    )
    check_op(
        rt.matmul, [a, b], expected, rt.float32, shapes=[[2, None], [None, 2]], static_shape=[2, 2]
    )
    check_op(rt.matmul, [a, b], expected, rt.float32, shapes=[None, [3, 2]], static_shape=None)


def test_matmul_errors():
    with pytest.raises(
        ValueError, match=re.escape("Matrix size-incompatible: In[0]: [2,3], In[1]: [4,5]")
    ):
        rt.matmul(rt.ones([2, 3]), rt.ones([4, 5]))
    with pytest.raises(ValueError):
        build_graph(rt.matmul, [np.ones((2, 3), np.float32), np.ones((4, 5), np.float32)])
    with pytest.raises(InvalidArgument):
        run_graph(
            rt.matmul,
            [np.ones((2, 3), np.float32), np.ones((4, 5), np.float32)],
            shapes=[[None, None], [None, None]],
        )
    with pytest.raises(ValueError, match="MatMul needs tensors of rank >= 2"):
        rt.matmul(rt.ones([3]), rt.ones([3]))
    with pytest.raises(TypeError):
        rt.matmul(rt.ones([2, 2]), rt.constant([[1, 2], [3, 4]]))


# --- reductions -------------------------------------------------------------------------------

AXES = [None, 0, 1, -1, -3, [0, 2], [-3, 2], (2, 1), []]  # -3 is -rank: the first axis


def _np_axis(axis):
    return tuple(axis) if isinstance(axis, (list, tuple)) else axis


def _int_mean(x, axis, keepdims):
    total = np.sum(x, axis=axis, keepdims=keepdims, dtype=np.int64)
    count = np.size(x) // max(np.size(total), 1)
    return np.trunc(total / count).astype(x.dtype)


REDUCTIONS = {
    "reduce_sum": lambda x, axis, keepdims: np.sum(x, axis=axis, keepdims=keepdims, dtype=x.dtype),
    "reduce_prod": lambda x, axis, keepdims: np.prod(
        x, axis=axis, keepdims=keepdims, dtype=x.dtype
    ),
    "reduce_max": lambda x, axis, keepdims: np.max(x, axis=axis, keepdims=keepdims),
    "reduce_min": lambda x, axis, keepdims: np.min(x, axis=axis, keepdims=keepdims),
    "reduce_mean": lambda x, axis, keepdims: (
        _int_mean(x, axis, keepdims)
        if x.dtype.kind == "i"
        else np.mean(x.astype(np.float64), axis=axis, keepdims=keepdims).astype(x.dtype)
    ),
}


@pytest.mark.parametrize("keepdims", [False, True])
@pytest.mark.parametrize("axis", AXES, ids=repr)
@pytest.mark.parametrize("name", sorted(REDUCTIONS))
@pytest.mark.parametrize(
    "value", [X3, I3, X3.astype(np.float64)], ids=["float32", "int32", "float64"]
)
def test_numeric_reductions(value, name, axis, keepdims):
    if name == "reduce_prod":
        value = (np.abs(value) % 3 + 1).astype(value.dtype)  # keep products small and exact
    expected = np.asarray(REDUCTIONS[name](value, _np_axis(axis), keepdims))
    dtype = rt.as_dtype(value.dtype)
    fn = getattr(rt, name)
    check_op(lambda x: fn(x, axis=axis, keepdims=keepdims), [value], expected, dtype)


@pytest.mark.parametrize("keepdims", [False, True])
@pytest.mark.parametrize("axis", AXES, ids=repr)
@pytest.mark.parametrize("name", ["reduce_all", "reduce_any"])
def test_bool_reductions(name, axis, keepdims):
    value = (I3 % 2 == 0) | (I3 == 3)
    np_fn = np.all if name == "reduce_all" else np.any
    expected = np.asarray(np_fn(value, axis=_np_axis(axis), keepdims=keepdims))
    fn = getattr(rt, name)
    check_op(lambda x: fn(x, axis=axis, keepdims=keepdims), [value], expected, rt.bool)


@pytest.mark.parametrize("axis", [3, -4, [0, 3]], ids=repr)
@pytest.mark.parametrize("name", sorted(REDUCTIONS))
def test_reduction_axes_out_of_range_are_value_errors(name, axis):
    fn = getattr(rt, name)
    with pytest.raises(ValueError, match=f"axis {axis if isinstance(axis, int) else 3} is out"):
        fn(rt.constant(X3), axis=axis)


def test_integer_mean_truncates_toward_zero():
    check_op(rt.reduce_mean, [i32([1, 2])], np.int32(1), rt.int32)
    check_op(rt.reduce_mean, [i32([-1, -2])], np.int32(-1), rt.int32)
    check_op(rt.reduce_mean, [i32([-3, 1])], np.int32(-1), rt.int32)
    check_op(
        lambda x: rt.reduce_mean(x, axis=1),
        [i32([[1, 2], [3, 6], [-5, 0]])],
        i32([1, 4, -2]),
        rt.int32,
    )
    check_op(rt.reduce_mean, [f32([1, 2])], np.float32(1.5), rt.float32)
    check_op(lambda: rt.reduce_mean([1, 2, 4]), [], np.int32(2), rt.int32)


def test_reductions_hand_computed():
    m = i32([[1, 2], [3, 4]])
    check_op(lambda x: rt.reduce_sum(x, axis=0), [m], i32([4, 6]), rt.int32)
    check_op(lambda x: rt.reduce_sum(x, axis=1, keepdims=True), [m], i32([[3], [7]]), rt.int32)
    check_op(rt.reduce_prod, [m], np.int32(24), rt.int32)
    check_op(rt.reduce_max, [m], np.int32(4), rt.int32)
    check_op(lambda x: rt.reduce_min(x, axis=-1), [m], i32([1, 3]), rt.int32)
    check_op(rt.reduce_all, [np.array([True, False])], np.bool_(False), rt.bool)
    check_op(rt.reduce_any, [np.array([True, False])], np.bool_(True), rt.bool)


def test_reduce_mean_of_float16_does_not_overflow_in_its_sum():
    # The sum (1e5) is beyond float16's range but the mean (100) is not; TensorFlow
    # accumulates half-precision means in float32.
    value = np.full(1000, 100, np.float16)
    check_op(rt.reduce_mean, [value], np.float16(100), rt.float16)


def test_reductions_of_empty_tensors():
    empty = np.zeros(0, np.float32)
    check_op(rt.reduce_sum, [empty], np.float32(0), rt.float32)
    check_op(rt.reduce_prod, [empty], np.float32(1), rt.float32)
    check_op(rt.reduce_all, [np.zeros(0, bool)], np.bool_(True), rt.bool)
    check_op(rt.reduce_any, [np.zeros(0, bool)], np.bool_(False), rt.bool)
    check_op(
        lambda x: rt.reduce_sum(x, axis=1), [np.zeros((2, 0), np.int32)], i32([0, 0]), rt.int32
    )


def test_max_and_min_of_empty_float_tensors_are_the_reduction_identities():
    # TensorFlow: tf.reduce_max(tf.constant([])) is -inf (and reduce_min is +inf), not an error.
    empty = np.zeros(0, np.float32)
    check_op(rt.reduce_max, [empty], np.float32(-np.inf), rt.float32)
    check_op(rt.reduce_min, [empty], np.float32(np.inf), rt.float32)
    check_op(
        lambda x: rt.reduce_max(x, axis=1),
        [np.zeros((2, 0), np.float32)],
        f32([-np.inf] * 2),
        rt.float32,
    )


def test_max_and_min_propagate_nan_and_handle_inf():
    check_op(rt.reduce_max, [f32([4, np.nan])], np.float32(np.nan), rt.float32)
    check_op(rt.reduce_min, [f32([np.nan, np.nan])], np.float32(np.nan), rt.float32)
    check_op(rt.reduce_max, [f32([-np.inf, np.inf])], np.float32(np.inf), rt.float32)
    check_op(rt.reduce_min, [f32([-np.inf, np.inf])], np.float32(-np.inf), rt.float32)


@pytest.mark.parametrize(
    "shape, axis, keepdims, static",
    [
        ([None, 3], 1, False, [None]),
        ([None, 3], 0, False, [3]),
        ([None, 3], -1, True, [None, 1]),
        ([None, 3], None, False, []),
        ([None, 3], None, True, [1, 1]),
        ([None, 3], [0, 1], False, []),
        ([2, None], [1], False, [2]),
        (None, None, False, []),
        (None, 1, False, None),
    ],
    ids=repr,
)
@pytest.mark.parametrize("name", sorted(REDUCTIONS))
def test_reductions_with_unknown_dims(name, shape, axis, keepdims, static):
    value = I32 if name != "reduce_prod" else np.abs(I32) % 3 + 1
    expected = np.asarray(REDUCTIONS[name](value, _np_axis(axis), keepdims))
    fn = getattr(rt, name)
    check_op(
        lambda x: fn(x, axis=axis, keepdims=keepdims),
        [value],
        expected,
        rt.int32,
        shapes=[shape],
        static_shape=static,
    )


def test_reductions_reject_bad_axes_and_dtypes():
    with pytest.raises(ValueError, match="axis 2 is out of range for a tensor of rank 2"):
        rt.reduce_sum(rt.constant(I32), axis=2)
    with pytest.raises(ValueError):
        build_graph(lambda x: rt.reduce_max(x, axis=-3), [I32])
    with pytest.raises(TypeError, match="All does not support input of dtype int32"):
        rt.reduce_all(rt.constant([1, 0]))
    with pytest.raises(TypeError, match="Sum does not support input of dtype string"):
        rt.reduce_sum(rt.constant(["a"]))


def _softmax_ref(x, axis=-1):
    x64 = x.astype(np.float64)
    e = np.exp(x64 - x64.max(axis=axis, keepdims=True))
    return (e / e.sum(axis=axis, keepdims=True)).astype(x.dtype)


@pytest.mark.parametrize(
    "fn, expected, dtype",
    [
        (
            lambda x: rt.reduce_sum(x, axis=rt.constant(1)),
            I32.sum(axis=1, dtype=np.int32),
            rt.int32,
        ),
        (lambda x: rt.reduce_max(x, axis=rt.constant([0, 1])), I32.max(), rt.int32),
        (
            lambda x: rt.argmax(x, axis=rt.constant(1)),
            np.argmax(I32, axis=1).astype(np.int64),
            rt.int64,
        ),
        (lambda x: rt.concat([x, x], axis=rt.constant(1)), np.concatenate([I32, I32], 1), rt.int32),
        (lambda x: rt.stack([x, x], axis=rt.constant(1)), np.stack([I32, I32], 1), rt.int32),
        (lambda x: rt.expand_dims(x, rt.constant(-1)), I32[..., None], rt.int32),
        (lambda x: rt.transpose(x, rt.constant([1, 0])), I32.T, rt.int32),
        (lambda x: rt.gather(x, [2, 0], axis=rt.constant(1)), I32[:, [2, 0]], rt.int32),
        (
            lambda x: rt.nn.softmax(rt.cast(x, rt.float32), axis=rt.constant(0)),
            _softmax_ref(I32.astype(np.float32), axis=0),
            rt.float32,
        ),
    ],
    ids=[
        "reduce_sum",
        "reduce_max",
        "argmax",
        "concat",
        "stack",
        "expand_dims",
        "transpose",
        "gather",
        "softmax",
    ],
)
def test_axis_arguments_may_be_constant_tensors(fn, expected, dtype):
    # In TensorFlow an axis (or perm) may be given as a tensor; a constant one is folded.
    check_op(fn, [I32], expected, dtype)


# --- argmax, argmin ---------------------------------------------------------------------------


@pytest.mark.parametrize("axis", [None, 0, 1, 2, -1])
@pytest.mark.parametrize(
    "value", [X3, I3, np.array([[3, 9, 2, 9]] * 3, np.int64)], ids=["float32", "int32", "ties"]
)
def test_argmax_argmin(value, axis):
    if axis == 2 and value.ndim < 3:
        axis = -2
    np_axis = 0 if axis is None else axis
    for rt_fn, np_fn in ((rt.argmax, np.argmax), (rt.argmin, np.argmin)):
        expected = np_fn(value, axis=np_axis).astype(np.int64)
        check_op(lambda x, f=rt_fn: f(x, axis=axis), [value], expected, rt.int64)
        check_op(
            lambda x, f=rt_fn: f(x, axis=axis, output_type=rt.int32),
            [value],
            expected.astype(np.int32),
            rt.int32,
        )


def test_argmax_argmin_hand_computed_and_unknown_dims():
    check_op(rt.argmax, [i32([3, 9, 2, 9])], np.int64(1), rt.int64)
    check_op(rt.argmin, [f32([3, -1, 2, -1])], np.int64(1), rt.int64)
    m = f32([[1, 5, 2], [7, 0, 7]])
    check_op(
        lambda x: rt.argmax(x, axis=1),
        [m],
        np.array([1, 0], np.int64),
        rt.int64,
        shapes=[[None, 3]],
        static_shape=[None],
    )
    check_op(
        lambda x: rt.argmin(x, axis=0),
        [m],
        np.array([0, 1, 0], np.int64),
        rt.int64,
        shapes=[[None, 3]],
        static_shape=[3],
    )
    check_op(
        lambda x: rt.argmax(x, axis=0),
        [m],
        np.array([1, 0, 1], np.int64),
        rt.int64,
        shapes=[None],
        static_shape=None,
    )


# --- nn ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("axis", [-1, 0, 1])
@pytest.mark.parametrize(
    "value", [F32, X3, X3.astype(np.float64), f32([1000, 1000, -1000])], ids=repr
)
def test_softmax(value, axis):
    if value.ndim == 1 and axis == 1:
        axis = -1
    expected = _softmax_ref(value, axis)
    dtype = rt.as_dtype(value.dtype)
    check_op(lambda x: rt.nn.softmax(x, axis=axis), [value], expected, dtype)
    static = [None] * value.ndim
    check_op(
        lambda x: rt.nn.softmax(x, axis=axis),
        [value],
        expected,
        dtype,
        shapes=[static],
        static_shape=static,
    )


def test_softmax_hand_computed():
    check_op(rt.nn.softmax, [f32([0, 0])], f32([0.5, 0.5]), rt.float32)
    check_op(
        rt.nn.softmax,
        [f32([[1000, 1000], [0, np.log(3)]])],
        f32([[0.5, 0.5], [0.25, 0.75]]),
        rt.float32,
    )
    with pytest.raises(ValueError, match="softmax needs a tensor of rank >= 1"):
        rt.nn.softmax(rt.constant(1.0))


def test_nn_relu_on_floats_and_unknown_dims():
    check_op(rt.nn.relu, [f32([-0.5, 0.0, 2.0])], f32([0, 0, 2]), rt.float32)
    check_op(
        rt.nn.relu, [I32], np.maximum(I32, 0), rt.int32, shapes=[[None, 3]], static_shape=[None, 3]
    )


# --- strings ----------------------------------------------------------------------------------


def test_strings_join():
    check_op(
        lambda a, b: rt.strings.join([a, b], separator=" "),
        [strings("hello"), strings("world")],
        b"hello world",
        rt.string,
    )
    check_op(
        lambda a, b: rt.strings.join([a, b]), [strings("ab"), strings("cd")], b"abcd", rt.string
    )
    words = strings(["a", "b"])
    check_op(
        lambda w, s: rt.strings.join([w, s, w], separator="-"),
        [words, strings("x")],
        strings(["a-x-a", "b-x-b"]),
        rt.string,
    )
    check_op(
        lambda w, s: rt.strings.join([w, s], separator=", "),
        [words, strings("x")],
        strings(["a, x", "b, x"]),
        rt.string,
        shapes=[[None], []],
        static_shape=[None],
    )
    check_op(lambda: rt.strings.join(["é", "b"], separator="|"), [], "é|b".encode(), rt.string)


def test_strings_join_rejects_numbers():
    with pytest.raises(TypeError):
        rt.strings.join([rt.constant("a"), rt.constant(1)])


def test_strings_length():
    words = strings(["ab", "héllo", ""])
    check_op(rt.strings.length, [words], i32([2, 6, 0]), rt.int32)
    check_op(lambda w: rt.strings.length(w, unit="UTF8_CHAR"), [words], i32([2, 5, 0]), rt.int32)
    check_op(rt.strings.length, [strings("abc")], np.int32(3), rt.int32)
    check_op(
        rt.strings.length,
        [strings([["a"], ["bb"]])],
        i32([[1], [2]]),
        rt.int32,
        shapes=[[None, 1]],
        static_shape=[None, 1],
    )
    with pytest.raises(TypeError):
        rt.strings.length(rt.constant([1]))


@pytest.mark.parametrize(
    "value, kwargs, expected",
    [
        (i32([1, -2, 30]), {}, ["1", "-2", "30"]),
        (np.int64(2**40), {}, str(2**40)),
        (f32([1.5, 2.0, -0.25]), {}, ["1.500000", "2.000000", "-0.250000"]),
        (np.array([1.0 / 3]), {"precision": 2}, ["0.33"]),
        (f32([1.5, 100.0]), {"shortest": True}, ["1.5", "100"]),
        (np.array([True, False]), {}, ["true", "false"]),
        (np.array([[3], [4]], np.uint8), {}, [["3"], ["4"]]),
    ],
    ids=repr,
)
def test_strings_as_string(value, kwargs, expected):
    check_op(lambda x: rt.strings.as_string(x, **kwargs), [value], strings(expected), rt.string)


def test_strings_as_string_unknown_dims_and_strings_rejected():
    check_op(
        rt.strings.as_string,
        [i32([1, 2])],
        strings(["1", "2"]),
        rt.string,
        shapes=[[None]],
        static_shape=[None],
    )
    with pytest.raises(TypeError):
        rt.strings.as_string(rt.constant(["a"]))


# --- operators on tensors ---------------------------------------------------------------------

A = i32([7, -7, 3, 0])
D = i32([2, 2, -3, 5])


@pytest.mark.parametrize(
    "op, expected, dtype",
    [
        (lambda a, b: a + b, A + D, rt.int32),
        (lambda a, b: a - b, A - D, rt.int32),
        (lambda a, b: a * b, A * D, rt.int32),
        (lambda a, b: a / b, A.astype(np.float64) / D, rt.float64),
        (lambda a, b: a // b, i32([3, -4, -1, 0]), rt.int32),
        (lambda a, b: a % b, i32([1, 1, 0, 0]), rt.int32),
        (lambda a, b: a ** abs(b), A ** np.abs(D), rt.int32),
        (lambda a, b: -a, -A, rt.int32),
        (lambda a, b: abs(a), np.abs(A), rt.int32),
        (lambda a, b: +a, A, rt.int32),
        (lambda a, b: a < b, A < D, rt.bool),
        (lambda a, b: a <= b, A <= D, rt.bool),
        (lambda a, b: a > b, A > D, rt.bool),
        (lambda a, b: a >= b, A >= D, rt.bool),
        (lambda a, b: a == b, A == D, rt.bool),
        (lambda a, b: a != b, A != D, rt.bool),
        (lambda a, b: a + 1, A + 1, rt.int32),
        (lambda a, b: 10 - a, 10 - A, rt.int32),
        (lambda a, b: 2 * a, 2 * A, rt.int32),
        (lambda a, b: 7 // b, i32([3, 3, -3, 1]), rt.int32),
        (lambda a, b: 7 % b, i32([1, 1, -2, 2]), rt.int32),
        (lambda a, b: 1 / b, 1 / D.astype(np.float64), rt.float64),
        (lambda a, b: 2 ** abs(b), i32([4, 4, 8, 32]), rt.int32),
        (lambda a, b: a == 3, A == 3, rt.bool),
        (lambda a, b: a > 3, A > 3, rt.bool),
    ],
)
def test_operators_on_int_tensors(op, expected, dtype):
    check_op(op, [A, D], np.asarray(expected).astype(dtype.as_numpy_dtype), dtype)


def test_operators_on_float_tensors():
    x, y = f32([1.5, -2.0, 4.0]), f32([0.5, 4.0, -2.0])
    check_op(lambda a, b: a / b, [x, y], x / y, rt.float32)
    check_op(lambda a, b: a // b, [x, y], np.floor_divide(x, y), rt.float32)
    check_op(lambda a, b: a % b, [x, y], np.mod(x, y), rt.float32)
    check_op(lambda a, b: a**2 - b * 0.5 + 1, [x, y], x**2 - y * np.float32(0.5) + 1, rt.float32)
    check_op(lambda a, b: 1 - a / 2, [x, y], 1 - x / np.float32(2), rt.float32)
    check_op(lambda a, b: abs(-a), [x, y], np.abs(x), rt.float32)


def test_matmul_operator():
    m = i32([[1, 2], [3, 4]])
    check_op(lambda a, b: a @ b, [m, m.T.copy()], m @ m.T, rt.int32)
    check_op(lambda a: a @ [[1], [0]], [m], i32([[1], [3]]), rt.int32)
    check_op(lambda a: [[1, 0]] @ a, [m], i32([[1, 2]]), rt.int32)


def test_bool_operators():
    p = np.array([True, True, False, False])
    q = np.array([True, False, True, False])
    check_op(lambda a, b: a & b, [p, q], p & q, rt.bool)
    check_op(lambda a, b: a | b, [p, q], p | q, rt.bool)
    check_op(lambda a, b: a ^ b, [p, q], p ^ q, rt.bool)
    check_op(lambda a, b: ~a, [p, q], ~p, rt.bool)
    check_op(lambda a, b: (a & True) | (False ^ b), [p, q], p | q, rt.bool)
    check_op(lambda a, b: True & a, [p, q], p, rt.bool)
    check_op(lambda a, b: a == b, [p, q], p == q, rt.bool)


def test_comparisons_give_bool_tensors():
    t = rt.constant([1, 2, 3]) < 2
    assert isinstance(t, rt.Tensor)
    assert t.dtype is rt.bool
    assert_value(t.numpy(), np.array([True, False, False]), rt.bool)
    eq = rt.constant([1, 2]) == rt.constant([1, 3])
    assert isinstance(eq, rt.Tensor)
    assert_value(eq.numpy(), np.array([True, False]), rt.bool)
    ne = rt.constant([1, 2]) != [1, 3]
    assert_value(ne.numpy(), np.array([False, True]), rt.bool)


def test_string_plus_concatenates():
    check_op(lambda a, b: a + b, [strings("ab"), strings("cd")], b"abcd", rt.string)
    check_op(
        lambda a, b: a + b, [strings(["a", "b"]), strings("x")], strings(["ax", "bx"]), rt.string
    )
    check_op(lambda a: "x" + a, [strings("y")], b"xy", rt.string)
    check_op(lambda a: a + "!", [strings(["hi", "yo"])], strings(["hi!", "yo!"]), rt.string)
    check_op(
        lambda a, b: a + b,
        [strings(["a", "b"]), strings(["c", "d"])],
        strings(["ac", "bd"]),
        rt.string,
        shapes=[[None], [None]],
        static_shape=[None],
    )
    with pytest.raises(TypeError):
        rt.constant("a") + 1
    with pytest.raises(TypeError):
        rt.constant("a") + rt.constant(1)


def test_bitwise_style_operators_reject_non_bools_and_invert_rejects_floats():
    with pytest.raises(TypeError):
        rt.constant(1.0) & rt.constant(0.0)
    with pytest.raises(TypeError):
        ~rt.constant(1.5)


# --- TensorFlow's dtype rules -----------------------------------------------------------------


@pytest.mark.parametrize(
    "x, y",
    [
        (rt.constant(1), rt.constant(2.0)),
        (rt.constant([1.0]), rt.constant([2])),
    ],
    ids=["int32+float32", "float32+int32"],
)
@pytest.mark.parametrize(
    "op",
    [
        lambda a, b: a + b,
        lambda a, b: a - b,
        lambda a, b: a * b,
        lambda a, b: a / b,
        lambda a, b: a // b,
        lambda a, b: a % b,
        lambda a, b: a**b,
        lambda a, b: a < b,
        lambda a, b: rt.maximum(a, b),
        lambda a, b: rt.add(a, b),
        lambda a, b: rt.where(True, a, b),
    ],
)
def test_no_promotion_between_tensors(x, y, op):
    with pytest.raises(TypeError) as info:
        op(x, y)
    message = str(info.value)
    assert "int32" in message
    assert "float32" in message


def test_no_promotion_in_graphs_either():
    g = rt.Graph()
    with g.as_default():
        a = rt.placeholder(rt.int32, [None])
        b = rt.placeholder(rt.float32, [None])
        with pytest.raises(TypeError) as info:
            a + b
    assert "int32" in str(info.value)
    assert "float32" in str(info.value)
    with pytest.raises(TypeError) as info:
        rt.constant(1, rt.int64) + rt.constant(1)
    assert "int64" in str(info.value)
    assert "int32" in str(info.value)
    with pytest.raises(TypeError):
        rt.constant(1.0, rt.float64) * rt.constant(1.0)


@pytest.mark.parametrize(
    "fn, dtype, expected",
    [
        (lambda: rt.constant(1.0) + 1, rt.float32, np.float32(2)),
        (lambda: 1 + rt.constant(1.0), rt.float32, np.float32(2)),
        (lambda: rt.constant([1.5]) * 2, rt.float32, f32([3.0])),
        (lambda: 2 / rt.constant(4.0), rt.float32, np.float32(0.5)),
        (lambda: rt.constant(1, rt.int64) + 1, rt.int64, np.int64(2)),
        (lambda: rt.constant(1, rt.int8) * 3, rt.int8, np.int8(3)),
        (lambda: rt.constant(1.0, rt.float64) + 0.5, rt.float64, np.float64(1.5)),
        (lambda: rt.constant(1.0, rt.float16) + 1, rt.float16, np.float16(2)),
        (lambda: rt.constant(2, rt.uint8) - 1, rt.uint8, np.uint8(1)),
        (lambda: rt.constant(True) & True, rt.bool, np.bool_(True)),
        (lambda: rt.maximum(rt.constant([1.0, 5.0]), 3), rt.float32, f32([3, 5])),
        (lambda: rt.where([True, False], rt.constant([1.0, 2.0]), 0), rt.float32, f32([1, 0])),
        (lambda: rt.constant(3) + 4, rt.int32, np.int32(7)),
        (lambda: rt.constant(7) / 2, rt.float64, np.float64(3.5)),
        (lambda: rt.constant(1.0) + np.float32(2), rt.float32, np.float32(3)),
    ],
)
def test_python_scalars_take_the_tensors_dtype(fn, dtype, expected):
    check_op(fn, [], expected, dtype)


@pytest.mark.parametrize(
    "fn",
    [
        lambda: rt.constant(1) + 1.5,
        lambda: 1.5 + rt.constant(1),
        lambda: rt.constant([1, 2]) * 0.5,
        lambda: rt.constant(1) < 0.5,
        lambda: rt.constant(True) + 1,
        lambda: rt.constant(1) + "a",
        lambda: rt.constant(1, rt.int64) - 2.0,
    ],
)
def test_python_scalars_that_do_not_fit_the_tensors_dtype_raise(fn):
    with pytest.raises(TypeError):
        fn()


def test_python_scalar_next_to_a_placeholder():
    check_op(lambda x: x * 2 + 1, [f32([1, 2])], f32([3, 5]), rt.float32)
    check_op(
        lambda x: x * 2 + 1, [np.array([1, 2], np.int64)], np.array([3, 5], np.int64), rt.int64
    )
    with pytest.raises(TypeError):
        build_graph(lambda x: x + 0.5, [i32([1])])


def test_eager_and_symbolic_tensor_basics_match():
    eager = rt.constant(I32) * 2
    g, (p,), sym = build_graph(lambda x: x * 2, [I32])
    assert isinstance(eager, rt.Tensor) and isinstance(sym, rt.Tensor)
    assert eager.dtype is sym.dtype is rt.int32
    assert eager.shape == sym.shape == (2, 3)
    assert_static_shape(sym.shape, [2, 3])
    assert sym.graph is g
    assert rt.Session(g).run(sym, feed_dict={p: I32}).tolist() == (I32 * 2).tolist()


def test_two_python_values_take_the_first_ones_dtype_as_tensorflow_converts_them():
    # tf.maximum(0., [1, -1]) and tf.add(1.0, [1, 2]) are float32: inputs converted in order.
    np.testing.assert_array_equal(rt.maximum(0.0, [1, -1]).numpy(), np.float32([1, 0]))
    np.testing.assert_array_equal(rt.add(1.0, [1, 2]).numpy(), np.float32([2, 3]))
    assert rt.add(1.0, [1, 2]).dtype is rt.float32
    with pytest.raises(TypeError, match=r"expected to be a int32 tensor but is a float tensor"):
        rt.add([1, 2], 1.5)  # 1.5 is no int32: the op names both dtypes
