"""Which symbols are live (may be read later) before and after each if, while and for.

Runs on code whose ``break``, ``continue`` and ``return`` were already lowered
to flags, so control only flows through if/while/for/try blocks. Annotates:

- ``live_out``: live right after the statement;
- ``live_in``: live right before it;
- ``body_live_in`` (loops): live at the start of the body, i.e. read in an
  iteration before being written;
- ``head_live`` (for loops): live before each iteration, which is what the loop
  must carry (for a while loop, that is ``live_in``).

Each function (and nested function) is analysed on its own. At a function's
exit the symbols that outlive it are live: names it declares ``nonlocal`` or
``global``, and attributes it writes (``self.count``).

>>> import gast
>>> fn = gast.parse('''
... def f(n):
...     i = 0
...     while i < n:
...         t = i * 2
...         i = i + 1
...     return t
... ''').body[0]
>>> analyze(fn)
>>> loop = fn.body[1]
>>> sorted(anno.getanno(loop, anno.Static.LIVE_OUT))
['t']
>>> sorted(anno.getanno(loop, anno.Static.BODY_LIVE_IN))
['i', 'n']
"""

from __future__ import annotations

import gast

from autograph.pyct import anno, walk
from autograph.pyct.analysis.activity import Activity, symbol


def analyze(fn_node, activity=None):
    """Annotates every if/while/for in ``fn_node`` (a FunctionDef), nested functions included.

    ``activity`` (an ``Activity``) may be shared with other analyses of the same, unchanged code.
    """
    exit_live = _exit_live(fn_node)
    _Liveness(exit_live, activity or Activity()).block(fn_node.body, exit_live)


def _exit_live(fn_node):
    live = set()
    for node in walk.nodes(fn_node, into_scopes=False):
        cls = type(node)
        if cls is gast.Attribute or cls is gast.Subscript:
            if type(node.ctx) is not gast.Load:
                sym = symbol(node)
                if sym is not None:
                    live.add(sym)
        elif cls is gast.Nonlocal or cls is gast.Global:
            live.update(node.names)
    return live


def _kills(targets):
    """Symbols that an assignment to ``targets`` certainly overwrites."""
    out = set()
    for t in targets:
        sym = symbol(t)
        if sym is not None:
            out.add(sym)
        elif isinstance(t, (gast.Tuple, gast.List)):
            out |= _kills(t.elts)
        elif isinstance(t, gast.Starred):
            out |= _kills([t.value])
    return out


def _without(live, killed):
    """``live`` less what an assignment to ``killed`` overwrites (``live`` itself if nothing).

    Overwriting x also replaces every part read through it (x.y, x[0]).
    """
    if not killed:
        return live
    out = live - killed
    composite = [s for s in out if not s.isidentifier()]
    if composite:
        prefixes = tuple(k + sep for k in killed for sep in ".[")
        out.difference_update([s for s in composite if s.startswith(prefixes)])
    return out


class _Liveness:
    """The analysis of one function. Sets it is given or returns are never changed in place."""

    def __init__(self, exit_live, activity):
        self.exit_live = exit_live
        self.activity = activity
        # Of each enclosing try, innermost last: what is live where a raise (and where a
        # return) inside it goes: its handlers and its finally block.
        self._tries = []
        # id(node) -> (reads, kills): loops ask again for each round to their fixpoint.
        self._effects = {}

    def block(self, stmts, live_after):
        if not stmts:
            return set(live_after)
        live = live_after
        # Inside a try, any statement may raise before it is done: what the handlers (or the
        # finally block) read is live after each, even after one that assigns it.
        on_raise = self._tries[-1][0] if self._tries else None
        for stmt in reversed(stmts):
            if on_raise:
                live = live | on_raise
            live = _VISITS.get(type(stmt), _Liveness.simple)(self, stmt, live)
        return live

    def _reads(self, node):
        """What ``node`` (an expression, or a statement taken as a whole) reads; not to change."""
        known = self._effects.get(id(node))
        if known is None:
            known = self._effects[id(node)] = (self.activity.reads(node), None)
        return known[0]

    def simple(self, node, after):
        known = self._effects.get(id(node))
        if known is None:
            killed = set()
            if isinstance(node, gast.Assign):
                killed = _kills(node.targets)
            elif isinstance(node, gast.AnnAssign) and node.value is not None:
                killed = _kills([node.target])
            elif isinstance(node, (gast.Import, gast.ImportFrom)):
                killed = {(a.asname or a.name).split(".")[0] for a in node.names}
            known = self._effects[id(node)] = (self.activity.reads(node), killed)
        reads, killed = known
        return _without(after, killed) | reads

    def visit_FunctionDef(self, node, after):
        analyze(node, self.activity)
        return (after - {node.name}) | self._reads(node)

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_ClassDef(self, node, after):
        for stmt in walk.statements(node.body):  # methods, and those of nested classes
            if isinstance(stmt, (gast.FunctionDef, gast.AsyncFunctionDef)):
                analyze(stmt, self.activity)
        return (after - {node.name}) | self._reads(node)

    def visit_Return(self, node, after):
        on_return = self._tries[-1][1] if self._tries else self.exit_live
        return self._reads(node) | on_return

    def visit_Raise(self, node, after):
        on_raise = self._tries[-1][0] if self._tries else self.exit_live
        return self._reads(node) | on_raise

    def visit_If(self, node, after):
        before = (
            self._reads(node.test) | self.block(node.body, after) | self.block(node.orelse, after)
        )
        anno.setanno(node, anno.Static.LIVE_OUT, set(after))
        anno.setanno(node, anno.Static.LIVE_IN, set(before))
        return before

    def visit_While(self, node, after):
        test_reads = self._reads(node.test)
        exit_live = self.block(node.orelse, after)
        head = test_reads | exit_live
        while True:
            body_in = self.block(node.body, head)
            new_head = test_reads | exit_live | body_in
            if new_head == head:
                break
            head = new_head
        anno.setanno(node, anno.Static.LIVE_OUT, set(after))
        anno.setanno(node, anno.Static.LIVE_IN, set(head))
        anno.setanno(node, anno.Static.BODY_LIVE_IN, set(body_in))
        return head

    def visit_For(self, node, after):
        targets = _kills([node.target])
        flags = set(
            anno.getanno(node, anno.Basic.EXTRA_TEST_FLAGS, ())
        )  # read before every iteration
        exit_live = self.block(node.orelse, after) | flags
        head = exit_live
        while True:
            body_in = self.block(node.body, head)
            new_head = exit_live | _without(body_in, targets)
            if new_head == head:
                break
            head = new_head
        before = self._reads(node.iter) | head
        anno.setanno(node, anno.Static.LIVE_OUT, set(after))
        anno.setanno(node, anno.Static.LIVE_IN, set(before))
        # Before each iteration (the extra test's flags too).
        anno.setanno(node, anno.Static.HEAD_LIVE, set(head))
        anno.setanno(node, anno.Static.BODY_LIVE_IN, set(_without(body_in, targets)))
        return before

    def visit_With(self, node, after):
        body = self.block(node.body, after)
        killed = _kills([i.optional_vars for i in node.items if i.optional_vars is not None])
        reads = set()
        for item in node.items:
            reads |= self._reads(item.context_expr)
        return _without(body, killed) | reads

    def visit_Try(self, node, after):
        # A return or a raise inside the try runs the finally block on its way out, to where
        # it goes (an enclosing try's handlers or finally block, or the function's end). One
        # analysis of the finally block serves all three ways through it.
        outer_raise, outer_return = self._tries[-1] if self._tries else (self.exit_live,) * 2
        if node.finalbody:
            finally_in = self.block(node.finalbody, after | outer_raise | outer_return)
            raising = returning = finally_in
        else:
            finally_in, raising, returning = after, outer_raise, outer_return
        handlers = set()
        self._tries.append((raising, returning))  # a raise in a handler is not caught here
        try:
            for handler in node.handlers:
                handlers |= self.block(handler.body, finally_in)
        finally:
            self._tries.pop()
        orelse = self.block(node.orelse, finally_in)
        self._tries.append((handlers | raising, returning))
        try:
            # Any statement of the body may raise: what a handler needs is live throughout.
            body = self.block(node.body, orelse | handlers)
        finally:
            self._tries.pop()
        return body | handlers


_VISITS = {  # statement class -> its rule; the rest are simple statements
    gast.FunctionDef: _Liveness.visit_FunctionDef,
    gast.AsyncFunctionDef: _Liveness.visit_AsyncFunctionDef,
    gast.Return: _Liveness.visit_Return,
    gast.Raise: _Liveness.visit_Raise,
    gast.If: _Liveness.visit_If,
    gast.While: _Liveness.visit_While,
    gast.For: _Liveness.visit_For,
    gast.With: _Liveness.visit_With,
    gast.Try: _Liveness.visit_Try,
    gast.TryStar: _Liveness.visit_Try,  # except*: the same paths
    gast.ClassDef: _Liveness.visit_ClassDef,
}
