"""Which local names are certainly, or possibly, defined before each if, while and for.

Annotates ``defined_in`` (assigned on every path to the statement; on every
statement) and ``maybe_defined_in`` (assigned on some path; on if/while/for). Parameters, and names declared
``global`` or ``nonlocal``, count as defined from the start.

>>> import gast
>>> fn = gast.parse('''
... def f(x):
...     if x:
...         y = 1
...     while x:
...         pass
... ''').body[0]
>>> analyze(fn)
>>> loop = fn.body[1]
>>> sorted(anno.getanno(loop, anno.Static.DEFINED_IN))
['x']
>>> sorted(anno.getanno(loop, anno.Static.MAYBE_DEFINED_IN))
['x', 'y']
"""

from __future__ import annotations

import gast

from autograph.pyct import anno, walk
from autograph.pyct.analysis.activity import Activity, parameters


def analyze(fn_node, activity=None):
    """Annotates every if/while/for of ``fn_node`` (a FunctionDef), nested functions included.

    ``activity`` (an ``Activity``) may be shared with other analyses of the same, unchanged code.
    """
    activity = activity or Activity()
    start = parameters(fn_node.args) | _declared(fn_node)
    _Definedness(activity).block(fn_node.body, (start, set(start)))


def _declared(fn_node):
    """Names declared ``global`` or ``nonlocal`` anywhere in ``fn_node``, as ``Activity.declared``.

    Only statements can declare: listing them is cheaper than what the function reads and writes.
    """
    return {
        name
        for stmt in walk.statements(fn_node.body)
        if isinstance(stmt, (gast.Global, gast.Nonlocal))
        for name in stmt.names
    }


def _names(symbols):
    return {s for s in symbols if s.isidentifier()}


class _Definedness:
    def __init__(self, activity):
        self.activity = activity
        self._assigned_by = {}  # id(statement) -> what _assigned found for it
        self._writes_of = {}  # id(statement or target) -> the local names it assigns

    def block(self, stmts, state):
        for stmt in stmts:
            state = _VISITS.get(type(stmt), _Definedness.simple)(self, stmt, state)
        return state

    def simple(self, node, state):
        definite, maybe = state
        anno.setanno(node, anno.Static.DEFINED_IN, definite)
        writes = self._writes(node)
        if isinstance(node, gast.Delete):
            return definite - writes, maybe - writes
        return definite | writes, maybe | writes

    def _writes(self, node):
        """The local names ``node`` (a statement taken as a whole, or a target) assigns; not to change."""
        known = self._writes_of.get(id(node))
        if known is None:
            known = self._writes_of[id(node)] = _names(self.activity.writes(node))
        return known

    def _annotate(self, node, state):
        anno.setanno(node, anno.Static.DEFINED_IN, set(state[0]))
        anno.setanno(node, anno.Static.MAYBE_DEFINED_IN, set(state[1]))

    def visit_FunctionDef(self, node, state):
        analyze(node, self.activity)
        return state[0] | {node.name}, state[1] | {node.name}

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_If(self, node, state):
        self._annotate(node, state)
        d1, m1 = self.block(node.body, state)
        d2, m2 = self.block(node.orelse, state)
        return d1 & d2, m1 | m2

    def _loop_body(self, body, state):
        # A later iteration starts with what earlier ones may have assigned.
        assigned = self._assigned(body)
        if assigned is None:  # a `del`: analyse the body once more to find out
            entry = state[1] | self.block(body, state)[1]
        else:
            entry = state[1] | assigned
        return self.block(body, (state[0], entry))[1]

    def _assigned(self, stmts):
        """The names ``stmts`` add to the maybe-defined ones on some path, or None if they delete.

        What a block may assign is what it adds, whatever came before, unless it
        deletes: a loop body need not be analysed twice to know it.
        """
        assigned = set()
        for stmt in stmts:
            known = self._assigned_by.get(id(stmt))
            if known is None:
                known = self._assigned_by[id(stmt)] = self._assigned_by_statement(stmt)
            if known is _DELETES:
                return None
            assigned |= known
        return assigned

    def _assigned_by_statement(self, node):
        # As block() adds to the maybe-defined names; a nested function adds only its name.
        cls = type(node)
        if cls is gast.Delete:
            return _DELETES
        if cls in (gast.FunctionDef, gast.AsyncFunctionDef):
            return {node.name}
        if cls not in _VISITS:
            return self._writes(node)
        assigned = set()
        if cls is gast.For:
            assigned |= self._writes(node.target)
        for item in node.items if cls is gast.With else ():
            if item.optional_vars is not None:
                assigned |= self._writes(item.optional_vars)
        for _, block in walk.child_blocks(node):
            found = self._assigned(block)
            if found is None:
                return _DELETES
            assigned |= found
        return assigned

    def visit_While(self, node, state):
        self._annotate(node, state)
        body_maybe = self._loop_body(node.body, state)
        return self.block(node.orelse, (state[0], state[1] | body_maybe))

    def visit_For(self, node, state):
        self._annotate(node, state)
        target = self._writes(node.target)
        body_maybe = self._loop_body(node.body, (state[0] | target, state[1] | target))
        return self.block(node.orelse, (state[0], state[1] | body_maybe | target))

    def visit_Try(self, node, state):
        maybe = set(state[1])
        for part in [node.body, node.orelse, node.finalbody] + [h.body for h in node.handlers]:
            maybe |= self.block(part, state)[1]
        definite = self.block(node.finalbody, state)[0] if node.finalbody else state[0]
        return definite, maybe

    def visit_With(self, node, state):
        targets = set()
        for item in node.items:
            if item.optional_vars is not None:
                targets |= self._writes(item.optional_vars)
        return self.block(node.body, (state[0] | targets, state[1] | targets))


_DELETES = frozenset({"<del>"})  # what _assigned_by_statement gives for a statement that deletes

_VISITS = {  # statement class -> its rule; the rest are simple statements
    gast.FunctionDef: _Definedness.visit_FunctionDef,
    gast.AsyncFunctionDef: _Definedness.visit_AsyncFunctionDef,
    gast.If: _Definedness.visit_If,
    gast.While: _Definedness.visit_While,
    gast.For: _Definedness.visit_For,
    gast.Try: _Definedness.visit_Try,
    gast.TryStar: _Definedness.visit_Try,  # except*: the same paths
    gast.With: _Definedness.visit_With,
}
