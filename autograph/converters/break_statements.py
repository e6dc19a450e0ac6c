"""``break`` becomes a flag that stops the loop and guards the rest of its body.

    while test:                 break_ = False
        a                       while not break_ and test:
        if c:           ->          a
            break                   if c:
        b                               break_ = True
                                    if not break_:
                                        b

A ``for`` loop gets the flag as an extra test. An ``else`` clause runs only
when the loop was not broken: ``if not break_:`` after the loop.
"""

from __future__ import annotations

import gast

from autograph.converters.base import StatementConverter, flag_assignment, negate
from autograph.converters.jumps import Lowering, holders, stop_loop_on
from autograph.pyct.analysis.activity import Activity
from autograph.pyct.origin import set_origin


class _BreakConverter(StatementConverter):
    compound_only = True  # only loops change

    def _loop(self, node):
        node = self.generic_visit(node)  # inner loops first: their breaks are their own
        if isinstance(node, gast.While) and not node.orelse and _changes_state(node.test):
            # `while (n := f(n)) > 0:` assigns in its test (or `while stack.pop():` changes a
            # list): a staged loop's test cannot change what it carries, so the test moves
            # into the body, as `if not (...): break`, which is the same.
            guard = gast.If(test=negate_expression(node.test), body=[gast.Break()], orelse=[])
            set_origin(guard, node.lineno)
            node.body = [guard] + node.body
            node.test = gast.Constant(value=True, kind=None)
        held = holders(node.body, gast.Break, into_loops=False)
        if not any(id(stmt) in held for stmt in node.body):
            return node
        flag = self.ctx.namer.new("break_")
        lowering = Lowering(gast.Break, flag, lambda jump: [flag_assignment(flag, True, jump)])
        node.body = lowering.lower(node.body, held)
        stop_loop_on(node, flag)
        before = [flag_assignment(flag, False, node)]
        after = []
        if node.orelse:
            after = [gast.If(test=negate(flag), body=node.orelse, orelse=[])]
            set_origin(after, node.orelse[0].lineno)
            node.orelse = []
        return before + [node] + after

    visit_While = visit_For = _loop


def _changes_state(expression):
    activity = Activity()
    return bool(activity.writes(expression) or activity.mutated(expression))


def negate_expression(expression):
    return gast.UnaryOp(op=gast.Not(), operand=expression)


def transform(node, ctx):
    return _BreakConverter(ctx).visit(node)
