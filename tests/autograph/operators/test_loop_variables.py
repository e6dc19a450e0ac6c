"""Variables a tensor-dependent loop creates or cannot carry, staged by the runtime
(``ag.function``): Python's answer where a graph can give it, else TensorFlow's error."""

from __future__ import annotations

import numpy as np
import pytest

import autograph as ag
import runtime as rt


class Box:
    pass


def rebinds_an_object_read_by_a_closure(x):
    o = Box()
    first = o

    def get():
        return o is first

    while x > 0:
        o = Box()
        x = x - 1.0
    return float(get()) + x


def test_a_loop_rebinding_a_variable_it_cannot_carry_is_an_error():
    # Python's answer depends on how often the staged loop runs; keeping the object from
    # before the loop would be silently wrong.
    assert rebinds_an_object_read_by_a_closure(3.0) != rebinds_an_object_read_by_a_closure(-3.0)
    with pytest.raises(TypeError, match="'o' holds a Box, which cannot be a variable"):
        ag.function(rebinds_an_object_read_by_a_closure)(rt.constant(3.0))


def test_a_loop_created_variable_may_hold_a_variable():
    v = rt.Variable(5.0)

    def last(n):
        for _ in rt.range(n):
            w = v
        return w + 1.0

    def last_in_python(n):
        for _ in range(n):
            w = 5.0
        return w + 1.0

    np.testing.assert_allclose(ag.function(last)(rt.constant(3)).numpy(), last_in_python(3))


def last_string(n):
    for _ in rt.range(n):
        s = "hi"
    return s


def last_numpy_scalar(n):
    for _ in rt.range(n):
        a = np.float32(2.5)
    return a


def last_numpy_array(n):
    for _ in rt.range(n):
        a = np.ones(3)
    return a


@pytest.mark.parametrize("fn", [last_string, last_numpy_scalar, last_numpy_array])
def test_a_loop_created_string_or_numpy_value_must_be_defined_before_the_loop(fn):
    # TensorFlow's rule: a loop learns only a tensor's or a Python number's type from one
    # iteration (a string came back as bytes, and a loop that never ran gave a stand-in).
    name = "s" if fn is last_string else "a"
    with pytest.raises(ValueError, match=f"'{name}' must be defined before the loop"):
        ag.function(fn)(rt.constant(3))
