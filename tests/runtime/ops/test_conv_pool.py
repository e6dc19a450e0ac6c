"""Convolution and pooling beyond their op_info samples: second-order gradients (the
gradient rows' own gradients) against central differences, and TensorFlow's errors."""

from __future__ import annotations

import numpy as np
import pytest

import runtime as rt
from tests.runtime.gradients.grad_harness import check_gradient

RNG = np.random.default_rng(7)
X = RNG.uniform(-1.0, 1.0, (1, 5, 4, 2))
W = RNG.uniform(-1.0, 1.0, (3, 2, 2, 3))
DISTINCT = RNG.permutation(40).reshape(1, 5, 4, 2) / 8.0  # no ties: maxima move smoothly


def _first_gradient(loss):
    def gradients(*args):
        with rt.GradientTape() as tape:
            tape.watch(list(args))
            value = loss(*args)
        return tape.gradient(value, list(args))

    return gradients


def test_the_gradients_of_conv2d_gradients_match_central_differences():
    def loss(x, w):
        y = rt.nn.conv2d(x, w, [2, 1], "SAME", dilations=1)
        return rt.reduce_sum(y * y * y)

    check_gradient(_first_gradient(loss), [X, W], rtol=1e-6, atol=1e-8)


def test_the_gradients_of_pooling_gradients_match_central_differences():
    def loss(x):
        y = rt.nn.max_pool2d(x, 2, 2, "SAME") * rt.nn.avg_pool2d(x, [3, 2], 2, "SAME")
        return rt.reduce_sum(rt.nn.max_pool2d(x, 3, 2, "VALID") ** 3) + rt.reduce_sum(y * x[:, ::2, ::2])  # fmt: skip

    check_gradient(_first_gradient(loss), [DISTINCT], rtol=1e-6, atol=1e-8)


def test_the_gradient_of_max_pooling_third_order_matches_central_differences():
    """MaxPoolGradGrad's own gradient: the third derivative of a max pooling's loss."""

    def loss(x):
        return rt.reduce_sum(rt.nn.max_pool2d(x, 2, 1, "SAME") ** 3)

    first = _first_gradient(loss)
    second = _first_gradient(lambda x: rt.reduce_sum(first(x)[0] ** 2))
    check_gradient(second, [DISTINCT], rtol=1e-6, atol=1e-8)


def test_max_pool_gradient_goes_to_the_first_maximum_of_a_tie():
    x = rt.constant([[[[1.0], [3.0]], [[3.0], [2.0]]]])
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = rt.nn.max_pool2d(x, 2, 2, "VALID")
    np.testing.assert_array_equal(tape.gradient(y, x).numpy()[0, :, :, 0], [[0, 1], [0, 0]])


def test_errors_are_tensorflows():
    x = np.ones((1, 2, 2, 1), np.float32)
    with pytest.raises(ValueError, match="Negative dimension size caused by subtracting 3 from 2"):
        rt.nn.conv2d(x, np.ones((3, 3, 1, 1), np.float32), 1, "VALID")
    with pytest.raises(ValueError, match="Dimensions must be equal, but are 1 and 2"):
        rt.nn.conv2d(x, np.ones((1, 1, 2, 1), np.float32), 1, "VALID")
    with pytest.raises(ValueError, match="not in the list of allowed values"):
        rt.nn.max_pool2d(x, 2, 1, "same")
    with pytest.raises(ValueError, match="strides should be of length 1, 2 or 4"):
        rt.nn.conv2d(x, np.ones((1, 1, 1, 1), np.float32), [1, 1, 1], "VALID")
    with pytest.raises(rt.errors.UnimplementedError, match="batch and depth"):
        rt.nn.avg_pool2d(x, 1, [2, 1, 1, 1], "VALID")


def test_explicit_padding_pads_then_convolves_valid():
    x = RNG.uniform(-1.0, 1.0, (1, 3, 4, 2)).astype(np.float32)
    w = RNG.uniform(-1.0, 1.0, (2, 2, 2, 1)).astype(np.float32)
    pads = [[0, 0], [1, 2], [0, 1], [0, 0]]
    expected = rt.nn.conv2d(np.pad(x, pads), w, 1, "VALID").numpy()
    np.testing.assert_allclose(rt.nn.conv2d(x, w, 1, pads).numpy(), expected, rtol=1e-6)


def test_convolution_and_pool_pick_by_rank():
    x1, x2 = np.ones((1, 4, 2), np.float32), np.ones((1, 4, 4, 2), np.float32)
    assert rt.nn.convolution(x1, np.ones((2, 2, 3), np.float32)).shape == (1, 3, 3)
    assert rt.nn.max_pool(x2, 2, 2, "VALID").shape == (1, 2, 2, 2)
    assert rt.nn.avg_pool(x1, 3, 1, "SAME").shape == (1, 4, 2)


def test_the_filter_gradient_of_many_channels_matches_central_differences():
    # With several channels, the filter's gradient multiplies the copied windows at once;
    # with one, the windows at each position (op_info's samples have both).
    x = RNG.uniform(-1.0, 1.0, (1, 3, 4, 16))
    w = RNG.uniform(-1.0, 1.0, (2, 2, 16, 2))
    check_gradient(lambda x, w: rt.nn.conv2d(x, w, 1, "SAME"), [x, w], rtol=1e-6, atol=1e-8)


# --- conv2d_transpose: the op_info samples check values and gradients; these its contract ---


def test_conv2d_transpose_is_the_adjoint_of_conv2d():
    """<conv2d(a), b> == <a, conv2d_transpose(b)>: the definition of a transpose."""
    a = RNG.uniform(-1.0, 1.0, (2, 7, 6, 2))
    b = RNG.uniform(-1.0, 1.0, (2, 4, 3, 3))
    w = RNG.uniform(-1.0, 1.0, (3, 2, 2, 3))
    for padding in ("SAME", "VALID"):
        conv = rt.nn.conv2d(a, w, 2, padding).numpy()
        b_ = b[:, : conv.shape[1], : conv.shape[2]]
        back = rt.nn.conv2d_transpose(b_, w, a.shape, 2, padding).numpy()
        np.testing.assert_allclose(np.sum(conv * b_), np.sum(a * back), rtol=1e-10)


def test_conv2d_transpose_gradients_of_gradients_match_central_differences():
    def loss(x, w):
        y = rt.nn.conv2d_transpose(x, w, [1, 9, 7, 2], [2, 2], "SAME")
        return rt.reduce_sum(y * y * y)

    x = RNG.uniform(-1.0, 1.0, (1, 5, 4, 3))
    w = RNG.uniform(-1.0, 1.0, (3, 2, 2, 3))
    check_gradient(_first_gradient(loss), [x, w], rtol=1e-6, atol=1e-8)


def test_conv2d_transpose_takes_an_output_shape_known_when_it_runs():
    import autograph as ag

    w = np.ones((2, 2, 1, 1), np.float32)

    @ag.function(input_signature=[rt.TensorSpec([None, 2, 2, 1], rt.float32)])
    def upsample(x):
        y = rt.nn.conv2d_transpose(x, w, rt.stack([rt.shape(x)[0], 4, 4, 1]), 2, "VALID")
        assert y.shape.as_list() == [None, 4, 4, 1]
        return y

    np.testing.assert_array_equal(
        upsample(np.ones((3, 2, 2, 1), np.float32)), np.ones((3, 4, 4, 1))
    )


def test_conv2d_transpose_errors_are_tensorflows():
    x, w = np.ones((1, 2, 2, 1), np.float32), np.ones((3, 3, 1, 1), np.float32)
    with pytest.raises(
        rt.errors.InvalidArgumentError,
        match="Conv2DCustomBackpropInput: Size of out_backprop doesn't match computed: "
        "actual = 2, computed = 5 spatial_dim: 1 input: 5 filter: 3 output: 2 stride: 1",
    ):
        rt.nn.conv2d_transpose(x, w, [1, 5, 5, 1], 1)
    with pytest.raises(rt.errors.InvalidArgumentError, match="must have the same out_depth"):
        rt.nn.conv2d_transpose(x, np.ones((3, 3, 1, 2), np.float32), [1, 4, 4, 1], 2)
    with pytest.raises(rt.errors.InvalidArgumentError, match="evenly divisible by filter depth"):
        rt.nn.conv2d_transpose(x, w, [1, 4, 4, 3], 2)
    with pytest.raises(ValueError, match=r"output_shape must have shape \(4,\)"):
        rt.nn.conv2d_transpose(x, w, [4, 4], 2)
    with pytest.raises(ValueError, match="not in the list of allowed values"):
        rt.nn.conv2d_transpose(x, w, [1, 4, 4, 1], 2, "same")
