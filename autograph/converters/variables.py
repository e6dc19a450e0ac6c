"""Reads of a local variable that may not be assigned yet go through ``ag__.ld``.

Control flow gives such variables an ``Undefined`` value, so that branches and
loops can pass them around. ``ag__.ld(y)`` turns a read of that value back into
the UnboundLocalError Python would raise. Only reads where the variable is
not certainly defined are wrapped, which correct code rarely has.
"""

from __future__ import annotations

import gast

from autograph.converters.base import StatementConverter, Transformer, ag_call
from autograph.pyct import anno, walk

_SCOPES = (gast.Lambda, gast.ListComp, gast.SetComp, gast.DictComp, gast.GeneratorExp)


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

    visit_Lambda = visit_ListComp = visit_SetComp = visit_DictComp = visit_GeneratorExp = _skip


class _VariablesConverter(StatementConverter):
    def __init__(self, ctx, local_names, activity):
        super().__init__(ctx)
        self.local_names = local_names
        self.activity = activity

    def visit(self, node):
        if isinstance(node, gast.stmt) and anno.hasanno(node, "defined_in"):
            maybe_unbound = self.local_names - anno.getanno(node, "defined_in")
            if maybe_unbound and not maybe_unbound.isdisjoint(self.activity.reads(node)):
                self._wrap_own_expressions(node, maybe_unbound)
        return super().visit(node)

    def _wrap_own_expressions(self, node, names):
        reads = _Reads(names)
        for field in node._fields:
            value = getattr(node, field)
            if isinstance(value, gast.expr):
                setattr(node, field, reads.visit(value))
            elif isinstance(value, list) and value and isinstance(value[0], gast.expr):
                setattr(node, field, [reads.visit(v) for v in value])


def _local_names(fn_node):
    stores = {
        n.id
        for n in walk.nodes(fn_node)
        if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store)
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
    return _VariablesConverter(ctx, _local_names(node), activity).visit(node)
