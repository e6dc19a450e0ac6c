"""TensorArrays under XLA: preallocated buffers, sizes observed, and their errors.

A fixed size known when compiling allocates the buffer at once; a size that
is an argument is compiled in (one program per size); a dynamic size (what
AutoGraph makes of a list appended to in a loop) is observed on a first run,
and observed again when a call needs another.
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.extras import import_extra

import_extra("jax")

import runtime as rt  # noqa: E402
from runtime.execution.compile import compile_function  # noqa: E402
from runtime.xla.program import XlaProgram  # noqa: E402
from tests.runtime.xla.xla_harness import (  # noqa: E402
    assert_same_results,
    assert_same_value,
    traced,
)

InvalidArgument = rt.errors.InvalidArgumentError


def squares(n):
    def body(i, ta):
        return i + 1, ta.write(i, i * i)

    _, ta = rt.while_loop(lambda i, ta: i < n, body, (0, rt.TensorArray(rt.int32, size=n)))
    return ta.stack(), ta.size(), ta.read(n - 1)


def appended(n):
    """A list appended to in a loop, as AutoGraph stages it: a dynamic TensorArray."""

    def body(i, ta):
        return i + 1, ta.write(ta.size(), rt.cast(i, rt.float32) / 2.0)

    ta = rt.TensorArray(rt.float32, size=0, dynamic_size=True)
    _, ta = rt.while_loop(lambda i, ta: i < n, body, (0, ta))
    return ta.stack(), ta.size()


@pytest.mark.parametrize("n", [1, 5])
def test_a_size_given_as_an_argument_is_compiled_in(n):
    assert_same_results(squares, [np.int32(n)])


def test_each_new_size_gets_its_own_program_and_old_ones_are_kept():
    program = XlaProgram(traced(squares, [np.int32(3)]))
    for n in (3, 6, 3, 6):
        stacked, size, last = program(np.int32(n))
        np.testing.assert_array_equal(stacked, np.arange(n) ** 2)
        assert size == n and last == (n - 1) ** 2
    assert len(program._compiled) == 3  # none yet, 3, 6: the second 3 and 6 compiled nothing


@pytest.mark.parametrize("sizes", [(4,), (2, 7, 0, 3)])
def test_a_dynamic_size_is_observed_and_observed_again_when_it_changes(sizes):
    program = XlaProgram(traced(appended, [np.int32(0)]))
    for n in sizes:
        stacked, size = program(np.int32(n))
        np.testing.assert_array_equal(stacked, np.arange(n, dtype=np.float32) / 2)
        assert stacked.dtype == np.float32 and size == n


def test_fixed_size_array_from_a_tensor():
    def fn(x):
        ta = rt.TensorArray(rt.float32, size=3).unstack(x)
        total = rt.while_loop(
            lambda i, t: i < 3, lambda i, t: (i + 1, t + ta.read(i)), (0, rt.zeros([2]))
        )[1]
        return total, ta.stack(), ta.size()

    assert_same_results(fn, [np.arange(6, dtype=np.float32).reshape(3, 2)])


def test_elements_never_written_read_as_zeros():
    def fn(x):
        ta = rt.TensorArray(rt.int32, size=4, element_shape=[2]).write(1, x)
        return ta.stack(), ta.read(3)

    assert_same_results(fn, [np.array([5, 6], np.int32)])


def test_reading_out_of_range_fails_as_the_default_executor_does():
    def fn(i):
        return rt.TensorArray(rt.int32, size=2).write(0, 7).write(1, 8).read(i)

    assert_same_results(fn, [np.int32(1)])
    program = XlaProgram(traced(fn, [np.int32(0)]))
    with pytest.raises(InvalidArgument, match=r"read index 2 out of range \[0, 2\)"):
        program(np.int32(2))


def test_writing_past_a_fixed_size_fails():
    def fn(i):
        return rt.TensorArray(rt.int32, size=2).write(i, 1).stack()

    program = XlaProgram(traced(fn, [np.int32(0)]))
    np.testing.assert_array_equal(program(np.int32(1))[0], [0, 1])
    with pytest.raises(InvalidArgument, match="not resizeable and size is: 2"):
        program(np.int32(2))
    with pytest.raises(InvalidArgument, match="negative index -1"):
        program(np.int32(-1))


def test_returning_an_array_gives_its_values():
    def fn(x):
        return rt.TensorArray(rt.float32, size=2).write(0, x).write(1, x * 2.0).flow

    (items,) = XlaProgram(traced(fn, [np.float32(1.5)]))(np.float32(1.5))
    assert [float(v) for v in items] == [1.5, 3.0]


def test_a_size_that_changes_within_a_call_is_unimplemented():
    def fn(n):
        def body(i, total):
            row = rt.TensorArray(rt.int32, size=i + 1).write(i, i).stack()
            return i + 1, total + rt.reduce_sum(row)

        return rt.while_loop(lambda i, t: i < n, body, (0, 0))

    program = XlaProgram(traced(fn, [np.int32(3)]))
    with pytest.raises(rt.errors.UnimplementedError, match="changes while the function runs"):
        program(np.int32(3))


def _appending(n, scale):
    def body(i, ta):
        return i + 1, ta.write(ta.size(), i * scale)

    ta = rt.TensorArray(rt.int32, size=0, dynamic_size=True)
    return rt.while_loop(lambda i, ta: i < n, body, (0, ta))[1]


def appended_in_either_branch(a, n):
    """Each branch appends to a list of its own: two reserve ops, observed at two sizes."""
    ta = rt.cond(a > 0, lambda: _appending(n, 2), lambda: _appending(n + 2, 1))
    return ta.stack(), ta.size()


def sized_in_either_branch(a):
    """Each branch makes an array of its own fixed size."""
    ta = rt.cond(
        a > 0,
        lambda: rt.TensorArray(rt.int32, size=3).write(0, a),
        lambda: rt.TensorArray(rt.int32, size=5).write(4, a),
    )
    return ta.size(), ta.read(0), ta.read(2)


def started_again_in_a_loop(a, n):
    """A loop's body gives back the list it appended to, or a new one: a list of a loop's
    carry that its body widens."""

    def body(i, ta):
        empty = rt.TensorArray(rt.int32, size=0, dynamic_size=True)
        return i + 1, rt.cond(a > i, lambda: ta.write(ta.size(), i * 3), lambda: empty)

    ta = rt.TensorArray(rt.int32, size=0, dynamic_size=True)
    ta = rt.while_loop(lambda i, ta: i < n, body, (0, ta))[1]
    return ta.size(), rt.reduce_sum(ta.stack())


@pytest.mark.parametrize(
    ("fn", "calls"),
    [
        (appended_in_either_branch, [(1, 3), (-1, 3), (1, 5), (1, 3), (-1, 0)]),
        (sized_in_either_branch, [(1,), (-1,), (2,)]),
        (started_again_in_a_loop, [(3, 6), (5, 2), (2, 7), (4, 4)]),
    ],
)
def test_the_branches_of_a_cond_give_arrays_of_other_sizes(fn, calls):
    """Both branches give one array, as wide as the wider; its length is known at run time."""
    graph = traced(fn, [np.int32(v) for v in calls[0]])
    default, program = compile_function(graph), XlaProgram(graph)
    for call in calls:  # one program: a call stacking at another length is observed again
        values = [np.int32(v) for v in call]
        for i, (x, d) in enumerate(zip(program(*values), default(*values))):
            assert_same_value(x, d, where=f"call {call}, output {i}")
