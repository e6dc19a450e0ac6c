"""Listing the nodes of gast trees, about twice as fast as ``gast.walk``, for passes that collect.

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
_SCOPES = (gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda, gast.ClassDef)


def nodes(tree, into_scopes=True):
    """``tree`` and every node it holds, in no particular order.

    With ``into_scopes=False``, the functions, lambdas and classes that
    ``tree`` holds are listed, but what they hold is not.
    """
    found = [tree]
    append = found.append
    for node in found:  # grows while it is read
        if not into_scopes and node is not tree and isinstance(node, _SCOPES):
            continue
        for field in node._fields:
            value = getattr(node, field, None)
            if type(value) is list:
                for item in value:
                    if isinstance(item, _AST):
                        append(item)
            elif isinstance(value, _AST):
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
