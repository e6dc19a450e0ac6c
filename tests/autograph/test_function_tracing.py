"""``ag.function``'s tracing as TensorFlow 2.21's tests define it (polymorphic_function_test.py,
tracing_compilation_test.py), translated to this project's names: the retracing warning in the
log, the tracing count, variables as arguments, shapes in nested calls, release after ``del``,
variables lifted out of the first trace, and ``print``.
"""

from __future__ import annotations

import gc
import logging
import warnings
import weakref

import numpy as np
import pytest

import autograph as ag
import runtime as rt


@pytest.fixture(autouse=True)
def _no_retracing_warning_noise():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ag.RetracingWarning)
        yield


def _retracing_logs(caplog):
    return [
        r
        for r in caplog.records
        if r.name == "autograph" and r.levelno == logging.WARNING and "retracing" in r.message
    ]


# --- the frequent-retracing warning in the log (testFrequentRetracingWarning*) -----------------


def test_five_traces_in_five_calls_log_tensorflows_warning(caplog):
    @ag.function
    def f(x):
        return x

    with caplog.at_level(logging.WARNING):
        for i in range(1, 5):
            f(i)
        assert _retracing_logs(caplog) == []
        f(5)
    (record,) = _retracing_logs(caplog)
    assert record.message.startswith("5 out of the last 5 calls to <function ")
    assert "triggered ag.function retracing. Tracing is expensive" in record.message
    assert "reduce_retracing=True" in record.message


def test_the_warning_counts_each_function_apart(caplog):
    @ag.function
    def f(x):
        return x

    @ag.function
    def g(x):
        return x

    with caplog.at_level(logging.WARNING):
        for i in range(1, 5):
            f(i)
        for i in range(1, 6):
            g(i)
    assert len(_retracing_logs(caplog)) == 1


def test_the_warning_counts_calls_of_a_method(caplog):
    class Foo:
        @ag.function
        def f(self, x):
            return x

    foo = Foo()  # (TensorFlow's test calls Foo().f with the Foo gone: here it must be kept)
    f = foo.f
    with caplog.at_level(logging.WARNING):
        for i in range(1, 6):
            f(i)
    assert len(_retracing_logs(caplog)) == 1


def test_a_function_made_anew_in_a_loop_is_noticed(caplog):
    def f(x):
        return x + 1

    with caplog.at_level(logging.WARNING):
        for i in range(5):
            ag.function(f)(rt.constant(i))  # one trace each: the same code
    assert len(_retracing_logs(caplog)) == 1


def test_calls_that_find_their_graph_dilute_the_traces(caplog):
    @ag.function
    def f(x):
        return x

    with caplog.at_level(logging.WARNING):
        for i in range(1, 5):
            f(i)
            for _ in range(11):  # more than TensorFlow's history of ten calls between traces
                f(i)
        f(5)
    assert _retracing_logs(caplog) == []


def test_the_warning_is_logged_at_most_twice(caplog):
    @ag.function
    def f(x):
        return x

    with caplog.at_level(logging.WARNING):
        for i in range(20):
            f(i)
    messages = [r.message for r in _retracing_logs(caplog)]
    assert [m.split(" calls")[0] for m in messages] == [
        "5 out of the last 5",
        "6 out of the last 6",
    ]


def test_experimental_get_tracing_count():
    @ag.function
    def double(a):
        return a + a

    assert double.experimental_get_tracing_count() == 0
    double(2)
    double(2)
    assert double.experimental_get_tracing_count() == 1
    double(3)
    double(rt.constant(1.0))
    double(rt.constant(2.0))
    assert double.experimental_get_tracing_count() == 3
    double.get_concrete_function(rt.TensorSpec([2], rt.float32))
    assert double.experimental_get_tracing_count() == 4


# --- variables made in the first trace: lifted out of the graph (tf.init_scope) ----------------


class _Scaler(rt.Module):
    def __init__(self):
        super().__init__()
        self.w = None

    @ag.function
    def __call__(self, x):
        if self.w is None:
            self.w = rt.Variable(rt.random.uniform([3]))
        return x * self.w


def test_a_variable_made_from_a_random_tensor_in_the_first_trace_is_made_once():
    scaler = _Scaler()
    first = scaler(rt.ones([3])).numpy()
    w = scaler.w.numpy()
    assert ((w >= 0) & (w < 1)).all()
    np.testing.assert_allclose(first, w)
    np.testing.assert_allclose(scaler(rt.constant([1.0, 2.0, 3.0])).numpy(), w * [1, 2, 3])
    assert scaler.w.numpy() is not None and np.array_equal(scaler.w.numpy(), w)
    assert scaler.trainable_variables == (scaler.w,)


def test_a_variable_made_from_the_first_calls_argument_holds_its_value():
    class Doubler(rt.Module):
        v = None

        @ag.function
        def __call__(self, x):
            if self.v is None:
                self.v = rt.Variable(2.0 * x)
            return self.v + x

    doubler = Doubler()
    assert doubler(rt.constant(3.0)).numpy() == 9.0
    assert doubler(rt.constant(1.0)).numpy() == 7.0  # v is 6, made once
    assert doubler.v.numpy() == 6.0


def test_an_initial_value_needing_an_argument_traced_from_a_spec_is_refused():
    @ag.function
    def make(x):
        return rt.Variable(2.0 * x).read_value()

    with pytest.raises(ValueError, match="depends on an argument that has no value"):
        make.get_concrete_function(rt.TensorSpec([], rt.float32))


def test_init_scope_leaves_the_function_being_traced():
    seen = []

    @ag.function
    def f(x):
        with rt.init_scope():
            seen.append((rt.executing_eagerly(), rt.constant(2.0).numpy()))
        seen.append(rt.executing_eagerly())
        return x

    f(rt.constant(1.0))
    assert seen == [(True, 2.0), False]


def test_init_scope_in_a_tf1_graph_stays_in_that_graph():
    graph = rt.Graph()
    with graph.as_default(), rt.init_scope():
        c = rt.constant(1.0)
        eager = rt.executing_eagerly()
    assert c.graph is graph
    assert not eager


def test_init_scope_clears_the_graphs_control_dependencies():
    graph = rt.Graph()
    with graph.as_default():
        x = rt.placeholder(rt.float32, [])
        first = rt.identity(x)
        with graph.control_dependencies([first.op]):
            with rt.init_scope():
                lifted = rt.identity(x)
            waits = rt.identity(x)
    assert list(lifted.op.control_inputs) == []
    assert list(waits.op.control_inputs) == [first.op]


def test_init_scope_pauses_the_tape():
    x = rt.constant(3.0)
    with rt.GradientTape(persistent=True) as tape:
        tape.watch(x)
        with rt.init_scope():
            y = x * x
        z = x * x
    assert tape.gradient(y, x) is None
    assert tape.gradient(z, x).numpy() == 6.0


# --- Function objects are released after del (testFunctionReferenceCycles and the like) ---------


def _released(make):
    ref = make()
    gc.collect()
    return ref() is None


def test_a_function_called_and_traced_is_released_after_del():
    def make():
        @ag.function
        def f(x):
            return x + 1

        f(rt.constant(1.0))
        f.get_concrete_function(rt.TensorSpec([None], rt.float32))
        return weakref.ref(f)

    assert _released(make)


def test_an_object_whose_traced_method_was_called_is_released():
    class Model(rt.Module):
        def __init__(self):
            super().__init__()
            self.v = rt.Variable(2.0)

        @ag.function
        def __call__(self, x):
            return x * self.v

    def make():
        model = Model()
        assert model(rt.constant(3.0)).numpy() == 6.0
        assert model(rt.constant(4.0)).numpy() == 8.0  # the same bound Function, graph reused
        assert model.__call__.tracing_count == 1
        return weakref.ref(model)

    assert _released(make)


def test_the_graphs_of_an_objects_method_are_released_with_it():
    class Foo:
        @ag.function
        def f(self, x):
            return x

    def make():
        foo = Foo()
        foo.f(rt.constant(1.0))
        return weakref.ref(foo.f.get_concrete_function(rt.constant(1.0)))

    assert _released(make)


def test_a_method_of_a_temporary_object_holds_it_for_the_call():
    # As a Python bound method: ``obj.method`` holds ``obj`` (the descriptor's cache does not).
    class Foo:
        def __init__(self):
            self.k = rt.constant(2.0)

        @ag.function
        def f(self, x):
            return x * self.k

    assert float(Foo().f(rt.constant(3.0))) == 6.0
    f = Foo().f
    gc.collect()
    assert float(f(rt.constant(4.0))) == 8.0
    assert f.experimental_get_tracing_count() == 1


def test_tracing_for_an_object_that_is_gone_raises_reference_error():
    # Only the object's Function, kept without its object, can meet it: when it must trace.
    class Foo:
        @ag.function
        def f(self, x):
            return x

    foo = Foo()
    foo.f(rt.constant(1.0))
    trace = foo.f.get_concrete_function
    del foo
    gc.collect()
    assert float(trace(rt.constant(2.0))(rt.constant(3.0))) == 3.0  # traced already: no trace
    with pytest.raises(ReferenceError, match="no longer exists"):
        trace(rt.constant([1.0]))


def test_a_method_of_an_object_without_weak_references_keeps_its_graphs():
    class Foo(int):  # an int subclass has a __dict__ but no weak references
        @ag.function
        def f(self, x):
            return x * float(self)

    foo = Foo(3)
    assert [float(foo.f(rt.constant(v))) for v in (1.0, 2.0)] == [3.0, 6.0]
    assert foo.f.experimental_get_tracing_count() == 1


# --- variables as arguments: by their spec, passed as inputs (TensorFlow's VariableSpec) -------


def test_variables_of_one_spec_share_a_graph_and_each_call_reads_its_own():
    @ag.function
    def double(v):
        return v.read_value() * 2.0

    assert double(rt.Variable(1.0)).numpy() == 2.0
    assert double(rt.Variable(2.0)).numpy() == 4.0
    assert double.experimental_get_tracing_count() == 1
    np.testing.assert_allclose(double(rt.Variable([1.0, 3.0])).numpy(), [2.0, 6.0])
    double(rt.Variable(1.0, dtype=rt.float64))  # another dtype
    double(rt.Variable(1.0, trainable=False))  # not trainable
    assert double.experimental_get_tracing_count() == 4


def test_an_assignment_writes_the_variable_passed():
    @ag.function
    def bump(v, x):
        v.assign_add(x)
        return v.read_value()

    a, b = rt.Variable(1.0), rt.Variable(10.0)
    assert bump(a, rt.constant(1.0)).numpy() == 2.0
    assert bump(b, rt.constant(2.0)).numpy() == 12.0
    assert (a.numpy(), b.numpy()) == (2.0, 12.0)
    assert bump.experimental_get_tracing_count() == 1


def test_the_same_variable_twice_is_another_graph_than_two_variables():
    @ag.function
    def add_then_read(v, w):
        v.assign_add(1.0)
        return w.read_value()

    a, b = rt.Variable(1.0), rt.Variable(5.0)
    assert add_then_read(a, a).numpy() == 2.0  # w is v: it sees the assignment
    assert add_then_read(a, b).numpy() == 5.0
    assert add_then_read(b, b).numpy() == 6.0
    assert add_then_read.experimental_get_tracing_count() == 2
    assert a.numpy() == 3.0


def test_gradients_through_the_call_reach_the_variable_passed():
    @ag.function
    def scaled_square(v, x):
        return v * v * x

    a, b = rt.Variable(4.0), rt.Variable(12.0)
    with rt.GradientTape() as tape:
        y = scaled_square(a, rt.constant(3.0))
    assert tape.gradient(y, a).numpy() == 2 * 4.0 * 3.0
    with rt.GradientTape() as tape:
        y = scaled_square(b, rt.constant(3.0))
    grads = tape.gradient(y, [a, b])
    assert grads[0] is None and grads[1].numpy() == 2 * 12.0 * 3.0
    assert scaled_square.experimental_get_tracing_count() == 1


def test_a_concrete_function_takes_any_variable_of_its_spec():
    @ag.function
    def read(v):
        return v.read_value() + 1.0

    concrete = read.get_concrete_function(rt.Variable(1.0))
    assert concrete(rt.Variable(41.0)).numpy() == 42.0
    with pytest.raises(TypeError, match="must be a variable of VariableSpec"):
        concrete(rt.Variable([1.0, 2.0]))


# --- static shapes through nested calls (already so: a nested call is inlined) ----------------


def test_a_nested_function_sees_the_static_shapes_of_its_arguments():
    seen = []

    @ag.function
    def inner(x):
        seen.append(tuple(x.shape))
        return rt.reduce_sum(x, axis=1)

    @ag.function
    def outer(x):
        y = inner(x)
        seen.append(tuple(y.shape))
        return y

    np.testing.assert_allclose(outer(rt.ones([3, 5])).numpy(), [5.0, 5.0, 5.0])
    assert seen == [(3, 5), (3,)]


def test_shape_inference_for_more_specific_input():
    # TensorFlow's testShapeInferenceForMoreSpecificInput: a function whose input_signature
    # has an unknown shape, called in a trace, gives the shapes its body gives for the input.
    def f(a):
        return rt.reshape(a, [-1, 3])

    compiled = ag.function(f, input_signature=[rt.TensorSpec(None, rt.float32)])
    shapes = []

    @ag.function
    def use_f():
        inputs = rt.zeros([10, 10, 3])
        shapes.append((tuple(f(inputs).shape), tuple(compiled(inputs).shape)))

    use_f()
    assert shapes == [((100, 3), (100, 3))]


def test_a_tape_inside_the_function_differentiates_a_variable_argument():
    # A variable argument's reads go through the graph's input handle; a tape there must still
    # know them for that variable's reads (TensorFlow: 2 * w for each variable passed).
    @ag.function
    def gradient_of_square(w):
        with rt.GradientTape() as tape:
            y = w * w
        return tape.gradient(y, w)

    assert gradient_of_square(rt.Variable(3.0)).numpy() == 6.0
    assert gradient_of_square(rt.Variable(5.0)).numpy() == 10.0
    assert gradient_of_square.experimental_get_tracing_count() == 1


def test_both_retracing_warnings_share_one_threshold(monkeypatch, caplog):
    from autograph import retracing

    monkeypatch.setattr(retracing, "THRESHOLD", 3)
    f = ag.function(lambda x: x)
    with warnings.catch_warnings(record=True) as caught, caplog.at_level(logging.WARNING):
        warnings.simplefilter("always", ag.RetracingWarning)
        f(1), f(2), f(3)
    assert [w.category for w in caught] == [ag.RetracingWarning]
    assert len(_retracing_logs(caplog)) == 1


def test_equal_instances_each_run_their_own_method():
    # Instances that compare equal (dataclasses with equal fields, or any __eq__) are still two
    # objects: each method call runs with its own self (Python's answer).
    class Scale:
        def __init__(self, k):
            self.k = k

        def __eq__(self, other):
            return True

        def __hash__(self):
            return 1

        @ag.function
        def times(self, x):
            return x * self.k

    two, seven = Scale(2.0), Scale(7.0)
    assert two.times(rt.constant(3.0)).numpy() == 6.0
    assert seven.times(rt.constant(3.0)).numpy() == 21.0
