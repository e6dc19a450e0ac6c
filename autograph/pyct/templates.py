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

from autograph.pyct.origin import set_origin


def replace(template, origin=None, **replacements):
    """The statements of ``template`` with its placeholders replaced.

    Replacement nodes are inserted as they are (copied only when a
    placeholder is used a second time), so a caller must not reuse them.
    ``origin`` is the user line of what is made, as ``origin.set_origin``
    gives it: to every node of the template, and to the nodes of the
    replacements that have no line yet.
    """
    return _Instance(replacements, origin).block(_parsed(template).body)


def replace_as_expression(template, origin=None, **replacements):
    """The single expression of ``template`` with its placeholders replaced."""
    (stmt,) = replace(template, origin, **replacements)
    return stmt.value


_templates = {}


def _parsed(template):
    """The parsed template, shared: instances copy it (parsing is the slow part)."""
    tree = _templates.get(template)
    if tree is None:
        tree = gast.parse(textwrap.dedent(template))
        for node in gast.walk(tree):  # lines of the template text mean nothing to the user
            for attr in ("lineno", "end_lineno", "col_offset", "end_col_offset"):
                if attr in node._attributes:
                    setattr(node, attr, None)
        _templates[template] = tree
    return tree


def clone(node):
    """A deep copy of a gast tree, much faster than ``copy.deepcopy`` or gast's constructors.

    Lists are copied too; other values (names, constants) are shared.
    """
    if isinstance(node, list):
        return [clone(n) for n in node]
    if not isinstance(node, gast.AST):
        return node
    new = _new(type(node))
    new.__dict__.update({k: clone(v) for k, v in node.__dict__.items()})
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


def _param(name):
    return gast.Name(id=name, ctx=gast.Param(), annotation=None, type_comment=None)


class _Instance:
    """One use of a template: a copy of its tree, made in one pass, with the placeholders replaced."""

    def __init__(self, replacements, origin):
        self.replacements = replacements
        self.origin = origin
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

    def node(self, node):
        """The copy of a template node: a node, a list of statements, or None (dropped)."""
        rule = _RULES.get(type(node))
        return rule(self, node) if rule is not None else self._copy(node)

    def block(self, nodes):
        out = []
        for node in nodes:
            new = self.node(node) if isinstance(node, gast.AST) else node
            if isinstance(new, list):
                out.extend(new)
            elif new is not None:
                out.append(new)
        return out

    def _copy(self, node):
        new = _new(type(node))
        fields = new.__dict__
        fields.update(node.__dict__)
        if "lineno" in node._attributes:
            fields["lineno"] = self.origin
        for field in node._fields:
            value = fields.get(field)
            if isinstance(value, list):
                fields[field] = self.block(value)
            elif isinstance(value, gast.AST):
                fields[field] = self.node(value)
        return new

    def _name(self, node):
        if node.id not in self.replacements:
            return self._copy(node)
        expression = self._expression(self.replacements[node.id], type(node.ctx))
        set_origin(expression, self.origin)
        return expression

    def _expr(self, node):
        if isinstance(node.value, gast.Name) and node.value.id in self.replacements:
            value = self.replacements[node.value.id]
            if isinstance(value, list):
                statements = [self._fresh(s) for s in value]
                set_origin(statements, self.origin)
                return statements
            if isinstance(value, gast.stmt):
                statement = self._fresh(value)
                set_origin(statement, self.origin)
                return statement
        return self._copy(node)

    def _function(self, node):
        # Only its name, parameters and body hold placeholders.
        new = _new(type(node))
        new.__dict__.update(node.__dict__)
        new.lineno = self.origin
        new.name = self.replacements.get(node.name, node.name)
        new.decorator_list, new.returns = clone(node.decorator_list), clone(node.returns)
        new.args = _new(gast.arguments)
        for field, value in node.args.__dict__.items():
            setattr(new.args, field, self._parameters(value) if field == "args" else clone(value))
        set_origin(
            [new.args, *new.decorator_list, *([new.returns] if new.returns else [])], self.origin
        )
        new.body = self.block(node.body)
        return new

    def _parameters(self, params):
        out = []
        for a in params:
            value = self.replacements.get(a.id)
            if isinstance(value, (list, tuple)):
                out.extend(_param(v) for v in value)
            elif isinstance(value, str):
                out.append(_param(value))
            else:
                out.append(clone(a))
        return out

    def _declaration(self, node):
        names = []
        for name in node.names:
            value = self.replacements.get(name, name)
            names.extend([value] if isinstance(value, str) else value)
        if not names:
            return None
        new = self._copy(node)
        new.names = names
        return new


_RULES = {
    gast.Name: _Instance._name,
    gast.Expr: _Instance._expr,
    gast.FunctionDef: _Instance._function,
    gast.Nonlocal: _Instance._declaration,
    gast.Global: _Instance._declaration,
}
