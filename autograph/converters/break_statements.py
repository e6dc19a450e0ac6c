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
from autograph.converters.jumps import JumpLowering, holders, stop_loop_on
from autograph.pyct import anno
from autograph.pyct.analysis.activity import Activity
from autograph.pyct.origin import set_origin


class _BreakConverter(StatementConverter):
    compound_only = True  # only loops change

    def _loop(self, node):
        node = self.generic_visit(node)  # inner loops first: their breaks are their own
        before = []
        if isinstance(node, gast.While) and self._changes_state(node.test):
            before = self._move_test_into_body(node)
        held = holders(node.body, gast.Break, into_loops=False)
        if not any(id(stmt) in held for stmt in node.body):
            return before + [node] if before else node
        flag = self.ctx.namer.new("break_")
        lowering = JumpLowering(gast.Break, flag, lambda jump: [flag_assignment(flag, True, jump)])
        node.body = lowering.lower(node.body, held)
        stop_loop_on(node, flag)
        before.append(flag_assignment(flag, False, node))
        after = []
        if node.orelse:
            after = [gast.If(test=negate(flag), body=node.orelse, orelse=[])]
            set_origin(after, node.orelse[0].lineno)
            node.orelse = []
        return before + [node] + after

    visit_While = visit_For = _loop

    def _move_test_into_body(self, node):
        """Moves a test that changes state into the body (see ``_changes_state``); returns
        the statements that must precede the loop.

        A staged loop's test cannot change what it carries. ``while (n := f(n)) > 0:``
        becomes ``while True: if not (...): break``, which is the same; a loop with an
        ``else``, which runs only when the test fails, gets a flag instead of the break:
        ``while not exhausted_: if not (...): exhausted_ = True else: <body>``.
        """
        test = node.test
        anno.setanno(node, anno.Basic.TEST_MUTATES, _passed_to_callees(test, self.ctx))
        if not node.orelse:
            guard = gast.If(test=negate_expression(test), body=[gast.Break()], orelse=[])
            set_origin(guard, node.lineno)
            node.body = [guard] + node.body
            node.test = gast.Constant(value=True, kind=None)
            return []
        flag = self.ctx.namer.new("exhausted_")
        guard = gast.If(
            test=negate_expression(test),
            body=[flag_assignment(flag, True, node)],
            orelse=node.body,
        )
        set_origin(guard, node.lineno)
        node.body = [guard]
        node.test = negate(flag)
        set_origin(node.test, node.lineno)
        return [flag_assignment(flag, False, node)]

    def _changes_state(self, test):
        """Whether evaluating ``test`` may change state: it assigns (``n := n - 1``), changes
        a container in place (``stack.pop()``), or calls a function this module cannot see
        into (``pop(stack)``), which may change what it is passed or what it closes over."""
        activity = Activity()
        if activity.writes(test) or activity.mutated(test):
            return True
        return any(not _library_callable(call.func, self.ctx) for call in _calls(test))


# Modules whose functions change none of their arguments in place: the builtins, the runtime's
# ops, numpy's and JAX's (what a loop test calls: len, rt.reduce_sum, np.any, jnp.sum).
_LIBRARIES = ("builtins", "runtime", "numpy", "jax", "math", "operator")


def _calls(expression):
    return [n for n in gast.walk(expression) if isinstance(n, gast.Call)]


def _library_callable(func, ctx):
    """Whether ``func`` is taken to change nothing it is passed: a function of the builtins,
    the runtime or numpy, or a method (``v.sum()``; those that change their object in place,
    ``stack.pop()``, Activity knows)."""
    found, value = ctx.resolve(func)
    if not found:
        return isinstance(func, gast.Attribute)  # not a local function: a method
    module = getattr(value, "__module__", None) or ""
    return module.split(".")[0] in _LIBRARIES


def _passed_to_callees(test, ctx):
    """The names ``test`` passes to functions that may change them in place (``pop(stack)``):
    the loop carries them, as it does a list its body appends to."""
    passed = set()
    for call in _calls(test):
        if _library_callable(call.func, ctx):
            continue
        for arg in [*call.args, *(k.value for k in call.keywords)]:
            if isinstance(arg, gast.Name):
                passed.add(arg.id)
    return passed


def negate_expression(expression):
    return gast.UnaryOp(op=gast.Not(), operand=expression)


def transform(node, ctx):
    return _BreakConverter(ctx).visit(node)
