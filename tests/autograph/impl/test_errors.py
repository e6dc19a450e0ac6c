"""User errors in converted code: the right exception type, naming the variable, at the user's line."""

import inspect
import re

import pytest

import autograph as ag
import runtime as rt

THIS_FILE = __file__


def line_of(fn, marker):
    """The line of this file, inside ``fn``, whose text contains ``marker``."""
    lines, first = inspect.getsourcelines(fn)
    hits = [first + i for i, text in enumerate(lines) if marker in text]
    assert len(hits) == 1, (marker, hits)
    return hits[0]


def assert_at_user_line(error, fn, marker):
    message = str(error)
    line = line_of(fn, marker)
    assert f'File "{THIS_FILE}", line {line}, in {fn.__name__}' in message, message


def trace(fn, *dtypes):
    """Converts ``fn`` and calls it on placeholders of ``dtypes`` (int32 scalars by default)."""
    g = rt.Graph()
    with g.as_default():
        args = [rt.placeholder(d, []) for d in dtypes or [rt.int32]]
        return ag.to_graph(fn)(*args)


# --- the functions with mistakes -------------------------------------------------------------


def defined_in_one_branch(x):
    if x > 0:  # MARK
        only_here = x * 2
    return only_here


def dtype_changes_in_loop(n):
    acc = 0
    i = 0
    while i < n:  # MARK
        acc = rt.cast(acc, rt.float32) * 1.5
        i += 1
    return acc


def shape_changes_in_loop(n):
    grows = rt.zeros([1])
    for _ in rt.range(n):  # MARK
        grows = rt.concat([grows, grows], 0)
    return grows


def undefined_before_loop(n):
    i = 0
    while i < n:  # MARK
        counter = counter + 1  # noqa: F821
        i += 1
    return counter


def return_in_one_branch(x):
    if x > 0:  # MARK
        return x
    x = x + 1


def none_before_loop(n):
    last = None
    for i in rt.range(n):  # MARK
        last = i
    return last


def generator(x):
    yield x  # MARK


def if_inside_try(x):
    try:
        if x > 0:  # MARK
            x = x + 1
    except ValueError:
        pass
    return x


COUNTER = 0


def writes_global(x):
    global COUNTER
    if x > 0:  # MARK
        COUNTER = 1
    return x


@ag.do_not_convert
def python_if(x):
    if x > 0:  # MARK
        return x
    return -x


def calls_unconverted(x):
    return python_if(x)  # MARK


def inner_mistake(x):
    if x > 0:  # MARK
        inner_only = x
    return inner_only


def outer_caller(x):
    result = inner_mistake(x + 1)  # MARK
    return result


# --- the tests -------------------------------------------------------------------------------


def test_variable_defined_in_only_one_branch():
    with pytest.raises(ValueError) as info:
        trace(defined_in_one_branch)
    assert "'only_here'" in str(info.value)
    assert "branch" in str(info.value)
    assert_at_user_line(info.value, defined_in_one_branch, "# MARK")


def test_loop_variable_changing_dtype():
    with pytest.raises(TypeError) as info:
        trace(dtype_changes_in_loop)
    message = str(info.value)
    assert "'acc'" in message
    assert "int32" in message and "float32" in message
    assert_at_user_line(info.value, dtype_changes_in_loop, "# MARK")


def test_loop_variable_changing_shape():
    with pytest.raises(ValueError) as info:
        trace(shape_changes_in_loop)
    message = str(info.value)
    assert "'grows'" in message
    assert "(1,)" in message and "(2,)" in message
    assert_at_user_line(info.value, shape_changes_in_loop, "# MARK")


def test_variable_undefined_before_loop():
    with pytest.raises(
        ValueError,
        match="'counter' must be defined before the loop",
    ) as info:
        trace(undefined_before_loop)
    message = str(info.value)
    assert "'counter'" in message
    assert "before" in message
    assert_at_user_line(info.value, undefined_before_loop, "# MARK")


def test_return_in_only_one_branch():
    with pytest.raises(ValueError) as info:
        trace(return_in_one_branch)
    assert "return" in str(info.value)
    assert_at_user_line(info.value, return_in_one_branch, "# MARK")


def test_variable_none_before_loop():
    with pytest.raises(ValueError, match="'last' is None before a tensor-dependent loop") as info:
        trace(none_before_loop)
    message = str(info.value)
    assert "'last'" in message
    assert "None" in message
    assert_at_user_line(info.value, none_before_loop, "# MARK")


def test_yield_is_a_conversion_error():
    with pytest.raises(ag.ConversionError) as info:
        ag.to_graph(generator)
    message = str(info.value)
    assert "yield" in message
    assert re.search(rf"\bline {line_of(generator, '# MARK')}\b", message), message
    assert "generator" in message


def test_symbolic_if_inside_try_is_staged():
    """As TensorFlow does: only errors that happen while tracing can reach the ``except``."""
    function = ag.function(if_inside_try)
    assert function(rt.constant(1)).numpy() == 2
    assert function(rt.constant(-1)).numpy() == -1
    assert function.tracing_count == 1


def test_if_inside_try_runs_on_python_values():
    assert ag.to_graph(if_inside_try)(1) == 2


def test_global_written_in_symbolic_branch():
    with pytest.raises(NotImplementedError) as info:
        trace(writes_global)
    assert "'COUNTER'" in str(info.value)
    assert "global" in str(info.value)
    assert_at_user_line(info.value, writes_global, "# MARK")
    assert COUNTER == 0


def test_bool_of_symbolic_tensor_in_unconverted_function():
    with pytest.raises(rt.errors.OperatorNotAllowedInGraphError) as info:
        trace(calls_unconverted)
    assert isinstance(info.value, TypeError)
    assert "ag.function" in str(info.value) or "rt.cond" in str(info.value)
    assert_at_user_line(info.value, calls_unconverted, "# MARK")


def test_nested_converted_calls_list_both_functions():
    with pytest.raises(ValueError) as info:
        trace(outer_caller)
    message = str(info.value)
    assert "'inner_only'" in message
    assert_at_user_line(info.value, outer_caller, "# MARK")
    assert_at_user_line(info.value, inner_mistake, "# MARK")
    outer_at = message.index(f"in {outer_caller.__name__}")
    inner_at = message.index(f"in {inner_mistake.__name__}")
    assert outer_at < inner_at  # outermost call first, as in a traceback


def test_user_code_lines_are_quoted():
    with pytest.raises(ValueError) as info:
        trace(defined_in_one_branch)
    assert "if x > 0:  # MARK" in str(info.value)
    assert "in user code:" in str(info.value)


def test_python_values_run_as_python():
    assert ag.to_graph(defined_in_one_branch)(2) == 4
    assert ag.to_graph(return_in_one_branch)(-1) is None
    assert ag.to_graph(return_in_one_branch)(3) == 3


def test_python_values_raise_unbound_local_error_like_python():
    # The original raises UnboundLocalError at `return only_here`; the converted one must too,
    # not hand back an internal placeholder for the missing value.
    with pytest.raises(UnboundLocalError, match="only_here"):
        defined_in_one_branch(-1)
    with pytest.raises(UnboundLocalError, match="only_here"):
        ag.to_graph(defined_in_one_branch)(-1)


def generator_of_two(x):
    if x:
        yield x  # FIRST
    yield x + 1


def test_of_several_yields_the_first_is_named():
    with pytest.raises(ag.ConversionError) as info:
        ag.to_graph(generator_of_two)
    assert re.search(rf"\bline {line_of(generator_of_two, '# FIRST')}\b", str(info.value))


def returns_none_in_a_staged_loop(n):
    for i in rt.range(n):  # MARK
        if i > 2:
            return None
    return 1


def test_errors_name_the_return_value_not_the_variable_conversion_made():
    with pytest.raises(ValueError) as info:
        trace(returns_none_in_a_staged_loop)
    message = str(info.value)
    assert "the function's return value" in message
    assert "'retval'" not in message
    assert_at_user_line(info.value, returns_none_in_a_staged_loop, "# MARK")


def loop_variable_changes_structure(n):
    pair = (n, n)
    i = 0
    while i < n:  # MARK
        pair = (pair[0],)
        i += 1
    return pair


def test_a_loop_variable_that_changes_structure_is_a_type_error_naming_it():
    with pytest.raises(TypeError) as info:
        trace(loop_variable_changes_structure)
    assert "'pair' does not have the same nested structure" in str(info.value)
    assert_at_user_line(info.value, loop_variable_changes_structure, "# MARK")
