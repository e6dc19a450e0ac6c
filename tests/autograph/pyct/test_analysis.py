"""The analyses on small functions: symbols of parts of objects, changes in place, closures,
and what is live around try, raise and classes."""

from __future__ import annotations

import textwrap

import gast
import pytest

from autograph.pyct import anno
from autograph.pyct.analysis import liveness
from autograph.pyct.analysis.activity import Activity, base_name, is_composite, symbol


def _statement(source):
    return gast.parse(textwrap.dedent(source)).body[0]


def _expression(source):
    return gast.parse(source).body[0].value


@pytest.mark.parametrize(
    "source, expected",
    [
        ("x", "x"),
        ("self.count", "self.count"),
        ("x['b']", "x['b']"),
        ("y[0]", "y[0]"),
        ("y[-1]", "y[-1]"),
        ("x[k]", "x[k]"),
        ("o.d['k'][0].v", "o.d['k'][0].v"),
        ("x[i + 1]", None),
        ("x[1:2]", None),
        ("x[True]", None),
        ("f().y", None),
    ],
)
def test_symbols_name_variables_and_parts_of_objects(source, expected):
    assert symbol(_expression(source)) == expected


def test_symbols_split_into_their_variable():
    assert [base_name(s) for s in ("x", "x['a.b'].c", "o.d[0]")] == ["x", "x", "o"]
    assert [is_composite(s) for s in ("x", "x[0]", "x.y")] == [False, True, True]


def test_a_part_written_reads_its_owners_and_keys():
    reads, writes = Activity().reads_writes(_statement("x['a'][k] += v"))
    assert writes == {"x['a'][k]"}
    assert reads == {"x", "x['a']", "k", "x['a'][k]", "v"}


@pytest.mark.parametrize(
    "source, mutated, reads",
    [
        ("items.append(v)", {"items"}, {"v"}),
        ("ag__.call(items.append)(v)", {"items"}, {"v"}),
        ("s += items.pop()", {"items"}, {"items", "s"}),
        ("self.items.extend(more)", {"self.items"}, {"self", "more"}),
        ("x[i + 1] = v", {"x"}, {"i", "v"}),
        ("del table[k + 1]", {"table"}, {"k"}),
        ("out = [items.append(v) for v in vs]", {"items"}, {"vs"}),
        ("f().append(v)", set(), {"f", "v"}),
    ],
)
def test_changes_in_place_mutate_the_container(source, mutated, reads):
    activity = Activity()
    stmt = _statement(source)
    assert activity.mutated(stmt) == mutated
    assert activity.reads(stmt) >= reads
    # Only what returns some of the contents (pop) reads the container itself.
    assert ("items" in activity.reads(stmt)) == ("pop" in source)


@pytest.mark.parametrize(
    "source, captured",
    [
        ("f = lambda: y + z", {"y", "z"}),
        ("def g():\n    return i * x", {"i", "x"}),
        ("g = (k * v for v in vs)", {"k"}),  # vs: evaluated at once
        ("squares = [v * k for v in vs]", set()),
        ("fs = [lambda: v * k for v in vs]", {"k"}),
        ("class C:\n    n = size\n    def m(self):\n        return scale", {"scale"}),
        ("def g(a):\n    b = a\n    return b", set()),
    ],
)
def test_closures_capture_the_outer_names_they_read(source, captured):
    assert Activity().captured(_statement(source)) == captured


def test_the_lambdas_of_converted_logic_capture_nothing():
    lazy = gast.parse("lambda: y").body[0].value
    anno.setanno(lazy, anno.Basic.IMMEDIATE, True)
    assert Activity().captured(lazy) == set()
    assert Activity().reads(lazy) == {"y"}


def _analysed(source):
    fn = gast.parse(textwrap.dedent(source)).body[0]
    liveness.analyze(fn)
    return fn


def _first_if(fn):
    return next(n for n in gast.walk(fn) if isinstance(n, gast.If))


def test_what_a_handler_reads_is_live_after_a_raise_in_the_try():
    fn = _analysed(
        """
        def f(x):
            r = 0
            try:
                if x > 0:
                    r = x + 1
                raise KeyError()
            except KeyError:
                r *= 10
            return r
        """
    )
    assert "r" in anno.getanno(_first_if(fn), anno.Static.LIVE_OUT)


def test_what_a_handler_reads_is_live_after_a_statement_that_assigns_it():
    """The assignment may raise before it assigns: the handler sees the value before it."""
    fn = _analysed(
        """
        def f(x):
            y = 0
            try:
                if x > 0:
                    y = 1
                y = int("z")
            except ValueError:
                return y
            return -1
        """
    )
    assert "y" in anno.getanno(_first_if(fn), anno.Static.LIVE_OUT)


def test_what_a_finally_block_reads_is_live_at_a_return_in_the_try():
    fn = _analysed(
        """
        def f(x):
            n = 0
            try:
                if x > 0:
                    n = 1
                return x
            finally:
                print(n)
        """
    )
    assert "n" in anno.getanno(_first_if(fn), anno.Static.LIVE_OUT)


def test_methods_of_a_class_defined_in_the_function_are_analysed():
    fn = _analysed(
        """
        def f(x):
            class Thing:
                def value(self, v):
                    if v > 0:
                        w = v
                    else:
                        w = -v
                    return w
            return Thing().value(x)
        """
    )
    assert anno.getanno(_first_if(fn), anno.Static.LIVE_OUT) == {"w"}
