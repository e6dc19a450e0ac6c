"""A shape given as a list mixing tensors and numbers (``zeros([batch, 3])``) keeps its known
numbers in the static shape, as TensorFlow's ``constant_value_as_shape`` does for a packed
shape: a while_loop carrying such a tensor, and a saved model checking its ops' shapes, see
``(None, 3)`` rather than ``(None, None)``."""

import autograph as ag
import runtime as rt


def _traced_shape(fn):
    shapes = []

    def body(x):
        y = fn(x)
        shapes.append(y.shape.as_list())
        return y

    ag.function(
        body, input_signature=[rt.TensorSpec([None, 2], rt.float32)]
    ).get_concrete_function()
    return shapes[0]


def test_zeros_with_a_tensor_batch_keeps_the_known_width():
    assert _traced_shape(lambda x: rt.zeros([rt.shape(x)[0], 3])) == [None, 3]


def test_fill_keeps_every_known_number_and_only_those():
    assert _traced_shape(lambda x: rt.fill([2, rt.shape(x)[0], 4], 1.0)) == [2, None, 4]


def test_a_negative_number_is_not_a_size():
    # TensorFlow's answer too: -1 with an unknown batch leaves both dims unknown
    assert _traced_shape(lambda x: rt.reshape(x, [rt.shape(x)[0], -1])) == [None, None]
