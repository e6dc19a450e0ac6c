"""The blocks of statements the converters walk: every kind Python has, ``match`` cases included."""

import textwrap
import typing

import gast
import pytest

from autograph import operators
from autograph.converters import break_statements, continue_statements, return_statements
from autograph.converters.base import Context, child_blocks
from autograph.impl import transpiler
from autograph.pyct import walk
from autograph.pyct.naming import ConversionNamer
from autograph.pyct.printer import to_source

EVERY_COMPOUND_STATEMENT = """
async def f(x):
    for a in x:
        a = 1
    else:
        a = 2
    async for a in x:
        a = 3
    else:
        a = 4
    while x:
        a = 5
    else:
        a = 6
    if x:
        a = 7
    else:
        a = 8
    with x:
        a = 9
    async with x:
        a = 10
    try:
        a = 11
    except ValueError:
        a = 12
    else:
        a = 13
    finally:
        a = 14
    try:
        a = 15
    except* ValueError:
        a = 16
    match x:
        case 1:
            a = 17
        case _:
            a = 18
    class C:
        a = 19
    def g():
        a = 20
"""

_HOLDERS = {"stmt": "blocks", "excepthandler": "clauses", "match_case": "clauses"}


def _declared(cls):
    """{'blocks': fields, 'clauses': fields} of ``cls``, from gast's own declaration of its fields."""
    found = {"blocks": [], "clauses": []}
    for field, declared in getattr(cls, "_field_types", {}).items():
        for held in typing.get_args(declared) or (declared,):
            kind = _HOLDERS.get(getattr(held, "__name__", None))
            if kind is not None:
                found[kind].append(field)
    return found


def _statement_classes():
    return [cls for cls in walk.INNER if issubclass(cls, gast.stmt)]


@pytest.mark.skipif(
    not hasattr(gast.If, "_field_types"), reason="this gast declares no field types"
)
def test_child_blocks_gives_every_block_gast_declares():
    tree = gast.parse(textwrap.dedent(EVERY_COMPOUND_STATEMENT))
    compound = {cls for cls in _statement_classes() if any(_declared(cls).values())}
    sampled = {type(node) for node in gast.walk(tree)}
    assert compound <= sampled, "the sample should hold every compound statement gast has"
    for node in gast.walk(tree):
        if not isinstance(node, (gast.stmt, gast.Module)):
            continue
        declared = _declared(type(node))
        expected = [getattr(node, field) for field in declared["blocks"] if getattr(node, field)]
        expected += [
            clause.body for field in declared["clauses"] for clause in getattr(node, field)
        ]
        assert [id(b) for _, b in child_blocks(node)] == [id(b) for b in expected], type(node)


def test_the_sample_reaches_every_block():
    tree = gast.parse(textwrap.dedent(EVERY_COMPOUND_STATEMENT))
    assigned = [s.value.value for s in walk.statements(tree.body) if isinstance(s, gast.Assign)]
    assert sorted(assigned) == list(range(1, 21))


MATCH_IN_LOOP = """
def f(xs):
    total = 0
    for x in xs:
        match x:
            case 0:
                continue
            case 9:
                break
            case 7:
                return -total
            case _:
                total += x
    return total
"""


def _context():
    """A context for MATCH_IN_LOOP: fresh names avoid its own, and its names resolve here."""
    return Context(
        ConversionNamer({"f", "xs", "total", "x"}), transpiler._resolver(_context), "<test>"
    )


@pytest.mark.parametrize(
    "converter, jump",
    [
        (break_statements, gast.Break),
        (continue_statements, gast.Continue),
        (return_statements, gast.Return),
    ],
    ids=["break", "continue", "return"],
)
def test_jumps_in_match_cases_are_lowered(converter, jump):
    fn = gast.parse(textwrap.dedent(MATCH_IN_LOOP)).body[0]
    converted = converter.transform(fn, _context())
    loop = converted.body[1] if jump is not gast.Return else converted
    left = [n for n in gast.walk(loop) if isinstance(n, jump)]
    if jump is gast.Return:  # one return, at the end
        assert left == [converted.body[-1]]
    else:
        assert left == []
    if jump is gast.Break:
        return  # a for loop stops on the break flag only once control flow is converted
    namespace = {"ag__": operators}
    exec(compile(to_source(converted), "<converted>", "exec"), namespace)
    python = {}
    exec(textwrap.dedent(MATCH_IN_LOOP), python)
    for xs in ([1, 0, 2, 9, 5], [3, 7, 4], [0, 0], [5, 6]):
        assert namespace["f"](xs) == python["f"](xs)
