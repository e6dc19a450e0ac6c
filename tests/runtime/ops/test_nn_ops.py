"""``rt.nn.sparse_softmax_cross_entropy_with_logits`` (the op Keras' sparse losses run on)
against numpy, eagerly and in graphs."""

from __future__ import annotations

import math

import numpy as np
import pytest

import runtime as rt
from runtime.ops.nn_ops import SPARSE_SOFTMAX_XENT
from runtime.ops.registry import bind
from tests.runtime.ops.op_harness import build_graph, check_op

LOGITS = np.array([[2.0, -1.0, 0.5, 0.0], [0.0, 0.0, 0.0, 0.0], [30.0, -30.0, 1.0, 2.0]])
LABELS = np.array([0, 3, 1])


def _reference(logits, labels):
    """Written out from the definition: -log(exp(x_label) / sum(exp(x))), in float64."""
    x = logits.astype(np.float64)
    exp = np.exp(x - x.max(axis=-1, keepdims=True))
    probs = exp / exp.sum(axis=-1, keepdims=True)
    loss = -np.log(probs[np.arange(len(labels)), labels])
    backprop = probs.copy()
    backprop[np.arange(len(labels)), labels] -= 1.0
    return loss.astype(logits.dtype), backprop.astype(logits.dtype)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("label_dtype", [np.int32, np.int64])
def test_loss_and_its_gradient_output_against_numpy(dtype, label_dtype):
    logits, labels = LOGITS.astype(dtype), LABELS.astype(label_dtype)
    loss, backprop = _reference(logits, labels)
    check_op(
        lambda x, y: bind(SPARSE_SOFTMAX_XENT, [x, y]),
        [logits, labels],
        [loss, backprop],
        rt.as_dtype(dtype),
    )


def test_the_batch_may_be_unknown_and_any_number_of_axes_lead():
    logits = np.arange(24, dtype=np.float32).reshape(2, 3, 4) / 7
    labels = np.array([[0, 1, 2], [3, 3, 0]])
    loss, _ = _reference(logits.reshape(6, 4), labels.reshape(6))
    check_op(
        lambda x, y: rt.nn.sparse_softmax_cross_entropy_with_logits(y, x),
        [logits, labels],
        loss.reshape(2, 3),
        rt.float32,
        shapes=[[None, None, 4], [None, None]],
        static_shape=[None, None],
    )


def test_its_gradient_is_softmax_minus_one_hot():
    logits = rt.constant(LOGITS.astype(np.float32))
    with rt.GradientTape() as tape:
        tape.watch(logits)
        loss = rt.nn.sparse_softmax_cross_entropy_with_logits(LABELS, logits)
    np.testing.assert_allclose(
        tape.gradient(loss, logits).numpy(), _reference(LOGITS, LABELS)[1], rtol=1e-6, atol=1e-7
    )


def test_a_label_outside_the_classes_fails_when_the_op_runs():
    message = "Received a label value of 4 which is outside the valid range of \\[0, 4\\)"
    with pytest.raises(rt.errors.InvalidArgumentError, match=message):
        rt.nn.sparse_softmax_cross_entropy_with_logits([0, 4, 1], LOGITS)
    g, (x, y), out = build_graph(
        lambda x, y: rt.nn.sparse_softmax_cross_entropy_with_logits(y, x), [LOGITS, LABELS]
    )
    with pytest.raises(rt.errors.InvalidArgumentError, match="label value of -1"):
        rt.Session(g).run(out, {x: LOGITS, y: [0, -1, 2]})


def test_bad_dtypes_and_shapes_are_rejected_when_built():
    with pytest.raises(TypeError, match="labels of dtype float32"):
        rt.nn.sparse_softmax_cross_entropy_with_logits(rt.constant([0.0]), [[1.0, 2.0]])
    with pytest.raises(TypeError, match="logits of dtype int32"):
        rt.nn.sparse_softmax_cross_entropy_with_logits([0], [[1, 2]])
    with pytest.raises(ValueError, match="labels must have the shape of logits without its last"):
        rt.nn.sparse_softmax_cross_entropy_with_logits([0, 1], [[1.0, 2.0]])


def test_gelu_gives_tensorflows_documented_values():
    # tf.nn.gelu's docstring: x = [-3, -1, 0, 1, 3] in float32.
    # At -3 its float32 erf is 4e-5 off (-0.00404951); Python's math.erf gives -0.00404969.
    x = rt.constant([-3.0, -1.0, 0.0, 1.0, 3.0])
    exact = [-1.5 * math.erfc(3 / math.sqrt(2)), -0.15865529, 0.0, 0.8413447, 2.9959507]
    np.testing.assert_allclose(rt.nn.gelu(x).numpy(), exact, rtol=1e-6, atol=1e-7)
    # Likewise its float32 tanh at -3 (-0.00363752): the formula in float64 gives -0.00363734.
    tail = -1.5 * (1 + math.tanh(math.sqrt(2 / math.pi) * (-3 - 0.044715 * 27)))
    approximate = [tail, -0.15880796, 0.0, 0.841192, 2.9963627]
    np.testing.assert_allclose(
        rt.nn.gelu(x, approximate=True).numpy(), approximate, rtol=1e-6, atol=1e-7
    )


def test_gelu_and_softplus_refuse_integers_as_tensorflow_does():
    with pytest.raises(ValueError, match="must be a floating point tensor"):
        rt.nn.gelu([1, 2])
    with pytest.raises(TypeError, match="Softplus does not support input of dtype int32"):
        rt.math.softplus([1, 2])


_NO_EXAMPLE = [((0, 0), (0,)), ((0, 3), (0,)), ((2, 0, 3), (2, 0))]


def _no_example_loss(logits, labels):
    return rt.nn.sparse_softmax_cross_entropy_with_logits(labels, logits)


def _no_example(logits_shape, labels_shape):
    return (
        rt.constant(np.zeros(logits_shape, np.float32)),
        rt.constant(np.zeros(labels_shape, np.int32)),
    )


@pytest.mark.parametrize("logits_shape, labels_shape", _NO_EXAMPLE)
def test_sparse_cross_entropy_of_no_example_is_empty(logits_shape, labels_shape):
    import autograph as ag

    args = _no_example(logits_shape, labels_shape)
    for run in (_no_example_loss, ag.function(_no_example_loss)):
        assert run(*args).numpy().shape == labels_shape


@pytest.mark.parametrize("logits_shape, labels_shape", _NO_EXAMPLE)
def test_sparse_cross_entropy_of_no_example_is_empty_under_xla(logits_shape, labels_shape):
    import autograph as ag
    from tests.extras import import_extra

    import_extra("jax")
    run = ag.function(_no_example_loss, jit_compile=True)
    assert run(*_no_example(logits_shape, labels_shape)).numpy().shape == labels_shape
