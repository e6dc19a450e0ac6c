"""How a Function and its ConcreteFunctions are called, as TensorFlow's tests define it.

Ported from TensorFlow 2.21's polymorphic_function_test.py (same programs, same expected
values), with the project's names: ``tf.function`` is ``ag.function``, ``tf`` is ``rt``.
"""

import functools

import numpy as np
import pytest

import autograph as ag
import runtime as rt

# --- what can be made a Function: partials, bound methods, callable objects ---------------


def test_functools_partial():
    add = ag.function(functools.partial(lambda x, y: x + y, 1.0))
    np.testing.assert_allclose(add(rt.constant(2.0)).numpy(), 3.0)


def test_functools_partial_new_default():
    def f(x=3, y=7):
        return x + y

    func = ag.function(functools.partial(f, y=6))
    assert func().numpy() == 9
    assert func(y=8).numpy() == 11


def test_functools_partial_keywords():
    def f(x, y):
        return x + y

    func = ag.function(functools.partial(f, x=rt.zeros([1]), y=rt.zeros([1])))
    np.testing.assert_array_equal(func().numpy(), [0.0])


def test_functools_partial_single_positional():
    def f(x, y):
        return x + y

    func = ag.function(functools.partial(f, rt.constant(1)))
    assert func(5).numpy() == 6


def test_complicated_partial_with_defaults():
    def identity(*args):
        return args

    seen = {}

    def dynamic_unroll(
        core_fn,
        input_sequence,
        initial_state,
        sequence_length=None,
        parallel_iterations=1,
        swap_memory=False,
    ):
        del core_fn
        seen.update(sequence_length=sequence_length, iterations=parallel_iterations)
        seen.update(swap_memory=swap_memory)
        return input_sequence, initial_state

    func = ag.function(functools.partial(dynamic_unroll, identity, swap_memory=True))
    func(rt.random.uniform([1, 1, 1]), rt.random.uniform([1, 1]))
    assert seen == {"sequence_length": None, "iterations": 1, "swap_memory": True}


@pytest.mark.parametrize("kind", ["method", "function", "lambda"])
def test_input_signature_partial_missing_tensor_specs(kind):
    class MyModule(rt.Module):
        def f(self, arg1, arg2, arg3, arg4=4):
            return arg1 + arg2 + arg3 + arg4

    def plain(arg1, arg2, arg3, arg4=4):
        return arg1 + arg2 + arg3 + arg4

    f = {
        "method": MyModule().f,
        "function": plain,
        "lambda": lambda arg1, arg2, arg3, arg4=4: arg1 + arg2 + arg3 + arg4,
    }[kind]
    decorate = ag.function(input_signature=(rt.TensorSpec([], rt.int32),))
    with pytest.raises(TypeError, match="input_signature missing type constraint"):
        decorate(functools.partial(f, 1))(2, 3)
    with pytest.raises(TypeError, match="input_signature missing type constraint"):
        decorate(functools.partial(f, arg4=5))(1, 2, 3)
    with pytest.raises(TypeError, match="input_signature missing type constraint"):
        decorate(functools.partial(f, 1, arg4=5))(2, 3)
    assert decorate(functools.partial(f, 1, 2, arg4=5))(3).numpy() == 11


def test_a_partial_of_a_method_and_of_a_callable_object():
    class Scale:
        def __init__(self, factor):
            self.factor = factor

        def __call__(self, x, shift):
            return x * self.factor + shift

        def apply(self, x, shift):
            return x * self.factor + shift

    scale = Scale(3.0)
    of_method = ag.function(functools.partial(scale.apply, shift=1.0))
    of_object = ag.function(functools.partial(scale, shift=2.0))
    np.testing.assert_allclose(of_method(rt.constant([1.0, 2.0])).numpy(), [4.0, 7.0])
    np.testing.assert_allclose(of_object(rt.constant([1.0, 2.0])).numpy(), [5.0, 8.0])
    assert of_method.__name__ == "apply"
    assert of_object.__name__ == "Scale"


def test_a_partial_traces_once_per_signature_and_converts_its_function():
    def clip(x, limit):
        if rt.reduce_sum(x) > limit:  # a tensor condition: AutoGraph makes it rt.cond
            return x * 0.0
        return x

    clipped = ag.function(functools.partial(clip, limit=rt.constant(5.0)))
    assert clipped.__name__ == "clip"
    np.testing.assert_allclose(clipped(rt.constant([1.0, 2.0])).numpy(), [1.0, 2.0])
    np.testing.assert_allclose(clipped(rt.constant([4.0, 2.0])).numpy(), [0.0, 0.0])
    assert clipped.tracing_count == 1
    clipped(rt.constant([1.0, 2.0, 3.0]))  # a new shape: a new graph
    assert clipped.tracing_count == 2


def test_missing_args_of_a_callable_object():
    class A:
        def __call__(self, position_arg1, position_arg2):
            return position_arg1, position_arg2

    fn = ag.function(A())
    fn(position_arg1=1, position_arg2=2)
    with pytest.raises(TypeError, match="missing a required argument"):
        fn(position_arg2="bar")


def test_missing_args_of_a_bound_method_and_of_a_decorated_one():
    class A:
        def func(self, position_arg1, position_arg2):
            return position_arg1, position_arg2

        @ag.function
        def decorated_method(self, position_arg1, position_arg2):
            return position_arg1, position_arg2

    a = A()
    with pytest.raises(TypeError, match="missing a required argument"):
        ag.function(a.func)(position_arg2="foo")
    method = ag.function(a.decorated_method)
    method(position_arg1="foo", position_arg2="bar")
    with pytest.raises(TypeError, match="missing a required argument"):
        method(position_arg2="bar")


# --- input_signature: *args, dicts, nested tuples ------------------------------------------


def test_concrete_function_method_with_varargs():
    float32_scalar = rt.TensorSpec(shape=(), dtype=rt.float32)

    class MyModel(rt.Module):
        @ag.function(input_signature=[float32_scalar, float32_scalar])
        def add(self, *arg):
            return rt.add(*arg)

    m = MyModel()
    cf = m.add.get_concrete_function()
    np.testing.assert_allclose(cf(-12.0, 3.0).numpy(), -9.0)
    np.testing.assert_allclose(m.add(1.0, 2.0).numpy(), 3.0)


def test_each_spec_covers_one_positional_argument_under_star_args():
    @ag.function(input_signature=[rt.TensorSpec([None], rt.float32), rt.TensorSpec([], rt.int32)])
    def scaled(*args):
        values, count = args
        return values * rt.cast(count, rt.float32)

    np.testing.assert_allclose(scaled([1.0, 2.0], 3).numpy(), [3.0, 6.0])
    np.testing.assert_allclose(scaled([1.0, 2.0, 4.0], 2).numpy(), [2.0, 4.0, 8.0])
    assert scaled.tracing_count == 1
    with pytest.raises(TypeError, match="missing a required argument: 'args_1'"):
        scaled([1.0])
    with pytest.raises(TypeError, match="too many positional arguments"):
        scaled([1.0], 1, 2)
    with pytest.raises(TypeError, match="Can not cast"):
        scaled([1.0], 1.5)


def test_a_dict_inside_an_input_signature():
    spec = {"a": rt.TensorSpec([None], rt.float32), "b": rt.TensorSpec([], rt.float32)}

    @ag.function(input_signature=[spec])
    def weighted(d):
        return d["a"] * d["b"]

    np.testing.assert_allclose(weighted({"a": [1.0, 2.0], "b": 3.0}).numpy(), [3.0, 6.0])
    np.testing.assert_allclose(weighted({"b": 2.0, "a": [1.0, 2.0, 3.0]}).numpy(), [2.0, 4.0, 6.0])
    assert weighted.tracing_count == 1
    cf = weighted.get_concrete_function()
    np.testing.assert_allclose(cf({"a": [1.0], "b": 5.0}).numpy(), [5.0])
    assert cf.structured_input_signature == ((spec,), {})
    with pytest.raises(TypeError, match="keys"):
        weighted({"a": [1.0]})


def test_nested_tuples_in_an_input_signature():
    scalar = rt.TensorSpec([], rt.float32)

    @ag.function(input_signature=[(scalar, (scalar, scalar))])
    def combine(t):
        a, (b, c) = t
        return a * b + c

    np.testing.assert_allclose(combine((2.0, (3.0, 4.0))).numpy(), 10.0)
    np.testing.assert_allclose(combine.get_concrete_function()((1.0, (1.0, 1.0))).numpy(), 2.0)
    with pytest.raises(TypeError, match="sequence of 2"):
        combine((2.0, 3.0, 4.0))


def test_input_signature_missing_tensor_specs_function():
    decorate = ag.function(input_signature=(rt.TensorSpec([], rt.int32),))
    error_message = "input_signature missing type constraint"

    def f1(arg1, arg2, arg3):
        pass

    def f2(arg1, arg2, arg3, **kwargs):
        pass

    def f3(arg1, arg2, arg3, arg4=4, **kwargs):
        pass

    def f4(arg1, arg2, arg3, *args):
        pass

    def f5(arg1, arg2, arg3, *args, **kwargs):
        pass

    for f in (f1, f2, f3, f4, f5):
        with pytest.raises(TypeError, match=error_message):
            decorate(f)(1, 2, 3)

    def f6(arg1, arg4=4, **kwargs):
        return arg1 + arg4

    assert decorate(f6)(1).numpy() == 5


def test_empty_input_signatures():
    class Foo:
        @ag.function(input_signature=[])
        def bar_none(self):
            return 1

        @ag.function(input_signature=[])
        def bar_two(self, x=0, y=1):
            return x + y

    foo = Foo()
    assert foo.bar_none.input_signature == ()
    assert foo.bar_two.input_signature == ()
    assert foo.bar_two().numpy() == 1


# --- a call that does not fit the input_signature: TypeError --------------------------------


def test_inputs_incompatible_with_signature_raise_type_error():
    def foo(a):
        return a

    signature = [rt.TensorSpec(shape=(2,), dtype=rt.float32)]
    defined = ag.function(foo, input_signature=signature)
    defined(rt.ones([2]))  # fits
    with pytest.raises(TypeError, match=r"Can not cast .*dtype=rt.int32.* to .*dtype=rt.float32.*"):
        defined(rt.ones([3], dtype=rt.int32))
    with pytest.raises(TypeError, match="Can not cast.*"):
        defined(rt.ones([3]))
    with pytest.raises(TypeError, match="Can not cast.*"):
        defined(rt.ones([2, 1]))
    with pytest.raises(TypeError, match="too many positional arguments"):
        defined(rt.ones([2]), rt.ones([2]))
    with pytest.raises(TypeError, match="missing a required argument"):
        defined()
    with pytest.raises(TypeError, match=r"Can not cast .*shape=\(3,\).* to .*shape=\(2,\).*"):
        defined.get_concrete_function(rt.TensorSpec(shape=(3,), dtype=rt.float32))


def test_a_shape_mismatch_is_still_caught_as_a_value_error_and_names_the_argument():
    @ag.function(input_signature=[rt.TensorSpec([2], rt.float32)])
    def f(weights):
        return weights

    with pytest.raises(ValueError, match="argument 'weights' has shape \\(3,\\)") as caught:
        f(rt.ones([3]))
    assert isinstance(caught.value, rt.errors.SignatureMismatchError)


def test_input_signature_must_be_a_nested_sequence_of_tensor_specs():
    def foo(a, b):
        del a, b

    signature = [(2, 3), rt.TensorSpec([2, 3], rt.float32)]
    with pytest.raises(TypeError, match="input_signature.*nested sequence"):
        ag.function(foo, input_signature=signature)
