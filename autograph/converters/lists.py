"""``lst.append(x)`` as a statement becomes ``lst = ag__.list_append(lst, x)``.

The rebinding makes the list a variable that loops carry, so that in a
tensor-dependent loop it can become a TensorArray.
"""

from __future__ import annotations

import gast

from autograph.converters.base import StatementConverter, statements
from autograph.pyct.analysis.activity import symbol


class _ListConverter(StatementConverter):
    def visit_Expr(self, node):
        call = node.value
        if (
            isinstance(call, gast.Call)
            and isinstance(call.func, gast.Attribute)
            and call.func.attr == "append"
            and len(call.args) == 1
            and not call.keywords
            and symbol(call.func.value) is not None
        ):
            target = call.func.value
            return statements(
                "target = ag__.list_append(target, item)", node, target=target, item=call.args[0]
            )
        return self.generic_visit(node)


def transform(node, ctx):
    return _ListConverter(ctx).visit(node)
