"""Builtins in converted code, as TensorFlow's AutoGraph overloads them: ``print`` is Python's
(it prints while tracing, symbolic tensors as such) unless converted with the optional feature
BUILTIN_FUNCTIONS, then ``print`` of tensors prints when the graph runs; ``assert`` on a tensor is an assert op, builtins reached as values
dispatch like direct calls, ``int``/``float``/``max``/``min``/``abs`` take tensors,
``functools.partial`` of user code is converted, generators are refused.

Each program runs as plain Python (the reference), converted, and traced (``_harness_builtins``).
"""

from __future__ import annotations

import collections
import functools
import io

import numpy as np
import pytest

import autograph as ag
import runtime as rt
from tests.autograph.conformance._harness_builtins import (
    assert_agree,
    converted,
    python,
    traced,
)

IAE = rt.errors.InvalidArgumentError
BUILTINS = ag.experimental.Feature.BUILTIN_FUNCTIONS


def test_the_harness_notices_a_difference():
    def differs(x):
        return x + 1 if rt.executing_eagerly() else x

    with pytest.raises(AssertionError, match="traced"):
        assert_agree(differs, 3)

    def prints_once(x):
        print("only while tracing")
        return x

    with pytest.raises(AssertionError, match="printed"):
        assert_agree(prints_once, 3)


# --- print ------------------------------------------------------------------------------------


def lone_print(x):
    print(x)


def print_text_and_value(x):
    print("x is", x)


def print_with_python_dict(x):
    print("x is", x, {"foo": "bar"})


def print_in_staged_if(x):
    if x == 0:
        print(x)


def print_in_staged_loop(n):
    for i in range(n):
        print(i)


def rt_print_twice(x, y):
    rt.print("x is", x)
    rt.print("y is", y)


def print_sep_end(x, y):
    print(x, y, sep=",", end="!\n")


def print_float(x):
    print("v", x)


def print_and_compute(x):
    y = x * 2
    print("y", y)
    return y


@pytest.mark.parametrize(
    "fn, args",
    [
        (lone_print, (1,)),
        (lone_print, (7,)),
        (lone_print, (np.array([1, 2, 3]),)),
        (print_text_and_value, (-4,)),
        (print_with_python_dict, (1,)),
        (print_in_staged_if, (0,)),
        (print_in_staged_if, (1,)),
        (print_in_staged_loop, (3,)),
        (print_in_staged_loop, (0,)),
        (rt_print_twice, (1, 2)),
        (print_sep_end, (1, 2)),
        (print_float, (2.5,)),
        (print_and_compute, (3,)),
    ],
    ids=lambda v: getattr(v, "__name__", repr(v)),
)
def test_with_builtin_functions_print_of_tensors_prints_every_time_the_graph_runs(fn, args):
    assert_agree(fn, *args, runs=3, features=BUILTINS)


def test_by_default_print_runs_while_tracing_and_shows_the_symbolic_tensor():
    # TensorFlow's default: print is not converted (tf.function's guide, "Better performance
    # with tf.function"): one line while tracing, the tensor shown as a symbolic one.
    out = traced(print_text_and_value, 5, runs=3)
    assert out.error is None
    assert out.stdout == 'x is Tensor("x:0", shape=(), dtype=int32)\n'
    assert "print(" in ag.to_code(print_text_and_value)
    assert "ag__.print_" not in ag.to_code(print_text_and_value)
    assert "ag__.print_(" in ag.to_code(
        print_text_and_value, experimental_optional_features=BUILTINS
    )


def test_print_and_rt_print_side_by_side_as_the_guide_shows():
    def f(x):
        print("Traced with", x)
        rt.print("Executed with", x)

    out = traced(f, 1, runs=2)
    assert out.stdout == (
        'Traced with Tensor("x:0", shape=(), dtype=int32)\nExecuted with 1\nExecuted with 1\n'
    )


def test_builtin_functions_reach_the_functions_called():
    def helper(x):
        print("helper", x)

    def caller(x):
        helper(x + 1)

    assert traced(caller, 1, runs=2, features=BUILTINS).stdout == "helper 2\nhelper 2\n"
    assert traced(caller, 1, runs=2).stdout == 'helper Tensor("add:0", shape=(), dtype=int32)\n'


@pytest.mark.parametrize(
    "features", [ag.experimental.Feature.ALL, (ag.experimental.Feature.LISTS, BUILTINS), [BUILTINS]]
)
def test_all_or_a_tuple_holding_builtin_functions_converts_print(features):
    assert traced(lone_print, 4, runs=2, features=features).stdout == "4\n4\n"


def test_experimental_autograph_options_must_be_features():
    with pytest.raises(TypeError, match="ag.experimental.Feature"):
        ag.function(lone_print, experimental_autograph_options="BUILTIN_FUNCTIONS")


def test_print_of_python_values_only_prints_while_tracing():
    def announce(x):
        print("tracing")
        return x * 2

    out = traced(announce, 3, runs=3)
    assert out.stdout == "tracing\n"  # a Python side effect, as in TensorFlow (the seeds show it)
    assert out.value.numpy() == 6


def test_print_of_a_tensor_formats_like_rt_print():
    def show(x):
        print("values:", x, [x[0], 1])

    values = np.array([1.5, 2.0, 3.25, 4.0, 5.0, 6.0, 7.0], np.float32)
    out = traced(show, values, runs=1, features=BUILTINS)
    assert out.stdout == "values: [1.5 2 3.25 ... 5 6 7] [1.5, 1]\n"


def test_print_to_a_file_writes_when_the_graph_runs():
    stream = io.StringIO()

    @ag.function(experimental_autograph_options=BUILTINS)
    def show(x):
        print("x =", x, file=stream)

    show(rt.constant(1))
    show(rt.constant(2))
    assert stream.getvalue() == "x = 1\nx = 2\n"


def test_print_of_a_numpy_array_prints_its_values_and_so_does_rt_print():
    # print(x) of a numpy argument: Python prints the array, the traced function the tensor
    # it became, both [1 2 3]. rt.print prints a numpy array as a tensor, as TensorFlow does
    # today (the seeds' older TensorFlow printed its repr, "array([[ 0.447...]])").
    assert_agree(lone_print, np.array([1, 2, 3]), features=BUILTINS)
    assert python(lone_print, np.array([1, 2, 3])).stdout == "[1 2 3]\n"
    assert python(lambda: rt.print(np.array([1, 2, 3]))).stdout == "[1 2 3]\n"


def test_print_on_python_values_is_python_print():
    def show(a):
        print(a, [a, "b"], sep="|", end="$", flush=True)

    assert converted(show, 3).stdout == python(show, 3).stdout == "3|[3, 'b']$"


# --- assert -----------------------------------------------------------------------------------


def assert_positive(x):
    assert x > 0
    return x


def assert_with_message(x):
    assert x > 0, "x must be positive"
    return x * 2


def assert_in_staged_loop(n):
    s = 0
    for i in rt.range(n):
        assert i < 10
        s += i
    return s


@pytest.mark.parametrize(
    "fn, arg", [(assert_positive, 1), (assert_with_message, 3), (assert_in_staged_loop, 3)]
)
def test_a_passing_assert_lets_the_program_go_on(fn, arg):
    assert_agree(fn, arg)


def test_a_failing_assert_on_a_tensor_raises_invalid_argument_when_the_graph_runs():
    assert isinstance(python(assert_positive, 0).error, AssertionError)
    assert isinstance(converted(assert_positive, 0).error, AssertionError)
    error = traced(assert_positive, 0).error
    assert isinstance(error, IAE)
    assert "x > 0" in str(error)
    error = traced(assert_with_message, -1).error
    assert isinstance(error, IAE) and "x must be positive" in str(error)
    error = traced(assert_in_staged_loop, 12).error
    assert isinstance(error, IAE) and "i < 10" in str(error)


def test_the_assert_op_runs_on_every_call_of_the_traced_function():
    checked = ag.function(assert_positive)
    assert checked(rt.constant(2)).numpy() == 2
    with pytest.raises(IAE):
        checked(rt.constant(-2))
    assert checked.tracing_count == 1


def test_assert_on_python_values_is_python_assert():
    error = converted(assert_positive, -1).error
    assert type(error) is AssertionError and error.args == ()
    error = converted(assert_with_message, -1).error
    assert type(error) is AssertionError
    assert str(error).startswith("x must be positive\n\nin user code:")  # and where it was

    def lazy_message(x):
        assert x, 1 / 0  # the message is computed only when the assert fails
        return x

    assert converted(lazy_message, 1).value == 1


# --- builtins as values -----------------------------------------------------------------------


def range_bound_to_name(n):
    fn = range
    s = 0
    for i in fn(n):
        s = s * 10 + i
    return s


def len_returned_by_function(x):
    def get_len():
        return len

    l = get_len()  # noqa: E741
    return l(x)


def dict_returned_by_function(x):
    def get_dict():
        return dict

    d = get_dict()
    return d(foo=x)


def enumerate_bound_to_name(n):
    en = enumerate
    s = 0
    for k, v in en(range(n)):
        s += k * v
    return s


def range_passed_to_helper(n):
    def loop_over(make, m):
        s = 0
        for i in make(m):
            s += i
        return s

    return loop_over(range, n)


def list_of_range_of_len(x):
    return list(range(len(x)))


def sum_of_list(a, b):
    return sum([a, b, 1])


@pytest.mark.parametrize(
    "fn, args",
    [
        (range_bound_to_name, (0,)),
        (range_bound_to_name, (3,)),
        (len_returned_by_function, ([5, 6, 7],)),
        (dict_returned_by_function, (1,)),
        (enumerate_bound_to_name, (4,)),
        (range_passed_to_helper, (0,)),
        (range_passed_to_helper, (4,)),
        (list_of_range_of_len, ([1, 2, 3],)),
        (sum_of_list, (3, 5)),
    ],
    ids=lambda v: getattr(v, "__name__", repr(v)),
)
def test_builtins_reached_as_values_dispatch_like_direct_calls(fn, args):
    assert_agree(fn, *args)


def test_a_builtin_bound_to_a_name_stages_its_loop():
    graph = ag.function(range_bound_to_name).get_concrete_function(rt.TensorSpec([], rt.int32))
    assert "While" in [op.type for op in graph.graph.get_operations()]


# --- int, float, max, min, abs ----------------------------------------------------------------


def int_then_float(x):
    return float(int(x))


def max_min_of_scalars(a, b):
    return max(a, b), min(a, b)


def max_min_of_three(a, b):
    return max(a, b, 0), min(a, 10, b)


def abs_of_value(x):
    return abs(x)


@pytest.mark.parametrize(
    "fn, args",
    [
        (int_then_float, (2.7,)),
        (int_then_float, (-1.5,)),
        (max_min_of_scalars, (3, 5)),
        (max_min_of_scalars, (9, -1)),
        (max_min_of_three, (-3, -5)),
        (abs_of_value, (-3,)),
        (abs_of_value, (4.5,)),
    ],
    ids=lambda v: getattr(v, "__name__", repr(v)),
)
def test_int_float_max_min_abs_take_tensors(fn, args):
    assert_agree(fn, *args)


def test_max_and_min_of_a_vector_tensor_reduce_it():
    @ag.function
    def extremes(v):
        return max(v), min(v)

    high, low = extremes(rt.constant([3, -1, 7]))
    assert (high.numpy(), low.numpy()) == (7, -1)


def test_int_and_float_of_a_tensor_cast_it_as_tensorflow_does():
    @ag.function
    def convert(x):
        return int(x), float(x)

    as_int, as_float = convert(rt.constant(-2.5))
    assert as_int.dtype is rt.int32 and as_int.numpy() == -2
    assert as_float.dtype is rt.float32 and as_float.numpy() == -2.5


def test_max_of_tensors_with_keywords_or_matrices_is_refused():
    @ag.function
    def keyed(v):
        return max(v, key=abs)

    with pytest.raises(ValueError, match="key"):
        keyed(rt.constant([1, 2]))

    @ag.function
    def of_matrix(m):
        return max(m)

    with pytest.raises(ValueError, match="rank 1"):
        of_matrix(rt.constant([[1, 2]]))


# --- functools.partial ------------------------------------------------------------------------


def _scaled_sign(k, x):
    if x > 0:
        return k * x
    return -k * x


def partial_of_user_function(x):
    g = functools.partial(_scaled_sign, 2)
    return g(x)


def partial_with_keyword(x):
    g = functools.partial(_scaled_sign, k=5)
    return g(x=x)


@pytest.mark.parametrize("fn", [partial_of_user_function, partial_with_keyword])
@pytest.mark.parametrize("x", [3, -3])
def test_a_partial_of_user_code_is_converted(fn, x):
    assert_agree(fn, x)


def test_a_partial_of_library_code_is_left_as_it_is():
    library = functools.partial(np.add, 1)
    assert ag.converted_call(library) is library


# --- generators -------------------------------------------------------------------------------


def function_is_generator():
    yield 1


def generator_with_for(n):
    for i in range(n):  # noqa: UP028 - a loop in a generator, as TensorFlow's test has it
        yield i


def _gen_in_for(n):
    for i in range(n):  # noqa: UP028
        yield i


def calls_user_generator(n):
    return sum(_gen_in_for(n))


@pytest.mark.parametrize("fn, args", [(function_is_generator, ()), (generator_with_for, (2,))])
def test_a_generator_cannot_be_traced(fn, args):
    error = traced(fn, *args).error
    assert isinstance(error, NotImplementedError)
    assert "generator" in str(error) and fn.__name__ in str(error)


def test_a_generator_called_from_converted_code_runs_as_python():
    assert converted(calls_user_generator, 3).value == 3
    out = ag.function(calls_user_generator)(3)  # a Python value: the generator runs while tracing
    assert out == 3


# --- namedtuples and lambdas stay Python ----------------------------------------------------------

_Pair = collections.namedtuple("_Pair", ("a", "b"))


def namedtuple_made_inline(x):
    nt = collections.namedtuple("TestNamedTuple", ("a", "b"))
    return tuple(nt(a=1, b=x))


def lambda_with_ifexp(x):
    square_or_negate = lambda v: v * v if v > 0 else -v  # noqa: E731
    return square_or_negate(x)


@pytest.mark.parametrize(
    "fn, x", [(namedtuple_made_inline, 1), (lambda_with_ifexp, 3), (lambda_with_ifexp, -2)]
)
def test_namedtuples_and_lambdas(fn, x):
    assert_agree(fn, x)
