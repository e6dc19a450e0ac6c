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
        call = node.value
        if (
            isinstance(call, gast.Call)
            and isinstance(call.func, gast.Attribute)
            and call.func.attr == "append"
            and len(call.args) == 1
            and not call.keywords
            and symbol(call.func.value) is not None
            and ("." in symbol(call.func.value) or symbol(call.func.value) in self.rebindable)
        ):
            target = call.func.value
            return statements(
                "target = ag__.list_append(target, item)", node, target=target, item=call.args[0]
            )
        return self.generic_visit(node)


def transform(node, ctx):
    # A name the function never assigns is a global or a closure: rebinding it would make it local.
    params = {a.id for a in node.args.args + node.args.kwonlyargs + node.args.posonlyargs}
    assigned = {
        n.id for n in walk.nodes(node) if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store)
    }
    declared = {
        n
        for s in walk.statements(node.body)
        if isinstance(s, (gast.Global, gast.Nonlocal))
        for n in s.names
    }
    return _ListConverter(ctx, params | assigned | declared).visit(node)
