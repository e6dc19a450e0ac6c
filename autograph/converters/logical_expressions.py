"""``a and b``, ``a or b`` and ``not a`` become ``ag__.and_(a, lambda: b)``, ``ag__.or_`` and ``ag__.not_``.

The later operands are wrapped in lambdas so that short-circuiting is kept,
on Python values and on tensors alike.
"""

from __future__ import annotations

import gast

from autograph.converters.base import Converter, ag_attribute, expression


def _lazy(node):
    return gast.Lambda(
        args=gast.arguments(
            args=[],
            posonlyargs=[],
            vararg=None,
            kwonlyargs=[],
            kw_defaults=[],
            kwarg=None,
            defaults=[],
        ),
        body=node,
    )


class _LogicalConverter(Converter):
    def visit_BoolOp(self, node):
        node = self.generic_visit(node)
        fn = "and_" if isinstance(node.op, gast.And) else "or_"
        call = expression("fn(first)", node, fn=ag_attribute(fn), first=node.values[0])
        call.args.extend(_lazy(v) for v in node.values[1:])
        return call

    def visit_UnaryOp(self, node):
        node = self.generic_visit(node)
        if isinstance(node.op, gast.Not):
            return expression("ag__.not_(operand)", node, operand=node.operand)
        return node

    def visit_IfExp(self, node):
        node = self.generic_visit(node)
        call = expression("ag__.if_exp(test)", node, test=node.test)
        call.args.extend([_lazy(node.body), _lazy(node.orelse)])
        return call


def transform(node, ctx):
    return _LogicalConverter(ctx).visit(node)
