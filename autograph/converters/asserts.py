"""``assert test, msg`` becomes ``ag__.assert_stmt(test, lambda: msg)``.

On Python values it asserts as Python does (the message is computed only on
failure); on a symbolic tensor it becomes an ``rt.Assert`` op, which raises
``rt.errors.InvalidArgumentError`` when the graph runs and the test is false.
Without a message, Python raises a bare ``AssertionError``, and the op names
the asserted expression (``assertion failed: [assert x > 0]``).
"""

from __future__ import annotations

import gast

from autograph.converters.base import StatementConverter, statements
from autograph.pyct import printer, walk


class _AssertConverter(StatementConverter):
    def visit_Assert(self, node):
        if node.msg is not None:
            return statements(
                "ag__.assert_stmt(test, lambda: message)", node, test=node.test, message=node.msg
            )
        source = gast.Constant(value=printer.to_source(node.test).strip(), kind=None)
        return statements(
            "ag__.assert_stmt(test, None, source)", node, test=node.test, source=source
        )


def transform(node, ctx):
    # Most functions assert nothing: their statements tell, without a walk of every node.
    if not any(isinstance(s, gast.Assert) for s in walk.statements(node.body)):
        return node
    return _AssertConverter(ctx).visit(node)
