"""``return`` anywhere becomes an assignment to ``retval``, with one ``return`` at the end.

First, code after an ``if`` whose branch always returns moves into the other
branch, so most functions need no flag at all:

    if x > 0:                   if x > 0:
        return x * x     ->         retval = x * x
    return x - 1                else:
                                    retval = x - 1
                                return retval

A return inside a loop, or followed by code that must be skipped, also sets
``do_return``, which stops loops and guards what follows. Where a path may
end without a return, ``retval`` starts as ``UndefinedReturnValue`` and the
function returns ``ag__.ret(retval)`` (None on such a path).
"""

from __future__ import annotations

import gast

from autograph.converters.base import StatementConverter, name, statements
from autograph.converters.jumps import JumpLowering, contains, holders, stop_loop_on
from autograph.pyct import anno
from autograph.pyct.walk import BLOCK_FIELDS


def always_returns(stmts):
    """Whether every path through ``stmts`` ends in ``return`` or ``raise``."""
    for stmt in stmts:
        if isinstance(stmt, (gast.Return, gast.Raise)):
            return True
        if isinstance(stmt, gast.If) and always_returns(stmt.body) and always_returns(stmt.orelse):
            return True
        if isinstance(stmt, gast.With) and always_returns(stmt.body):
            return True
        if _forever(stmt):  # `while True:` without break: only a return (or raise) leaves it
            return True
        # A loop's else clause runs unless a break leaves the loop: those were lowered
        # already, so a loop that still has one and returns in it returns either way.
        if isinstance(stmt, (gast.For, gast.While)) and always_returns(stmt.orelse):
            return True
    return False


def _forever(stmt):
    return (
        isinstance(stmt, gast.While)
        and isinstance(stmt.test, gast.Constant)
        and stmt.test.value is True
        and not contains(stmt.body, gast.Break, into_loops=False)
    )


def _move_rest_into_branches(stmts, moved):
    """``stmts`` with what follows an if that always returns on one side moved to the other.

    The ifs that took in statements are added to ``moved``.
    """
    out = []
    for i, stmt in enumerate(stmts):
        for field in BLOCK_FIELDS:  # the statement's own blocks; an except clause's stay as written
            if isinstance(getattr(stmt, field, None), list) and not isinstance(
                stmt, gast.FunctionDef
            ):
                setattr(stmt, field, _move_rest_into_branches(getattr(stmt, field), moved))
        rest = stmts[i + 1 :] if isinstance(stmt, gast.If) else None  # a copy: only for ifs
        if rest:
            if always_returns(stmt.body) and not always_returns(stmt.orelse):
                stmt.orelse = _move_rest_into_branches(stmt.orelse + rest, moved)
                moved.append(stmt)
                return out + [stmt]
            if always_returns(stmt.orelse) and not always_returns(stmt.body):
                stmt.body = _move_rest_into_branches(stmt.body + rest, moved)
                moved.append(stmt)
                return out + [stmt]
        out.append(stmt)
    return out


class _ReturnConverter(StatementConverter):
    compound_only = True  # only functions change

    def visit_FunctionDef(self, node):
        if anno.getanno(node, anno.Basic.SKIP_CONVERSION):
            return node
        node = self.generic_visit(node)  # nested functions keep their own returns
        body = node.body
        held = holders(body, gast.Return, into_loops=True)
        last = body[-1] if body else None
        early = any(id(s) in held for s in body[:-1])
        nested_in_last = last is not None and not isinstance(last, gast.Return) and id(last) in held
        if not early and not nested_in_last:
            return node  # at most a final return: nothing to do
        moved = []
        body = _move_rest_into_branches(body, moved)
        # Where nothing moved, the statements holding a return are the same ones.
        node.body = self._lower(body, node, None if moved else held)
        return node

    def _lower(self, body, fn_node, held):
        namer = self.ctx.namer
        retval, flag = namer.new("retval"), namer.new("do_return")
        loops_stopped = []

        def replace(ret):
            value = ret.value if ret.value is not None else gast.Constant(value=None, kind=None)
            # The value first: if computing it raises, the function has not returned.
            return statements(
                "retval = value\nflag = True", ret, flag=flag, retval=retval, value=value
            )

        def on_loop(loop):
            stop_loop_on(loop, flag)
            loops_stopped.append(loop)

        lowering = JumpLowering(gast.Return, flag, replace, into_loops=True, on_loop=on_loop)
        may_fall_off = not always_returns(body)
        lowered = lowering.lower(body, held)
        flagged = lowering.guarded or loops_stopped
        if not flagged:
            lowered = [s for s in lowered if not _assigns(s, flag)]
            _drop_flag_assignments(lowered, flag)
            prologue = []
        else:
            # With a flag, retval may be unset on a path that has not returned yet: the flag
            # guards it, so graph branches may give it a stand-in there.
            prologue = statements(
                "flag = False\nretval = ag__.UndefinedReturnValue(guarded=True)",
                fn_node.body[0] if fn_node.body else fn_node,
                flag=flag,
                retval=retval,
            )
        if may_fall_off:
            if not flagged:
                prologue += statements(
                    "retval = ag__.UndefinedReturnValue()", fn_node, retval=retval
                )
            epilogue = statements(
                "return ag__.ret(retval, flag)" if flagged else "return ag__.ret(retval)",
                fn_node,
                retval=retval,
                flag=flag,
            )
        elif flagged:
            # Every path returns, but a graph may find none that can (ag__.returned says why).
            epilogue = statements("return ag__.returned(retval)", fn_node, retval=retval)
        else:
            epilogue = [gast.Return(value=name(retval))]
            epilogue[0].lineno = fn_node.lineno
        return _after_docstring(lowered, prologue) + epilogue


def _assigns(stmt, flag):
    return (
        isinstance(stmt, gast.Assign)
        and len(stmt.targets) == 1
        and isinstance(stmt.targets[0], gast.Name)
        and stmt.targets[0].id == flag
    )


def _drop_flag_assignments(stmts, flag):
    for node in gast.walk(gast.Module(body=stmts, type_ignores=[])):
        for field in BLOCK_FIELDS:  # clauses are among the nodes walked
            block = getattr(node, field, None)
            if isinstance(block, list):
                setattr(node, field, [s for s in block if not _assigns(s, flag)])


def _after_docstring(body, prologue):
    if (
        body
        and isinstance(body[0], gast.Expr)
        and isinstance(body[0].value, gast.Constant)
        and isinstance(body[0].value.value, str)
    ):
        return body[:1] + prologue + body[1:]
    return prologue + body


def transform(node, ctx):
    return _ReturnConverter(ctx).visit(node)
