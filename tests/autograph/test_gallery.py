"""Every gallery function, converted, agrees with the original: on Python values, eagerly, in a graph."""

from __future__ import annotations

import numpy as np
import pytest

import autograph as ag
import runtime as rt
from tests.autograph.gallery import GALLERY
from tests.autograph.printed_code import from_printed_code


def _label(fn, args):
    return f"{fn.__name__}({','.join(repr(a) for a in args)})"


CALLS = [pytest.param(c.fn, args, id=_label(c.fn, args)) for c in GALLERY for args in c.args]
GRAPH_CALLS = [
    pytest.param(c.fn, args, id=_label(c.fn, args)) for c in GALLERY if c.graph for args in c.args
]


def _dtype(value):
    if isinstance(value, bool):
        return rt.bool
    if isinstance(value, float):
        return rt.float32
    return rt.int32


def assert_same_python(actual, expected):
    """Exactly the same result: value and Python type (tensors compared by dtype and value)."""
    if isinstance(expected, (tuple, list)):
        assert type(actual) is type(expected), (actual, expected)
        assert len(actual) == len(expected), (actual, expected)
        for a, e in zip(actual, expected):
            assert_same_python(a, e)
    elif isinstance(expected, rt.Tensor):
        assert isinstance(actual, rt.Tensor), (actual, expected)
        assert actual.dtype == expected.dtype, (actual, expected)
        np.testing.assert_array_equal(actual.numpy(), expected.numpy())
    else:
        assert type(actual) is type(expected), (actual, expected)
        assert actual == expected, (actual, expected)


def _as_array(value):
    return np.asarray(value.numpy() if isinstance(value, rt.Tensor) else value)


def assert_matches(actual, expected):
    """The same numbers: equal values of the same kind (bool, int or float), same shape."""
    if isinstance(expected, (tuple, list)):
        assert isinstance(actual, (tuple, list)), (actual, expected)
        assert len(actual) == len(expected), (actual, expected)
        for a, e in zip(actual, expected):
            assert_matches(a, e)
        return
    got, want = _as_array(actual), _as_array(expected)
    assert got.shape == want.shape, (got, want)
    assert got.dtype.kind == want.dtype.kind, (got, got.dtype, want, want.dtype)
    if want.dtype.kind == "f":
        np.testing.assert_allclose(got, want, rtol=1e-6)
    else:
        np.testing.assert_array_equal(got, want)


def run_in_graph(fn, args):
    """Traces ``fn`` on scalar placeholders and runs the graph with ``args`` fed."""
    graph = rt.Graph()
    with graph.as_default():
        placeholders = [rt.placeholder(_dtype(a), []) for a in args]
        out = fn(*placeholders)
    feed = dict(zip(placeholders, args))
    with rt.Session(graph) as sess:
        return _fetch(sess, out, feed)


def _fetch(sess, out, feed):
    if isinstance(out, (tuple, list)):
        return type(out)(_fetch(sess, o, feed) for o in out)
    if isinstance(out, rt.Tensor):
        return sess.run(out, feed)
    return out  # a value the trace computed in Python


def test_gallery_is_large():
    assert len(GALLERY) >= 60
    assert len({c.fn.__name__ for c in GALLERY}) == len(GALLERY)
    assert sum(c.graph for c in GALLERY) >= 0.9 * len(GALLERY)


@pytest.mark.parametrize(("fn", "args"), CALLS)
def test_python_values(fn, args):
    assert_same_python(ag.to_graph(fn)(*args), fn(*args))


@pytest.mark.parametrize(("fn", "args"), CALLS)
def test_eager_tensors(fn, args):
    expected = fn(*args)
    actual = ag.to_graph(fn)(*[rt.constant(a) for a in args])
    assert_matches(actual, expected)


@pytest.mark.parametrize(("fn", "args"), GRAPH_CALLS)
def test_graph(fn, args):
    expected = fn(*args)
    assert_matches(run_in_graph(ag.to_graph(fn), args), expected)


@pytest.mark.parametrize("case", GALLERY, ids=lambda c: c.fn.__name__)
def test_to_code_prints_a_function_that_behaves_as_the_original(case):
    code = ag.to_code(case.fn)
    assert code.startswith(f"def {case.fn.__name__}(")
    printed = from_printed_code(case.fn, code)
    for args in case.args:
        expected = case.fn(*args)
        assert_same_python(printed(*args), expected)
        assert_matches(printed(*[rt.constant(a) for a in args]), expected)
        if case.graph:
            assert_matches(run_in_graph(printed, args), expected)
