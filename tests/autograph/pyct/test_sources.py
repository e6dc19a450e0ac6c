"""What can be converted: functions, methods, closures, decorated functions, lambdas, signatures.

Also what converted code calls as it is (library code, ``@ag.do_not_convert``) and what it converts.
"""

import functools
import inspect
import math
import os
import sys
import traceback
import types
import warnings

import gast
import numpy as np
import pytest

import autograph as ag
import runtime as rt
from autograph.pyct import parser


def run_graph(fn, *values, dtype=rt.int32, **kwargs):
    """Converts ``fn``, calls it on scalar placeholders fed with ``values``, runs the result."""
    g = rt.Graph()
    with g.as_default():
        placeholders = [rt.placeholder(dtype, []) for _ in values]
        out = ag.to_graph(fn)(*placeholders, **kwargs)
    return rt.Session(g).run(out, dict(zip(placeholders, values)))


def is_staged(fn, *dtypes):
    """Whether converting ``fn`` and calling it on placeholders adds a cond or a while op."""
    g = rt.Graph()
    with g.as_default():
        ag.to_graph(fn)(*[rt.placeholder(d, []) for d in dtypes or [rt.int32]])
    return any(op.type in ("If", "While") for op in g.get_operations())


# --- plain functions -------------------------------------------------------------------------


def absolute(x):
    if x < 0:
        x = -x
    return x


def test_plain_function_on_python_values_and_in_a_graph():
    converted = ag.to_graph(absolute)
    assert converted(-3) == 3
    assert converted(4) == 4
    assert run_graph(absolute, -3) == 3
    assert run_graph(absolute, 5) == 5


def test_to_graph_keeps_name_doc_and_module():
    def documented(x):
        """Doubles."""
        return x * 2

    converted = ag.to_graph(documented)
    assert converted.__name__ == "documented"
    assert converted.__doc__ == "Doubles."
    assert converted.__module__ == __name__
    assert converted(4) == 8


def test_to_graph_returns_the_same_function_twice():
    assert ag.to_graph(absolute) is ag.to_graph(absolute)


# --- methods ---------------------------------------------------------------------------------


class Scaler:
    def __init__(self, factor):
        self.factor = factor
        self.calls = 0

    def scale_positive(self, x):
        if x > 0:
            x = x * self.factor
        return x

    def count_steps(self, n):
        for _ in rt.range(n):
            self.calls += 1
        return self.calls

    def __call__(self, x):
        return self.scale_positive(x) + 1


def test_bound_method():
    scaler = Scaler(3)
    converted = ag.to_graph(scaler.scale_positive)
    assert inspect.ismethod(converted)
    assert converted.__self__ is scaler
    assert converted(2) == 6
    assert converted(-2) == -2
    assert run_graph(scaler.scale_positive, 2) == 6
    assert run_graph(scaler.scale_positive, -2) == -2


def test_two_instances_keep_their_own_state():
    assert run_graph(Scaler(2).scale_positive, 5) == 10
    assert run_graph(Scaler(7).scale_positive, 5) == 35


def test_method_with_attribute_state_in_a_loop():
    scaler = Scaler(1)
    assert ag.to_graph(scaler.count_steps)(4) == 4
    assert scaler.calls == 4
    assert run_graph(Scaler(1).count_steps, 5) == 5


def test_callable_object():
    assert ag.to_graph(Scaler(2))(3) == 7
    assert run_graph(Scaler(2), 3) == 7


class WithStatic:
    factor = 3

    @staticmethod
    def doubled(x):
        if x > 0:
            x = x * 2
        return x

    @classmethod
    def tripled(cls, x):
        if x > 0:
            x = x * cls.factor
        return x


def calls_static_and_class_methods(x):
    return WithStatic.doubled(x) + WithStatic.tripled(x)


def test_staticmethod_and_classmethod():
    assert ag.to_graph(WithStatic.doubled)(2) == 4
    assert ag.to_graph(WithStatic.tripled)(2) == 6
    assert run_graph(WithStatic.tripled, 2) == 6
    assert run_graph(calls_static_and_class_methods, 2) == 10
    assert run_graph(calls_static_and_class_methods, -2) == -4


def test_unbound_method_through_the_class():
    assert ag.to_graph(Scaler.scale_positive)(Scaler(2), 4) == 8


# --- nested functions and closures -----------------------------------------------------------


def make_adder(k):
    def add_if_positive(x):
        if x > 0:
            x = x + k
        return x

    return add_if_positive


def test_nested_function_with_closure():
    add_ten = make_adder(10)
    assert ag.to_graph(add_ten)(1) == 11
    assert run_graph(add_ten, 1) == 11
    assert run_graph(add_ten, -1) == -1


def test_closures_of_the_same_code_keep_their_own_cells():
    assert ag.to_graph(make_adder(1))(5) == 6
    assert ag.to_graph(make_adder(100))(5) == 105


def test_closure_variable_changed_after_conversion_is_seen():
    k = 1

    def add_k(x):
        if x > 0:
            x = x + k
        return x

    converted = ag.to_graph(add_k)
    assert converted(1) == 2
    k = 50
    assert converted(1) == 51
    assert run_graph(add_k, 1) == 51
    assert k == 50


def test_nonlocal_write_reaches_the_original_cell():
    total = 0

    def accumulate(x):
        nonlocal total
        if x > 0:
            total = total + x
        return total

    converted = ag.to_graph(accumulate)
    converted(5)
    converted(-1)
    converted(2)
    assert total == 7


def test_nonlocal_write_in_a_graph_reaches_the_original_cell():
    total = 0

    def accumulate(x):
        nonlocal total
        if x > 0:
            total = total + x
        return x

    g = rt.Graph()
    with g.as_default():
        x = rt.placeholder(rt.int32, [])
        ag.to_graph(accumulate)(x)
    assert isinstance(total, rt.Tensor)
    assert rt.Session(g).run(total, {x: 4}) == 4
    assert rt.Session(g).run(total, {x: -4}) == 0


def test_closure_over_a_function_defined_later():
    def uses_helper(x):
        return later(x) * 2

    def later(x):
        if x > 0:
            x = x + 1
        return x

    assert ag.to_graph(uses_helper)(1) == 4
    assert run_graph(uses_helper, 1) == 4
    assert run_graph(uses_helper, -1) == -2


def test_closure_cell_assigned_after_conversion():
    def uses_later(x):
        return later(x) * 2

    converted = ag.to_graph(uses_later)

    def later(x):
        if x > 0:
            x = x + 1
        return x

    assert converted(1) == 4
    assert run_graph(uses_later, -1) == -2


# --- decorated functions ---------------------------------------------------------------------


def plus_one(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        return fn(*args, **kwargs) + 1

    return wrapper


@plus_one
def doubled_plus_one(x):
    if x > 0:
        x = x * 2
    return x


def test_functools_wraps_decorated_function_keeps_the_decorator():
    assert doubled_plus_one(3) == 7
    assert doubled_plus_one(-3) == -2
    converted = ag.to_graph(doubled_plus_one)
    assert converted.__name__ == "doubled_plus_one"
    assert converted(3) == 7
    assert converted(-3) == -2


def test_functools_wraps_decorated_function_in_a_graph():
    assert run_graph(doubled_plus_one, 3) == 7
    assert run_graph(doubled_plus_one, -3) == -2


def test_undecorated_function_through_wrapped():
    assert run_graph(doubled_plus_one.__wrapped__, 3) == 6


# --- source layouts --------------------------------------------------------------------------
# Where a definition ends is found by indentation after the last line its code runs, checked
# by parsing (inspect is asked when that fails): lines at column 0 inside the definition.


# fmt: off
def string_at_column_zero(x):
    text = """
a line at column 0
"""
    if x > 0:
        x = x + len(text)
    return x


def brackets_below_the_indentation(x):
    values = [
x,
        x + 1,
    ]
    if x > 0:
        x = values[1]
    return x


def string_after_the_last_line_run(x):
    if x > 0:
        x = -x
    return x
    """
a line at column 0, after the return
"""


def brackets_after_the_last_line_run(x):
    if x > 0:
        x = -x
    return x
    print([
x])


def ends_with_a_comment(x):
    if x > 0:
        x = -x
    return x
    # a comment after the last line that runs


def one_line(x): return -x if x > 0 else x
# fmt: on

LAYOUTS = [
    string_at_column_zero,
    brackets_below_the_indentation,
    string_after_the_last_line_run,
    brackets_after_the_last_line_run,
    ends_with_a_comment,
    one_line,
]


@pytest.mark.parametrize("fn", LAYOUTS)
def test_source_layouts_convert(fn):
    converted = ag.to_graph(fn)
    assert [converted(x) for x in (-2, 3)] == [fn(x) for x in (-2, 3)]
    assert [run_graph(fn, x) for x in (-2, 3)] == [fn(x) for x in (-2, 3)]


@pytest.mark.parametrize("fn", LAYOUTS)
def test_source_layouts_parse_as_inspect_finds_them(fn):
    node, _ = parser.parse_function(fn)
    source, first_line = parser.function_source(fn)  # inspect's block
    expected = gast.parse("\n" * (first_line - 1) + source).body[0]
    expected.decorator_list = []
    assert gast.dump(node, include_attributes=True) == gast.dump(expected, include_attributes=True)


# --- lambdas ---------------------------------------------------------------------------------

square_or_negate = lambda x: x * x if x > 0 else -x  # noqa: E731
add_one, add_two = lambda x: x + 1, lambda x: x + 2


def test_single_lambda_on_its_line_converts():
    converted = ag.to_graph(square_or_negate)
    assert converted(3) == 9
    assert converted(-3) == 3
    assert run_graph(square_or_negate, 3) == 9
    assert run_graph(square_or_negate, -3) == 3
    assert "if_exp" in ag.to_code(square_or_negate)


@pytest.mark.skipif(sys.version_info >= (3, 11), reason="3.11 tells them apart by position")
def test_two_lambdas_with_the_same_arguments_on_one_line():
    line = inspect.getsourcelines(add_one)[1]
    with pytest.raises(ag.ConversionError, match=rf"lambda.*line {line}"):
        ag.to_graph(add_one)
    # converted code calls such a lambda as it is, with a warning
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert ag.converted_call(add_two) is add_two
    assert any("lambda" in str(w.message) for w in caught)

    def uses_them(x):
        return add_one(x) + add_two(x)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert ag.to_graph(uses_them)(1) == 5
        assert run_graph(uses_them, 1) == 5


def test_lambda_nested_in_a_function():
    def apply(x):
        f = lambda v: v * 3  # noqa: E731
        return f(x)

    assert ag.to_graph(apply)(2) == 6
    assert run_graph(apply, 2) == 6


# --- signatures ------------------------------------------------------------------------------

SCALE = 3


def with_defaults(x, factor=SCALE, *, sign=1):
    if x > 0:
        x = x * factor
    return x * sign


def test_default_argument_from_a_module_global():
    converted = ag.to_graph(with_defaults)
    assert converted(2) == 6
    assert converted(2, 5) == 10
    assert converted(2, sign=-1) == -6
    assert run_graph(with_defaults, 2) == 6
    assert run_graph(with_defaults, 2, sign=-1) == -6
    assert inspect.signature(converted) == inspect.signature(with_defaults)


def keyword_only(x, *, limit, step=2):
    while x < limit:
        x = x + step
    return x


def test_keyword_only_arguments():
    converted = ag.to_graph(keyword_only)
    assert converted(0, limit=5) == keyword_only(0, limit=5) == 6
    assert converted(0, limit=5, step=5) == 5
    with pytest.raises(TypeError):
        converted(0)
    g = rt.Graph()
    with g.as_default():
        x = rt.placeholder(rt.int32, [])
        out = converted(x, limit=x * 2 + 1, step=3)
    assert rt.Session(g).run(out, {x: 2}) == keyword_only(2, limit=5, step=3) == 5


def star_args(*args, **kwargs):
    total = 0
    for a in args:
        if a > 0:
            total += a
    for key in sorted(kwargs):
        total += kwargs[key]
    return total


def test_star_args_and_kwargs():
    converted = ag.to_graph(star_args)
    assert converted(1, -2, 3, a=10, b=20) == star_args(1, -2, 3, a=10, b=20) == 34
    assert converted() == 0
    assert run_graph(star_args, 1, -2, 3) == 4


def calls_star_args(x):
    return star_args(x, 1, extra=10)


def test_user_helper_with_star_args_called_from_converted_code():
    assert ag.to_graph(calls_star_args)(2) == 13
    assert run_graph(calls_star_args, 2) == 13


def annotated(x: int, y: "rt.Tensor" = 2) -> int:
    if x > y:
        x = x - y
    return x


def test_annotations_are_not_evaluated_again():
    assert ag.to_graph(annotated)(5) == 3
    assert run_graph(annotated, 1) == 1


# --- generated source ------------------------------------------------------------------------


def test_getsource_of_converted_function():
    source = inspect.getsource(ag.to_graph(absolute))
    assert "def absolute(x)" in source
    assert "ag__.if_stmt" in source


def raises_inside(x):
    if x > 0:
        raise RuntimeError("raised in user code")
    return x


def test_traceback_points_to_a_real_generated_file():
    ag.disable_traceback_filtering()  # filtered, the message names the user's line instead
    try:
        with pytest.raises(RuntimeError) as info:
            ag.to_graph(raises_inside)(1)
    finally:
        ag.enable_traceback_filtering()
    frames = traceback.extract_tb(info.value.__traceback__)
    generated = [f for f in frames if "raise RuntimeError" in (f.line or "")]
    assert generated, frames
    frame = generated[-1]
    assert frame.filename != __file__
    assert os.path.isfile(frame.filename)
    with open(frame.filename) as f:
        text = f.read()
    assert text.splitlines()[frame.lineno - 1].strip() == frame.line
    assert "ag__.if_stmt" in text
    assert "raised in user code" in str(info.value)


def test_traceback_message_names_the_user_line():
    with pytest.raises(RuntimeError) as info:
        ag.to_graph(raises_inside)(1)
    lines, first = inspect.getsourcelines(raises_inside)
    raise_line = first + next(i for i, t in enumerate(lines) if "raise RuntimeError" in t)
    assert f'File "{__file__}", line {raise_line}' in str(info.value)
    # the frame is the user's function, not a generated branch function such as `if_true`
    assert f'File "{__file__}", line {raise_line}, in raises_inside' in str(info.value)


# --- what converted code converts and what it leaves alone ------------------------------------


@pytest.mark.parametrize(
    "fn",
    [np.sum, np.maximum, math.sqrt, math.floor, rt.reduce_sum, rt.cond, rt.constant, sorted]
    + [isinstance, functools.reduce, rt.nn.relu, sum, any],
    ids=lambda f: getattr(f, "__name__", repr(f)),
)
def test_converted_call_leaves_library_code_alone(fn):
    assert ag.converted_call(fn) is fn


@pytest.mark.parametrize("builtin", [len, range, int, max, abs, zip], ids=repr)
def test_converted_call_gives_the_overload_of_a_builtin(builtin):
    overload = ag.converted_call(builtin)
    assert overload is not builtin
    assert overload.__name__ == builtin.__name__ + "_"


def test_print_reached_as_a_value_gives_its_overload_whatever_the_features():
    # TensorFlow's converted_call overloads every builtin it is given (py_builtins.overload_of),
    # print too; BUILTIN_FUNCTIONS decides only whether a direct print(...) call is converted.
    assert ag.converted_call(print).__name__ == "print_"

    def reaches_print():
        return ag.converted_call(print)

    features = ag.experimental.Feature.BUILTIN_FUNCTIONS
    assert ag.to_graph(reaches_print)().__name__ == "print_"
    assert (
        ag.to_graph(reaches_print, experimental_optional_features=features)().__name__ == "print_"
    )


def test_builtin_functions_reach_the_function_of_a_partial_and_a_bound_callable():
    def shows(x, y):
        print(x + y)

    class Shower:
        def __call__(self, y, x):
            print(x + y)

    features = ag.experimental.Feature.BUILTIN_FUNCTIONS
    for fn in (functools.partial(shows, y=1.0), types.MethodType(Shower(), 1.0)):
        converted = ag.to_graph(fn, experimental_optional_features=features)
        graph = rt.Graph()
        with graph.as_default():
            converted(rt.placeholder(rt.float32, []))  # print_ of a tensor: a print op
        assert any("Print" in op.type for op in graph.get_operations()), fn


def test_converted_call_leaves_classes_alone():
    assert ag.converted_call(Scaler) is Scaler
    assert ag.converted_call(dict) is dict


def helper_with_if(x):
    if x > 0:
        x = x * 10
    else:
        x = x - 1
    return x


def test_converted_call_converts_user_functions():
    converted = ag.converted_call(helper_with_if)
    assert converted is not helper_with_if
    assert converted is ag.to_graph(helper_with_if)
    assert converted(2) == 20


def test_converted_call_converts_bound_methods():
    scaler = Scaler(4)
    converted = ag.converted_call(scaler.scale_positive)
    assert inspect.ismethod(converted)
    assert converted.__func__ is not Scaler.scale_positive
    assert converted(2) == 8


@ag.do_not_convert
def python_only(x):
    if x > 0:  # a Python `if`: would fail on a symbolic tensor if it were staged as is
        return "positive"
    return "not positive"


@ag.do_not_convert
def records_type(x):
    return type(x).__name__


def test_do_not_convert_is_honoured_by_converted_call():
    assert ag.converted_call(python_only) is python_only
    assert ag.to_graph(python_only) is python_only


def calls_do_not_convert(x):
    return records_type(x)


def calls_python_only(x):
    return python_only(x)


def test_do_not_convert_function_runs_as_is_from_converted_code():
    assert ag.to_graph(calls_python_only)(1) == "positive"
    g = rt.Graph()
    with g.as_default():
        x = rt.placeholder(rt.int32, [])
        assert ag.to_graph(calls_do_not_convert)(x) == "SymbolicTensor"
        with pytest.raises(rt.errors.OperatorNotAllowedInGraphError):
            ag.to_graph(calls_python_only)(x)


def calls_helper(x):
    y = helper_with_if(x)
    return y + 1


def test_user_helper_called_from_converted_code_is_converted():
    assert ag.to_graph(calls_helper)(3) == 31
    assert run_graph(calls_helper, 3) == 31
    assert run_graph(calls_helper, -3) == -3
    assert is_staged(calls_helper)


def calls_helper_through_attribute(x):
    return Scaler(5).scale_positive(x)


def test_method_called_from_converted_code_is_converted():
    assert run_graph(calls_helper_through_attribute, 2) == 10
    assert run_graph(calls_helper_through_attribute, -2) == -2


def helper_loop(n):
    total = 0
    i = 0
    while i < n:
        total += i
        i += 1
    return total


def calls_loop_helper_twice(n):
    return helper_loop(n) + helper_loop(n + 1)


def test_helper_with_a_loop_called_twice():
    assert ag.to_graph(calls_loop_helper_twice)(4) == 6 + 10
    assert run_graph(calls_loop_helper_twice, 4) == 6 + 10


def test_helper_is_converted_once_per_function():
    assert ag.converted_call(helper_loop) is ag.converted_call(helper_loop)


# --- __future__ features ---------------------------------------------------------------------

_ANNOTATED_SOURCE = """
def outer(x):
    def inner(y: int) -> int:
        return y
    if x > 0:
        x = inner(x)
    return x, inner
"""


def _load_module(tmp_path, name, source):
    import importlib.util

    path = tmp_path / f"{name}.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("future", [False, True])
def test_converted_code_has_the_future_features_of_the_users_module(tmp_path, future):
    """Not those of the module that loads it (autograph's own use `from __future__ import annotations`)."""
    header = "from __future__ import annotations\n" if future else ""
    module = _load_module(tmp_path, f"annotated_{future}", header + _ANNOTATED_SOURCE)
    value, inner = ag.to_graph(module.outer)(3)
    _, original_inner = module.outer(3)
    assert value == 3
    assert inner.__annotations__ == original_inner.__annotations__
    assert inner.__annotations__["y"] == ("int" if future else int)


def test_lambda_spread_over_lines_as_formatters_write_calls():
    # ruff and black put each argument of a long call on its own line
    spread = ag.function(
        lambda x: x * 2.0 + 1.0,
        input_signature=[rt.TensorSpec([], rt.float32)],
    )
    body_on_next_line = ag.function(
        lambda x:
        x - 1.0  # fmt: skip
    )  # fmt: skip
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # converted, not traced as it is with a warning
        assert float(spread(rt.constant(2.0))) == 5.0
        assert float(body_on_next_line(rt.constant(2.0))) == 1.0
    assert "x * 2.0 + 1.0" in ag.to_code(spread.python_function)


def test_two_lambdas_with_the_same_arguments_told_apart_by_their_positions():
    if sys.version_info < (3, 11):
        pytest.skip("only Python 3.11 records where each instruction comes from")
    assert ag.to_graph(add_one)(1) == 2
    assert ag.to_graph(add_two)(1) == 3
    assert run_graph(add_two, 1) == 3


def test_lambda_on_the_first_line_of_its_file(tmp_path, monkeypatch):
    # (as in a doctest, where each example is a file of its own)
    (tmp_path / "first_line_lambda.py").write_text("double = lambda x: 2 * x\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    from first_line_lambda import double

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # converted, not traced as it is with a warning
        assert ag.function(double)(rt.constant(3)).numpy() == 6
