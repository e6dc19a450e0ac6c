"""Which symbols a piece of code reads, writes and changes in place.

A symbol is a name (``x``) or a *composite* name on it, the units that
branches and loops carry: an attribute chain (``self.count``), a subscript by
a constant or a name (``x['b']``, ``y[0]``, ``x[k]``), and any mix of them
(``o.d['k']``, ``x[i].b``). Writing ``x['b'] = 1`` writes the symbol
``x['b']`` and reads its owners (``x``). A change made in place that no
symbol names (``lst.append(v)``, ``lst[i + 1] = v``, ``del d[k + 1]``)
*mutates* the nearest symbol: the container itself.

Nested functions, lambdas and comprehensions have scopes of their own: only
the outer symbols they use count, as reads (a nested ``def`` also writes its
own name, and its ``nonlocal`` names). The outer names that a function or a
lambda reads are also *captured*: a closure may read them whenever it is
called, so they are as good as read after every statement that follows. So are the names
a call is annotated to read (``reads_scope``): ``eval`` and ``locals()`` may read any.

>>> import gast
>>> r, w = reads_writes(gast.parse("self.total += x[i]").body[0])
>>> sorted(r), sorted(w)
(['i', 'self', 'self.total', 'x', 'x[i]'], ['self.total'])
>>> r, w = reads_writes(gast.parse("y = [k * z for k in ks]").body[0])
>>> sorted(r), sorted(w)
(['ks', 'z'], ['y'])
>>> r, w = reads_writes(gast.parse("x['a'][0] = v").body[0])
>>> sorted(r), sorted(w)
(['v', 'x', "x['a']"], ["x['a'][0]"])
>>> sorted(Activity().mutated(gast.parse("s += items.pop()").body[0]))
['items']
"""

from __future__ import annotations

import gast

from autograph.pyct import anno
from autograph.pyct.walk import BRANCHES, LEAVES, branches

# Methods that change a list, a dict or a set in place: calling one on a symbol mutates it.
MUTATORS = frozenset(
    {"append", "extend", "insert", "pop", "remove", "clear", "sort", "reverse"}
    | {"update", "setdefault", "popitem", "add", "discard"}
)
_READING_MUTATORS = frozenset({"pop", "popitem", "setdefault"})


def symbol(node):
    """The symbol ``node`` names (``"a.b[0]"``), or None for an expression that names none."""
    cls = type(node)
    if cls is gast.Name:
        return node.id
    if cls is gast.Attribute:
        base = symbol(node.value)
        return None if base is None else f"{base}.{node.attr}"
    if cls is gast.Subscript:
        key = _key(node.slice)
        base = symbol(node.value) if key is not None else None
        return None if base is None else f"{base}[{key}]"
    return None


def _key(node):
    """The text of a subscript's key that a symbol can hold: a name, or a str or int constant."""
    cls = type(node)
    if cls is gast.Name:
        return node.id
    if cls is gast.Constant:
        value = node.value
        if type(value) is str or type(value) is int:
            return repr(value)
    elif cls is gast.UnaryOp and isinstance(node.op, gast.USub):
        operand = node.operand
        if type(operand) is gast.Constant and type(operand.value) is int:
            return repr(-operand.value)
    return None


def is_composite(sym):
    """Whether ``sym`` names a part of an object (``a.b``, ``x[0]``) rather than a variable."""
    return not sym.isidentifier()


def base_name(sym):
    """The variable a symbol starts from: ``x`` for ``x['a'].b``."""
    for i, char in enumerate(sym):
        if char == "." or char == "[":
            return sym[:i]
    return sym


def _composite_reads(node):
    """What naming the composite ``node`` reads: its owners (``x``, ``x['a']`` of ``x['a'][0]``)
    and the names its subscripts use as keys."""
    found = []
    while True:
        cls = type(node)
        if cls is gast.Subscript:
            if type(node.slice) is gast.Name:
                found.append(node.slice.id)
        elif cls is not gast.Attribute:
            return found
        node = node.value
        found.append(symbol(node))


def _called(func):
    """What a call calls: ``l.append`` of ``ag__.call(l.append)(x)`` too (calls converted first)."""
    if (
        type(func) is gast.Call
        and len(func.args) == 1
        and type(func.func) is gast.Attribute
        and func.func.attr == "call"
        and type(func.func.value) is gast.Name
        and func.func.value.id == "ag__"
    ):
        return func.args[0]
    return func


def _local_names(writes, declared):
    return {w for w in writes if not is_composite(w)} - declared


class _Found:
    """What a piece of code reads, writes and mutates, the outer names its closures capture, and
    the names it declares global or nonlocal."""

    __slots__ = ("reads", "writes", "mutated", "captured", "declared")

    def __init__(self):
        self.reads, self.writes, self.mutated = set(), set(), set()
        self.captured, self.declared = set(), set()

    def add(self, other):
        self.reads |= other.reads
        self.writes |= other.writes
        self.mutated |= other.mutated
        self.captured |= other.captured
        self.declared |= other.declared

    def nested_scope(self, own_names, inner, name=None, closure=True):
        """Adds what a scope (function, lambda, class) whose code did ``inner`` does outside it.

        A ``closure`` (a function or a lambda, not a class body) captures every outer name it reads.
        """
        local = own_names | _local_names(inner.writes, inner.declared)
        outer = {r for r in inner.reads if base_name(r) not in local}
        self.reads |= outer
        self.writes |= {w for w in inner.writes if base_name(w) in inner.declared}
        self.captured |= outer if closure else {c for c in inner.captured if c not in local}
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

    def facts(self, node):
        """What ``node`` reads, writes, mutates, captures (``.reads``, ...): sets not to change."""
        return self._found(node)

    def _found(self, node):
        if isinstance(node, gast.stmt):
            return self._statement(node)
        found = _Found()
        for n in node if isinstance(node, list) else [node]:
            self._collect(n, found)
        return found

    def reads_writes(self, node):
        """(reads, writes) of a statement, an expression or a list of them, as new sets."""
        found = self._found(node)
        return set(found.reads), set(found.writes)

    def reads(self, node):
        return set(self._found(node).reads)

    def writes(self, node):
        return set(self._found(node).writes)

    def mutated(self, node):
        """The symbols whose objects ``node`` changes in place without assigning them."""
        return set(self._found(node).mutated)

    def captured(self, node):
        """The outer names that closures (functions, lambdas) defined in ``node`` read."""
        return set(self._found(node).captured)

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

    def _composite(self, node, found):
        """An attribute or a subscript: a symbol's read or write, or a change of its owner."""
        sym = symbol(node)
        if sym is None:
            owner = symbol(node.value) if type(node.ctx) is not gast.Load else None
            if owner is None:
                self._children(node, found)
                return
            # x[i + 1] = v, del x[1:]: a change of x in place, as with a method
            found.mutated.add(owner)
            if type(node.value) is not gast.Name:
                found.reads.update(_composite_reads(node.value))
            self._collect(node.slice, found)
            return
        found.reads.update(_composite_reads(node))
        if type(node.ctx) is gast.Load:
            found.reads.add(sym)
        else:
            found.writes.add(sym)

    def _aug_assign(self, node, found):
        self._collect(node.value, found)
        target = symbol(node.target)
        if target is None:
            self._collect(node.target, found)  # its parts are read; its owner changes
        else:
            if type(node.target) is not gast.Name:
                found.reads.update(_composite_reads(node.target))
            found.reads.add(target)
            found.writes.add(target)

    def _call(self, node, found):
        found.reads.update(anno.getanno(node, anno.Basic.READS_SCOPE, ()))
        func = _called(node.func)
        owner = (
            symbol(func.value) if type(func) is gast.Attribute and func.attr in MUTATORS else None
        )
        if owner is None:
            self._children(node, found)
            return
        # A change in place is no read of the container's contents (a list only appended to
        # is dead unless something reads it later), but for those that return some.
        found.mutated.add(owner)
        if func.attr in _READING_MUTATORS:
            found.reads.add(owner)
        if type(func.value) is not gast.Name:
            found.reads.update(_composite_reads(func.value))
        self._collect_all(node.args, found)
        self._collect_all(node.keywords, found)

    def _function(self, node, found):
        args = node.args
        self._collect_all(node.decorator_list + args.defaults + args.kw_defaults, found)
        inner = _Found()
        self._collect_all(node.body, inner)
        found.nested_scope(parameters(args), inner, node.name)

    def _class(self, node, found):
        self._collect_all(node.decorator_list + node.bases + node.keywords, found)
        inner = _Found()
        self._collect_all(node.body, inner)
        found.nested_scope(set(), inner, node.name, closure=False)

    def _declaration(self, node, found):
        found.declared.update(node.names)

    def _lambda(self, node, found):
        self._collect_all(node.args.defaults + node.args.kw_defaults, found)
        inner = _Found()
        self._collect(node.body, inner)
        # The lambdas conversion makes (``ag__.and_(a, lambda: b)``) are called where they are.
        closure = not anno.getanno(node, anno.Basic.IMMEDIATE, False)
        found.nested_scope(parameters(node.args, posonly=False), inner, closure=closure)

    def _comprehension(self, node, found):
        self._collect(node.generators[0].iter, found)  # evaluated in the enclosing scope
        inner = _Found()
        for i, gen in enumerate(node.generators):
            self._collect_all([gen.target, gen.iter if i else None, *gen.ifs], inner)
        if isinstance(node, gast.DictComp):
            self._collect_all([node.key, node.value], inner)
        else:
            self._collect(node.elt, inner)
        local = _local_names(inner.writes, set())
        outer = {r for r in inner.reads if base_name(r) not in local}
        found.reads |= outer
        found.mutated |= {m for m in inner.mutated if base_name(m) not in local}
        # A generator runs when it is consumed, later: it captures what it reads.
        lazy = isinstance(node, gast.GeneratorExp)
        found.captured |= outer if lazy else {c for c in inner.captured if c not in local}


def parameters(args, posonly=True):
    """The names a function's (or, without ``posonly``, a lambda's) parameters bind."""
    params = args.args + args.kwonlyargs + (args.posonlyargs if posonly else [])
    names = {a.id for a in params}
    return names | {a.id for a in (args.vararg, args.kwarg) if a is not None}


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
    gast.Attribute: Activity._composite,
    gast.Subscript: Activity._composite,
    gast.Call: Activity._call,
    gast.Lambda: Activity._lambda,
    gast.ListComp: Activity._comprehension,
    gast.SetComp: Activity._comprehension,
    gast.GeneratorExp: Activity._comprehension,
    gast.DictComp: Activity._comprehension,
}


def reads_writes(node):
    """(reads, writes) of a statement or expression, descending into everything it holds."""
    return Activity().reads_writes(node)
