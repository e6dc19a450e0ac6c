"""The runtime's wrappers of a user's function (``rt.custom_gradient``, ``rt.recompute_grad``)
are library code: AutoGraph runs them as they are and converts the user's function inside."""

import types
import warnings

import numpy as np
import pytest

import autograph as ag
import runtime as rt


def _sign_and_triple(x):
    if x > 0:  # a tensor condition: only converted code can run it in a graph
        y = x * 2.0
    else:
        y = -x
    return y, lambda dy: dy * 3.0


def test_to_code_shows_the_users_function_not_the_wrapper():
    code = ag.to_code(rt.custom_gradient(_sign_and_triple))
    assert code.startswith("def _sign_and_triple(x):") and "ag__.if_stmt" in code
    assert "def recomputing" not in ag.to_code(rt.recompute_grad(lambda h: h * 2.0))


def test_the_users_function_inside_the_wrapper_is_converted():
    wrapped = rt.custom_gradient(_sign_and_triple)

    @ag.function
    def value_and_gradient(x):
        with rt.GradientTape() as tape:
            tape.watch(x)
            y = wrapped(x)
        return y, tape.gradient(y, x)

    for x, expected in [(2.0, 4.0), (-2.0, 2.0)]:
        y, dx = value_and_gradient(rt.constant(x))
        np.testing.assert_allclose([y.numpy(), dx.numpy()], [expected, 3.0])


def test_recompute_grad_of_a_lambda_in_a_function_warns_nothing():
    @ag.function
    def squared(h):
        return rt.recompute_grad(lambda t: t * t)(h)

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        np.testing.assert_allclose(squared(rt.constant(3.0)).numpy(), 9.0)


def test_an_error_in_the_users_function_names_no_runtime_line_as_user_code():
    @rt.custom_gradient
    def fails(x):
        raise ValueError("bad value")

    with pytest.raises(ValueError, match="bad value") as caught:
        ag.function(lambda x: fails(x))(rt.constant(1.0))
    user_code = str(caught.value).split("in user code:")[-1]
    assert "test_library_wrappers.py" in user_code
    assert "custom_gradient.py" not in user_code


def test_to_code_of_a_callable_object_bound_as_a_method():
    class Doubler:
        def __call__(self, x):
            return x * 2

    bound = types.MethodType(Doubler(), object())  # as to_graph takes it
    assert ag.to_code(bound).startswith("def __call__(self, x):")
