"""``lst.append(x)`` as a statement becomes ``lst = ag__.list_append(lst, x)``.

The rebinding makes the list a variable that loops carry, so that in a
tensor-dependent loop it can become a TensorArray.
"""

from __future__ import annotations

import gast

from autograph.converters.base import StatementConverter, statements
from autograph.pyct import walk
from autograph.pyct.analysis.activity import symbol


class _ListConverter(StatementConverter):
    """Only lists the function may rebind: its locals, and attributes (``self.items``)."""

    def __init__(self, ctx, rebindable):
        super().__init__(ctx)
        self.rebindable = rebindable

    def visit_Expr(self, node):
        if _is_append(node):
            target = node.value.func.value
            if "." in symbol(target) or symbol(target) in self.rebindable:
                return statements(
                    "target = ag__.list_append(target, item)",
                    node,
                    target=target,
                    item=node.value.args[0],
                )
        return self.generic_visit(node)


def _is_append(stmt):
    """Whether the statement ``stmt`` is ``<symbol>.append(<one argument>)``."""
    call = getattr(stmt, "value", None)
    return (
        isinstance(stmt, gast.Expr)
        and isinstance(call, gast.Call)
        and isinstance(call.func, gast.Attribute)
        and call.func.attr == "append"
        and len(call.args) == 1
        and not call.keywords
        and symbol(call.func.value) is not None
    )


def _rebindable(fn_node):
    """The names a list may be rebound to: the function's parameters, assigned and declared names.

    A name the function never assigns is a global or a closure: rebinding it would make it local.
    """
    args = fn_node.args
    params = {a.id for a in args.args + args.kwonlyargs + args.posonlyargs}
    assigned = {
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
    return params | assigned | declared


def transform(node, ctx):
    # Most functions append to no list: their statements tell, without a walk of every node.
    if not any(_is_append(s) for s in walk.statements(node.body)):
        return node
    return _ListConverter(ctx, _rebindable(node)).visit(node)
