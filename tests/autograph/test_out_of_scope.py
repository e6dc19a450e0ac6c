"""A tensor used outside the graph it was made in is out of scope, in TensorFlow's words and
exception types: InaccessibleTensorError (a ValueError) for one of a branch or loop body
that has finished building, a TypeError for one of another function's graph."""

import pytest

import autograph as ag
import runtime as rt


def test_a_branch_tensor_used_after_the_branch_is_inaccessible():
    kept = []

    def then_branch(x):
        kept.append(x * 2.0)
        return x

    @ag.function(autograph=False)
    def f(x):
        y = rt.cond(x > 0.0, lambda: then_branch(x), lambda: x)
        return y + kept[0]

    with pytest.raises(rt.errors.InaccessibleTensorError, match="out of scope") as caught:
        f(rt.constant(1.0))
    assert isinstance(caught.value, ValueError)  # TensorFlow's class is a ValueError
    assert "test_out_of_scope.py" in str(caught.value)  # where the tensor was defined


def test_a_tensor_of_another_function_is_out_of_scope():
    leaked = []

    @ag.function
    def leaky(a):
        leaked.append(a + 1)
        return a

    @ag.function
    def uses_it(b):
        return b + leaked[0]

    leaky(rt.constant(1))
    with pytest.raises(TypeError, match="(?s)test_out_of_scope.py.*out of scope"):
        uses_it(rt.constant(2))
    with pytest.raises(ValueError):  # as this project raised it before
        uses_it(rt.constant(3))
