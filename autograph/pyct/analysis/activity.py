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

from autograph.pyct.walk import BRANCHES, LEAVES, branches


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


def _base(sym):
    return sym.split(".", 1)[0]


def _parameters(args, posonly=True):
    params = args.args + args.kwonlyargs + (args.posonlyargs if posonly else [])
    names = {a.id for a in params}
    return names | {a.id for a in (args.vararg, args.kwarg) if a is not None}


class _Found:
    """What a piece of code reads and writes, and the names it declares global or nonlocal."""

    __slots__ = ("reads", "writes", "declared")

    def __init__(self):
        self.reads, self.writes, self.declared = set(), set(), set()

    def add(self, other):
        self.reads |= other.reads
        self.writes |= other.writes
        self.declared |= other.declared

    def nested_scope(self, own_names, inner, name=None):
        """Adds what a scope (function, lambda, class) whose code did ``inner`` does outside it."""
        local = own_names | {w for w in inner.writes if "." not in w} - inner.declared
        self.reads |= {r for r in inner.reads if _base(r) not in local}
        self.writes |= {w for w in inner.writes if _base(w) in inner.declared}
        self.declared |= inner.declared
        if name is not None:
            self.writes.add(name)


class Activity:
    """Reads and writes of code, each statement's found once from what it holds.

    It remembers every statement it was asked about (and those they hold), and
    answers about them as they were then: the analyses of one conversion, and
    the converters after them, share one, and ask it about the code as the
    user wrote it.

    >>> import gast
    >>> loop = gast.parse("while c:\\n    x = 1").body[0]
    >>> activity = Activity()
    >>> sorted(activity.writes(loop))
    ['x']
    >>> loop.body += gast.parse("y = 2").body
    >>> sorted(activity.writes(loop))  # as it was when first asked
    ['x']
    """

    def __init__(self):
        self._facts = {}  # id(statement) -> (statement, _Found); holding it keeps its id unique

    def reads_writes(self, node):
        """(reads, writes) of a statement, an expression or a list of them, as new sets."""
        if isinstance(node, gast.stmt):
            known = self._statement(node)
            return set(known.reads), set(known.writes)
        found = _Found()
        for n in node if isinstance(node, list) else [node]:
            self._collect(n, found)
        return found.reads, found.writes

    def reads(self, node):
        if isinstance(node, gast.stmt):  # the common case: only the set asked for is copied
            return set(self._statement(node).reads)
        return self.reads_writes(node)[0]

    def writes(self, node):
        if isinstance(node, gast.stmt):
            return set(self._statement(node).writes)
        return self.reads_writes(node)[1]

    def declared(self, node):
        """Names declared ``global`` or ``nonlocal`` anywhere in ``node``, nested functions too."""
        found = _Found()
        self._collect(node, found)
        return found.declared

    def _statement(self, node):
        known = self._facts.get(id(node))
        if known is not None:
            return known[1]
        found = _Found()
        rule = _STATEMENT_RULES.get(type(node))
        if rule is not None:
            rule(self, node, found)
        else:
            self._children(node, found)
        self._facts[id(node)] = (node, found)  # only ever added to others, never changed
        return found

    def _collect(self, node, found):
        """Adds the facts of ``node``: remembered for a statement, found afresh for the rest."""
        cls = type(node)
        if cls is gast.Name:  # the most common node, by far
            self._name(node, found)
        elif isinstance(node, gast.stmt):
            found.add(self._statement(node))
        else:
            rule = _EXPRESSION_RULES.get(cls)
            if rule is not None:
                rule(self, node, found)
            else:
                self._children(node, found)

    def _collect_all(self, nodes, found):
        for node in nodes:
            if node is not None:
                self._collect(node, found)

    def _children(self, node, found):
        # Leaves (constants, contexts, operators) read and write nothing.
        for field in BRANCHES.get(type(node)) or branches(type(node)):
            value = getattr(node, field, None)
            if type(value) is list:
                for item in value:
                    if isinstance(item, gast.AST) and type(item) not in LEAVES:
                        self._collect(item, found)
            elif isinstance(value, gast.AST) and type(value) not in LEAVES:
                self._collect(value, found)

    def _name(self, node, found):
        ctx = type(node.ctx)
        if ctx is gast.Load or ctx is gast.Del:
            found.reads.add(node.id)
        if ctx is not gast.Load:
            found.writes.add(node.id)

    def _attribute(self, node, found):
        sym = symbol(node)
        if sym is None:
            self._children(node, found)
        elif isinstance(node.ctx, gast.Load):
            found.reads |= _prefixes(sym)
        else:
            found.writes.add(sym)
            found.reads |= _prefixes(sym) - {sym}

    def _aug_assign(self, node, found):
        self._collect(node.value, found)
        target = symbol(node.target)
        if target is None:
            self._collect(node.target, found)
        else:
            found.reads |= _prefixes(target)
            found.writes.add(target)

    def _function(self, node, found):
        args = node.args
        self._collect_all(node.decorator_list + args.defaults + args.kw_defaults, found)
        inner = _Found()
        self._collect_all(node.body, inner)
        found.nested_scope(_parameters(args), inner, node.name)

    def _class(self, node, found):
        self._collect_all(node.decorator_list + node.bases, found)
        inner = _Found()
        self._collect_all(node.body, inner)
        found.nested_scope(set(), inner, node.name)

    def _declaration(self, node, found):
        found.declared.update(node.names)

    def _lambda(self, node, found):
        self._collect_all(node.args.defaults, found)
        inner = _Found()
        self._collect(node.body, inner)
        found.nested_scope(_parameters(node.args, posonly=False), inner)

    def _comprehension(self, node, found):
        self._collect(node.generators[0].iter, found)  # evaluated in the enclosing scope
        inner = _Found()
        for i, gen in enumerate(node.generators):
            self._collect_all([gen.target, gen.iter if i else None, *gen.ifs], inner)
        if isinstance(node, gast.DictComp):
            self._collect_all([node.key, node.value], inner)
        else:
            self._collect(node.elt, inner)
        local = {w for w in inner.writes if "." not in w}
        found.reads |= {r for r in inner.reads if _base(r) not in local}


_STATEMENT_RULES = {
    gast.AugAssign: Activity._aug_assign,
    gast.FunctionDef: Activity._function,
    gast.AsyncFunctionDef: Activity._function,
    gast.ClassDef: Activity._class,
    gast.Global: Activity._declaration,
    gast.Nonlocal: Activity._declaration,
}

_EXPRESSION_RULES = {
    gast.Name: Activity._name,
    gast.Attribute: Activity._attribute,
    gast.Lambda: Activity._lambda,
    gast.ListComp: Activity._comprehension,
    gast.SetComp: Activity._comprehension,
    gast.GeneratorExp: Activity._comprehension,
    gast.DictComp: Activity._comprehension,
}


def reads_writes(node):
    """(reads, writes) of a statement or expression, descending into everything it holds."""
    return Activity().reads_writes(node)
