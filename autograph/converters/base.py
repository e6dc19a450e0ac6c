"""What every converter shares: the conversion context, the walks of converters, and node makers."""

from __future__ import annotations

import sys

import gast

from autograph.pyct import anno, templates
from autograph.pyct.origin import set_origin
from autograph.pyct.walk import (
    BRANCHES,
    INNER,
    LEAVES,
    block_shape,
    branches,
    child_blocks,
    set_block,
)

# Comprehensions that run in a frame of their own: all of them before Python 3.12, only
# generator expressions since (PEP 709 inlines the others into their function).
SCOPED_COMPREHENSIONS = (gast.GeneratorExp,) + (
    (gast.ListComp, gast.SetComp, gast.DictComp) if sys.version_info < (3, 12) else ()
)


class Context:
    """What converters know about the function being converted.

    ``namer`` gives fresh names; ``resolve(expr_node)`` looks a name or
    attribute chain up in the function's closure, globals and builtins, as it
    is at conversion time.
    """

    def __init__(self, namer, resolve, filename):
        self.namer = namer
        self.resolve = resolve
        self.filename = filename
        self.builtin_functions = False  # TensorFlow's optional feature: `print` converted too


class Transformer(gast.NodeTransformer):
    """A NodeTransformer that does not visit what no converter rewrites.

    Constants, contexts and operators are left as they are without a visit,
    which is most of the nodes of an expression.
    """

    def generic_visit(self, node):
        for field in node._fields:
            value = getattr(node, field, None)
            if type(value) is list:
                value[:] = self._visit_list(value)
            elif isinstance(value, gast.AST) and type(value) not in LEAVES:
                new = self.visit(value)
                if new is None:
                    delattr(node, field)
                else:
                    setattr(node, field, new)
        return node

    def _visit_list(self, nodes):
        out = []
        for node in nodes:
            if isinstance(node, gast.AST) and type(node) not in LEAVES:
                node = self.visit(node)
                if node is None:
                    continue
                if not isinstance(node, gast.AST):
                    out.extend(node)
                    continue
            out.append(node)
        return out


class Converter(Transformer):
    """A transformer that leaves alone functions marked not to convert (generators)."""

    def __init__(self, ctx):
        self.ctx = ctx

    def visit_FunctionDef(self, node):
        if anno.getanno(node, anno.Basic.SKIP_CONVERSION):
            return node
        return self.generic_visit(node)

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_block(self, stmts):
        out = []
        for stmt in stmts:
            result = self.visit(stmt)
            if result is None:
                continue
            out.extend(result if isinstance(result, list) else [result])
        return out


class Rewriter:
    """A converter of expressions: rewrites the nodes of the classes in ``rules``, innermost first.

    ``rules`` maps a node class to a method that gets such a node, whose own
    nodes are rewritten already, and returns what replaces it (or the node).
    All the nodes to rewrite are found in one walk before any is rewritten,
    so what a rule makes is not rewritten again, and a tree that has none
    costs only the walk. Functions marked not to convert (generators) are
    left alone. A rule must not change the lists that hold its node.

    A rule that needs to know more of the tree than its node finds, after the
    walk, the nodes it looked into in ``walked`` and the functions it left
    alone in ``left_alone``: between them, the whole tree.

    >>> from autograph.pyct.printer import to_source
    >>> class Shout(Rewriter):
    ...     def _name(self, node):
    ...         return name(node.id.upper())
    ...     rules = {gast.Name: _name}
    >>> print(to_source(Shout(None).visit(gast.parse("f(x, [y])"))).strip())
    F(X, [Y])
    """

    rules = {}

    def __init__(self, ctx):
        self.ctx = ctx
        self.walked, self.left_alone = [], []

    def visit(self, tree):
        """``tree`` with its nodes rewritten: the same node, or what replaces it."""
        rules = self.rules
        for holder, where in reversed(self._places(tree)):
            if type(holder) is list:
                i = next(i for i, item in enumerate(holder) if item is where)
                holder[i] = rules[type(where)](self, where)
            else:
                node = getattr(holder, where)
                setattr(holder, where, rules[type(node)](self, node))
        rule = rules.get(type(tree))
        return tree if rule is None else rule(self, tree)

    def _places(self, tree):
        """Where the nodes to rewrite are, outer ones first: (list, node) or (node, field).

        A node in a list is kept, not its index: the walk need not count, and
        the few rewritten are looked up.
        """
        rules = self.rules
        places = []
        queue, left_alone = ([], [tree]) if _left_alone(tree) else ([tree], [])
        append = queue.append
        fields_of = BRANCHES.get
        for node in queue:  # grows while it is read: a node's places come before those it holds
            for field in fields_of(type(node)) or branches(type(node)):
                value = getattr(node, field, None)
                if type(value) is list:
                    for item in value:
                        cls = type(item)
                        if cls in rules:
                            places.append((value, item))
                        if cls in _WALKED:
                            append(item)
                        elif _inner(item):
                            (left_alone if _left_alone(item) else queue).append(item)
                elif value is not None:
                    cls = type(value)
                    if cls in rules:
                        places.append((node, field))
                    if cls in _WALKED:
                        append(value)
                    elif _inner(value):
                        (left_alone if _left_alone(value) else queue).append(value)
        self.walked, self.left_alone = queue, left_alone
        return places


_FUNCTIONS = (gast.FunctionDef, gast.AsyncFunctionDef)
_WALKED = INNER - set(_FUNCTIONS)  # functions are walked into unless left alone


def _inner(value):
    return isinstance(value, gast.AST) and type(value) not in LEAVES


def _left_alone(node):
    return isinstance(node, _FUNCTIONS) and anno.getanno(node, anno.Basic.SKIP_CONVERSION)


class StatementConverter(Converter):
    """A converter of statements: it walks blocks of statements and never enters expressions.

    A converter that rewrites only compound statements (those that may hold
    blocks: loops, ifs, functions...) says so with ``compound_only``: the
    other statements are then kept as they are, without a visit.
    """

    compound_only = False

    def generic_visit(self, node):
        for where, block in child_blocks(node):
            set_block(node, where, self.visit_block(block))
        return node

    def visit_block(self, stmts):
        if not self.compound_only:
            return super().visit_block(stmts)
        out = []
        for stmt in stmts:
            if block_shape(type(stmt)) == _SIMPLE:
                out.append(stmt)
                continue
            result = self.visit(stmt)
            if result is not None:
                out.extend(result if isinstance(result, list) else [result])
        return out


_SIMPLE = ((), None)  # the block_shape of a statement that holds no block


def statements(template, origin_node, **replacements):
    """Template statements that stand for the user's ``origin_node`` (and carry its line)."""
    return templates.replace(template, getattr(origin_node, "lineno", None), **replacements)


def new_node(cls, **fields):
    """A new ``cls`` node with ``fields`` (all of them, and any location), as ``cls(**fields)``.

    gast's constructors run Python code for every node, which made up a tenth of
    a conversion; this one just takes the dict of fields.

    >>> made = new_node(gast.Name, id="x", ctx=new_node(gast.Load), annotation=None, type_comment=None)
    >>> gast.dump(made) == gast.dump(gast.parse("x").body[0].value)
    True
    """
    made = cls.__new__(cls)
    made.__dict__ = fields
    return made


def name(identifier, ctx=gast.Load):
    return new_node(gast.Name, id=identifier, ctx=new_node(ctx), annotation=None, type_comment=None)


def parameters(params):
    """The ``gast.arguments`` of a function or lambda taking the plain parameters ``params``."""
    return new_node(
        gast.arguments,
        args=[name(p, gast.Param) for p in params],
        posonlyargs=[],
        vararg=None,
        kwonlyargs=[],
        kw_defaults=[],
        kwarg=None,
        defaults=[],
    )


def function_def(fn_name, params, body, lineno):
    """``def fn_name(params): body`` at user line ``lineno``.

    Built directly, not from a template: functions are what conversion makes
    most. Like ``set_origin``, but only for the statement made here: its body
    must have its lines already.
    """
    return new_node(
        gast.FunctionDef,
        name=fn_name,
        args=parameters(params),
        body=body,
        decorator_list=[],
        returns=None,
        type_comment=None,
        type_params=[],
        lineno=lineno,
    )


def flag_assignment(flag, value, origin_node):
    """``flag = value`` (a constant) standing for the user's ``origin_node``, as the template would make it.

    Built directly, not from a template: jump lowering makes one per loop and per jump.

    >>> from autograph.pyct.printer import to_source
    >>> stmt = flag_assignment("break_", True, gast.parse("x = 1").body[0])
    >>> print(to_source(stmt).strip(), stmt.lineno)
    break_ = True 1
    """
    lineno = getattr(origin_node, "lineno", None)
    target = name(flag, gast.Store)
    constant = new_node(gast.Constant, value=value, kind=None)
    stmt = new_node(gast.Assign, targets=[target], value=constant, type_comment=None)
    target.lineno = constant.lineno = stmt.lineno = lineno
    return stmt


def declarations(globals_, nonlocals, lineno):
    """``global globals_`` and ``nonlocal nonlocals`` at ``lineno``, each left out if it has no names."""
    return ([new_node(gast.Global, names=globals_, lineno=lineno)] if globals_ else []) + (
        [new_node(gast.Nonlocal, names=nonlocals, lineno=lineno)] if nonlocals else []
    )


def ag_attribute(attr):
    """``ag__.<attr>``: an operator of the generated code."""
    return new_node(gast.Attribute, value=name("ag__"), attr=attr, ctx=new_node(gast.Load))


def ag_call(fn, args, origin_node):
    """``ag__.fn(*args)`` standing for the user's ``origin_node``, as its template would make it.

    Built directly, not from a template: converters make one for each call,
    operator and read they rewrite. ``args`` are expressions that are read.

    >>> from autograph.pyct.printer import to_source
    >>> call = ag_call("not_", [name("x")], gast.parse("\\nx").body[0])
    >>> print(to_source(call).strip(), call.lineno, call.args[0].lineno)
    ag__.not_(x) 2 2
    """
    lineno = getattr(origin_node, "lineno", None)
    call = new_node(gast.Call, func=ag_attribute(fn), args=args, keywords=[])
    call.lineno = call.func.lineno = call.func.value.lineno = lineno
    set_origin(args, lineno)
    return call


def negate(flag):
    return gast.UnaryOp(op=gast.Not(), operand=name(flag))
