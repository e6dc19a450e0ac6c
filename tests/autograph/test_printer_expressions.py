"""Random expression trees: printed with just the parentheses they need, as ``ast.unparse`` prints them.

Trees nest every kind of expression in every other, so each precedence rule meets each
context. A printed tree must parse back to itself (a missing parenthesis changes the tree,
an extra one does not: so the text is also compared with ``ast.unparse``'s).
"""

from __future__ import annotations

import ast
import math
import sys

import gast
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from autograph.pyct.expression_printer import expression_source

LOAD = gast.Load()


def name(identifier, ctx=LOAD):
    return gast.Name(id=identifier, ctx=ctx, annotation=None, type_comment=None)


def constant(value):
    return gast.Constant(value=value, kind=None)


non_negative_floats = st.floats(min_value=0, allow_nan=False).filter(
    lambda f: math.copysign(1, f) > 0
)
constants = st.one_of(
    st.integers(0, 10**20),
    non_negative_floats,
    non_negative_floats.map(lambda f: complex(0, f)),
    st.text(max_size=3),
    st.binary(max_size=2),
    st.sampled_from([None, True, False, ...]),
).map(constant)
names = st.sampled_from("abc").map(name)
targets = st.sampled_from("xyz").map(lambda identifier: name(identifier, gast.Store()))

BINARY = [gast.Add, gast.Sub, gast.Mult, gast.MatMult, gast.Div, gast.Mod, gast.FloorDiv]
BINARY += [gast.Pow, gast.LShift, gast.RShift, gast.BitOr, gast.BitXor, gast.BitAnd]
UNARY = [gast.Not, gast.Invert, gast.UAdd, gast.USub]
COMPARISONS = [gast.Eq, gast.NotEq, gast.Lt, gast.LtE, gast.Gt, gast.GtE]
COMPARISONS += [gast.Is, gast.IsNot, gast.In, gast.NotIn]


def compound(children):
    starred = children.map(lambda value: gast.Starred(value=value, ctx=LOAD))
    elements = st.lists(children | starred, max_size=3)
    keywords = st.builds(gast.keyword, arg=st.sampled_from(["k", None]), value=children)
    slices = st.builds(
        gast.Slice,
        lower=st.none() | children,
        upper=st.none() | children,
        step=st.none() | children,
    )
    index = children | slices | st.lists(children | slices, min_size=1, max_size=3).map(tuple_)
    index |= st.lists(children | starred, min_size=1, max_size=3).map(tuple_)
    generator = st.builds(
        gast.comprehension,
        target=targets,
        iter=children,
        ifs=st.lists(children, max_size=2),
        is_async=st.just(0),
    )
    return st.one_of(
        st.builds(
            gast.BinOp,
            left=children,
            op=st.sampled_from(BINARY).map(lambda op: op()),
            right=children,
        ),
        st.builds(gast.UnaryOp, op=st.sampled_from(UNARY).map(lambda op: op()), operand=children),
        st.builds(
            gast.BoolOp,
            op=st.sampled_from([gast.And(), gast.Or()]),
            values=st.lists(children, min_size=2, max_size=4),
        ),
        st.builds(
            comparison,
            children,
            st.lists(st.tuples(st.sampled_from(COMPARISONS), children), min_size=1, max_size=3),
        ),
        st.builds(gast.IfExp, test=children, body=children, orelse=children),
        st.builds(lambda_, st.lists(st.sampled_from("pq"), max_size=2, unique=True), children),
        st.builds(gast.NamedExpr, target=targets, value=children),
        st.builds(gast.Attribute, value=children, attr=st.just("real"), ctx=st.just(LOAD)),
        st.builds(gast.Call, func=children, args=elements, keywords=st.lists(keywords, max_size=2)),
        st.builds(gast.Subscript, value=children, slice=index, ctx=st.just(LOAD)),
        st.lists(children | starred, max_size=3).map(tuple_),
        st.builds(gast.List, elts=elements, ctx=st.just(LOAD)),
        st.builds(gast.Set, elts=st.lists(children | starred, min_size=1, max_size=3)),
        st.lists(st.tuples(st.none() | children, children), max_size=3).map(dict_),
        st.builds(
            gast.ListComp, elt=children, generators=st.lists(generator, min_size=1, max_size=2)
        ),
        st.builds(
            gast.GeneratorExp, elt=children, generators=st.lists(generator, min_size=1, max_size=2)
        ),
        st.builds(
            gast.DictComp,
            key=children,
            value=children,
            generators=st.lists(generator, min_size=1, max_size=1),
        ),
        st.builds(gast.Yield, value=st.none() | children),
        st.builds(gast.YieldFrom, value=children),
        st.builds(gast.Await, value=children),
    )


def tuple_(elements):
    return gast.Tuple(elts=list(elements), ctx=LOAD)


def dict_(items):
    return gast.Dict(keys=[key for key, _ in items], values=[value for _, value in items])


def comparison(left, operations):
    return gast.Compare(
        left=left, ops=[op() for op, _ in operations], comparators=[c for _, c in operations]
    )


def lambda_(parameters, body):
    arguments = gast.arguments(
        args=[name(p, gast.Param()) for p in parameters],
        posonlyargs=[],
        vararg=None,
        kwonlyargs=[],
        kw_defaults=[],
        kwarg=None,
        defaults=[],
    )
    return gast.Lambda(args=arguments, body=body)


expressions = st.recursive(names | constants, compound, max_leaves=12)


def as_ast(node):
    return gast.gast_to_ast(node)


@settings(max_examples=400, deadline=None)
@given(expressions)
def test_a_printed_expression_parses_back_to_itself(node):
    reference = ast.dump(as_ast(node))  # before printing: the printer must not change the tree
    assert ast.dump(ast.parse(expression_source(node), mode="eval").body) == reference


@pytest.mark.skipif(
    sys.version_info < (3, 11), reason="ast.unparse of Python 3.10 prints tuples its own way"
)
@settings(max_examples=400, deadline=None)
@given(expressions)
def test_a_printed_expression_is_what_ast_unparse_prints(node):
    assert expression_source(node) == ast.unparse(as_ast(node))
