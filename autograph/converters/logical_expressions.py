"""``a and b``, ``a or b`` and ``not a`` become ``ag__.and_(a, lambda: b)``, ``ag__.or_`` and ``ag__.not_``.

The later operands are wrapped in lambdas so that short-circuiting is kept,
on Python values and on tensors alike. A chained comparison ``a < b < c``
becomes ``ag__.and_(a < b, lambda: b < c)`` when its middle operands are names
or constants. Conditional expressions become ``ag__.if_exp``.
"""

from __future__ import annotations

import gast

from autograph.converters.base import Rewriter, ag_call, parameters
from autograph.pyct import anno
from autograph.pyct.origin import set_origin


def _lazy(node):
    """``lambda: node``, called where it stands: its reads are the expression's own."""
    lazy = gast.Lambda(args=parameters([]), body=node)
    anno.setanno(lazy, anno.Basic.IMMEDIATE, True)
    return lazy


class _LogicalConverter(Rewriter):
    def _bool_op(self, node):
        fn = "and_" if isinstance(node.op, gast.And) else "or_"
        call = ag_call(fn, [node.values[0]], node)
        call.args.extend(_lazy(v) for v in node.values[1:])
        return call

    def _compare(self, node):
        middle = node.comparators[:-1]
        if len(node.ops) < 2 or not all(isinstance(m, (gast.Name, gast.Constant)) for m in middle):
            return node  # a middle operand with effects would be evaluated twice: left as Python
        lefts = [node.left, *node.comparators[:-1]]
        parts = [
            gast.Compare(left=left, ops=[op], comparators=[right])
            for left, op, right in zip(lefts, node.ops, node.comparators)
        ]
        for part in parts:
            set_origin(part, node.lineno)
        call = ag_call("and_", [parts[0]], node)
        call.args.extend(_lazy(p) for p in parts[1:])
        return call

    def _unary_op(self, node):
        if isinstance(node.op, gast.Not):
            return ag_call("not_", [node.operand], node)
        return node

    def _if_exp(self, node):
        call = ag_call("if_exp", [node.test], node)
        call.args.extend([_lazy(node.body), _lazy(node.orelse)])
        return call

    rules = {
        gast.BoolOp: _bool_op,
        gast.Compare: _compare,
        gast.UnaryOp: _unary_op,
        gast.IfExp: _if_exp,
    }


def transform(node, ctx):
    return _LogicalConverter(ctx).visit(node)
