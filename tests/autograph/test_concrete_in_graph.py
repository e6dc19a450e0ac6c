"""A ConcreteFunction called while another function traces: its graph's ops are inlined into
that graph, so it computes what the eager call does and sees the arguments' static shapes."""

import numpy as np

import autograph as ag
import runtime as rt


def test_a_concrete_function_called_inside_a_function():
    scale = rt.Variable(3.0)

    @ag.function
    def affine(x, v):
        v.assign_add(1.0)
        return x * scale + v

    counter = rt.Variable(0.0)
    cf = affine.get_concrete_function(rt.TensorSpec(None), counter)
    shapes = []

    @ag.function
    def outer(x):
        y = cf(x, counter)
        shapes.append(y.shape.as_list())
        return y * 2.0

    x = np.array([1.0, 2.0], np.float32)
    np.testing.assert_allclose(outer(rt.constant(x)).numpy(), (x * 3.0 + 1.0) * 2.0)
    np.testing.assert_allclose(outer(rt.constant(x)).numpy(), (x * 3.0 + 2.0) * 2.0)
    assert shapes == [[2]]  # the argument's static shape, through the body
    assert float(counter.numpy()) == 2.0


def test_a_concrete_function_traced_for_a_symbolic_tensor():
    @ag.function
    def outer():
        inner = ag.function(lambda x: x + 1, autograph=False)
        return inner.get_concrete_function(rt.constant(1))(rt.constant(5))

    assert int(outer()) == 6
