"""gast_conversion builds the very trees gast builds: same classes, fields, values and locations.

Checked on every Python file of the project, on a sample of the standard library,
on snippets of each kind of syntax and on generated expressions. Two trees are the
same when their nodes have the same class and the same attributes, in the same
order, with the same values; none of the nodes is shared with the ast tree.
"""

import ast
import gc
import sys
import sysconfig
import textwrap
from pathlib import Path

import gast
import pytest
from gast.ast3 import Ast3ToGAst
from hypothesis import given, settings
from hypothesis import strategies as st

from autograph.pyct import gast_conversion

PROJECT = Path(__file__).resolve().parents[3]
STDLIB = Path(sysconfig.get_paths()["stdlib"])


def first_difference(expected, actual):
    """Where ``actual`` first differs from ``expected`` (depth first), or None if nowhere."""
    pending = [(expected, actual, ("tree",))]
    while pending:
        expected, actual, path = pending.pop()
        if type(expected) is not type(actual):
            found = f"{type(actual).__name__} instead of {type(expected).__name__}"
        elif type(expected) is list:
            if len(expected) == len(actual):
                items = zip(reversed(expected), reversed(actual), range(len(expected) - 1, -1, -1))
                pending += [(e, a, (path, i)) for e, a, i in items]
                continue
            found = f"{len(actual)} items instead of {len(expected)}"
        elif isinstance(expected, ast.AST):
            if list(vars(expected)) == list(vars(actual)):
                fields = reversed(vars(expected).items())
                pending += [(value, getattr(actual, f), (path, f)) for f, value in fields]
                continue
            found = f"attributes {list(vars(actual))} instead of {list(vars(expected))}"
        elif expected == actual or (expected != expected and actual != actual):  # nan
            continue
        else:
            found = f"{actual!r} instead of {expected!r}"
        return f"{_path_text(path)}: {found}"
    return None


def _path_text(path):
    """``(((("tree",), "body"), 0), "value")`` as ``tree.body[0].value``."""
    parts = []
    while len(path) == 2:
        path, step = path
        parts.append(f"[{step}]" if isinstance(step, int) else f".{step}")
    return path[0] + "".join(reversed(parts))


def assert_converts_as_gast(tree):
    gc.disable()  # both build a node per node: collections would scan pytest's heap many times
    try:
        expected, converted = gast.ast_to_gast(tree), gast_conversion.to_gast(tree)
    finally:
        gc.enable()
    assert first_difference(expected, converted) is None
    return converted


def assert_builds_new_nodes(tree):
    """``tree`` is left unchanged and the gast tree has its own nodes, each used once."""
    before = ast.dump(tree, include_attributes=True)
    converted = gast_conversion.to_gast(tree)
    assert ast.dump(tree, include_attributes=True) == before, "the ast tree was changed"
    ast_nodes = {id(node) for node in ast.walk(tree)}
    gast_nodes = [id(node) for node in gast.walk(converted)]
    assert not ast_nodes.intersection(gast_nodes), "a node is shared with the ast tree"
    assert len(set(gast_nodes)) == len(gast_nodes), "a node is used twice"


def changed_call(change):
    """The tree of ``f(x, y)`` after ``change`` is applied to its Call node."""
    tree = gast.parse("f(x, y)")
    change(tree.body[0].value)
    return tree


def test_first_difference_finds_what_differs():
    def unchanged(call):
        pass

    def moved(call):
        call.args[1].col_offset = 7

    def annotated(call):
        call.args[0].annotation = gast.Constant(1, None)

    def without_type_comment(call):
        del call.func.type_comment

    def shorter(call):
        call.args.pop()

    tree = changed_call(unchanged)
    assert first_difference(tree, changed_call(unchanged)) is None
    assert first_difference(tree, changed_call(moved)) == (
        "tree.body[0].value.args[1].col_offset: 7 instead of 5"
    )
    assert first_difference(tree, changed_call(annotated)) == (
        "tree.body[0].value.args[0].annotation: Constant instead of NoneType"
    )
    assert first_difference(tree, changed_call(without_type_comment)) == (
        "tree.body[0].value.func: attributes ['id', 'ctx', 'annotation', 'lineno', "
        "'col_offset', 'end_lineno', 'end_col_offset'] instead of ['id', 'ctx', "
        "'annotation', 'type_comment', 'lineno', 'col_offset', 'end_lineno', 'end_col_offset']"
    )
    assert first_difference(tree, changed_call(shorter)) == (
        "tree.body[0].value.args: 1 items instead of 2"
    )


def python_files(folder, pattern):
    return sorted(str(path) for path in folder.glob(pattern) if ".venv" not in path.parts)


def read_tree(path):
    # The project's files and this Python's own library parse on it: an error is a failure.
    return ast.parse(Path(path).read_text(encoding="utf-8"), type_comments=True)


@pytest.mark.parametrize("path", python_files(PROJECT, "[!.]*/**/*.py"))
def test_project_files(path):
    assert_converts_as_gast(read_tree(path))


# One file in six of the standard library's top level and of a few of its packages.
@pytest.mark.parametrize(
    "path",
    [
        path
        for pattern in ("*.py", "asyncio/*.py", "email/*.py", "json/*.py", "importlib/*.py")
        for path in python_files(STDLIB, pattern)[::6]
    ],
)
def test_standard_library_files(path):
    assert_converts_as_gast(read_tree(path))


SNIPPETS = {
    "match": """
        match command:
            case ["go", direction] if direction in ways:
                pass
            case ["drop", *objects, last]:
                pass
            case {"x": 1, "y": y, **rest}:
                pass
            case Point(x=0, y=0) | Point(0, 0, z=_):
                pass
            case [Point(x=0) as p, (1 | 2 | 3) as n]:
                pass
            case -1 | 1.5 | 2j | "s" | b"b" | None | True | a.b.c:
                pass
            case _:
                pass
    """,
    "f-strings": """
        s = f"{x!r:>{width}.{precision}} {y=} {'nested' + f'{z}'} {{braces}} {w:%Y-%m-%d}"
        t = rb"raw" + b"bytes" + "implicit" "concatenation" + f"{1}" f"{2}"
    """,
    "async": """
        async def fetch(urls, session):
            async with session.get(urls[0]) as first, session.get(urls[1]):
                pass
            async for chunk in stream():
                await chunk
            return [x async for x in aiter() if await x], {await y for y in ys}
    """,
    "walrus and comprehensions": """
        if (n := len(items)) > 10 and any((y := f(x)) for x in items):
            data = {k: v for k, v in pairs if (m := v)}
            values = [(a, b) for a in range(3) if a for b in range(a)]
            seen = {*a, *b}
            g = (i for i in range(n))
    """,
    "arguments": """
        def f(a, b=1, /, c=2, *args, d, e=3, f: int = 4, **kwargs) -> "r":
            return f(*args, *more, x=1, **kwargs, **extra)

        def g(*, only): pass

        def h(a, /): pass
    """,
    "type comments": """
        def add(a,  # type: int
                b,  # type: int
                ):
            # type: (...) -> int
            x = []  # type: list[int]
            for i in x:  # type: int
                pass
            with open(f) as g:  # type: IO
                pass
            return a + b
        y = 1  # type: ignore[misc]
    """,
    "decorators and classes": """
        @decorator
        @decorator.with_args(1, key=2)
        @(lambda f: f)
        class C(Base, metaclass=Meta, **options):
            '''Doc.'''
            attribute: int = 1
            other: "str"

            @property
            def value(self, /) -> int:
                return self._value

            async def method(self): ...
    """,
    "lambdas": """
        f = lambda: 0
        g = lambda x, /, y=1, *a, z, **k: (x, y, a, z, k)
        h = lambda *, key=None: key
        sorted(items, key=lambda item: (item[0], -item[1]))
    """,
    "statements": """
        import os, sys as system
        from . import sibling
        from ..package.module import (name as alias, other)
        from __future__ import annotations
        global g
        x, *rest = y = z = value
        x[1:2, ::3, ...] = a[i], b.c
        del x[0], y.z, w
        x += 1; x @= m; x **= 2; x //= 3; x >>= 1; x <<= 1; x ^= 1; x |= 1; x &= 1; x %= 2
        assert x, "message"
        raise ValueError("bad") from None
        while not done:
            if a < b <= c != d is not e in f not in g:
                break
            elif a is b:
                continue
            else:
                pass
        else:
            pass
        for i, (j, k) in enumerate(pairs):
            pass
        else:
            pass
        with (open(a) as f, open(b) as g):
            pass
        def outer():
            x = 1
            def inner():
                nonlocal x
                yield x
                yield from range(3)
                y = yield
            return inner
    """,
    "try": """
        try:
            pass
        except (ValueError, TypeError) as error:
            raise
        except KeyError:
            pass
        except:
            pass
        else:
            pass
        finally:
            pass
    """,
    "try star": """
        try:
            pass
        except* ValueError as group:
            pass
        except* (TypeError, KeyError):
            pass
    """,
    "expressions": """
        x = -a + +b * ~c / d // e % f ** g @ h << i >> j & k | l ^ m
        y = a if b else c
        z = not a and b or c
        w = {1: "one", **others, None: ...}
        v = [1, 2.5, 3j, True, None, ..., "s", b"b", 0x10, 1_000, 1e10, float("nan")]
        u = a.b.c(d)[e](*f, **g).h
        t = (1,), (), [], {}, set()
        s = obj[1:2], obj[::], obj[a:b:c], obj[1:2, 3], obj[...]
        r = await_ = print
    """,
    "type aliases and parameters": """
        type Alias[K, *Ts, **P] = dict[K, tuple[*Ts]]
        def first[T: (int, str), U: Base](items: list[T]) -> T:
            return items[0]
        class Box[T]:
            pass
    """,
    "type parameter defaults": """
        type Pair[T = int, *Ts = *tuple[int], **P = [int]] = tuple[T, T]
    """,
    "empty": "",
    "comments only": "# nothing\n",
}


# The snippets of syntax newer than the oldest Python the project supports (3.10).
SINCE = {
    "try star": (3, 11),
    "type aliases and parameters": (3, 12),
    "type parameter defaults": (3, 13),
}
THIS_PYTHONS = [name for name in SNIPPETS if sys.version_info[:2] >= SINCE.get(name, (3, 10))]


def test_snippets_newer_than_this_python_are_refused_by_it():
    assert set(SINCE) <= set(SNIPPETS)
    for name in set(SNIPPETS) - set(THIS_PYTHONS):
        with pytest.raises(SyntaxError):
            ast.parse(textwrap.dedent(SNIPPETS[name]))


@pytest.mark.parametrize("name", THIS_PYTHONS)
def test_snippets(name):
    source = textwrap.dedent(SNIPPETS[name])
    tree = ast.parse(source, type_comments=True)
    assert_converts_as_gast(tree)
    assert_builds_new_nodes(tree)
    assert gast.dump(gast_conversion.parse(source), include_attributes=True) == gast.dump(
        gast.parse(source), include_attributes=True
    )


def test_parse_raises_what_gast_raises():
    with pytest.raises(SyntaxError):
        gast_conversion.parse("def f(:\n")


def test_the_nodes_of_this_pythons_trees_are_converted_here_not_by_gast():
    converters = gast_conversion._CONVERTERS
    left_to_gast = [
        name
        for name, node_class in vars(ast).items()
        if isinstance(node_class, type)
        and issubclass(node_class, ast.AST)
        and node_class is not ast.AST
        and (hasattr(gast, name) or name == "arg")
        and converters.by_field_value[node_class] == converters.other
    ]
    assert left_to_gast == []


def test_nodes_of_classes_gast_has_no_converter_for_are_left_to_gast():
    class Unknown(ast.expr):
        _fields = ("value",)

    tree = ast.parse("f(x)")
    tree.body[0].value.args[0] = Unknown(ast.Name("y", ast.Load()))
    converted = gast_conversion.to_gast(tree)
    assert converted.body[0].value.args == [None]  # gast drops what it has no class for
    assert first_difference(gast.ast_to_gast(tree), converted) is None


def test_types_gast_special_cases_that_this_module_does_not_know_are_left_to_gast():
    visited = []

    class GastVisitor(Ast3ToGAst):
        def visit_BinOp(self, node):
            visited.append(node)
            return gast.Constant("from gast", None)

    converters = gast_conversion.Converters(GastVisitor)
    converted = converters.field_value(ast.parse("y = f(a + b)"))
    assert len(visited) == 1
    assert gast.dump(converted.body[0].value) == gast.dump(
        gast.parse("f('from gast')").body[0].value
    )


# Expressions built from a few names, constants and the ways to combine them.
names = st.sampled_from(["a", "b", "xs", "self"])
constants = st.sampled_from(["0", "1.5", "'s'", "None", "True", "...", "b'b'", "2j"])
expressions = st.recursive(
    names | constants,
    lambda inner: st.one_of(
        st.tuples(
            inner,
            st.sampled_from(["+", "-", "*", "/", "%", "**", "<", "==", "and", "or", "if 1 else"]),
            inner,
        ).map(" ".join),
        st.tuples(st.sampled_from(["-", "not ", "~", "await "]), inner).map("".join),
        st.tuples(inner, st.lists(inner, max_size=3)).map(lambda p: f"{p[0]}({', '.join(p[1])})"),
        st.tuples(inner, inner).map(lambda p: f"{p[0]}[{p[1]}]"),
        st.tuples(inner, st.sampled_from(["real", "shape"])).map(".".join),
        st.lists(inner, max_size=3).map(lambda items: f"[{', '.join(items)}]"),
        st.tuples(inner, inner).map(lambda p: f"{{{p[0]}: {p[1]}}}"),
        inner.map(lambda e: f"(lambda a, *b, c=1, **d: {e})"),
        inner.map(lambda e: f"[{e} for a in b if a]"),
        inner.map(lambda e: f"f'{{{e}!r:>4}}'"),
        inner.map(lambda e: f"(a := {e})"),
        inner.map(lambda e: f"f(*{e}, **{e})"),
    ).map(lambda e: f"({e})"),
    max_leaves=12,
)


@settings(max_examples=150, deadline=None)
@given(expressions)
def test_generated_expressions(expression):
    source = f"async def f(a, b):\n    return {expression}\n"
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return  # a combination Python does not accept
    assert_converts_as_gast(tree)
    assert_builds_new_nodes(tree)
