"""Tells ``ag__.eval_``, ``exec_``, ``locals_``, ``vars_`` and ``dir_`` where the user's scope is.

The call converter makes ``eval(s)`` into ``ag__.eval_(s)``; the control-flow and logic
converters may then put it inside functions of their own (``if_true``, the lambdas of
``and``). After them, each such call is told how many of those stand between it and the
user's own function, lambda or comprehension (``depth=``), whose variables it must see
(``operators/original_scope.py``):

    def f(c):                        def f(c):
        y = 4                            y = 4
        if c:                 ->         def if_true():
            z = eval("y")                    nonlocal z
        ...                                  z = ag__.eval_('y', depth=1)
"""

from __future__ import annotations

import types

import gast

from autograph.converters.base import SCOPED_COMPREHENSIONS, new_node
from autograph.operators.original_scope import OVERRIDES
from autograph.pyct import anno, walk

_SCOPES = (gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda)
_COMPREHENSIONS = SCOPED_COMPREHENSIONS
_OPERATORS = frozenset(override.__name__ for override in OVERRIDES.values())
_BUILTIN_NAMES = frozenset(builtin.__name__ for builtin in OVERRIDES)


def calls_scope_builtins(fn):
    """Whether the code of ``fn`` names ``eval``, ``exec``, ``locals``, ``vars`` or ``dir``
    (called, taken as a value, or as an attribute): only then is there anything to do."""
    codes = [fn.__code__]
    for code in codes:  # grows while it is read
        if _BUILTIN_NAMES.intersection(code.co_names):
            return True
        codes += [c for c in code.co_consts if isinstance(c, types.CodeType)]
    return False


def mark_user_scopes(fn_node):
    """Marks the scopes the user wrote, before conversion adds its own."""
    for node in walk.nodes(fn_node):
        if isinstance(node, (*_SCOPES, *_COMPREHENSIONS)):
            anno.setanno(node, "user_scope", True)


def transform(fn_node):
    """Gives each scope builtin's call the number of functions conversion made around it."""
    stack = [(fn_node, 0)]
    while stack:  # not recursive: an `and` chain of hundreds nests as deep
        node, depth = stack.pop()
        for child in walk.children(node):
            inner = depth
            if isinstance(child, (*_SCOPES, *_COMPREHENSIONS)):
                inner = 0 if anno.getanno(child, "user_scope") else depth + 1
            elif depth and _is_scope_operator(child):
                constant = new_node(gast.Constant, value=depth, kind=None)
                child.keywords.append(gast.keyword(arg="depth", value=constant))
            stack.append((child, inner))
    return fn_node


def _is_scope_operator(node):
    func = getattr(node, "func", None) if isinstance(node, gast.Call) else None
    return (
        isinstance(func, gast.Attribute)
        and func.attr in _OPERATORS
        and isinstance(func.value, gast.Name)
        and func.value.id == "ag__"
    )
