"""The fast eager operators agree with the op table: value, dtype, shape, and errors.

``runtime.ops.eager_operators`` gives ``EagerTensor`` operators that skip
``bind`` when the result is certain. Each test runs an operator both ways (the
fast method, and the full op it stands in for) and compares.
"""

from __future__ import annotations

import operator
import re
import warnings
from typing import NamedTuple

import hypothesis.extra.numpy as hnp
import hypothesis.strategies as st
import numpy as np
import pytest
from hypothesis import given, settings

import runtime as rt
from runtime.core.tensor import EagerTensor
from runtime.ops import math_ops

BINARY = [
    "add",
    "sub",
    "mul",
    "truediv",
    "floordiv",
    "mod",
    "pow",
    "lt",
    "le",
    "gt",
    "ge",
    "eq",
    "ne",
]
REFLECTED = ["add", "sub", "mul", "truediv", "floordiv", "mod", "pow"]


class Raised(NamedTuple):
    """What an operator raised: its exception's type and message."""

    type: type
    message: str


def _both_ways(method_name, a, b):
    """(fast result or what it raised, op-table result or what it raised)."""
    outcomes = []
    for method in (getattr(EagerTensor, method_name), math_ops.OPERATORS[method_name]):
        try:
            outcomes.append(method(a, b))
        except Exception as e:
            outcomes.append(Raised(type(e), str(e)))
    return outcomes


def _assert_same(fast, full):
    if isinstance(full, Raised):
        assert fast == full  # the same exception type and the same message
        return
    if not isinstance(full, EagerTensor):
        assert fast is full  # the same NotImplemented / bool
        return
    assert type(fast) is EagerTensor
    assert fast.dtype is full.dtype
    assert fast.shape == full.shape
    assert type(fast._value) is type(full._value)  # numpy scalar stays scalar, array stays array
    np.testing.assert_array_equal(fast.numpy(), full.numpy())


def test_operators_are_the_fast_ones():
    assert EagerTensor.__add__ is not math_ops.OPERATORS["__add__"]
    assert rt.SymbolicTensor.__add__ is math_ops.OPERATORS["__add__"]


_DTYPES = [np.int32, np.int64, np.uint8, np.float32, np.float64]


def _arrays(dtype):
    elements = (
        (st.integers(-20, 20) if dtype is not np.uint8 else st.integers(0, 40))
        if np.dtype(dtype).kind in "iu"
        else st.floats(-1e3, 1e3, width=32)
    )
    shapes = st.sampled_from([(), (), (1,), (3,), (2, 3), (2, 1)])
    return shapes.flatmap(lambda shape: hnp.arrays(dtype, shape, elements=elements))


def _value(array):
    return array[()] if array.ndim == 0 else array  # scalars are held as numpy scalars


_NUMBERS = st.one_of(
    st.integers(-300, 300), st.floats(-10, 10), st.booleans(), st.integers(2**62, 2**64)
)


@settings(max_examples=600, deadline=None)
@given(
    data=st.data(),
    dtype=st.sampled_from(_DTYPES),
    name=st.sampled_from(BINARY),
    reflected=st.booleans(),
    other=st.sampled_from(["tensor", "number"]),
)
def test_operators_match_the_op(data, dtype, name, reflected, other):
    """An eager tensor with another of its dtype, or with a Python number, either side."""
    a = EagerTensor(_value(data.draw(_arrays(dtype))), rt.as_dtype(np.dtype(dtype).name))
    if other == "tensor":
        b = EagerTensor(_value(data.draw(_arrays(dtype))), a.dtype)
    else:
        b = data.draw(_NUMBERS)
    method = f"__r{name}__" if reflected and name in REFLECTED else f"__{name}__"
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # overflow and x/0 are silent, as in the op
        _assert_same(*_both_ways(method, a, b))


@pytest.mark.parametrize("name", ["and", "or", "xor"])
def test_bool_operators_match_the_op(name):
    a, b = rt.constant([True, False, True]), rt.constant(True)
    for method in (f"__{name}__", f"__r{name}__"):
        for other in (b, False, 1, 1.0):
            _assert_same(*_both_ways(method, a, other))


def test_integer_division_by_zero_raises_as_the_op_does():
    with pytest.raises(rt.errors.InvalidArgumentError, match="Integer division by zero"):
        rt.constant(7) // 0
    with pytest.raises(rt.errors.InvalidArgumentError, match="Integer division by zero"):
        rt.constant(7) % rt.constant(0)
    with pytest.raises(rt.errors.InvalidArgumentError, match="Integer division by zero"):
        7 % rt.constant([1, 0])


def test_overflow_wraps_silently_as_in_tensorflow():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert (rt.constant(2**31 - 1) + 1).numpy() == -(2**31)
        assert np.isinf((rt.constant(1.0) / 0.0).numpy())


def test_mixed_dtypes_and_bad_operands_keep_the_ops_errors():
    # TensorFlow, eagerly: an InvalidArgumentError; here also the TypeError raised before.
    expected = "cannot compute Add as input #1(zero-based) was expected to be a int32 tensor "
    expected += "but is a float tensor [Op:Add]"
    for error in (TypeError, rt.errors.InvalidArgumentError):
        with pytest.raises(error, match=re.escape(expected)):
            rt.constant(1) + rt.constant(1.0)
    graph_error = pytest.raises(TypeError, match="int32 tensor and a float32 tensor")
    with graph_error as caught, rt.Graph().as_default():  # building a graph: a TypeError
        rt.constant(1) + rt.constant(1.0)
    assert not isinstance(caught.value, rt.errors.InvalidArgumentError)
    with pytest.raises(TypeError):
        rt.constant(1) + 1.5
    with pytest.raises(ValueError, match="Value -1 is out of range for dtype uint8"):
        rt.constant(1, rt.uint8) + (-1)
    with pytest.raises(ValueError, match=re.escape("Incompatible shapes: [2] vs. [3] [Op:Add]")):
        rt.constant([1, 2]) + rt.constant([1, 2, 3])


@pytest.mark.parametrize("op", [operator.add, operator.lt], ids=["arithmetic", "comparison"])
def test_the_ops_error_comes_alone_not_during_handling_of_numpys(op):
    with pytest.raises(ValueError, match=re.escape("Incompatible shapes: [2] vs. [3]")) as caught:
        op(rt.constant([1.0, 2.0]), rt.constant([1.0, 2.0, 3.0]))
    # numpy's error is the fast path's business: a user sees no "During handling of ..."
    assert caught.value.__context__ is None and caught.value.__cause__ is None


def test_eager_tensors_inside_a_graph_become_graph_ops():
    x = rt.constant(3)
    with rt.Graph().as_default():
        y = x + 1
    assert isinstance(y, rt.SymbolicTensor) and y.op.type == "Add"


def test_reflected_operators_put_the_python_number_first():
    x = rt.constant(4.0)
    assert (1 - x).numpy() == -3.0
    assert (2**x).numpy() == 16.0
    assert (9 // rt.constant(2)).numpy() == 4
    assert operator.truediv(1.0, x).numpy() == 0.25


def test_a_kernel_refusing_its_operands_eagerly_names_the_op_as_tensorflow():
    # TensorFlow's eager errors end with " [Op:GatherV2]".
    with pytest.raises(rt.errors.InvalidArgumentError, match=r"\[Op:GatherV2\]$"):
        rt.gather(rt.constant([1, 2, 3]), 7)
