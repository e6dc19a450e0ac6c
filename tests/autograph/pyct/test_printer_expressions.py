"""Expressions print with just the parentheses they need, as ``ast.unparse`` prints them.

Every kind of expression is put in every place an expression can stand, and random trees
nest them deeper. A printed tree must parse back to itself (a missing parenthesis changes
the tree, an extra one does not: so the text is also compared with ``ast.unparse``'s).
"""

from __future__ import annotations

import ast
import sys

import gast
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from autograph.pyct.expression_printer import expression_source
from autograph.pyct.printer import print_with_lines

# Python 3.10's ast.unparse prints tuples in parentheses; the printer prints them as 3.11+ does.
UNPARSE_PRINTS_AS_THE_PRINTER = sys.version_info >= (3, 11)

# One expression of each kind (and each operator).
KINDS = [
    "a",
    "1",
    "1.5",
    "1j",
    "...",
    "None",
    "'s'",
    "f'{a}'",
    *(
        f"a {operator} b"
        for operator in ["+", "-", "*", "@", "/", "//", "%", "**", "<<", ">>", "|", "^", "&"]
    ),
    *(f"{operator}a" for operator in ("not ", "-", "+", "~")),
    "a and b",
    "a or b",
    "a and b or c",
    *(f"a {operator} b" for operator in ("==", "<", "is not", "not in")),
    "a < b < c",
    "a if b else c",
    "lambda: a",
    "lambda a, *b: a",
    "(x := a)",
    "await a",
    "(yield)",
    "(yield a)",
    "(yield from a)",
    "a.b",
    "a(b)",
    "a[b]",
    "a[b:c]",
    "a[b, c]",
    "(a, b)",
    "(a,)",
    "()",
    "[a, *b]",
    "{a}",
    "{a: b, **c}",
    "[a for x in b]",
    "{a for x in b}",
    "{a: b for x in c}",
    "(a for x in b if c)",
]

# Every place an expression can stand: _ marks it.
PLACES = [
    *(f"_ {operator} c" for operator in ["+", "*", "|", "^", "&", "<<", "**"]),
    *(f"c {operator} _" for operator in ["-", "/", "|", "^", "&", ">>", "**"]),
    *(f"{operator}_" for operator in ("not ", "-", "~")),
    "_ and c",
    "c or _",
    "c or d or e or f or g or h or i or j or _",
    "_ < c",
    "c in _",
    "c < _ < d",
    "_ if c else d",
    "c if _ else d",
    "c if d else _",
    "lambda: _",
    "lambda c=_: c",
    "(x := _)",
    "await _",
    "(yield _)",
    "(yield from _)",
    "_.c",
    "_(c)",
    "c(_)",
    "c(_, d)",
    "c(*_)",
    "c(k=_)",
    "c(**_)",
    "_[c]",
    "c[_]",
    "c[_, d]",
    "c[_:]",
    "c[:_:d]",
    "(_, c)",
    "(_,)",
    "[_, c]",
    "[*_]",
    "{_}",
    "{_: c}",
    "{c: _}",
    "{**_}",
    "[_ for x in c]",
    "[c for x in _]",
    "[c for x in d if _]",
    "{_: c for x in d}",
    "f'{_}'",
]

# Every statement an expression can be part of.
STATEMENTS = [
    "_",
    "x = _",
    "x = y = _",
    "x += _",
    "x: _ = c",
    "return _",
    "del c[_]",
    "assert _, _",
    "raise _ from _",
    "if _:\n    pass",
    "while _:\n    pass",
    "for x in _:\n    pass",
    "with _ as x:\n    pass",
    "@_\ndef f(c=_, *, d=_) -> _:\n    pass",
    "class A(_, metaclass=_):\n    pass",
]


def put(expression, template, mode):
    """The tree of ``template`` with the expression in place of each ``_``."""
    tree = gast.parse(template, mode=mode)
    for node in gast.walk(tree):
        for field, value in gast.iter_fields(node):
            if isinstance(value, gast.Name) and value.id == "_":
                setattr(node, field, gast.parse(expression, mode="eval").body)
            elif isinstance(value, list):
                value[:] = [
                    gast.parse(expression, mode="eval").body
                    if isinstance(item, gast.Name) and item.id == "_"
                    else item
                    for item in value
                ]
    return tree


@pytest.mark.parametrize("place", PLACES)
def test_each_kind_of_expression_prints_right_in_each_place(place):
    for kind in KINDS:
        expression = put(kind, place, "eval")
        tree = gast.gast_to_ast(expression)
        text = expression_source(expression.body)
        assert ast.dump(ast.parse(text, mode="eval")) == ast.dump(tree), (kind, place)
        if UNPARSE_PRINTS_AS_THE_PRINTER:
            assert text == ast.unparse(tree), (kind, place)


@pytest.mark.parametrize("statement", STATEMENTS)
def test_each_kind_of_expression_prints_right_in_each_statement(statement):
    for kind in KINDS:
        module = put(kind, "pass\n" + statement, "exec")  # pass: the string kind is no docstring
        tree = gast.gast_to_ast(module)
        text = print_with_lines(module)[0]
        assert ast.dump(ast.parse(text)) == ast.dump(tree), (kind, statement)
        if UNPARSE_PRINTS_AS_THE_PRINTER:
            assert text == ast.unparse(tree), (kind, statement)


# Random expressions, written with every parenthesis they could have: the printer must find
# which ones they need. (As text, hypothesis shows a failing one as it reads.)
LEAVES = st.one_of(
    st.sampled_from(["a", "b", "None", "True", "...", "'s'", "b'b'", "1e999", "1j"]),
    st.integers(0, 10**20).map(str),
    st.floats(min_value=0, allow_nan=False, allow_infinity=False).map(repr),
)
BINARY = ["+", "-", "*", "@", "/", "//", "%", "**", "<<", ">>", "|", "^", "&"]
COMPARISONS = ["==", "!=", "<", "<=", ">", ">=", "is", "is not", "in", "not in"]


def joined(parts):
    return ", ".join(parts)


def compound(children):
    child = children.map(lambda source: "(" + source + ")")
    positional = st.lists(child | child.map("*{}".format), max_size=2).map(joined)
    keywords = st.lists(child.map("k={}".format) | child.map("**{}".format), max_size=2).map(joined)
    arguments = st.builds(
        lambda first, then: joined([part for part in (first, then) if part]), positional, keywords
    )
    part = st.none() | child
    one_slice = st.builds(
        lambda lower, upper, step: f"{lower or ''}:{upper or ''}" + (f":{step}" if step else ""),
        part,
        part,
        part,
    )
    index = (
        child
        | one_slice
        | st.lists(child | one_slice, min_size=1, max_size=3).map(
            lambda parts: ", ".join(parts) + ("," if len(parts) == 1 else "")
        )
    )
    elements = st.lists(child | child.map("*{}".format), max_size=3)
    generators = st.builds("for x in {}".format, child) | st.builds(
        "for x in {} if {}".format, child, child
    )
    binary = st.builds("{} {} {}".format, child, st.sampled_from(BINARY), child)
    operators = st.one_of(
        binary,
        st.builds("{}{}".format, st.sampled_from(["not ", "-", "+", "~"]), child),
        st.builds(
            lambda operator, values: operator.join(values),
            st.sampled_from([" and ", " or "]),
            st.lists(child, min_size=2, max_size=4),
        ),
        st.builds(
            lambda first, rest: first + "".join(f" {op} {value}" for op, value in rest),
            child,
            st.lists(st.tuples(st.sampled_from(COMPARISONS), child), min_size=1, max_size=3),
        ),
        st.builds("{} if {} else {}".format, child, child, child),
    )
    others = st.one_of(
        st.builds("lambda {}: {}".format, st.sampled_from(["", "x", "x, *y"]), child),
        st.builds("x := {}".format, child),
        st.builds("yield {}".format, child)
        | st.just("yield")
        | st.builds("yield from {}".format, child),
        st.builds("await {}".format, child),
        st.builds("{}.real".format, child),
        st.builds("{}({})".format, child, arguments),
        st.builds("{}[{}]".format, child, index),
        st.lists(child, max_size=3).map(
            lambda parts: "(" + joined(parts) + ("," if len(parts) == 1 else "") + ")"
        ),
        elements.map(lambda parts: "[" + joined(parts) + "]"),
        elements.filter(bool).map(lambda parts: "{" + joined(parts) + "}"),
        st.lists(
            st.builds("{}: {}".format, child, child) | child.map("**{}".format), max_size=3
        ).map(lambda parts: "{" + joined(parts) + "}"),
        st.builds("[{} {}]".format, child, generators),
        st.builds("({} {})".format, child, generators),
        st.builds("{{{}: {} {}}}".format, child, child, generators),
    )
    return st.one_of(binary, operators, others)  # mostly operators: their precedence is tested


fully_parenthesized = st.recursive(LEAVES, compound, max_leaves=24).map("({})".format)


# The repr of a recursive strategy, which hypothesis builds when it shrinks a failing
# example, grows exponentially with its depth; an error stops it as soon as it is too long.
@pytest.mark.filterwarnings("error::hypothesis.errors.HypothesisWarning")
@settings(max_examples=300, deadline=None)
@given(fully_parenthesized)
def test_random_expressions_print_with_just_the_parentheses_they_need(source):
    tree = ast.parse(source, mode="eval").body
    text = expression_source(gast.parse(source, mode="eval").body)
    assert ast.dump(ast.parse(text, mode="eval").body) == ast.dump(tree)
    if UNPARSE_PRINTS_AS_THE_PRINTER:
        assert text == ast.unparse(tree)
