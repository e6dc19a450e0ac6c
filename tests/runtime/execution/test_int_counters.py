"""Loop counters carried as Python ints (``runtime.execution.int_counters``).

Each loop is compiled twice, with the plan (the default) and with every op as its
kernel's call (``specialize=False``, numpy scalars throughout), and both programs must
give the same values and dtypes, overflow included; the generated code is checked for
the plan's shape (or for its absence where a counter does not qualify).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import runtime as rt
from runtime import errors
from runtime.execution.compile import compile_graph

INT32_MAX = 2**31 - 1


def _programs(build, *specs):
    g = rt.Graph()
    with g.as_default():
        inputs = [rt.placeholder(dtype, shape) for dtype, shape in specs]
        outputs = build(*inputs)
    outputs = list(outputs) if isinstance(outputs, (tuple, list)) else [outputs]
    return (
        compile_graph(g, inputs, outputs),
        compile_graph(g, inputs, outputs, specialize=False),
    )


def _same(planned, reference, *args):
    with warnings.catch_warnings(record=True) as planned_warnings:
        warnings.simplefilter("always")
        got = planned(*args)
    with warnings.catch_warnings(record=True) as reference_warnings:
        warnings.simplefilter("always")
        want = reference(*args)
    for g, w in zip(got, want):
        assert type(g) is type(w)
        assert np.asarray(g).dtype == np.asarray(w).dtype
        np.testing.assert_array_equal(g, w)
    assert [str(w.message) for w in planned_warnings] == [
        str(w.message) for w in reference_warnings
    ]
    return got


def _squares(start):
    def build(n):
        ta = rt.TensorArray(rt.int32, size=n - start)
        i, ta = rt.while_loop(
            lambda i, ta: i < n, lambda i, ta: (i + 1, ta.write(i - start, i * i)), (start, ta)
        )
        return ta.stack(), i

    return build


def test_a_tensor_array_loop_counts_in_python_ints_and_gives_numpy_s_results():
    planned, reference = _programs(_squares(0), (rt.int32, []))
    text = str(planned)
    assert "int(placeholder)" in text and "write_int32(" in text and " + 1" in text
    assert "write_int32" not in str(reference)
    stacked, count = _same(planned, reference, np.int32(1000))
    np.testing.assert_array_equal(stacked, np.arange(1000, dtype=np.int32) ** 2)
    assert type(count) is np.int32 and count == 1000
    _same(planned, reference, np.int32(0))
    _same(planned, reference, np.array(7, np.int32))  # a 0-d array as the bound


def test_a_product_that_leaves_int32_wraps_and_warns_as_numpy_s_does():
    planned, reference = _programs(_squares(46_338), (rt.int32, []))
    stacked, _ = _same(planned, reference, np.int32(46_345))
    with np.errstate(over="ignore"):
        want = np.arange(46_338, 46_345, dtype=np.int32) * np.arange(46_338, 46_345, dtype=np.int32)
    np.testing.assert_array_equal(stacked, want)
    assert (stacked < 0).any()  # the test reaches the wrap-around


def test_a_counter_up_to_int32_s_largest_value_does_not_overflow():
    def build(n):
        return rt.while_loop(lambda i: i < n, lambda i: i + 1, (INT32_MAX - 3,))

    planned, reference = _programs(build, (rt.int32, []))
    assert "int(const)" in str(planned)
    (i,) = _same(planned, reference, np.int32(INT32_MAX))
    assert i == INT32_MAX and type(i) is np.int32


def test_writes_to_an_index_out_of_range_fail_as_before():
    def build(n):
        ta = rt.TensorArray(rt.int32, size=3)
        _, ta = rt.while_loop(lambda i, ta: i < n, lambda i, ta: (i + 1, ta.write(i, i)), (0, ta))
        return ta.stack()

    planned, reference = _programs(build, (rt.int32, []))
    assert "write_int32(" in str(planned)
    np.testing.assert_array_equal(planned(np.int32(3)), reference(np.int32(3)))
    for program in (planned, reference):
        with pytest.raises(errors.InvalidArgumentError, match="not resizeable and size is: 3"):
            program(np.int32(4))


@pytest.mark.parametrize(
    "name, build",
    [
        # ``i <= n`` lets ``i + 1`` reach 2**31: no proof, no plan
        ("a <= test", lambda n: rt.while_loop(lambda i: i <= n, lambda i: i + 1, (0,))),
        ("a step of 2", lambda n: rt.while_loop(lambda i: i < n, lambda i: i + 2, (0,))),
        (
            "a counter cast to float",
            lambda n: rt.while_loop(
                lambda i, s: i < n, lambda i, s: (i + 1, s + rt.cast(i, rt.float32)), (0, 0.0)
            ),
        ),
        (
            "a counter as another loop variable",
            lambda n: rt.while_loop(lambda i, j: i < n, lambda i, j: (i + 1, i), (0, 0)),
        ),
    ],
)
def test_a_counter_without_proof_or_with_another_consumer_stays_a_numpy_scalar(name, build):
    planned, reference = _programs(build, (rt.int32, []))
    assert "int(" not in str(planned)
    _same(planned, reference, np.int32(5))


def test_a_dynamic_tensor_array_keeps_its_writes_and_results():
    def build(n):
        ta = rt.TensorArray(rt.int32, size=0, dynamic_size=True)
        _, ta = rt.while_loop(
            lambda i, ta: i < n, lambda i, ta: (i + 1, ta.write(i, i * 3 - 1)), (0, ta)
        )
        return ta.stack()

    planned, reference = _programs(build, (rt.int32, []))
    assert "write_int32" not in str(planned)
    _same(planned, reference, np.int32(40))
