"""Listing the nodes of gast trees, several times as fast as ``gast.walk``, for passes that collect.

>>> import gast
>>> fn = gast.parse("def f(x):\\n    def g(y):\\n        return y\\n    return g(x)").body[0]
>>> sorted(n.id for n in nodes(fn) if isinstance(n, gast.Name))
['g', 'x', 'x', 'y', 'y']
>>> sorted(n.id for n in nodes(fn, into_scopes=False) if isinstance(n, gast.Name))
['g', 'x', 'x']
>>> [s.name for s in statements(fn.body) if isinstance(s, gast.FunctionDef)]
['g']
"""

from __future__ import annotations

import gast

_AST = gast.AST
_SCOPES = frozenset({gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda, gast.ClassDef})

LEAVES = frozenset(
    {gast.Constant}
    | {  # and every context and operator class, ast's and gast's
        cls
        for base in (gast.expr_context, gast.operator, gast.boolop, gast.unaryop, gast.cmpop)
        for cls in base.__subclasses__()
    }
)
"""Node classes that hold no other node: constants, contexts and operators."""

INNER = (
    frozenset(cls for cls in vars(gast).values() if isinstance(cls, type) and issubclass(cls, _AST))
    - LEAVES
)
"""Every other gast node class: those that may hold nodes."""

# Fields that never hold a node, or hold only leaves (contexts, operators).
_NOT_BRANCHES = frozenset(
    {"id", "attr", "arg", "asname", "module", "level", "kind", "type_comment", "simple"}
    | {"is_async", "conversion", "ctx", "op", "ops"}
)

BRANCHES = {}
"""Node class -> what ``branches`` gave for it: ``BRANCHES.get(cls) or branches(cls)`` in hot loops."""


def branches(cls):
    """The fields of ``cls``'s instances that may hold nodes other than leaves.

    >>> branches(gast.Name), branches(gast.BinOp), branches(gast.Constant)
    (('annotation',), ('left', 'right'), ())
    """
    fields = BRANCHES.get(cls)
    if fields is None:
        fields = () if cls in LEAVES else tuple(f for f in cls._fields if f not in _NOT_BRANCHES)
        BRANCHES[cls] = fields
    return fields


def nodes(tree, into_scopes=True):
    """``tree`` and every node it holds, in no particular order, leaves (``LEAVES``) excepted.

    With ``into_scopes=False``, the functions, lambdas and classes that
    ``tree`` holds are listed, but what they hold is not.
    """
    found = [tree]
    append = found.append
    fields_of = BRANCHES.get
    for node in found:  # grows while it is read
        cls = type(node)
        if not into_scopes and node is not tree and cls in _SCOPES:
            continue
        for field in fields_of(cls) or branches(cls):
            value = getattr(node, field, None)
            if type(value) is list:
                for item in value:
                    if isinstance(item, _AST) and type(item) not in LEAVES:
                        append(item)
            elif isinstance(value, _AST) and type(value) not in LEAVES:
                append(value)
    return found


def children(node):
    """The nodes ``node`` holds directly (as ``gast.iter_child_nodes``, as a list)."""
    found = []
    for field in node._fields:
        value = getattr(node, field, None)
        if type(value) is list:
            found += [item for item in value if isinstance(item, _AST)]
        elif isinstance(value, _AST):
            found.append(value)
    return found


def statements(block):
    """The statements of ``block`` and of every block they hold (nested functions too).

    Cheaper than listing every node, for what only statements can be
    (``def``, ``class``, ``global``, ``nonlocal``).
    """
    found = list(block)
    extend = found.extend
    for stmt in found:  # grows while it is read
        for field in ("body", "orelse", "finalbody"):
            value = getattr(stmt, field, None)
            if type(value) is list:
                extend(value)
        for clause in getattr(stmt, "handlers", None) or getattr(stmt, "cases", None) or ():
            extend(clause.body)
    return found
