"""Lowering a jump (break, continue, return) to a flag and guards.

After ``break`` the rest of the block must not run: the jump becomes an
assignment to a flag, and every statement that follows a statement which may
have jumped is wrapped in ``if not flag:``. What remains is structured code
that the control-flow converter can turn into functions.
"""

from __future__ import annotations

import gast

from autograph.converters.base import negate
from autograph.pyct import anno
from autograph.pyct.origin import set_origin
from autograph.pyct.walk import child_blocks, set_block

_SCOPES = (gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda, gast.ClassDef)
_LOOPS = (gast.For, gast.While, gast.AsyncFor)


def contains(nodes, jump_type, into_loops):
    """Whether ``nodes`` hold a ``jump_type`` statement (not in nested functions, nor loops unless asked).

    A nested loop's ``else`` block belongs to the enclosing loop: a ``break``
    there breaks the enclosing one, so it is looked into either way.
    """
    stack = list(nodes) if isinstance(nodes, list) else [nodes]
    while stack:
        node = stack.pop()
        if isinstance(node, jump_type):
            return True
        if isinstance(node, _SCOPES):
            continue
        if isinstance(node, _LOOPS) and not into_loops:
            stack.extend(node.orelse)
            continue
        for _, block in child_blocks(node):
            stack.extend(block)
    return False


def holders(stmts, jump_type, into_loops):
    """The statements of ``stmts``, or in blocks they hold, for which ``contains`` is true, by id.

    Found in one walk, where asking ``contains`` of each statement would walk
    the statements of each block again for every block around it.
    """
    found = {}  # holding the statements keeps their ids unique
    for stmt in stmts:
        _holds(stmt, jump_type, into_loops, found)
    return found


def _holds(stmt, jump_type, into_loops, found):
    # A function, not a closure: a closure that calls itself is a reference cycle, which
    # would wait for the collector, paused while converting.
    if isinstance(stmt, jump_type):
        found[id(stmt)] = stmt
        return True
    if isinstance(stmt, _SCOPES):
        return False
    only_orelse = not into_loops and isinstance(stmt, _LOOPS)
    held = False
    for field, block in child_blocks(stmt):
        # Every block is walked: its statements may be asked about even where they do not count.
        inner = [_holds(s, jump_type, into_loops, found) for s in block]
        if any(inner) and not (only_orelse and field != "orelse"):
            held = True
    if held:
        found[id(stmt)] = stmt
    return held


class JumpLowering:
    """Replaces the jumps of one kind in a block and guards what follows them: ``lower(block)``.

    ``replace(jump)`` gives the statements standing for one jump;
    ``on_loop(loop)`` is called for each loop that holds a jump (returns only).
    ``guarded`` records whether any guard reads the flag.
    """

    def __init__(self, jump_type, flag, replace, into_loops=False, on_loop=None):
        self.jump_type, self.flag, self.replace = jump_type, flag, replace
        self.into_loops, self.on_loop = into_loops, on_loop
        self.guarded = False
        self._holders = {}

    def lower(self, stmts, held=None):
        """``stmts`` (a block) with its jumps replaced, and what follows them guarded.

        ``held``: the ``holders`` of ``stmts``, if the caller has them already.
        """
        self._holders = (
            held if held is not None else holders(stmts, self.jump_type, self.into_loops)
        )
        return self.block(stmts)

    def block(self, stmts):
        out = []
        for i, stmt in enumerate(stmts):
            if isinstance(stmt, self.jump_type):
                out.extend(self.replace(stmt))
                return out  # the rest of the block is unreachable
            if id(stmt) not in self._holders:
                out.append(stmt)
                continue
            out.extend(self.inside(stmt))
            rest = stmts[i + 1 :]
            if rest:
                self.guarded = True
                guard = gast.If(test=negate(self.flag), body=self.block(rest), orelse=[])
                set_origin(guard, rest[0].lineno)
                out.append(guard)
            return out
        return out

    def inside(self, stmt):
        """``stmt`` with its blocks lowered, and what must follow it (a loop's guarded ``else``)."""
        for where, block in child_blocks(stmt):
            set_block(stmt, where, self.block(block))
        if isinstance(stmt, _LOOPS) and self.on_loop is not None:
            self.on_loop(stmt)
            if stmt.orelse:
                # A loop left by a return must skip its else clause, as in Python.
                self.guarded = True
                guard = gast.If(test=negate(self.flag), body=stmt.orelse, orelse=[])
                set_origin(guard, stmt.orelse[0].lineno)
                stmt.orelse = []
                return [stmt, guard]
        return [stmt]


def stop_loop_on(loop, flag):
    """Makes ``loop`` also stop once ``flag`` is set: ``while not flag and test``, or a for's extra test."""
    if isinstance(loop, gast.While):
        loop.test = gast.BoolOp(op=gast.And(), values=[negate(flag), loop.test])
        set_origin(loop.test, loop.lineno)
    else:
        anno.setanno(
            loop,
            anno.Basic.EXTRA_TEST_FLAGS,
            anno.getanno(loop, anno.Basic.EXTRA_TEST_FLAGS, ()) + (flag,),
        )
