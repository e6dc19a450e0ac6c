"""Calls to user functions go through ``ag__.call(f)(...)``, which converts ``f`` when called.

What can be resolved when converting, and needs no conversion, is left as it
is: builtins, classes, and functions of ``runtime``, ``autograph``, numpy and
the standard library. The builtins that AutoGraph overloads (``range``, ``len``,
``int``, ``max``...) become their ``ag__`` versions, which also take symbolic
tensors; ``print`` does only with the optional feature BUILTIN_FUNCTIONS, as in
TensorFlow (``autograph.impl.features``).
"""

from __future__ import annotations

import builtins
import functools
import inspect

import gast

from autograph.converters.base import Rewriter, ag_attribute, ag_call
from autograph.operators.py_builtins import override_of
from autograph.pyct import walk
from autograph.pyct.library_code import is_library_function, is_library_module


def is_left_alone(fn) -> bool:
    """Whether calls to ``fn`` run it as it is (library code), rather than converting it."""
    if getattr(fn, "__autograph_do_not_convert__", False):
        return True
    if hasattr(fn, "__autograph_rewrap__"):  # a library wrapper of user code: see converted_call
        return False
    if isinstance(fn, functools.partial):  # functools' own object: what it calls decides
        return is_left_alone(fn.func)
    if inspect.isclass(fn) or inspect.isbuiltin(fn) or inspect.ismethoddescriptor(fn):
        return True
    # (A library wrapper made with functools.wraps has its user function's __module__.)
    return is_library_module(getattr(fn, "__module__", None) or "") or is_library_function(fn)


class _CallConverter(Rewriter):
    def __init__(self, ctx, fn_node):
        super().__init__(ctx)
        self._fn_node = fn_node
        self._locals = None  # found when a call first needs them

    def _call(self, node):
        func = node.func
        if (
            isinstance(func, gast.Attribute)
            and isinstance(func.value, gast.Name)
            and func.value.id == "ag__"
        ):
            return node
        if self._locals is None:
            self._locals = _locals(self._fn_node, self.walked, self.left_alone)
        local_names, local_functions = self._locals
        if isinstance(func, gast.Name) and func.id in local_functions:
            return node  # a function defined inside this one: converted along with it
        base = _base_name(func)
        if base is not None and base not in local_names:
            found, value = self.ctx.resolve(func)
            if found:
                if value is builtins.print and not self.ctx.builtin_functions:
                    return node  # as TensorFlow leaves it: a Python side effect of tracing
                override = override_of(value)
                if override is not None:
                    node.func = ag_attribute(override.__name__)
                    return node
                if is_left_alone(value):
                    return node
        node.func = ag_call("call", [func], node)
        return node

    rules = {gast.Call: _call}


def _base_name(node):
    while isinstance(node, gast.Attribute):
        node = node.value
    return node.id if isinstance(node, gast.Name) else None


_BINDING = (gast.Store, gast.Param, gast.Del)


def _locals(fn_node, walked, left_alone):
    """Names bound inside the function (parameters included): unknown until it runs.

    ``walked`` and ``left_alone``: the rewriter's nodes, all the function's between them.
    """
    names, functions = set(), set()
    for node in walked + [n for fn in left_alone for n in walk.nodes(fn)]:
        cls = type(node)
        if cls is gast.Name:
            if type(node.ctx) in _BINDING:
                names.add(node.id)
        elif (cls is gast.FunctionDef or cls is gast.AsyncFunctionDef) and node is not fn_node:
            functions.add(node.name)
            names.add(node.name)
    return names, functions


def transform(node, ctx):
    return _CallConverter(ctx, node).visit(node)
