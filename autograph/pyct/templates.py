"""Rewrites written as quoted Python with placeholders, instead of AST built by hand.

>>> import gast
>>> from autograph.pyct.printer import to_source
>>> body = replace('''
...     def fn_name(arg):
...         return value + arg
... ''', fn_name="add_one", arg="x", value=gast.Constant(value=1, kind=None))
>>> print(to_source(body[0]).strip())
def add_one(x):
    return 1 + x

A placeholder may stand for a name (give a str), an expression (a node), a list
of statements (where it stands alone as a statement), a list of arguments, or
the names of a ``nonlocal`` statement (a list of str; the statement disappears
when the list is empty).
"""

from __future__ import annotations

import textwrap

import gast


def replace(template, **replacements):
    """The statements of ``template`` with its placeholders replaced.

    Replacement nodes are inserted as they are (copied only when a
    placeholder is used a second time), so a caller must not reuse them.
    """
    tree = _parsed(template)
    return _Replacer(replacements).visit(tree).body


def replace_as_expression(template, **replacements):
    """The single expression of ``template`` with its placeholders replaced."""
    (stmt,) = replace(template, **replacements)
    return stmt.value


_templates = {}


def _parsed(template):
    """A fresh copy of the parsed template (parsing is the slow part; copying a small tree is not)."""
    tree = _templates.get(template)
    if tree is None:
        tree = gast.parse(textwrap.dedent(template))
        for node in gast.walk(tree):  # lines of the template text mean nothing to the user
            for attr in ("lineno", "end_lineno", "col_offset", "end_col_offset"):
                if attr in node._attributes:
                    setattr(node, attr, None)
        _templates[template] = tree
    return clone(tree)


def clone(node):
    """A deep copy of a gast tree, much faster than ``copy.deepcopy`` or gast's constructors."""
    if isinstance(node, list):
        return [clone(n) if isinstance(n, (list, gast.AST)) else n for n in node]
    new = _new(type(node))
    new.__dict__.update(
        {k: clone(v) if isinstance(v, (list, gast.AST)) else v for k, v in node.__dict__.items()}
    )
    return new


_new = gast.AST.__new__


def _set_ctx(node, ctx):
    if isinstance(node, (gast.Name, gast.Attribute, gast.Subscript, gast.Starred)):
        node.ctx = ctx()
    if isinstance(node, (gast.Tuple, gast.List)):
        node.ctx = ctx()
        for e in node.elts:
            _set_ctx(e, ctx)
    return node


class _Replacer(gast.NodeTransformer):
    def __init__(self, replacements):
        self.replacements = replacements
        self._used = set()

    def _fresh(self, value):
        # The first use takes the caller's node; any further use takes a copy.
        if id(value) in self._used:
            return clone(value)
        self._used.add(id(value))
        return value

    def _expression(self, value, ctx):
        if isinstance(value, str):
            return gast.Name(id=value, ctx=ctx(), annotation=None, type_comment=None)
        if isinstance(value, (list, tuple)):
            return gast.Tuple(elts=[self._expression(v, ctx) for v in value], ctx=ctx())
        return _set_ctx(self._fresh(value), ctx)

    def visit_Name(self, node):
        if node.id not in self.replacements:
            return node
        return self._expression(self.replacements[node.id], type(node.ctx))

    def visit_Expr(self, node):
        if isinstance(node.value, gast.Name) and node.value.id in self.replacements:
            value = self.replacements[node.value.id]
            if isinstance(value, list):
                return [self._fresh(s) for s in value]
            if isinstance(value, gast.stmt):
                return self._fresh(value)
        return self.generic_visit(node)

    def visit_FunctionDef(self, node):
        if node.name in self.replacements:
            node.name = self.replacements[node.name]
        args = []
        for a in node.args.args:
            value = self.replacements.get(a.id)
            if isinstance(value, (list, tuple)):
                args.extend(
                    gast.Name(id=v, ctx=gast.Param(), annotation=None, type_comment=None)
                    for v in value
                )
            elif isinstance(value, str):
                args.append(
                    gast.Name(id=value, ctx=gast.Param(), annotation=None, type_comment=None)
                )
            else:
                args.append(a)
        node.args.args = args
        node.body = [s for stmt in node.body for s in _as_list(self.visit(stmt))]
        return node

    def visit_Nonlocal(self, node):
        names = []
        for name in node.names:
            value = self.replacements.get(name, name)
            names.extend([value] if isinstance(value, str) else value)
        if not names:
            return None
        node.names = names
        return node

    visit_Global = visit_Nonlocal


def _as_list(x):
    if x is None:
        return []
    return x if isinstance(x, list) else [x]
