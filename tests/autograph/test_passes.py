"""The tree passes before control flow: where a pass takes a shortcut, it finds what the plain way finds."""

import textwrap

import gast
import pytest

from autograph.converters import jumps
from autograph.converters.base import child_blocks, flag_assignment, statements
from autograph.pyct import walk

JUMPY_SOURCES = [
    """
    def f(xs):
        for x in xs:
            if x:
                break
            while x:
                if x > 1:
                    continue
                x -= 1
            else:
                break
        return 1
    """,
    """
    def f(x):
        try:
            if x:
                return 1
        except ValueError:
            with x:
                continue
        else:
            pass
        finally:
            for y in x:
                break
            else:
                return 2
        def g():
            return 3
        class C:
            for z in x:
                break
    """,
]


def _statements_outside_scopes(block):
    found = []
    for stmt in block:
        found.append(stmt)
        if not isinstance(stmt, (gast.FunctionDef, gast.ClassDef)):
            for _, inner in child_blocks(stmt):
                found += _statements_outside_scopes(inner)
    return found


@pytest.mark.parametrize("source", JUMPY_SOURCES)
@pytest.mark.parametrize("jump_type", [gast.Break, gast.Continue, gast.Return])
@pytest.mark.parametrize("into_loops", [False, True])
def test_holders_are_the_statements_contains_is_true_of(source, jump_type, into_loops):
    body = gast.parse(textwrap.dedent(source)).body[0].body
    held = jumps.holders(body, jump_type, into_loops)
    statements = _statements_outside_scopes(body)
    expected = [s for s in statements if jumps.contains(s, jump_type, into_loops)]
    assert expected, "each case should hold some jump"
    assert [s for s in statements if id(s) in held] == expected


def test_walk_nodes_lists_all_but_leaves():
    tree = gast.parse(textwrap.dedent(JUMPY_SOURCES[1]))
    everything = list(gast.walk(tree))
    expected = [n for n in everything if type(n) not in walk.LEAVES]
    assert sorted(map(id, walk.nodes(tree))) == sorted(map(id, expected))


@pytest.mark.parametrize("value", [True, False])
def test_flag_assignment_is_what_its_template_makes(value):
    origin = gast.parse("x = 1\n\ny = 2").body[1]
    made = flag_assignment("flag_", value, origin)
    (templated,) = statements(f"flag = {value}", origin, flag="flag_")
    assert gast.dump(made) == gast.dump(templated)
    lines = [[getattr(n, "lineno", None) for n in gast.walk(s)] for s in (made, templated)]
    assert lines[0] == lines[1]
    assert made.lineno == 3
