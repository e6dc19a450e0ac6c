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
>>> sorted(anno.getanno(loop, "live_out")), sorted(anno.getanno(loop, "body_live_in"))
(['t'], ['i', 'n'])
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
        if isinstance(node, (gast.Nonlocal, gast.Global)):
            live |= set(node.names)
        elif isinstance(node, (gast.Attribute,)) and not isinstance(node.ctx, gast.Load):
            sym = symbol(node)
            if sym is not None:
                live.add(sym)
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


def _killed_by(sym, killed):
    # Overwriting x also replaces every attribute read through it (x.y).
    if sym in killed:
        return True
    return "." in sym and any(sym.startswith(k + ".") for k in killed)


class _Liveness:
    def __init__(self, exit_live, activity):
        self.exit_live = exit_live
        self.activity = activity

    def block(self, stmts, live_after):
        live = set(live_after)
        for stmt in reversed(stmts):
            live = self.stmt(stmt, live)
        return live

    def stmt(self, node, after):
        method = getattr(self, "visit_" + type(node).__name__, None)
        if method is not None:
            return method(node, after)
        return self.simple(node, after)

    def simple(self, node, after):
        reads = self.activity.reads(node)
        killed = set()
        if isinstance(node, gast.Assign):
            killed = _kills(node.targets)
        elif isinstance(node, gast.AnnAssign) and node.value is not None:
            killed = _kills([node.target])
        elif isinstance(node, (gast.Import, gast.ImportFrom)):
            killed = {(a.asname or a.name).split(".")[0] for a in node.names}
        return {s for s in after if not _killed_by(s, killed)} | reads

    def visit_FunctionDef(self, node, after):
        analyze(node, self.activity)
        return (after - {node.name}) | self.activity.reads(node)

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_Return(self, node, after):
        return self.activity.reads(node) | self.exit_live

    def visit_Raise(self, node, after):
        return self.activity.reads(node)

    def visit_If(self, node, after):
        before = (
            self.activity.reads(node.test)
            | self.block(node.body, after)
            | self.block(node.orelse, after)
        )
        anno.setanno(node, "live_out", set(after))
        anno.setanno(node, "live_in", set(before))
        return before

    def visit_While(self, node, after):
        test_reads = self.activity.reads(node.test)
        exit_live = self.block(node.orelse, after)
        head = test_reads | exit_live
        while True:
            body_in = self.block(node.body, head)
            new_head = test_reads | exit_live | body_in
            if new_head == head:
                break
            head = new_head
        anno.setanno(node, "live_out", set(after))
        anno.setanno(node, "live_in", set(head))
        anno.setanno(node, "body_live_in", set(body_in))
        return head

    def visit_For(self, node, after):
        targets = _kills([node.target])
        flags = set(anno.getanno(node, "extra_test_flags", ()))  # read before every iteration
        exit_live = self.block(node.orelse, after) | flags
        head = set(exit_live)
        while True:
            body_in = self.block(node.body, head)
            new_head = exit_live | {s for s in body_in if not _killed_by(s, targets)}
            if new_head == head:
                break
            head = new_head
        before = self.activity.reads(node.iter) | head
        anno.setanno(node, "live_out", set(after))
        anno.setanno(node, "live_in", set(before))
        anno.setanno(
            node, "head_live", set(head)
        )  # before each iteration (the extra test's flags too)
        anno.setanno(node, "body_live_in", {s for s in body_in if not _killed_by(s, targets)})
        return before

    def visit_With(self, node, after):
        body = self.block(node.body, after)
        killed = _kills([i.optional_vars for i in node.items if i.optional_vars is not None])
        reads = set()
        for item in node.items:
            reads |= self.activity.reads(item.context_expr)
        return {s for s in body if not _killed_by(s, killed)} | reads

    def visit_Try(self, node, after):
        after_finally = self.block(node.finalbody, after) if node.finalbody else after
        handlers = set()
        for handler in node.handlers:
            handlers |= self.block(handler.body, after_finally)
        orelse = self.block(node.orelse, after_finally)
        # Any statement of the body may raise: what a handler needs is live throughout.
        body = self.block(node.body, orelse | handlers)
        return body | handlers
