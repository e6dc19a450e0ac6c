"""Inputs a newcomer may give by mistake get a clear error where they are given, and
defaults are read when the function is called, as Python reads them."""

import pytest

import autograph as ag
import runtime as rt


def scale_up(x, factor=2):
    if x > 0:
        x = x * factor
    return x


@pytest.mark.parametrize(
    "signature, where",
    [
        ([3], r"input_signature\[0\] is 3"),
        ([[rt.TensorSpec([]), "a"]], r"input_signature\[0\]\[1\] is 'a'"),
    ],
)
def test_an_input_signature_of_non_specs_is_a_type_error_when_the_function_is_made(
    signature, where
):
    with pytest.raises(
        TypeError, match=f"scale_up: input_signature must be .*rt.TensorSpec.*{where}"
    ):
        ag.function(scale_up, input_signature=signature)
    with pytest.raises(TypeError, match=where):  # as a decorator: when it decorates
        ag.function(input_signature=signature)(scale_up)


def test_an_input_signature_that_is_one_spec_not_a_list_is_a_type_error():
    with pytest.raises(TypeError, match="a list or tuple of rt.TensorSpec, one per argument"):
        ag.function(scale_up, input_signature=rt.TensorSpec([], rt.int32))


def test_nested_specs_are_accepted():
    def add_pair(pair):
        return pair[0] + pair[1]

    f = ag.function(add_pair, input_signature=[(rt.TensorSpec([]), rt.TensorSpec([]))])
    assert f((1.0, 2.0)).numpy() == 3.0


@pytest.fixture
def fresh_scale_up():
    def scale(x, factor=2):
        if x > 0:
            x = x * factor
        return x

    return scale


def test_new_defaults_reach_the_converted_function(fresh_scale_up):
    converted = ag.to_graph(fresh_scale_up)
    assert converted(3) == fresh_scale_up(3) == 6
    fresh_scale_up.__defaults__ = (10,)
    assert converted(3) == fresh_scale_up(3) == 30  # the function converted before
    assert ag.to_graph(fresh_scale_up)(3) == 30


def test_new_keyword_only_defaults_reach_the_converted_function():
    def shift(x, *, by=1):
        return x + by

    converted = ag.to_graph(shift)
    assert converted(1) == 2
    shift.__kwdefaults__ = {"by": 5}
    assert converted(1) == shift(1) == 6


def test_new_defaults_reach_an_ag_function_and_trace_a_new_graph(fresh_scale_up):
    f = ag.function(fresh_scale_up)
    x = rt.constant(3)
    assert f(x).numpy() == 6 and f(x).numpy() == 6  # the second call takes the fast path
    fresh_scale_up.__defaults__ = (10,)
    assert f(x).numpy() == 30
    assert f.tracing_count == 2
    assert f(x, 4).numpy() == 12  # given, the default plays no part


def test_a_call_giving_every_argument_is_unaffected_by_defaults(fresh_scale_up):
    f = ag.function(fresh_scale_up)
    x, factor = rt.constant(3), rt.constant(5)
    assert f(x, factor).numpy() == 15
    fresh_scale_up.__defaults__ = (10,)
    assert f(x, factor).numpy() == 15
    assert f.tracing_count == 1
