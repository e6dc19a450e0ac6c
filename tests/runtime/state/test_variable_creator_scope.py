"""rt.variable_creator_scope, as TensorFlow's tf.variable_creator_scope: every rt.Variable(...)
made inside goes through ``creator(next_creator, **kwargs)``, innermost scope first."""

import threading

import numpy as np

import runtime as rt


def test_creators_see_the_arguments_by_name_innermost_first():
    calls = []

    def outer(next_creator, **kwargs):
        calls.append(("outer", kwargs["name"]))
        return next_creator(**kwargs)

    def inner(next_creator, **kwargs):
        calls.append(("inner", kwargs["name"]))
        kwargs["trainable"] = False
        return next_creator(**kwargs)

    with rt.variable_creator_scope(outer), rt.variable_creator_scope(inner):
        v = rt.Variable([1.0, 2.0], name="w")
    assert calls == [("inner", "w"), ("outer", "w")]
    assert v.trainable is False
    np.testing.assert_array_equal(v.numpy(), [1.0, 2.0])
    assert rt.Variable(0.0).trainable  # outside the scopes: as usual


def test_a_creator_may_return_its_own_variable():
    shared = rt.Variable(5.0)
    with rt.variable_creator_scope(lambda next_creator, **kwargs: shared):
        assert rt.Variable(1.0) is shared


def test_the_scope_is_per_thread():
    seen = []

    def record(next_creator, **kwargs):
        seen.append(kwargs["initial_value"])
        return next_creator(**kwargs)

    with rt.variable_creator_scope(record):
        other = threading.Thread(target=lambda: rt.Variable(2.0))
        other.start()
        other.join(timeout=30)
        rt.Variable(1.0)
    assert seen == [1.0]
