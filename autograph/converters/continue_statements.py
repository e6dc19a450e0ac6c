"""``continue`` becomes a flag, reset at the top of each iteration, that guards the rest of the body.

for x in xs:                for x in xs:
    if c:                       continue_ = False
        continue        ->      if c:
    b                               continue_ = True
                                if not continue_:
                                    b
"""

from __future__ import annotations

import gast

from autograph.converters.base import StatementConverter, flag_assignment
from autograph.converters.jumps import JumpLowering, holders


class _ContinueConverter(StatementConverter):
    compound_only = True  # only loops change

    def _loop(self, node):
        node = self.generic_visit(node)
        held = holders(node.body, gast.Continue, into_loops=False)
        if not any(id(stmt) in held for stmt in node.body):
            return node
        flag = self.ctx.namer.new("continue_")
        lowering = JumpLowering(
            gast.Continue, flag, lambda jump: [flag_assignment(flag, True, jump)]
        )
        node.body = [flag_assignment(flag, False, node.body[0])] + lowering.lower(node.body, held)
        return node

    visit_While = visit_For = _loop


def transform(node, ctx):
    return _ContinueConverter(ctx).visit(node)
