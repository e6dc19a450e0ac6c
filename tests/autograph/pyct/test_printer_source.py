"""The printer prints every kind of Python syntax as ``ast.unparse`` does (3.11 and later).

Two differences are the printer's contract: a docstring prints as the string statement it
is, and ``else:`` holding a lone ``if`` stays as it is rather than becoming ``elif`` (each
printed statement then stands for one tree statement). To compare with ``ast.unparse``,
``comparable`` gives trees neither difference shows in. On every Python the printed text
must parse back to the tree it was printed from.
"""

from __future__ import annotations

import ast
import importlib.util
import pathlib
import sys

import gast
import pytest

from autograph.pyct import expression_printer, printer
from autograph.pyct.printer import print_with_lines, to_source
from tests.autograph.pyct.printer_snippets import SNIPPETS

ROOT = pathlib.Path(__file__).resolve().parents[3]
PROJECT_FILES = sorted(
    path.relative_to(ROOT)
    for folder in ("autograph", "runtime", "tests", "examples", "benchmarks")
    for path in (ROOT / folder).rglob("*.py")
)
STANDARD_LIBRARY = ["argparse", "ast", "asyncio.tasks", "dataclasses", "enum", "inspect", "typing"]

# Python 3.10's ast.unparse prints tuples in parentheses ((a, b) = c, for (k, v) in d);
# the printer prints them as 3.11 and later do, on every version.
unparse_prints_as_the_printer = pytest.mark.skipif(
    sys.version_info < (3, 11), reason="ast.unparse of Python 3.10 prints tuples its own way"
)


def comparable(tree):
    """``tree`` without what the printer prints otherwise than ``ast.unparse``: docstrings,
    and ``else`` blocks holding a lone ``if`` (``pass`` is put next to each)."""
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and _is_string_statement(body[0]):
            body.insert(0, ast.Pass())
        if (
            isinstance(node, ast.If)
            and len(node.orelse) == 1
            and isinstance(node.orelse[0], ast.If)
        ):
            node.orelse.append(ast.Pass())
    return ast.fix_missing_locations(tree)


def _is_string_statement(node):
    return (
        isinstance(node, ast.Expr)
        and isinstance(node.value, ast.Constant)
        and isinstance(node.value.value, str)
    )


def printed(tree):
    return print_with_lines(gast.ast_to_gast(tree))[0]


def standard_library_source(name):
    return pathlib.Path(importlib.util.find_spec(name).origin).read_text(encoding="utf-8")


@unparse_prints_as_the_printer
@pytest.mark.parametrize("name", list(SNIPPETS))
def test_snippets_print_as_ast_unparse_prints_them(name):
    tree = comparable(ast.parse(SNIPPETS[name]))
    assert printed(tree) == ast.unparse(tree)


@pytest.mark.parametrize("name", list(SNIPPETS))
def test_snippets_parse_back_to_the_tree_they_were_printed_from(name):
    tree = ast.parse(SNIPPETS[name])
    assert ast.dump(ast.parse(printed(tree))) == ast.dump(tree)


@unparse_prints_as_the_printer
@pytest.mark.parametrize("path", PROJECT_FILES, ids=str)
def test_project_files_print_as_ast_unparse_prints_them(path):
    tree = comparable(ast.parse((ROOT / path).read_text(encoding="utf-8")))
    assert printed(tree) == ast.unparse(tree)


@unparse_prints_as_the_printer
@pytest.mark.parametrize("name", STANDARD_LIBRARY)
def test_standard_library_modules_print_as_ast_unparse_prints_them(name):
    tree = comparable(ast.parse(standard_library_source(name)))
    assert printed(tree) == ast.unparse(tree)


@pytest.mark.parametrize("name", STANDARD_LIBRARY)
def test_standard_library_modules_parse_back_to_their_trees(name):
    tree = ast.parse(standard_library_source(name))
    assert ast.dump(ast.parse(printed(tree))) == ast.dump(tree)


def test_a_docstring_prints_as_a_string_statement():
    source = 'def f():\n    """Two\n    lines."""\n    return 1'
    assert to_source(gast.parse(source)) == "def f():\n    'Two\\n    lines.'\n    return 1\n"


def test_else_holding_a_lone_if_is_not_folded_into_elif():
    source = "if a:\n    x = 1\nelif b:\n    x = 2\nelse:\n    x = 3"
    expected = "if a:\n    x = 1\nelse:\n    if b:\n        x = 2\n    else:\n        x = 3"
    assert print_with_lines(gast.parse(source))[0] == expected


def test_tuples_print_as_on_python_3_11_on_every_version():
    source = "a, b = c\nfor k, v in d:\n    pass\nf = lambda: (a, b)\nreturn (a, b)"
    assert print_with_lines(gast.parse(source))[0] == source


def test_definitions_are_set_apart_by_a_blank_line_but_not_at_the_start():
    source = "def f():\n    def g():\n        pass\n    x = 1\n    class A:\n        pass"
    expected = "def f():\n\n    def g():\n        pass\n    x = 1\n\n    class A:\n        pass"
    assert print_with_lines(gast.parse(source))[0] == expected


def test_annotations_of_every_kind_of_parameter_are_printed():
    source = "def f(a: int, /, b: int=1, *c: int, d: int=2, **e: int) -> int:\n    pass"
    assert print_with_lines(gast.parse(source))[0] == source


def test_a_starred_index_is_parenthesized_where_python_cannot_read_it_bare():
    tree = gast.parse("x = a[(*b, c)]")
    expected = "x = a[(*b, c)]" if sys.version_info < (3, 11) else "x = a[*b, c]"
    assert print_with_lines(tree)[0] == expected


def test_expressions_and_other_nodes_print_on_their_own():
    assert to_source(gast.parse("a + b", mode="eval")) == "a + b\n"
    assert to_source(gast.parse("f(a, b)").body[0].value) == "f(a, b)\n"
    assert to_source(gast.parse("try:\n    pass\nexcept E:\n    pass").body[0].handlers[0]) == (
        "except E:\n    pass\n"
    )
    assert to_source(gast.parse("import a as b").body[0].names[0]) == "a as b\n"


def test_node_types_the_printer_does_not_know_are_printed_by_ast_unparse(monkeypatch):
    # Python versions to come may add node types; ast.unparse of that version knows them.
    monkeypatch.delitem(printer._STATEMENTS, gast.With)
    monkeypatch.delitem(expression_printer._PRINTERS, gast.BinOp)
    source = (
        'if a:\n    with b:\n        def f():\n            """One,\ntwo."""\nx = f(a + b) * (c - d)'
    )
    text, lines = print_with_lines(gast.parse(source))
    assert text == (
        'if a:\n    with b:\n\n        def f():\n            """One,\ntwo."""\nx = f(a + b) * (c - d)'
    )
    assert (lines[1], lines[2], lines[7]) == ((1, None), (2, None), (6, None))


@unparse_prints_as_the_printer
def test_type_comments_print_as_ast_unparse_prints_them():
    source = (
        "x = [] # type: list\n"
        "for a in b: # type: int\n"
        "    pass\n\n"
        "def f(a): # type: (int) -> int\n"
        "    return a\n"
        "with c as d: # type: int\n"
        "    pass\n"
        "y = 1 # type: ignore[attr]"
    )
    tree = ast.parse(source, type_comments=True)
    assert printed(tree) == ast.unparse(tree) == source
