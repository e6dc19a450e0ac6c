"""Tells ``ag__.eval_``, ``exec_``, ``locals_``, ``vars_`` and ``dir_`` where the user's scope is.

The call converter makes ``eval(s)`` into ``ag__.eval_(s)``; the control-flow and logic
converters may then put it inside functions of their own (``if_true``, the lambdas of
``and``). After them, each such call is told how many of those stand between it and the
user's own function, lambda, class body or comprehension (``depth=``), whose variables it
must see (``operators/original_scope.py``). What Python evaluates where such a scope is
defined (defaults, decorators, bases, a comprehension's first iterable) counts as the
enclosing scope's code:

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
from autograph.pyct.naming import code_names

# Each of these runs in a frame of its own; a class body, too.
_SCOPES = (
    gast.FunctionDef,
    gast.AsyncFunctionDef,
    gast.Lambda,
    gast.ClassDef,
    *SCOPED_COMPREHENSIONS,
)
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
        if isinstance(node, _SCOPES):
            anno.setanno(node, anno.Basic.USER_SCOPE, True)


def share_variables(fn_node):
    """Marks each scope builtin's call with the variables of its user scope that it may read,
    before the analyses, which count them as read there (``reads_scope``).

    So a branch or loop that assigns one carries it, although no code reads it but the
    string that ``eval`` runs. Only the names that a constant string names are read; any
    other string, and ``locals()``, may read every variable.
    """
    for scope in walk.nodes(fn_node):
        if not (isinstance(scope, _SCOPES) and anno.getanno(scope, anno.Basic.USER_SCOPE)):
            continue
        own = _evaluated_in(scope)
        names = frozenset(_bound_names(own)) | _parameters(scope)
        for node in own:
            if _is_scope_operator(node):
                anno.setanno(node, anno.Basic.READS_SCOPE, _read_by(node, names))


def _evaluated_in(scope):
    """The nodes that Python evaluates in ``scope``'s own frame: not those of the user scopes
    it holds, but their parts evaluated where they are defined (``_outer_parts``)."""
    found = _inner_parts(scope)
    for node in found:  # grows while it is read
        inner_scope = isinstance(node, _SCOPES) and anno.getanno(node, anno.Basic.USER_SCOPE)
        found += _outer_parts(node) if inner_scope else walk.children(node)
    return found


def _outer_parts(scope):
    """What Python evaluates in the scope around ``scope``, where it is defined: the defaults
    of a function or lambda, decorators, annotations, a class's bases and keywords, and the
    first iterable of a comprehension."""
    if isinstance(scope, gast.ClassDef):
        return [*scope.decorator_list, *scope.bases, *scope.keywords]
    if isinstance(scope, (gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda)):
        args = scope.args
        defaults = [*args.defaults, *(d for d in args.kw_defaults if d is not None)]
        if isinstance(scope, gast.Lambda):
            return defaults
        params = [*args.posonlyargs, *args.args, args.vararg, *args.kwonlyargs, args.kwarg]
        notes = [p.annotation for p in params if p is not None and p.annotation is not None]
        returns = [scope.returns] if scope.returns is not None else []
        return [*scope.decorator_list, *defaults, *notes, *returns]
    return [scope.generators[0].iter]


def _inner_parts(scope):
    """What Python evaluates in ``scope``'s own frame, at its top level (``_outer_parts``)."""
    if isinstance(scope, gast.Lambda):
        return [scope.body]
    if isinstance(scope, (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef)):
        return list(scope.body)
    first, *others = scope.generators
    parts = [first.target, *first.ifs]
    for generator in others:
        parts += [generator.target, generator.iter, *generator.ifs]
    if isinstance(scope, gast.DictComp):
        return [*parts, scope.key, scope.value]
    return [*parts, scope.elt]


def _parameters(scope):
    args = getattr(scope, "args", None)
    if not isinstance(args, gast.arguments):
        return frozenset()
    params = [*args.posonlyargs, *args.args, args.vararg, *args.kwonlyargs, args.kwarg]
    return frozenset(p.id for p in params if p is not None)


def _read_by(call, names):
    """The variables among ``names`` that ``call``, of a scope builtin, may read."""
    if call.func.attr not in ("eval_", "exec_"):
        return frozenset() if call.args else names  # vars(obj) and dir(obj) read no variable
    if not call.args or call.keywords or _has_namespaces(call.args[1:]):
        return frozenset()  # namespaces of its own
    source = call.args[0]
    if not (isinstance(source, gast.Constant) and isinstance(source.value, str)):
        return names
    try:
        code = compile(source.value, "<string>", "eval" if call.func.attr == "eval_" else "exec")
    except SyntaxError:
        return frozenset()  # it raises when it runs, as in Python
    return names & code_names(code)


def _has_namespaces(args):
    return any(not (isinstance(a, gast.Constant) and a.value is None) for a in args)


def _bound_names(nodes):
    for node in nodes:
        if isinstance(node, gast.Name) and not isinstance(node.ctx, gast.Load):
            yield node.id
        elif isinstance(node, (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef)):
            yield node.name
        elif isinstance(node, gast.alias):
            yield node.asname or node.name.partition(".")[0]


def transform(fn_node):
    """Gives each scope builtin's call the number of functions conversion made around it."""
    stack = [(part, 0) for part in _inner_parts(fn_node)]
    while stack:  # not recursive: an `and` chain of hundreds nests as deep
        node, depth = stack.pop()
        if isinstance(node, _SCOPES):
            inner = 0 if anno.getanno(node, anno.Basic.USER_SCOPE) else depth + 1
            stack += [(part, depth) for part in _outer_parts(node)]
            stack += [(part, inner) for part in _inner_parts(node)]
            continue
        if depth and _is_scope_operator(node):
            constant = new_node(gast.Constant, value=depth, kind=None)
            node.keywords.append(gast.keyword(arg="depth", value=constant))
        stack += [(child, depth) for child in walk.children(node)]
    return fn_node


def _is_scope_operator(node):
    func = getattr(node, "func", None) if isinstance(node, gast.Call) else None
    return (
        isinstance(func, gast.Attribute)
        and func.attr in _OPERATORS
        and isinstance(func.value, gast.Name)
        and func.value.id == "ag__"
    )
