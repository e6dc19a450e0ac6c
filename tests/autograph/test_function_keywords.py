"""ag.function called with keywords: the user's parameters may have any name, and a traced
function's keyword-only and ``**kwargs`` parameters are reported as TensorFlow reports them."""

import sys

import numpy as np

import autograph as ag
import runtime as rt


def test_a_keyword_only_parameter_may_be_called_fn_or_fn_name():
    @ag.function
    def f(x, *, fn=None, fn_name=None):
        return x * 2.0 if fn == "z" and fn_name == "w" else x

    np.testing.assert_allclose(f(rt.constant(1.0), fn="z", fn_name="w").numpy(), 2.0)


def test_a_kwargs_key_may_be_called_fn_self_or_fn_name():
    @ag.function
    def f(x, **options):
        return x + float(len(options))

    result = f(rt.constant(1.0), fn="z", fn_name="w", self=1)
    np.testing.assert_allclose(result.numpy(), 4.0)
    concrete = f.get_concrete_function(rt.constant(1.0), self=2)
    np.testing.assert_allclose(concrete(rt.constant(1.0), self=2).numpy(), 2.0)


def test_an_inlined_call_with_a_keyword_named_fn():
    @ag.function
    def inner(x, *, fn):
        return x + fn

    @ag.function
    def outer(x):
        return inner(x, fn=3.0)

    np.testing.assert_allclose(outer(rt.constant(1.0)).numpy(), 4.0)


def test_reordering_a_dict_argument_is_no_change():
    # TensorFlow compares the arguments flattened by nest, which sorts a dict's keys.
    @ag.function
    def reorder(d):
        d["a"] = d.pop("a")  # same keys, same values, another order
        return d["a"] + d["b"]

    np.testing.assert_allclose(reorder({"a": rt.constant(1.0), "b": 2.0}).numpy(), 3.0)


def _spec(shape=()):
    return rt.TensorSpec(shape, rt.float32)


def test_keyword_only_parameters_are_in_the_kwargs_of_the_structured_signature():
    # TensorFlow: ko(x, *, k) -> ((TensorSpec,), {'k': TensorSpec}).
    @ag.function
    def ko(x, *, k):
        return x + k

    concrete = ko.get_concrete_function(_spec(), k=_spec([2]))
    assert concrete.structured_input_signature == ((_spec(),), {"k": _spec([2])})


def test_var_keyword_arguments_are_in_the_kwargs_of_the_structured_signature():
    # TensorFlow: v(*args, **kw) called with two positional specs and k=spec ->
    # ((TensorSpec, TensorSpec), {'k': TensorSpec}).
    @ag.function
    def v(*args, **kw):
        return args[0] + args[1] + kw["k"]

    concrete = v.get_concrete_function(_spec(), _spec(), k=_spec([3]))
    assert concrete.structured_input_signature == ((_spec(), _spec()), {"k": _spec([3])})
    # The placeholder of a **kw leaf is named by its key, as pretty_printed_signature names it.
    assert [t.op.name for t in concrete.inputs] == ["args_0", "args_1", "k"]
    assert "k (KEYWORD_ONLY)" in concrete.pretty_printed_signature()
    np.testing.assert_allclose(
        concrete(1.0, 2.0, k=rt.constant([3.0, 4.0, 5.0])).numpy(), [6, 7, 8]
    )


def test_input_signature_constraints_are_worked_out_once(monkeypatch):
    # A call binding by keyword checks the arguments then picks the graph: one computation.
    function_module = sys.modules["autograph.function"]  # (ag.function is the decorator)
    calls = []
    original = function_module.constraints_of
    monkeypatch.setattr(
        function_module, "constraints_of", lambda *a: calls.append(a) or original(*a)
    )

    @ag.function(input_signature=[_spec([None]), _spec()])
    def scaled(x, s):
        return x * s

    for _ in range(3):
        result = scaled(rt.constant([1.0, 2.0]), s=rt.constant(3.0))
    np.testing.assert_allclose(result.numpy(), [3.0, 6.0])
    assert len(calls) == 1
