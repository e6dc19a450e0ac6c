"""Printing gast trees as Python source, with a map from printed lines to the user's lines.

The standard library's unparser works on gast nodes as they are (their
classes mirror ``ast``'s), which saves converting the whole tree back to
``ast``. While printing, each statement's first printed line is recorded
against the user line the statement carries.

>>> import gast
>>> tree = gast.parse("if x:\\n    y = 1\\n")
>>> text, lines = print_with_lines(tree)
>>> print(text)
if x:
    y = 1
>>> lines
{1: (1, None), 2: (2, None)}
"""

from __future__ import annotations

import ast

import gast

from autograph.pyct import anno


class _Printer(ast._Unparser):
    def __init__(self, **kwargs):  # the unparser makes nested printers of its own type
        super().__init__(**kwargs)
        self.lines = {}
        self._newlines = 0  # in the pieces of self._source before self._counted
        self._counted = 0
        self._statement_line = None
        self._user_function = None

    def fill(self, text=""):
        super().fill(text)
        if self._statement_line is not None:
            self.lines.setdefault(self._line(), (self._statement_line, self._user_function))

    def _line(self):
        """The number of the line being printed: newlines are counted once, when asked for."""
        source = self._source
        self._newlines += "".join(source[self._counted :]).count("\n")
        self._counted = len(source)
        return self._newlines + 1

    def traverse(self, node):
        if isinstance(node, list):
            for item in node:
                self.traverse(item)
        elif isinstance(node, gast.stmt):
            self._traverse_statement(node)
        elif type(node) in _SOMETIMES_AST and _needs_ast(node):
            # The unparser tests some expressions with isinstance(node, ast.Tuple) and
            # friends (slices, f-strings, (1).real): those are printed as ast.
            super().traverse(gast.gast_to_ast(node))
        else:
            ast.NodeVisitor.visit(self, node)  # what the unparser's traverse does with a node

    def _traverse_statement(self, node):
        """Prints a statement; what it prints stands for its user line and function."""
        saved = self._statement_line, self._user_function
        if getattr(node, "lineno", None) is not None:
            self._statement_line = node.lineno
        if isinstance(node, gast.FunctionDef) and anno.getanno(node, "user_function"):
            self._user_function = anno.getanno(node, "user_function")
        try:
            ast.NodeVisitor.visit(self, node)
        finally:
            self._statement_line, self._user_function = saved

    # gast differs from ast here: *args and **kwargs are Names, not args.
    def visit_arguments(self, node):
        proxy = _ArgumentsProxy(node)
        super().visit_arguments(proxy)

    # gast differs from ast here: the name of an except clause is a Name, not a str.
    def visit_ExceptHandler(self, node):
        self.fill("except")
        if node.type:
            self.write(" ")
            self.traverse(node.type)
        if node.name:
            self.write(" as ")
            self.write(node.name.id if isinstance(node.name, gast.Name) else node.name)
        with self.block():
            self.traverse(node.body)


_SOMETIMES_AST = {gast.Subscript, gast.Attribute, gast.JoinedStr}


def _needs_ast(node):
    if isinstance(node, gast.Subscript):
        return isinstance(node.slice, gast.Tuple)
    if isinstance(node, gast.Attribute):
        return isinstance(node.value, gast.Constant)
    return isinstance(node, gast.JoinedStr)


class _Arg:
    def __init__(self, name_node):
        self.arg = name_node.id
        self.annotation = getattr(name_node, "annotation", None)
        self.type_comment = None


class _ArgumentsProxy:
    """gast ``arguments`` seen as ``ast.arguments`` for the unparser's *args/**kwargs code."""

    def __init__(self, node):
        self.posonlyargs, self.args, self.defaults = node.posonlyargs, node.args, node.defaults
        self.kwonlyargs, self.kw_defaults = node.kwonlyargs, node.kw_defaults
        self.vararg = _Arg(node.vararg) if node.vararg is not None else None
        self.kwarg = _Arg(node.kwarg) if node.kwarg is not None else None


def print_with_lines(node):
    """(source, {printed line: (user line, user function)}) for a gast tree."""
    printer = _Printer()
    text = printer.visit(node)
    if text.startswith("\n"):
        text = text[1:]
        printer.lines = {line - 1: user for line, user in printer.lines.items() if line > 1}
    return text, printer.lines


def to_source(node) -> str:
    """Python source for a gast tree."""
    return print_with_lines(node)[0] + "\n"
