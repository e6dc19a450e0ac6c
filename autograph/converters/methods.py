"""What compiling a method inside its class gives it, which its converted code, compiled
outside the class, must be given: private names mangled, and zero-argument ``super()``.

    class Counter(Base):                         (converted)
        def add(self, x):                    def add(self, x):
            self.__n += x           ->           self._Counter__n += x
            return super().add(x)                return super(__class__, self).add(x)

``__class__`` is the cell Python made for the method (its closure holds it), so the
converted code finds the class the method was defined in, as ``super()`` does.
"""

from __future__ import annotations

import builtins

import gast

from autograph.converters.base import SCOPED_COMPREHENSIONS, name
from autograph.pyct import walk
from autograph.pyct.naming import code_names

_SCOPES = (gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda)


def transform(fn_node, fn, ctx):
    """Mangles the private names of ``fn_node`` (the tree of ``fn``) as Python did when it
    compiled ``fn`` in its class, and gives its ``super()`` calls their two arguments."""
    class_name = _mangling_class(fn, fn_node)
    if class_name is not None:
        _mangle(fn_node, class_name)
    if "__class__" in fn.__code__.co_freevars and _super_is_builtin(fn, ctx):
        _explicit_super(fn_node, None)
    return fn_node


def mangled(identifier, class_name):
    """``identifier`` as Python names it in the body of class ``class_name``.

    >>> mangled("__n", "Counter"), mangled("__init__", "Counter"), mangled("__n", "_Hidden")
    ('_Counter__n', '__init__', '_Hidden__n')
    """
    stripped = class_name.lstrip("_")
    if not _is_private(identifier) or not stripped:
        return identifier
    return f"_{stripped}{identifier}"


def _is_private(identifier):
    return (
        identifier is not None
        and identifier.startswith("__")
        and not identifier.endswith("__")
        and "." not in identifier
    )


# --- mangling -------------------------------------------------------------------------------


def _mangling_class(fn, fn_node):
    """The class whose body defined ``fn``, if Python mangled ``fn``'s private names with it.

    The qualified name says which class encloses ``fn``; the compiled code confirms that its
    names were mangled (a wrapper given a method's ``__qualname__`` was not).
    """
    class_name = _enclosing_class(fn.__qualname__)
    if class_name is None:
        return None
    private = {i for i in _identifiers(fn_node) if _is_private(i)}
    compiled = code_names(fn.__code__)
    if any(mangled(i, class_name) in compiled for i in private):
        return class_name
    return None


def _enclosing_class(qualname):
    """The innermost class in ``qualname``: a part followed by a member, not by ``<locals>``.

    >>> _enclosing_class("Model.call"), _enclosing_class("Model.call.<locals>.step")
    ('Model', 'Model')
    >>> print(_enclosing_class("train.<locals>.step"))
    None
    """
    parts = qualname.split(".")
    for i in range(len(parts) - 2, -1, -1):
        if parts[i] != "<locals>" and parts[i + 1] != "<locals>":
            return parts[i]
    return None


# Node class -> the fields that hold identifiers Python mangles (not a call's keywords, nor a
# class pattern's attributes: Python leaves those as written).
_NAMED_FIELDS = {
    gast.Name: ("id",),
    gast.Attribute: ("attr",),
    gast.FunctionDef: ("name",),
    gast.AsyncFunctionDef: ("name",),
    gast.ClassDef: ("name",),
    gast.Global: ("names",),
    gast.Nonlocal: ("names",),
    gast.MatchAs: ("name",),
    gast.MatchStar: ("name",),
    gast.MatchMapping: ("rest",),
}


def _identifiers(tree):
    for node in walk.nodes(tree):
        for field in _NAMED_FIELDS.get(type(node), ()):
            value = getattr(node, field, None)
            yield from value if isinstance(value, list) else [value]


def _mangle(tree, class_name):
    """Renames the private identifiers of ``tree``; a class defined inside mangles its own
    body with its own name, as Python does."""
    for node in walk.nodes(tree, into_scopes=False):
        nested = node is not tree and isinstance(node, (*_SCOPES, gast.ClassDef))
        parts = _scope_parts(node, class_name) if nested else ()  # a class's name as written
        for field in _NAMED_FIELDS.get(type(node), ()):
            value = getattr(node, field, None)
            if isinstance(value, list):
                setattr(node, field, [mangled(v, class_name) for v in value])
            elif value is not None:
                setattr(node, field, mangled(value, class_name))
        for part, owner in parts:
            _mangle(part, owner)


def _scope_parts(scope, class_name):
    """(part, the class that mangles it) for what a nested scope holds: a class body is its
    own class's; its bases and decorators, like a function's, are the enclosing class's."""
    if isinstance(scope, gast.Lambda):
        return [(scope.args, class_name), (scope.body, class_name)]
    outer = [*scope.decorator_list]
    if isinstance(scope, gast.ClassDef):
        outer += [*scope.bases, *scope.keywords]
        return [(p, class_name) for p in outer] + [(s, scope.name) for s in scope.body]
    outer += [scope.args, *scope.body] + ([scope.returns] if scope.returns else [])
    return [(p, class_name) for p in outer]


# --- super() --------------------------------------------------------------------------------


def _super_is_builtin(fn, ctx):
    """Whether ``super`` in ``fn`` is the builtin: not a name ``fn`` binds, nor shadowed."""
    found, value = ctx.resolve(name("super"))
    locally_bound = "super" in fn.__code__.co_varnames or "super" in fn.__code__.co_cellvars
    return found and value is builtins.super and not locally_bound


def _explicit_super(node, first_parameter):
    """Gives every ``super()`` in ``node`` the class and the first parameter of its scope."""
    if isinstance(node, _SCOPES):
        positional = node.args.posonlyargs + node.args.args
        first_parameter = positional[0].id if positional else None
    for child in walk.children(node):
        if isinstance(child, SCOPED_COMPREHENSIONS):
            continue  # a scope of its own: ``super()`` there is Python's to refuse
        if _is_bare_super(child) and first_parameter is not None:
            child.args = [name("__class__"), name(first_parameter)]
        _explicit_super(child, first_parameter)


def _is_bare_super(node):
    return (
        isinstance(node, gast.Call)
        and isinstance(node.func, gast.Name)
        and node.func.id == "super"
        and not node.args
        and not node.keywords
    )
