"""Reads of a local variable that may not be assigned yet go through ``ag__.ld``.

Control flow gives such variables an ``Undefined`` value, so that branches and
loops can pass them around. ``ag__.ld(y)`` turns a read of that value back into
the UnboundLocalError Python would raise. Only reads where the variable is
not certainly defined are wrapped, which correct code rarely has.
"""

from __future__ import annotations

import gast

from autograph.converters.base import Transformer, ag_call, child_blocks
from autograph.pyct import anno, walk
from autograph.pyct.walk import INNER, block_shape


class _Reads(Transformer):
    """Wraps the reads of ``names`` in one statement's own expressions."""

    def __init__(self, names):
        self.names = names

    def visit_Name(self, node):
        if isinstance(node.ctx, gast.Load) and node.id in self.names:
            return ag_call("ld", [node], node)
        return node

    def _skip(self, node):
        return node  # evaluated later, or in a scope of its own

    def visit_Lambda(self, node):
        # The lambdas of ``ag__.and_(a, lambda: b)`` are called right there: b is read here.
        return self.generic_visit(node) if anno.getanno(node, anno.Basic.IMMEDIATE) else node

    visit_ListComp = visit_SetComp = visit_DictComp = visit_GeneratorExp = _skip


def _wrap_own_expressions(node, names):
    reads = _Reads(names)
    for field in node._fields:
        value = getattr(node, field)
        if isinstance(value, gast.expr):
            setattr(node, field, reads.visit(value))
        elif isinstance(value, list) and value and isinstance(value[0], gast.expr):
            setattr(node, field, [reads.visit(v) for v in value])


def _converted_statements(fn_node):
    """The statements in ``fn_node``'s blocks, at any depth, but not in functions left alone.

    Each comes with whether it is compound (holds blocks of its own).
    """
    found = [(fn_node, True)]
    for stmt, _ in found:  # grows while it is read
        if not (isinstance(stmt, _FUNCTIONS) and anno.getanno(stmt, anno.Basic.SKIP_CONVERSION)):
            for _, block in child_blocks(stmt):
                found += [(s, type(s) in _COMPOUND) for s in block]
    return found


_FUNCTIONS = (gast.FunctionDef, gast.AsyncFunctionDef)
_COMPOUND = frozenset(
    cls for cls in INNER if issubclass(cls, gast.stmt) and block_shape(cls) != ((), None)
)


def _local_names(fn_node):
    stores = {
        n.id for n in walk.nodes(fn_node) if type(n) is gast.Name and type(n.ctx) is gast.Store
    }
    declared = {
        n
        for s in walk.statements(fn_node.body)
        if isinstance(s, (gast.Global, gast.Nonlocal))
        for n in s.names
    }
    return stores - declared


def transform(node, ctx, activity):
    """``activity``: what the analyses found of the code, which has not changed since."""
    local_names = _local_names(node)
    # Each statement's own expressions only: the order they are wrapped in does not matter.
    for stmt, compound in _converted_statements(node):
        defined = anno.getanno(stmt, anno.Static.DEFINED_IN)
        if defined is None:
            continue
        # Of a compound statement, what it holds is looked at on its own.
        reads = _own_names(stmt) if compound else activity.reads(stmt)
        if not local_names.intersection(reads) <= defined:
            _wrap_own_expressions(stmt, local_names - defined)
    return node


def _own_names(stmt):
    """The names in the expressions of ``stmt`` itself: at least all it reads, not in its blocks.

    A compound statement's own expressions are few, cheaper to list than to analyse.
    """
    names = []
    for field in stmt._fields:
        value = getattr(stmt, field)
        for expr in value if isinstance(value, list) else [value]:
            if isinstance(expr, gast.expr):
                names += [n.id for n in walk.nodes(expr) if type(n) is gast.Name]
    return names
