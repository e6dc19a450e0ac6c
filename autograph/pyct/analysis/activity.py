"""Which symbols a piece of code reads and writes.

A symbol is a name (``x``) or an attribute chain on a name (``self.count``),
the units that branches and loops carry. Nested functions, lambdas and
comprehensions have scopes of their own: only the outer symbols they use count,
as reads (a nested ``def`` also writes its own name, and its ``nonlocal`` names).

>>> import gast
>>> r, w = reads_writes(gast.parse("self.total += x[i]").body[0])
>>> sorted(r), sorted(w)
(['i', 'self', 'self.total', 'x'], ['self.total'])
>>> r, w = reads_writes(gast.parse("y = [k * z for k in ks]").body[0])
>>> sorted(r), sorted(w)
(['ks', 'z'], ['y'])
"""

from __future__ import annotations

import gast

from autograph.pyct import anno


def symbol(node):
    """``"a.b.c"`` for a Name or an attribute chain on a Name, else None."""
    if isinstance(node, gast.Name):
        return node.id
    if isinstance(node, gast.Attribute):
        base = symbol(node.value)
        return None if base is None else f"{base}.{node.attr}"
    return None


def _prefixes(sym):
    parts = sym.split(".")
    return {".".join(parts[: i + 1]) for i in range(len(parts))}


class _Activity(gast.NodeVisitor):
    def __init__(self):
        self.reads = set()
        self.writes = set()

    def visit_Name(self, node):
        if isinstance(node.ctx, gast.Load):
            self.reads.add(node.id)
        elif isinstance(node.ctx, (gast.Store, gast.Param)):
            self.writes.add(node.id)
        elif isinstance(node.ctx, gast.Del):
            self.reads.add(node.id)
            self.writes.add(node.id)

    def visit_Attribute(self, node):
        sym = symbol(node)
        if sym is None:
            self.generic_visit(node)
            return
        if isinstance(node.ctx, gast.Load):
            self.reads |= _prefixes(sym)
        else:
            self.writes.add(sym)
            self.reads |= _prefixes(sym) - {sym}

    def visit_AugAssign(self, node):
        self.visit(node.value)
        target = symbol(node.target)
        if target is not None:
            self.reads |= _prefixes(target)
            self.writes.add(target)
        else:
            self.visit(node.target)

    def _nested_scope(self, node, own_names, body_nodes):
        inner = _Activity()
        for child in body_nodes:
            inner.visit(child)
        local = own_names | {w for w in inner.writes if "." not in w} - _declared(node)
        self.reads |= {r for r in inner.reads if r.split(".")[0] not in local}
        self.writes |= {w for w in inner.writes if w.split(".")[0] in _declared(node)}

    def visit_FunctionDef(self, node):
        for d in node.decorator_list + node.args.defaults + node.args.kw_defaults:
            if d is not None:
                self.visit(d)
        params = {a.id for a in node.args.args + node.args.kwonlyargs + node.args.posonlyargs}
        params |= {a.id for a in (node.args.vararg, node.args.kwarg) if a is not None}
        self._nested_scope(node, params, node.body)
        self.writes.add(node.name)

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_Lambda(self, node):
        for d in node.args.defaults:
            self.visit(d)
        params = {a.id for a in node.args.args + node.args.kwonlyargs}
        params |= {a.id for a in (node.args.vararg, node.args.kwarg) if a is not None}
        self._nested_scope(node, params, [node.body])

    def visit_ClassDef(self, node):
        for d in node.decorator_list + node.bases:
            self.visit(d)
        self._nested_scope(node, set(), node.body)
        self.writes.add(node.name)

    def _comprehension(self, node, parts):
        self.visit(node.generators[0].iter)  # evaluated in the enclosing scope
        inner = _Activity()
        for i, gen in enumerate(node.generators):
            inner.visit(gen.target)
            if i:
                inner.visit(gen.iter)
            for cond in gen.ifs:
                inner.visit(cond)
        for part in parts:
            inner.visit(part)
        local = {w for w in inner.writes if "." not in w}
        self.reads |= {r for r in inner.reads if r.split(".")[0] not in local}

    def visit_ListComp(self, node):
        self._comprehension(node, [node.elt])

    visit_SetComp = visit_GeneratorExp = visit_ListComp

    def visit_DictComp(self, node):
        self._comprehension(node, [node.key, node.value])

    def visit_Global(self, node):
        pass

    visit_Nonlocal = visit_Global


def _declared(node):
    """Names a nested scope declares nonlocal or global: writes to them reach outside."""
    names = set()
    for child in gast.walk(node):
        if isinstance(child, (gast.Nonlocal, gast.Global)):
            names |= set(child.names)
    return names


def reads_writes(node):
    """(reads, writes) of a statement or expression, descending into everything it holds.

    Results are remembered on the node: the analyses and the control-flow
    converter ask about the same subtrees many times, and do not modify them.
    """
    if isinstance(node, list):
        reads, writes = set(), set()
        for n in node:
            r, w = reads_writes(n)
            reads |= r
            writes |= w
        return reads, writes
    cached = anno.getanno(node, "activity")
    if cached is None:
        activity = _Activity()
        activity.visit(node)
        cached = (frozenset(activity.reads), frozenset(activity.writes))
        anno.setanno(node, "activity", cached)
    return set(cached[0]), set(cached[1])


def reads(node):
    return reads_writes(node)[0]


def writes(node):
    return reads_writes(node)[1]
