"""Variables as arguments of ``ag.function`` beside the same variables read from the closure,
and variables the first trace makes, as TensorFlow 2.21 runs them (the review of the tracing
work: each case was a wrong answer or a crash)."""

from __future__ import annotations

import gc
import weakref

import numpy as np

import autograph as ag
import runtime as rt


def test_a_closure_read_of_the_variable_passed_reads_the_closures_variable():
    g = rt.Variable(100.0)
    w = rt.Variable(1.0)

    @ag.function
    def h(a):
        return a.read_value() + g.read_value()

    assert float(h(g)) == 200.0
    assert float(h(w)) == 101.0  # (was 2.0: the closure's g read w's handle)


def test_a_closure_write_does_not_write_the_variable_passed():
    g = rt.Variable(100.0)
    w = rt.Variable(1.0)

    @ag.function
    def h(a):
        g.assign(5.0)
        return a.read_value()

    h(g)
    g.assign(100.0)
    assert float(h(w)) == 1.0
    assert (float(w.numpy()), float(g.numpy())) == (1.0, 5.0)


def test_the_same_variable_twice_then_two_variables():
    v = rt.Variable(1.0)
    w = rt.Variable(10.0)

    @ag.function
    def bump_then_read(a, b):
        a.assign_add(1.0)
        return b.read_value()

    assert float(bump_then_read(v, v)) == 2.0  # one variable: the write is seen
    assert float(bump_then_read(w, v)) == 2.0  # w bumped, v read
    assert (float(v.numpy()), float(w.numpy())) == (2.0, 11.0)


def test_two_variables_of_one_random_tensor_hold_one_draw():
    made = {}

    @ag.function
    def f(x):
        if not made:
            r = rt.random.uniform([3])
            made["a"] = rt.Variable(r)
            made["b"] = rt.Variable(2.0 * r)
        return made["a"] + x

    f(rt.constant(0.0))
    np.testing.assert_allclose(2.0 * made["a"].numpy(), made["b"].numpy(), rtol=1e-6)


def test_an_initial_value_reading_a_variable_assigned_before_sees_the_assignment():
    counter = rt.Variable(0.0)
    made = {}

    @ag.function
    def f(x):
        counter.assign_add(1.0)
        if not made:
            made["w"] = rt.Variable(counter.read_value() + x)
        return made["w"].read_value()

    # TensorFlow initialises w in the graph, after the assignment: 1 + 10.
    assert float(f(rt.constant(10.0))) == 11.0
    assert float(counter.numpy()) == 1.0  # assigned once, by the call


def test_a_variable_spec_from_a_traced_signature_gives_back_a_concrete_function():
    @ag.function
    def read(a):
        return a.read_value() * 2.0

    v = rt.Variable(1.0)
    (spec,), _ = read.get_concrete_function(v).structured_input_signature
    assert read.get_concrete_function(spec) is read.get_concrete_function(v)
    fresh = ag.function(lambda a: a.read_value() + 1.0)
    assert float(fresh.get_concrete_function(spec)(rt.Variable(4.0))) == 5.0


def test_a_variable_spec_prints_its_dtype_as_a_tensor_spec_does():
    spec = ag.function(lambda a: a.read_value()).get_concrete_function(rt.Variable([1.0, 2.0]))
    (variable_spec,), _ = spec.structured_input_signature
    assert repr(variable_spec) == "VariableSpec(shape=(2,), dtype=rt.float32, trainable=True)"
    assert "dtype=rt.float32" in repr(rt.TensorSpec([2], rt.float32))


def test_a_graph_does_not_keep_the_variable_it_was_traced_with_alive():
    @ag.function
    def read(a):
        return a.read_value() + 1.0

    v = rt.Variable(1.0)
    read(v)
    held = weakref.ref(v)
    del v
    gc.collect()
    assert held() is None
    assert float(read(rt.Variable(2.0))) == 3.0  # the graph still serves other variables
    assert read.experimental_get_tracing_count() == 1
