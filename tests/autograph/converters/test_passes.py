"""The tree passes before control flow: where a pass takes a shortcut, it finds what the plain way finds."""

import ast
import gc
import textwrap

import gast
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from autograph.converters import (
    break_statements,
    call_trees,
    continue_statements,
    jumps,
    logical_expressions,
    return_statements,
    unsupported,
    variables,
)
from autograph.converters.base import (
    Context,
    Converter,
    Rewriter,
    StatementConverter,
    ag_call,
    child_blocks,
    flag_assignment,
    negate,
    statements,
)
from autograph.impl import transpiler
from autograph.pyct import anno, templates, walk
from autograph.pyct.analysis import definedness, liveness
from autograph.pyct.analysis.activity import Activity
from autograph.pyct.naming import ConversionNamer
from autograph.pyct.printer import to_source

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


def _lines(tree):
    return [getattr(n, "lineno", None) for n in gast.walk(tree)]


@pytest.mark.parametrize("value", [True, False])
def test_flag_assignment_is_what_its_template_makes(value):
    origin = gast.parse("x = 1\n\ny = 2").body[1]
    made = flag_assignment("flag_", value, origin)
    (templated,) = statements(f"flag = {value}", origin, flag="flag_")
    assert gast.dump(made) == gast.dump(templated)
    assert _lines(made) == _lines(templated)
    assert made.lineno == 3


@pytest.mark.parametrize("origin_line", [3, None])
@pytest.mark.parametrize("parsed_arg", [True, False])
def test_ag_call_is_what_its_template_makes(origin_line, parsed_arg):
    def arg():  # a user expression has its lines; one a converter made has none yet
        return gast.parse("a.b < c").body[0].value if parsed_arg else negate("flag")

    origin = gast.parse("x = 1\n\ny = 2").body[1]
    origin.lineno = origin_line
    made = ag_call("not_", [arg()], origin)
    templated = templates.replace_as_expression("ag__.not_(operand)", origin.lineno, operand=arg())
    assert gast.dump(made) == gast.dump(templated)
    assert _lines(made) == _lines(templated)


# --- rewriters find in one walk what a transformer visiting every node finds -------------------

EXPRESSION_SOURCES = [
    """
    def f(a, b, c):
        x = not (a and b or not c)
        y = a < b < c if a is not None else [b for b in c if b or a]
        return {None: x, **y}, lambda: a < f(b) <= c, f(g(x)(y), *c, k=not len(a))
    """,
    """
    def f(a):
        def gen():
            print = len  # a name bound only in a function left alone still counts as local
            yield not a
        while a > 0 and not a.done:
            a.step(a or range(1))
            print(gen(), textwrap.dedent(a))
        return gen
    """,
]


class _EveryNode(Converter):
    """The reference: visits every node, after what it holds, and applies a rewriter's rules."""

    def __init__(self, rewriter):
        super().__init__(rewriter.ctx)
        self.rewriter = rewriter

    def visit(self, node):
        if not self.rewriter.walked:  # what rules may look at: here, simply all the nodes
            self.rewriter.walked = walk.nodes(node)
        if isinstance(node, gast.FunctionDef) and anno.getanno(node, anno.Basic.SKIP_CONVERSION):
            return node
        node = self.generic_visit(node)
        rule = self.rewriter.rules.get(type(node))
        return node if rule is None else rule(self.rewriter, node)


@pytest.mark.parametrize("source", EXPRESSION_SOURCES)
def test_rewriter_walks_all_nodes_but_those_of_functions_left_alone(source):
    fn = _parsed(source)
    rewriter = Rewriter(None)
    rewriter.visit(fn)
    seen = rewriter.walked + [n for f in rewriter.left_alone for n in walk.nodes(f)]
    assert sorted(map(id, seen)) == sorted(map(id, walk.nodes(fn)))


def _parsed(source):
    fn = gast.parse(textwrap.dedent(source)).body[0]
    unsupported.check(fn, "f")  # marks the generator
    return fn


def _namer(fn):
    """A namer that avoids the names of the parsed function ``fn`` (it has no code object)."""
    return ConversionNamer({n.id for n in walk.nodes(fn) if isinstance(n, gast.Name)})


def _context(fn):
    return Context(_namer(fn), transpiler._resolver(_context), "<test>")


REWRITERS = {  # name -> rewriter of a function, given the context and the function
    "logical_expressions": lambda ctx, fn: logical_expressions._LogicalConverter(ctx),
    "call_trees": call_trees._CallConverter,
}


@pytest.mark.parametrize("source", EXPRESSION_SOURCES)
@pytest.mark.parametrize("rewriter", REWRITERS)
def test_rewriter_rewrites_what_a_full_visit_rewrites(source, rewriter):
    fn, reference_fn = _parsed(source), _parsed(source)
    make = REWRITERS[rewriter]
    walked_once = make(_context(fn), fn).visit(fn)
    every_node = _EveryNode(make(_context(reference_fn), reference_fn)).visit(reference_fn)
    assert to_source(walked_once) == to_source(every_node)
    assert "ag__" in to_source(walked_once)


# --- liveness -----------------------------------------------------------------------------------

_SYMBOLS = st.sampled_from(
    ["x", "y", "x.a", "x.a.b", "xa", "xa.b", "y.x", "x.ab", "x[0]", "x['a'].b", "xa[k]", "x.a[-1]"]
)


def _parts(sym):
    """The owners of a symbol and itself, by parsing it: ``x``, ``x.a``, ``x.a[0]``."""
    node, found = ast.parse(sym, mode="eval").body, []
    while not isinstance(node, ast.Name):
        found.append(ast.unparse(node))
        node = node.value
    return {node.id, *found}


@given(live=st.sets(_SYMBOLS), killed=st.sets(_SYMBOLS))
def test_liveness_removes_what_is_killed_and_parts_read_through_it(live, killed):
    overwritten = {s for s in live if _parts(s) & killed}
    assert liveness._without(live, killed) == live - overwritten


# --- definedness --------------------------------------------------------------------------------

DEFINEDNESS_SOURCES = [  # loop bodies start with an if: its maybe_defined_in shows the entry
    """
    def f(n, xs):
        a = 0
        for i in xs:
            if i:
                b = i
            else:
                while n:
                    if n:
                        c = b
                    for j in xs:
                        if j:
                            d = j
                    else:
                        e = 1
                else:
                    g = 1
        return a
    """,
    """
    def f(n):
        while (m := n):
            if n:
                pass
            try:
                x = 1
            except ValueError as err:
                y = err
            else:
                z = 1
            finally:
                w = 1
            with open(n) as (p, q):
                r = p
            def inner():
                nonlocal s
                s = 1
            match n:
                case [t]:
                    del t
        return x
    """,
    """
    def f(xs):
        for x in xs:
            if x:
                pass
            y = x
            del y
        while xs:
            if xs:
                pass
            for x in xs:
                del x.attribute
            u = 1
    """,
]


def _definedness_annotations(fn):
    return [
        (anno.getanno(s, anno.Static.DEFINED_IN), anno.getanno(s, anno.Static.MAYBE_DEFINED_IN))
        for s in walk.statements(fn.body)
    ]


@pytest.mark.parametrize("source", DEFINEDNESS_SOURCES)
def test_definedness_finds_what_a_second_analysis_of_loop_bodies_finds(source, monkeypatch):
    fn = _parsed(source)
    definedness.analyze(fn)
    # Without the shortcut, every loop body is analysed twice.
    monkeypatch.setattr(definedness._Definedness, "_assigned", lambda self, block: None)
    reference_fn = _parsed(source)
    definedness.analyze(reference_fn)
    assert _definedness_annotations(fn) == _definedness_annotations(reference_fn)


# --- variables ----------------------------------------------------------------------------------


class _VisitedStatements(StatementConverter):
    """The reference: the statements a statement converter visits."""

    def __init__(self):
        super().__init__(None)
        self.visited = []

    def visit(self, node):
        self.visited.append(node)
        return super().visit(node)


@pytest.mark.parametrize("source", JUMPY_SOURCES + DEFINEDNESS_SOURCES + EXPRESSION_SOURCES)
def test_variables_looks_at_the_statements_a_statement_converter_visits(source):
    fn = _parsed(source)
    reference = _VisitedStatements()
    reference.visit(fn)
    statements = [stmt for stmt, _ in variables._converted_statements(fn)]
    assert statements != []
    assert sorted(map(id, statements)) == sorted(map(id, reference.visited))


# --- statement converters that rewrite only compound statements ---------------------------------

NESTED_JUMPS_SOURCE = """
def f(x):
    if x:
        def g(y):
            while y:
                if y > 1:
                    return y
                y -= 1
            return 0
    else:
        with x:
            for i in x:
                if i:
                    continue
                while i:
                    break
    for i in x:
        if i:
            return g(i)
    return 1
"""


@pytest.mark.parametrize(
    "converter",
    [break_statements, continue_statements, return_statements],
    ids=lambda module: module.__name__.rsplit(".", 1)[-1],
)
@pytest.mark.parametrize("source", JUMPY_SOURCES + DEFINEDNESS_SOURCES + [NESTED_JUMPS_SOURCE])
def test_compound_only_converters_give_what_visiting_every_statement_gives(
    converter, source, monkeypatch
):
    fn = _parsed(source)
    converted = to_source(converter.transform(fn, _context(fn)))
    monkeypatch.setattr(StatementConverter, "visit_block", Converter.visit_block)
    reference_fn = _parsed(source)
    assert to_source(converter.transform(reference_fn, _context(reference_fn))) == converted


VARIABLES_SOURCE = """
def f(x, xs):
    if x:
        a = 1
        b = [1]
        c = lambda: 0
        d = 1
    if a > 0:
        print(b.count(a), [d for _ in xs])
    for i in range(a):
        e = i
    while e and c():
        pass
    with open(b) as g:
        del d
    @c
    def inner(y=a):
        return y + b
    try:
        h = 1
    except ValueError:
        pass
    return h, i, g
"""


@pytest.mark.parametrize("source", [VARIABLES_SOURCE, NESTED_JUMPS_SOURCE] + DEFINEDNESS_SOURCES)
def test_variables_wraps_what_it_would_wrap_looking_at_every_statement(source, monkeypatch):
    def convert(fn):
        activity = Activity()
        definedness.analyze(fn, activity)
        return to_source(variables.transform(fn, _context(fn), activity))

    converted = convert(_parsed(source))
    # The reference looks at the own expressions of every statement that holds such a name.
    every_name = lambda stmt: [n.id for n in walk.nodes(stmt) if type(n) is gast.Name]  # noqa: E731
    monkeypatch.setattr(variables, "_own_names", every_name)
    every_statement = frozenset(cls for cls in walk.INNER if issubclass(cls, gast.stmt))
    monkeypatch.setattr(variables, "_COMPOUND", every_statement)
    assert convert(_parsed(source)) == converted


DECLARING_SOURCE = """
def f(x):
    global g
    class C:
        def m(self):
            nonlocal x
    if x:
        def h():
            global k
    try:
        pass
    except ValueError:
        for i in x:
            global q
    match x:
        case 1:
            global r
"""


@pytest.mark.parametrize("source", [DECLARING_SOURCE, VARIABLES_SOURCE] + DEFINEDNESS_SOURCES)
def test_definedness_finds_the_declared_names_activity_finds(source):
    fn = _parsed(source)
    assert definedness._declared(fn) == Activity().declared(fn)
    if source is DECLARING_SOURCE:
        assert definedness._declared(fn) == {"g", "x", "k", "q", "r"}


# --- no reference cycles: the collector is paused while converting ------------------------------


@pytest.mark.parametrize("source", [NESTED_JUMPS_SOURCE, VARIABLES_SOURCE] + JUMPY_SOURCES[:1])
def test_the_passes_make_no_reference_cycles(source):
    def passes():
        fn = _parsed(source)
        ctx = Context(_namer(fn), lambda node: (False, None), "<test>")
        for converter in (break_statements, continue_statements, return_statements):
            fn = converter.transform(fn, ctx)
        for converter in (call_trees, logical_expressions):
            fn = converter.transform(fn, ctx)
        activity = Activity()
        liveness.analyze(fn, activity)
        definedness.analyze(fn, activity)
        variables.transform(fn, ctx, activity)

    gc.collect()
    gc.disable()
    try:
        passes()
        assert gc.collect() == 0
    finally:
        gc.enable()


def test_the_resolver_makes_no_reference_cycle():
    """It used to call itself through its own closure: a cycle per conversion."""
    gc.collect()
    gc.disable()
    try:
        resolve = transpiler._resolver(_context)
        chain = gast.parse("np.linalg.norm").body[0].value
        assert resolve(chain) == (True, np.linalg.norm)
        assert resolve(gast.parse("np.ndarray.shape").body[0].value) == (False, None)
        assert resolve(gast.parse("no_such_name.x").body[0].value) == (False, None)
        del resolve, chain
        assert gc.collect() == 0
    finally:
        gc.enable()


# --- returns ------------------------------------------------------------------------------------

RETURN_SOURCES = [
    NESTED_JUMPS_SOURCE,  # nothing moves
    """
    def f(x):
        if x > 0:
            return x
        y = x - 1
        if y:
            for i in x:
                return i
        else:
            return 2
        while x:
            x -= 1
        return y
    """,
    """
    def f(x):
        if x > 0:
            raise ValueError(x)  # the if holds no return, until what follows moves in
        for i in x:
            if i:
                return i
        return 0
    """,
]


@pytest.mark.parametrize("source", RETURN_SOURCES)
def test_returns_lowered_with_the_holders_found_first_as_with_new_ones(source, monkeypatch):
    fn = _parsed(source)
    converted = to_source(return_statements.transform(fn, _context(fn)))
    lower = jumps.JumpLowering.lower
    monkeypatch.setattr(
        jumps.JumpLowering, "lower", lambda self, stmts, held=None: lower(self, stmts)
    )
    reference_fn = _parsed(source)
    assert to_source(return_statements.transform(reference_fn, _context(reference_fn))) == converted
