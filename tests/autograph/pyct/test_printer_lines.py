"""The printer's line map: each printed line stands for the user line of the statement printing it.

A line printed by a statement with a line stands for that line; a statement without one
(one a converter wrote) stands for the line of the statement it is in; a header line of a
compound statement (``else:``, ``except:``, a decorator) for the compound statement's line.
Lines inside a function the parser marked as the user's stand for that function too.
"""

from __future__ import annotations

import ast
import sys

import gast
import pytest

from autograph.pyct import anno
from autograph.pyct.printer import print_with_lines
from tests.autograph.pyct.printer_snippets import SNIPPETS

SOURCE = '''
@decorator
def f(a):
    """Doc."""
    if a:
        b = 1
    else:
        b = 2
    try:
        c = 3
    except E:
        c = 4
    else:
        c = 5
    finally:
        c = 6

    def g():
        return b
    return g
x = f(1)
'''


def statements_in_order(tree):
    return [node for node in ast.walk(tree) if isinstance(node, ast.stmt)]


@pytest.mark.parametrize("name", list(SNIPPETS))
def test_the_first_line_of_each_printed_statement_stands_for_the_statement(name):
    tree = gast.parse(SNIPPETS[name])
    text, lines = print_with_lines(tree)
    original = statements_in_order(gast.gast_to_ast(tree))
    reparsed = statements_in_order(ast.parse(text))
    assert len(reparsed) == len(original)
    for printed, user in zip(reparsed, original):
        assert lines[printed.lineno] == (user.lineno, None)


@pytest.mark.parametrize("name", list(SNIPPETS))
def test_every_printed_line_but_the_blank_ones_is_mapped(name):
    text, lines = print_with_lines(gast.parse(SNIPPETS[name]))
    printed = text.split("\n")
    assert sorted(lines) == [number for number, line in enumerate(printed, 1) if line.strip()]


def test_header_lines_stand_for_their_compound_statement():
    text, lines = print_with_lines(gast.parse(SOURCE))
    printed = text.split("\n")
    assert [(printed[number - 1].strip(), user) for number, (user, _) in lines.items()] == [
        ("@decorator", 3),
        ("def f(a):", 3),
        ("'Doc.'", 4),
        ("if a:", 5),
        ("b = 1", 6),
        ("else:", 5),
        ("b = 2", 8),
        ("try:", 9),
        ("c = 3", 10),
        ("except E:", 9),
        ("c = 4", 12),
        ("else:", 9),
        ("c = 5", 14),
        ("finally:", 9),
        ("c = 6", 16),
        ("def g():", 18),
        ("return b", 19),
        ("return g", 20),
        ("x = f(1)", 21),
    ]


def test_statements_without_a_line_stand_for_the_statement_they_are_in():
    tree = gast.parse("if a:\n    b = 1")
    written = gast.parse("c = 2\nif d:\n    e = 3").body
    for node in gast.walk(gast.Module(body=written, type_ignores=[])):
        if hasattr(node, "lineno"):
            del node.lineno
    tree.body[0].body += written
    tree.body += [gast.parse("f = 4").body[0]]  # line 1 of its own source
    text, lines = print_with_lines(tree)
    assert text == "if a:\n    b = 1\n    c = 2\n    if d:\n        e = 3\nf = 4"
    assert lines == {
        1: (1, None),
        2: (2, None),
        3: (1, None),
        4: (1, None),
        5: (1, None),
        6: (1, None),
    }


def test_top_level_statements_without_a_line_are_not_mapped():
    tree = gast.parse("def f():\n    return 1")
    del tree.body[0].lineno
    assert print_with_lines(tree)[1] == {2: (2, None)}


def test_lines_of_a_users_function_stand_for_it_until_the_function_ends():
    tree = gast.parse("def outer():\n    def inner():\n        x = 1\n    y = 2\nz = 3")
    outer, inner = tree.body[0], tree.body[0].body[0]
    anno.setanno(outer, anno.Basic.USER_FUNCTION, "outer")
    anno.setanno(inner, anno.Basic.USER_FUNCTION, "user_inner")
    text, lines = print_with_lines(tree)
    assert text == "def outer():\n\n    def inner():\n        x = 1\n    y = 2\nz = 3"
    assert lines == {
        1: (1, "outer"),
        3: (2, "user_inner"),
        4: (3, "user_inner"),
        5: (4, "outer"),
        6: (5, None),
    }


def test_lines_after_a_string_printed_on_several_lines_keep_their_numbers():
    # Inside an f-string's braces Python 3.11 cannot escape a newline: the string spans lines.
    newline = gast.Constant(value="a\nb", kind=None)
    formatted = gast.FormattedValue(value=newline, conversion=-1, format_spec=None)
    tree = gast.parse("x = 1\ny = 2\nz = 3")
    tree.body[1].value = gast.JoinedStr(values=[formatted])
    text, lines = print_with_lines(tree)
    z_line = text.split("\n").index("z = 3") + 1
    assert lines[z_line] == (3, None)
    assert text.count("\n") == (3 if sys.version_info < (3, 12) else 2)
