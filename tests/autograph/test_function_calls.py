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


def test_a_callable_object_bound_as_a_method():
    import types

    class Doubler:
        def __call__(self, owner, x):
            if rt.reduce_sum(x) > 0:  # a tensor condition: converted
                return x * owner.k
            return x

    class Owner:
        k = 3.0

    bound = ag.function(types.MethodType(Doubler(), Owner()))
    np.testing.assert_allclose(bound(rt.constant([2.0])).numpy(), [6.0])
    np.testing.assert_allclose(bound(rt.constant([-2.0])).numpy(), [-2.0])
    assert bound.__name__ == "Doubler"
    assert bound.tracing_count == 1


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


def test_input_signature_extra_entries_and_keyword_only_parameters():
    spec = rt.TensorSpec([], rt.float32)
    with pytest.raises(TypeError, match="input_signature contains 1 extra type constraints"):
        ag.function(lambda x: x, input_signature=[spec, spec])(1.0)

    def keyword_only(x, *, scale):
        return x * scale

    with pytest.raises(TypeError, match="keyword-only parameter `scale` must have a default"):
        ag.function(keyword_only, input_signature=[spec])(1.0, scale=2.0)

    def keyword_default(x, *, scale=2.0):
        return x * scale

    assert ag.function(keyword_default, input_signature=[spec])(3.0).numpy() == 6.0


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


# --- calling a ConcreteFunction: structured, by name, and TensorFlow's flat convention --------


def _spec_for_value(value):
    if isinstance(value, dict):
        return {k: _spec_for_value(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_spec_for_value(v) for v in value)
    if isinstance(value, rt.Tensor):
        return rt.TensorSpec(value.shape, value.dtype)
    return value


def test_concrete_function_with_nested_tensor_inputs():
    @ag.function
    def f(x, y):
        return (x["a"] + x["b"], y[0] + y[1])

    a, b, c = rt.constant(1000), rt.constant(200), rt.constant(30)
    d = {"a": a, "b": b}
    e = (c, 4)
    for cf in [
        f.get_concrete_function(d, e),
        f.get_concrete_function(d, y=e),
        f.get_concrete_function(y=e, x=d),
        f.get_concrete_function(_spec_for_value(d), _spec_for_value(e)),
        f.get_concrete_function(_spec_for_value(d), y=_spec_for_value(e)),
        f.get_concrete_function(y=_spec_for_value(e), x=_spec_for_value(d)),
    ]:
        for output in [
            cf(d, e),  # structured signature
            cf(d, y=e),  # structured signature with a keyword argument
            cf(y=e, x=d),  # structured signature with two keyword arguments
            cf(a, b, c),  # flat signature
        ]:
            assert isinstance(output, tuple) and len(output) == 2
            assert output[0].numpy() == 1200
            assert output[1].numpy() == 34


def test_concrete_function_with_nested_and_bound_non_tensor_inputs():
    @ag.function
    def f(x, y):
        return (x["a"] + x["b"], y[0] + y[1])

    a = {"a": rt.constant(1000), "b": rt.constant(200)}
    b = (50, 3)
    for cf in [f.get_concrete_function(a, b), f.get_concrete_function(x=a, y=b)]:
        for output in [cf(a, b), cf(x=a, y=b)]:
            assert (output[0] + output[1]).numpy() == 1253
    a = {"a": 3000, "b": 200, "c": 9000}
    b = (rt.constant(30), 4)
    cf = f.get_concrete_function(a, y=b)
    for output in [cf(a, b), cf(a, y=b), cf(x=a, y=b)]:
        assert (output[0] + output[1]).numpy() == 3234
    cf = f.get_concrete_function({"a": 5000, "b": 500}, (50, 5))
    for output in [cf(), cf({"a": 5000, "b": 500}, (50, 5))]:
        assert (output[0] + output[1]).numpy() == 5555


def test_concrete_function_with_non_tensor_string_inputs():
    @ag.function
    def f(x, y):
        return rt.strings.join([x, y])

    a = rt.constant("a")
    cf = f.get_concrete_function(a, "b")
    for output in [cf(a), cf(x=a), cf(a, "b"), cf(x=a, y="b")]:
        assert output.numpy() == b"ab"


def test_nested_input_spec_graph_function_called_by_spec_names_and_flat():
    @ag.function
    def sq(mats):
        ((a, b),) = mats
        return rt.matmul(a, b)

    sq_op_autonamed = sq.get_concrete_function(
        [(rt.TensorSpec((None, None), rt.float32), rt.TensorSpec((None, None), rt.float32))]
    )
    assert sq_op_autonamed.output_shapes.as_list() == [None, None]
    sq_op = sq.get_concrete_function(
        [
            (
                rt.TensorSpec((None, None), rt.float32, name="first_mat"),
                rt.TensorSpec((None, None), rt.float32, name="second_mat"),
            )
        ]
    )
    t1 = rt.constant([[1.0, 2.0], [3.0, 4.0]])
    t2 = rt.constant([[1.4, 2.4], [3.4, 4.4]])
    expected = np.array([[1.0, 2.0], [3.0, 4.0]]) @ np.array([[1.4, 2.4], [3.4, 4.4]])
    np.testing.assert_allclose(sq_op(first_mat=t1, second_mat=t2).numpy(), expected, rtol=1e-6)
    np.testing.assert_allclose(sq_op_autonamed(t1, t2).numpy(), expected, rtol=1e-6)


def test_nested_inputs_graph_function_by_spec_names():
    import collections

    pair = collections.namedtuple("pair", ["a", "b"])

    @ag.function
    def a_times_b(inputs):
        return rt.matmul(inputs.a["a"], inputs.b["b"])

    t = rt.constant([[1.0, 2.0], [3.0, 4.0]])
    sq_op = a_times_b.get_concrete_function(
        pair(
            dict(a=rt.TensorSpec([2, 2], rt.float32, "a")),
            dict(b=rt.TensorSpec([2, 2], rt.float32, "b")),
        )
    )
    assert sq_op.output_shapes == rt.TensorShape([2, 2])
    np.testing.assert_allclose(sq_op(a=t, b=t).numpy(), t.numpy() @ t.numpy())


def test_concrete_function_keyword_arguments_by_spec_name():
    @ag.function
    def f(x):
        return x

    conc = f.get_concrete_function(rt.TensorSpec(None, rt.float32, "y"))
    assert conc(y=rt.constant(3.0)).numpy() == 3.0
    assert conc(x=rt.constant(3.0)).numpy() == 3.0
    assert conc.structured_input_signature[0][0].name == "y"

    @ag.function
    def g(x):
        return x[0]

    conc = g.get_concrete_function([rt.TensorSpec(None, rt.float32, "z"), 2])
    assert conc(z=rt.constant(3.0)).numpy() == 3.0
    assert conc.structured_input_signature[0][0][0].name == "z"


def test_concrete_function_ambiguous_signature_uses_the_structured_one():
    @ag.function
    def f(x, y):
        return x * 10 + y

    conc = f.get_concrete_function(
        x=rt.TensorSpec(None, rt.int32, name="y"), y=rt.TensorSpec(None, rt.int32, name="x")
    )
    assert conc(x=rt.constant(5), y=rt.constant(6)).numpy() == 56


def test_non_unique_names_concrete_function_called_flat():
    @ag.function
    def non_unique_arg_names(x, **kwargs):
        a, b, c = x
        d = kwargs["d"]
        return a + b + c + d

    spec = rt.TensorSpec(None, rt.float32)
    concrete = non_unique_arg_names.get_concrete_function((spec, spec, spec), d=spec)
    result = concrete(rt.constant(1.0), rt.constant(2.0), rt.constant(3.0), rt.constant(4.0))
    np.testing.assert_allclose(result.numpy(), 10.0)


def test_mismatched_concrete_signature_raises_type_error():
    @ag.function
    def f(x):
        return x

    with pytest.raises(TypeError, match="Binding inputs to ag.function failed .*"):
        f.get_concrete_function(1)(rt.constant(1))
    assert f.get_concrete_function(rt.constant(1))(1).numpy() == 1
    with pytest.raises(TypeError, match="Binding inputs to ag.function failed .*"):
        f.get_concrete_function(1)(2)


@pytest.mark.parametrize(
    "conc_args, call_args, call_kwargs, error",
    [
        ((1, 2), (1, 2, 3), {}, r"too many positional arguments"),
        ((1, 2), (1, 2), {"c": 1.0}, r"got an unexpected keyword argument"),
        ((5,), (8, 5), {}, r"Binding inputs .* failed .*traced as 5, not 8"),
        (
            (lambda: rt.constant(1), lambda: rt.constant(2)),
            (lambda: rt.constant(1), lambda: rt.constant(2), lambda: rt.constant(3)),
            {},
            r"Fallback to flat signature also failed due to: func\(x, y\) takes 2 .* got 3",
        ),
    ],
)
def test_concrete_function_signature_errors(conc_args, call_args, call_kwargs, error):
    @ag.function
    def func(x, y=5, *varargs, **kwargs):
        del y, varargs, kwargs
        return x

    made = [a() if callable(a) else a for a in conc_args]
    called = [a() if callable(a) else a for a in call_args]
    conc = func.get_concrete_function(*made)
    with pytest.raises(TypeError, match=error):
        conc(*called, **call_kwargs)


def test_a_flat_call_takes_tensors_only():
    @ag.function
    def f(x, y):
        return x + y[0]

    cf = f.get_concrete_function(rt.constant(1.0), [rt.constant(2.0)])
    assert cf(rt.constant(1.0), rt.constant(2.0)).numpy() == 3.0
    with pytest.raises(TypeError, match=r"expected argument #1\(zero-based\) to be a Tensor"):
        cf(rt.constant(1.0), 2.0)


# --- describing a ConcreteFunction: output_shapes, output_dtypes, pretty_printed_signature ---


def test_basic_graph_function_output_shapes():
    @ag.function
    def sq(a):
        return rt.matmul(a, a)

    t = rt.constant([[1.0, 2.0], [3.0, 4.0]])
    sq_op = sq.get_concrete_function(t)
    assert sq_op.output_shapes == rt.TensorShape([2, 2])
    np.testing.assert_allclose(sq_op(t).numpy(), t.numpy() @ t.numpy())
    general = sq.get_concrete_function(rt.TensorSpec((None, None), rt.float32))
    assert general.output_shapes.as_list() == [None, None]


def test_nested_output_graph_function():
    @ag.function
    def sq(a):
        return (rt.matmul(a, a), {"b": rt.constant(1.0)})

    t = rt.constant([[1.0, 2.0], [3.0, 4.0]])
    sq_op = sq.get_concrete_function(t)
    assert sq_op.output_shapes == (rt.TensorShape([2, 2]), {"b": rt.TensorShape([])})
    assert sq_op.output_dtypes == (rt.float32, {"b": rt.float32})
    a, b = sq_op(t)
    np.testing.assert_allclose(a.numpy(), t.numpy() @ t.numpy())
    assert b["b"].numpy() == 1.0


def test_graph_function_none_output():
    @ag.function
    def fn(unused_a, unused_b):
        return None

    x = rt.constant(1)
    fn_op = fn.get_concrete_function(x, x)
    assert fn_op.output_dtypes is None
    assert fn_op.output_shapes is None
    assert fn_op(x, x) is None


def test_pretty_printed_signature():
    @ag.function
    def func(x, kangaroo=None, octopus=7):
        del octopus, kangaroo
        return x

    concrete_fn = func.get_concrete_function(rt.constant(5), rt.constant([10, 10, 20]))
    summary = (
        "(x: TensorSpec(shape=(), dtype=rt.int32, name=None), kangaroo:"
        " TensorSpec(shape=(3,), dtype=rt.int32, name=None), octopus:"
        " Literal[7]) -> TensorSpec(shape=(), dtype=rt.int32, name=None)"
    )
    details = (
        "Input Parameters:\n"
        "  x (POSITIONAL_OR_KEYWORD): TensorSpec(shape=(), dtype=rt.int32, name=None)\n"
        "  kangaroo (POSITIONAL_OR_KEYWORD): TensorSpec(shape=(3,), dtype=rt.int32, name=None)\n"
        "  octopus (POSITIONAL_OR_KEYWORD): Literal[7]\n"
        "Output Type:\n"
        "  TensorSpec(shape=(), dtype=rt.int32, name=None)\n"
        "Captures:\n"
        "  None"
    )
    assert concrete_fn.pretty_printed_signature(verbose=False) == summary
    assert concrete_fn.pretty_printed_signature(verbose=True) == details


def test_pretty_printed_explicit_signature_with_keyword_arg():
    @ag.function(input_signature=[rt.TensorSpec(None)])
    def fn(a, b=1):
        return a + b

    concrete_fn = fn.get_concrete_function()
    assert concrete_fn.pretty_printed_signature(False) == (
        "(a: TensorSpec(shape=<unknown>, dtype=rt.float32, name=None), b:"
        " Literal[1]) -> TensorSpec(shape=<unknown>, dtype=rt.float32, name=None)"
    )
    assert concrete_fn.pretty_printed_signature(True) == (
        "Input Parameters:\n"
        "  a (POSITIONAL_OR_KEYWORD): TensorSpec(shape=<unknown>, dtype=rt.float32, name=None)\n"
        "  b (POSITIONAL_OR_KEYWORD): Literal[1]\n"
        "Output Type:\n"
        "  TensorSpec(shape=<unknown>, dtype=rt.float32, name=None)\n"
        "Captures:\n"
        "  None"
    )


# --- arguments a traced function must leave alone: lists and dicts; sets are refused -------


def _list_changes():
    def append(items):
        items.append(rt.constant(0.0))

    def extend(items):
        items.extend([rt.constant(0.0)])

    def insert(items):
        items.insert(0, rt.constant(0.0))

    def pop(items):
        items.pop()

    def reverse(items):
        items.reverse()

    def remove(items):
        items.remove(items[0])

    def clear(items):
        items.clear()

    return [append, extend, insert, pop, reverse, remove, clear]


@pytest.mark.parametrize("change", _list_changes(), ids=lambda f: f.__name__)
def test_function_modifies_input_list(change):
    def get_list():
        return [rt.constant(0.0), rt.constant(1.0)]

    with pytest.raises(ValueError, match=r".*\(items\) should not modify"):
        ag.function(change)(get_list())


def test_function_modifies_input_list_given_by_keyword():
    @ag.function
    def kwdappend(**kwargs):
        items = kwargs["l"]
        items.append(rt.constant(0.0))

    with pytest.raises(ValueError, match="should not modify.*were modified: kwargs"):
        kwdappend(l=[rt.constant(0.0), rt.constant(1.0)])


def _dict_changes():
    def clear(m):
        m.clear()

    def pop(m):
        m.pop("t1")

    def popitem(m):
        m.popitem()

    def update(m):
        m.update({"t1": rt.constant(3.0)})

    def setdefault(m):
        m.setdefault("t3", rt.constant(3.0))

    return [clear, pop, popitem, update, setdefault]


@pytest.mark.parametrize("change", _dict_changes(), ids=lambda f: f.__name__)
def test_function_modifies_input_dict(change):
    arguments = {"t1": rt.constant(0.0), "t2": rt.constant(1.0)}
    with pytest.raises(ValueError, match=".* should not modify"):
        ag.function(change)(arguments)


def test_function_modifies_input_nest():
    @ag.function
    def modify(n):
        n[0]["t1"].append(rt.constant(1.0))

    nested_input = [{"t1": [rt.constant(0.0), rt.constant(1.0)]}, rt.constant(2.0)]
    with pytest.raises(ValueError, match="modify.* should not modify"):
        modify(nested_input)

    @ag.function
    def modify_same_flat(n):  # the flat list is the same, the structure is not
        n[0].append(n[1].pop(0))

    nested_input = [[rt.constant(0.0)], [rt.constant(1.0), rt.constant(2.0)]]
    with pytest.raises(ValueError, match="modify_same_flat.* should not modify"):
        modify_same_flat(nested_input)


def test_a_function_inlined_in_another_may_not_change_its_list_either():
    @ag.function
    def inner(items):
        items.append(rt.constant(1.0))
        return items[0]

    @ag.function
    def outer(x):
        return inner([x])

    with pytest.raises(ValueError, match=r"inner\(items\) should not modify.*modified: items"):
        outer(rt.constant(2.0))


def test_changing_a_copy_is_allowed():
    @ag.function
    def appended(items):
        items = list(items)
        items.append(rt.constant(3.0))
        return rt.add_n(items)

    np.testing.assert_allclose(appended([rt.constant(1.0), rt.constant(2.0)]).numpy(), 6.0)


def test_no_hash():
    @ag.function()
    def f(_):
        return 1.0

    with pytest.raises(TypeError, match=r"Could not generate a generic TraceType"):
        f(set([]))
    with pytest.raises(TypeError, match=r"argument 'x' holds a set"):
        ag.function(lambda x: x)([1, {2}])
