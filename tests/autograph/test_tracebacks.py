"""What a user sees when their code fails: the traceback without the library's frames.

Each test formats the traceback as Python prints it and looks at the files it
names: this file (the user's), the library's (``runtime/``, ``autograph/``) and
converted code (AutoGraph's generated files).
"""

import inspect
import os
import sys
import traceback
import warnings

import numpy as np
import pytest

import autograph as ag
import runtime as rt

THIS_FILE = __file__
LIBRARY_DIRS = tuple(
    os.path.join(os.path.dirname(os.path.abspath(m.__file__)), "") for m in (ag, rt)
)
# Python 3.10 restores a caught traceback on a bare `raise`: the entry point's frame is left.
ENTRY_FRAMES = 0 if sys.version_info >= (3, 11) else 1


def frames_of(error):
    return traceback.extract_tb(error.__traceback__)


def library_frames(error):
    return [f for f in frames_of(error) if f.filename.startswith(LIBRARY_DIRS)]


def generated_frames(error):
    return [
        f for f in frames_of(error) if not os.path.exists(f.filename) or "autograph_" in f.filename
    ]


def line_of(fn, marker):
    lines, first = inspect.getsourcelines(fn)
    (hit,) = [first + i for i, text in enumerate(lines) if text.rstrip().endswith(marker)]
    return hit


@pytest.fixture
def unfiltered():
    ag.disable_traceback_filtering()
    try:
        yield
    finally:
        ag.enable_traceback_filtering()


# --- errors while tracing ---------------------------------------------------------------------


@ag.function
def defined_in_one_branch(x):
    if x > 0:  # MARK: if
        y = x * 2
    return y


def test_a_tracing_error_shows_the_users_frames_and_message_only():
    with pytest.raises(ValueError) as info:
        defined_in_one_branch(rt.constant(1.0))  # MARK: call
    error = info.value
    assert len(library_frames(error)) == ENTRY_FRAMES, frames_of(error)
    assert generated_frames(error) == []
    (caller,) = [f for f in frames_of(error) if f.filename == THIS_FILE]
    assert caller.lineno == line_of(
        test_a_tracing_error_shows_the_users_frames_and_message_only, "# MARK: call"
    )
    text = "".join(traceback.format_exception(type(error), error, error.__traceback__))
    assert "'y' must also be initialized in the else branch" in text
    assert "in user code:" in text
    line = line_of(defined_in_one_branch.python_function, "# MARK: if")
    assert f'File "{THIS_FILE}", line {line}, in defined_in_one_branch' in text


def test_switched_off_every_frame_is_shown(unfiltered):
    assert not ag.is_traceback_filtering_enabled()
    assert not rt.debugging.is_traceback_filtering_enabled()
    with pytest.raises(ValueError) as info:
        defined_in_one_branch(rt.constant(1.0))
    files = {os.path.basename(f.filename) for f in library_frames(info.value)}
    assert {"function.py", "control_flow.py", "tracing.py"} <= files
    assert generated_frames(info.value)  # the converted code's own frames


def test_the_switch_is_also_in_rt_debugging():
    rt.debugging.disable_traceback_filtering()
    try:
        assert not ag.is_traceback_filtering_enabled()
    finally:
        rt.debugging.enable_traceback_filtering()
    assert ag.is_traceback_filtering_enabled()


def users_helper(v):
    return v + "a"  # MARK: helper


@ag.function(autograph=False)
def unconverted(x):
    return users_helper(x) * 2  # MARK: unconverted


def test_frames_of_unconverted_user_code_are_kept_between_library_frames():
    with pytest.raises(TypeError) as info:
        unconverted(rt.constant(1.0))
    mine = [(f.lineno, f.name) for f in frames_of(info.value) if f.filename == THIS_FILE]
    assert mine[-2:] == [
        (line_of(unconverted.python_function, "# MARK: unconverted"), "unconverted"),
        (line_of(users_helper, "# MARK: helper"), "users_helper"),
    ]
    assert len(library_frames(info.value)) == ENTRY_FRAMES


@ag.function
def calls_a_converted_helper(x):
    return users_helper(x) * 2  # MARK: converted call


def test_converted_frames_are_listed_at_the_users_lines():
    with pytest.raises(TypeError) as info:
        calls_a_converted_helper(rt.constant(1.0))
    assert generated_frames(info.value) == []
    message = str(info.value)
    outer = line_of(calls_a_converted_helper.python_function, "# MARK: converted call")
    inner = line_of(users_helper, "# MARK: helper")
    assert message.index(f"line {outer}, in calls_a_converted_helper") < message.index(
        f"line {inner}, in users_helper"
    )


@ag.function
def defines_a_function_using_a_missing_name(x):
    @ag.function
    def inner(y):
        return rt.no_such_op(y)  # MARK: missing name

    return inner(x)  # MARK: nested call


def test_a_nested_functions_error_is_reported_at_the_users_lines():
    assert not hasattr(rt, "no_such_op")
    with pytest.raises(AttributeError, match="has no attribute 'no_such_op'") as info:
        defines_a_function_using_a_missing_name(rt.constant(1.0))
    assert generated_frames(info.value) == []
    message = "".join(traceback.format_exception_only(info.value))  # AttributeError: in a note
    outer = line_of(defines_a_function_using_a_missing_name.python_function, "# MARK: nested call")
    assert message.index(f"line {outer}, in defines_a_function_using_a_missing_name") < (
        message.index(f"line {outer - 2}, in inner")  # the MARK: missing name line
    )


def test_a_nested_function_with_control_flow_is_converted_once():
    @ag.function
    def outer(x):
        @ag.function
        def doubled_if_positive(y):
            if y > 0:
                y = y * 2
            return y

        return doubled_if_positive(x)

    assert outer(rt.constant(3.0)).numpy() == 6.0
    assert outer(rt.constant(-3.0)).numpy() == -3.0


def test_to_code_of_a_function_defined_in_converted_code():
    def make():
        def doubled_if_positive(y):
            if y > 0:
                y = y * 2
            return y

        return doubled_if_positive

    def doubled_if_positive(y):
        if y > 0:
            y = y * 2
        return y

    nested = ag.to_graph(make)()
    assert ag.to_code(nested) == ag.to_code(doubled_if_positive)


@ag.function
def raises_with_a_cause(x):
    try:
        {}["missing"]
    except KeyError as e:
        raise ValueError("the user's own error") from e
    return x


def test_the_users_own_chained_exceptions_are_kept():
    with pytest.raises(ValueError) as info:
        raises_with_a_cause(rt.constant(1))
    assert isinstance(info.value.__cause__, KeyError)
    assert len(library_frames(info.value)) == ENTRY_FRAMES


def test_a_converted_function_called_directly_is_filtered_too():
    with pytest.raises(ValueError) as info:
        g = rt.Graph()
        with g.as_default():
            ag.to_graph(defined_in_one_branch)(rt.placeholder(rt.float32, []))
    assert len(library_frames(info.value)) == ENTRY_FRAMES
    assert "in user code:" in str(info.value)


def test_errors_of_the_library_called_by_the_library_stay_whole_until_they_reach_the_user():
    # rt ops raise eagerly without an entry point: only entry points filter.
    with pytest.raises(TypeError) as info:
        rt.constant(1) + rt.constant(2.0)
    assert library_frames(info.value)


# --- errors while running ---------------------------------------------------------------------


@ag.function
def divides_by_zero(a):
    return a // 0  # MARK: floordiv


def test_a_run_time_error_names_the_op_and_the_users_line_without_library_frames():
    with pytest.raises(rt.errors.InvalidArgumentError) as info:
        divides_by_zero(rt.constant(3))
    error = info.value
    line = line_of(divides_by_zero.python_function, "# MARK: floordiv")
    assert "Integer division by zero" in str(error)
    assert f'[[node floordiv (FloorDiv) defined at File "{THIS_FILE}", line {line}' in str(error)
    assert len(library_frames(error)) == ENTRY_FRAMES
    # The kernel's own exception, wholly inside the library, is not chained for the user.
    assert error.__cause__ is None and error.__context__ is None


@ag.function(input_signature=[rt.TensorSpec([None], rt.float32)])
def reshapes_to_five(a):
    return rt.reshape(a, [5])  # MARK: reshape


def test_numpys_error_inside_a_kernel_is_quoted_not_chained_with_numpys_frames():
    with pytest.raises(rt.errors.InvalidArgumentError) as info:
        reshapes_to_five(rt.constant([1.0, 2.0]))
    error = info.value
    numpy_dir = os.path.dirname(os.path.abspath(np.__file__))
    line = line_of(reshapes_to_five.python_function, "# MARK: reshape")
    # TensorFlow's heading of an error in a function's graph, then the kernel's words.
    assert str(error).startswith(
        f"Graph execution error:\n\nValueError: {numpy_reshape_message(2, 5)}"
    )
    assert f'defined at File "{THIS_FILE}", line {line}' in str(error)
    printed = "".join(traceback.format_exception(error))
    assert numpy_dir not in printed and "direct cause" not in printed
    assert len(library_frames(error)) == ENTRY_FRAMES


def numpy_reshape_message(size, to):
    try:
        np.zeros(size).reshape(to)
    except ValueError as e:
        return str(e)


def test_session_run_errors_name_the_op_and_line_without_library_frames():
    g = rt.Graph()
    with g.as_default():
        a = rt.placeholder(rt.int32, [])
        b = a // 0  # MARK: session floordiv
    with pytest.raises(rt.errors.InvalidArgumentError) as info:
        rt.Session(g).run(b, {a: 3})
    line = line_of(
        test_session_run_errors_name_the_op_and_line_without_library_frames,
        "# MARK: session floordiv",
    )
    assert f'defined at File "{THIS_FILE}", line {line}' in str(info.value)
    assert len(library_frames(info.value)) == ENTRY_FRAMES


def test_session_run_with_a_feed_that_is_not_a_dict_is_a_type_error():
    g = rt.Graph()
    with g.as_default():
        x = rt.placeholder(rt.int32, [])
        y = x + 1
    with pytest.raises(TypeError, match=r"feed_dict must be a dict .* got a list: \[1, 2\]"):
        rt.Session(g).run(y, [1, 2])
    assert rt.Session(g).run(y, {x: 1}) == 2


# --- warnings ---------------------------------------------------------------------------------


def test_the_retracing_warning_is_reported_at_the_users_call():
    @ag.function
    def add(x, n):
        return x + n

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for n in range(6):
            add(rt.constant(1), n)  # MARK: retrace
    (warning,) = [w for w in caught if w.category is ag.RetracingWarning]
    assert warning.filename == THIS_FILE
    assert warning.lineno == line_of(
        test_the_retracing_warning_is_reported_at_the_users_call, "# MARK: retrace"
    )


def test_a_warning_from_converted_code_is_reported_at_the_users_line():
    @ag.function
    def calls_a_lambda_without_source(x):
        no_source = eval("lambda v: v + 1")
        return no_source(x)  # MARK: no source

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        calls_a_lambda_without_source(rt.constant(1))
    (warning,) = [w for w in caught if "could not convert" in str(w.message)]
    assert warning.filename == THIS_FILE
    assert warning.lineno == line_of(
        calls_a_lambda_without_source.python_function, "# MARK: no source"
    )
