"""A repeated call of an ``ag.function`` runs through one generated entry function.

What it must keep: the results of the general path (every output structure),
the errors (the failing op and the user's line), the switches that take calls
elsewhere (``run_functions_eagerly``, a recording tape, a graph being built),
and retracing for arguments it was not made for. And what it is for: a call is
two Python frames, ``Function.__call__`` and the entry function.
"""

from __future__ import annotations

import inspect
import sys
import warnings

import numpy as np
import pytest

import autograph as ag
import runtime as rt
from runtime.execution.entry import MISS


def _python_calls(fn, *args):
    """The Python functions called (not C ones) while ``fn(*args)`` runs, outermost first."""
    calls = []

    def profile(frame, event, arg):
        if event == "call":
            calls.append(frame.f_code.co_name)

    sys.setprofile(profile)
    try:
        fn(*args)
    finally:
        sys.setprofile(None)
    return [c for c in calls if c != "setprofile"]


def test_a_repeated_call_is_two_python_frames():
    @ag.function
    def tiny(x):
        return x * x + 2.0

    x = rt.constant(np.arange(4, dtype=np.float32))
    first, second = tiny(x), tiny(x)  # the second call makes the entry function
    calls = _python_calls(tiny, x)
    assert calls[0] == "__call__" and len(calls) == 2, calls
    assert "entry" in calls[1]
    for result in (first, second, tiny(x)):
        np.testing.assert_array_equal(result.numpy(), np.arange(4) ** 2 + 2.0)
        assert result.dtype == rt.float32 and result.shape == (4,)


@pytest.mark.parametrize(
    "body",
    [
        lambda x: x + 1,
        lambda x: (x + 1, x * 2),
        lambda x: [x + 1, x * 2],
        lambda x: {"a": x + 1, "b": (x, None)},
        lambda x: None,
        lambda x: (x,),
    ],
    ids=["one", "tuple", "list", "dict", "none", "tuple-of-one"],
)
def test_entry_results_have_the_structure_of_the_general_path(body):
    fn = ag.function(body, autograph=False)
    x = rt.constant([1, 2, 3])
    expected = fn(x)
    fn(x)
    assert fn._entry is not None
    _assert_same_structure(fn(x), expected)


def _assert_same_structure(actual, expected):
    assert type(actual) is type(expected)
    if isinstance(expected, (tuple, list)):
        assert len(actual) == len(expected)
        for a, e in zip(actual, expected):
            _assert_same_structure(a, e)
    elif isinstance(expected, dict):
        assert actual.keys() == expected.keys()
        for k in expected:
            _assert_same_structure(actual[k], expected[k])
    elif expected is not None:
        assert actual.dtype == expected.dtype and actual.shape == expected.shape
        np.testing.assert_array_equal(actual.numpy(), expected.numpy())


def test_other_shapes_and_dtypes_miss_the_entry_and_take_the_general_path():
    @ag.function
    def double(x):
        return x * 2

    a, b, c = rt.constant([1, 2]), rt.constant([1, 2, 3]), rt.constant([1.5])
    for _ in range(3):
        assert double(a).numpy().tolist() == [2, 4]
        assert double(b).numpy().tolist() == [2, 4, 6]  # alternating: each call misses once
        assert double(c).numpy().tolist() == [3.0]
    assert double.tracing_count == 3
    entry = double._entry  # the last call's: made for c
    assert entry((c,)).numpy().tolist() == [3.0]
    assert entry((a,)) is MISS and entry((c, c)) is MISS and entry(([1.5],)) is MISS


def test_errors_through_the_entry_name_the_op_and_the_users_line():
    @ag.function
    def divide(x, y):
        return x // y  # the failing line

    x, y = rt.constant([4, 6]), rt.constant([2, 3])
    divide(x, y)
    divide(x, y)
    with pytest.raises(rt.errors.InvalidArgumentError) as info:
        divide(x, rt.constant([2, 0]))
    line = inspect.getsource(divide.python_function).splitlines()
    offset = next(k for k, text in enumerate(line) if "the failing line" in text)
    assert "floordiv" in str(info.value) and "divide" in str(info.value)
    assert f"line {divide.python_function.__code__.co_firstlineno + offset}" in str(info.value)


def test_floating_point_warnings_stay_off_through_the_entry():
    @ag.function
    def reciprocal(x):
        return 1.0 / x

    x = rt.constant([0.0, 2.0])
    reciprocal(x)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for _ in range(2):
            assert reciprocal(x).numpy().tolist() == [np.inf, 0.5]
    assert np.geterr()["divide"] == "warn"  # and numpy's own setting is left as it was


def test_variables_change_on_every_call_through_the_entry(capsys):
    counter = rt.Variable(0)

    @ag.function
    def count(step):
        counter.assign_add(step)
        rt.print("count", counter)
        return counter.read_value()

    step = rt.constant(2)
    assert [int(count(step)) for _ in range(4)] == [2, 4, 6, 8]
    assert capsys.readouterr().out.split("\n")[:4] == ["count 2", "count 4", "count 6", "count 8"]


def test_switches_take_the_call_elsewhere_even_after_an_entry_exists():
    traced = []

    @ag.function
    def square(x):
        traced.append(1)
        return x * x

    x = rt.constant(3.0)
    square(x), square(x)
    assert square._entry is not None
    ag.run_functions_eagerly(True)
    try:
        count = len(traced)
        assert square(x).numpy() == 9.0 and len(traced) == count + 1  # the Python function ran
    finally:
        ag.run_functions_eagerly(False)
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = square(x)
    assert tape.gradient(y, x).numpy() == 6.0  # the tape saw the call

    @ag.function
    def outer(x):
        return square(x) + 1.0

    assert outer(x).numpy() == 10.0  # inside a graph being built: inlined, not run


def test_keyword_calls_and_string_tensors_take_the_general_path():
    @ag.function
    def join(a, b):
        return rt.strings.join([a, b], separator="-")

    a, b = rt.constant("x"), rt.constant("y")
    for _ in range(3):
        assert join(a, b).numpy() == b"x-y"
        assert join(a=a, b=b).numpy() == b"x-y"
    assert join._cache.entries.get(((rt.string, ()), (rt.string, ()))) is None


def test_while_rt_summary_traces_every_call_is_seen_by_its_recorder(monkeypatch):
    # rt.summary.trace_on(profiler=True) times each op through profiling.recorder: a call
    # that the entry function would take must reach it too.
    from runtime.execution import profiling

    @ag.function
    def double(x):
        return x * 2.0

    x = rt.constant(1.5)
    for _ in range(4):  # the entry function is made and used
        double(x)
    seen = []

    def record(name, graph, graph_run, program, values):
        seen.append(name)
        return program(*values)

    monkeypatch.setattr(profiling, "recorder", record)
    assert [double(x).numpy() for _ in range(3)] == [3.0, 3.0, 3.0]
    assert seen == ["double"] * 3
