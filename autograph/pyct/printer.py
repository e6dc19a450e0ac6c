"""Printing gast trees as Python source, with a map from printed lines to the user's lines.

Statements are printed a line at a time (expressions by
``autograph.pyct.expression_printer``), the way ``ast.unparse`` prints them on
Python 3.11 and later, with two differences that keep one printed statement per
tree statement: a docstring prints as the string statement it is, and an ``else``
holding a single ``if`` is not folded into ``elif``. Each printed line is recorded
against the user line (and user function) of the innermost statement printing it
that has a line.

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
from autograph.pyct.expression_printer import (
    AUGMENTED_ASSIGNMENTS,
    TUPLE,
    YIELD,
    arguments_source,
    expression_source,
    type_parameters_source,
)

_INDENT = "    "


class _StatementPrinter:
    """Prints statements into ``lines`` and records what each line stands for."""

    def __init__(self):
        self.lines = []
        self.stands_for = {}  # printed line number -> (user line, user function)
        self.indent = ""
        self.user_line = None
        self.user_function = None
        self.type_ignores = {}  # a module's "# type: ignore" comments, by line

    def line(self, text):
        lines = self.lines
        lines.append(self.indent + text)
        if self.user_line is not None:
            self.stands_for[len(lines)] = (self.user_line, self.user_function)

    def statements(self, nodes):
        """Prints ``nodes``; each stands for its own line, or else for the enclosing one."""
        enclosing_line, enclosing_function = self.user_line, self.user_function
        for node in nodes:
            line = getattr(node, "lineno", None)
            self.user_line = enclosing_line if line is None else line
            kind = type(node)
            if kind is gast.FunctionDef:
                self.user_function = (
                    anno.getanno(node, anno.Basic.USER_FUNCTION) or enclosing_function
                )
            _STATEMENTS.get(kind, _StatementPrinter.unknown)(self, node)
            self.user_function = enclosing_function
        self.user_line = enclosing_line

    def block(self, header, nodes, comment=""):
        """``header:`` and, indented under it, ``nodes``."""
        self.line(header + ":" + comment)
        outer = self.indent
        self.indent = outer + _INDENT
        self.statements(nodes)
        self.indent = outer

    def type_comment(self, node):
        comment = getattr(node, "type_comment", None)
        if self.type_ignores:
            comment = self.type_ignores.get(getattr(node, "lineno", None)) or comment
        return "" if comment is None else " # type: " + comment

    # Simple statements

    def expression(self, node):
        self.line(expression_source(node.value, YIELD))

    def assign(self, node):
        targets = [expression_source(target, TUPLE) + " = " for target in node.targets]
        self.line("".join(targets) + expression_source(node.value) + self.type_comment(node))

    def augmented_assign(self, node):
        operator = AUGMENTED_ASSIGNMENTS[type(node.op)]
        self.line(expression_source(node.target) + operator + expression_source(node.value))

    def annotated_assign(self, node):
        target = expression_source(node.target)
        if not node.simple and type(node.target) is gast.Name:
            target = "(" + target + ")"  # (x): int is left out of __annotations__
        text = target + ": " + expression_source(node.annotation)
        if node.value:
            text += " = " + expression_source(node.value)
        self.line(text)

    def return_(self, node):
        self.line("return " + expression_source(node.value) if node.value else "return")

    def delete(self, node):
        self.line("del " + ", ".join([expression_source(target) for target in node.targets]))

    def assert_(self, node):
        text = "assert " + expression_source(node.test)
        if node.msg:
            text += ", " + expression_source(node.msg)
        self.line(text)

    def raise_(self, node):
        if not node.exc:
            if node.cause:
                raise ValueError("A raise with a cause needs an exception.")
            self.line("raise")
            return
        text = "raise " + expression_source(node.exc)
        if node.cause:
            text += " from " + expression_source(node.cause)
        self.line(text)

    def global_(self, node):
        self.line("global " + ", ".join(node.names))

    def nonlocal_(self, node):
        self.line("nonlocal " + ", ".join(node.names))

    def import_(self, node):
        self.line("import " + ", ".join([expression_source(alias) for alias in node.names]))

    def import_from(self, node):
        names = ", ".join([expression_source(alias) for alias in node.names])
        self.line("from " + "." * (node.level or 0) + (node.module or "") + " import " + names)

    def pass_(self, node):
        self.line("pass")

    def break_(self, node):
        self.line("break")

    def continue_(self, node):
        self.line("continue")

    def type_alias(self, node):
        name = expression_source(node.name) + type_parameters_source(node)
        self.line("type " + name + " = " + expression_source(node.value))

    def unknown(self, node):
        """A statement this printer does not know: ``ast.unparse`` prints it."""
        tree = gast.gast_to_ast(node)
        depth = len(self.indent) // len(_INDENT)
        for _ in range(depth):  # ast.unparse indents it, and only it knows where strings are
            tree = ast.If(test=ast.Constant(value=True), body=[tree], orelse=[])
        outer, self.indent = self.indent, ""
        for text in ast.unparse(tree).split("\n")[depth:]:
            self.line(text)
        self.indent = outer

    # Compound statements

    def function(self, node):
        if self.lines:
            self.lines.append("")  # a blank line before a definition
        for decorator in node.decorator_list:
            self.line("@" + expression_source(decorator))
        keyword = "async def " if type(node) is gast.AsyncFunctionDef else "def "
        header = keyword + node.name + type_parameters_source(node)
        header += "(" + arguments_source(node.args) + ")"
        if node.returns:
            header += " -> " + expression_source(node.returns)
        self.block(header, node.body, self.type_comment(node))

    def class_(self, node):
        if self.lines:
            self.lines.append("")
        for decorator in node.decorator_list:
            self.line("@" + expression_source(decorator))
        header = "class " + node.name + type_parameters_source(node)
        arguments = [expression_source(base) for base in node.bases]
        arguments += [expression_source(keyword) for keyword in node.keywords]
        if arguments:
            header += "(" + ", ".join(arguments) + ")"
        self.block(header, node.body)

    def if_(self, node):
        self.block("if " + expression_source(node.test), node.body)
        if node.orelse:
            self.block("else", node.orelse)

    def while_(self, node):
        self.block("while " + expression_source(node.test), node.body)
        if node.orelse:
            self.block("else", node.orelse)

    def for_(self, node):
        keyword = "async for " if type(node) is gast.AsyncFor else "for "
        target = expression_source(node.target, TUPLE)
        header = keyword + target + " in " + expression_source(node.iter)
        self.block(header, node.body, self.type_comment(node))
        if node.orelse:
            self.block("else", node.orelse)

    def with_(self, node):
        keyword = "async with " if type(node) is gast.AsyncWith else "with "
        items = ", ".join([expression_source(item) for item in node.items])
        self.block(keyword + items, node.body, self.type_comment(node))

    def try_(self, node):
        self.block("try", node.body)
        star = "*" if type(node).__name__ == "TryStar" else ""  # older gast has no TryStar
        for handler in node.handlers:
            self.except_handler(handler, star)
        if node.orelse:
            self.block("else", node.orelse)
        if node.finalbody:
            self.block("finally", node.finalbody)

    def except_handler(self, node, star=""):
        header = "except" + star
        if node.type:
            header += " " + expression_source(node.type)
        if node.name:
            name = node.name
            header += " as " + (name.id if type(name) is gast.Name else name)
        self.block(header, node.body)

    def match(self, node):
        self.line("match " + expression_source(node.subject) + ":")
        outer = self.indent
        self.indent = outer + _INDENT
        for case in node.cases:
            self.match_case(case)
        self.indent = outer

    def match_case(self, node):
        header = "case " + expression_source(node.pattern)
        if node.guard:
            header += " if " + expression_source(node.guard)
        self.block(header, node.body)


_STATEMENTS = {
    gast.Expr: _StatementPrinter.expression,
    gast.Assign: _StatementPrinter.assign,
    gast.AugAssign: _StatementPrinter.augmented_assign,
    gast.AnnAssign: _StatementPrinter.annotated_assign,
    gast.Return: _StatementPrinter.return_,
    gast.Delete: _StatementPrinter.delete,
    gast.Assert: _StatementPrinter.assert_,
    gast.Raise: _StatementPrinter.raise_,
    gast.Global: _StatementPrinter.global_,
    gast.Nonlocal: _StatementPrinter.nonlocal_,
    gast.Import: _StatementPrinter.import_,
    gast.ImportFrom: _StatementPrinter.import_from,
    gast.Pass: _StatementPrinter.pass_,
    gast.Break: _StatementPrinter.break_,
    gast.Continue: _StatementPrinter.continue_,
    gast.FunctionDef: _StatementPrinter.function,
    gast.AsyncFunctionDef: _StatementPrinter.function,
    gast.ClassDef: _StatementPrinter.class_,
    gast.If: _StatementPrinter.if_,
    gast.While: _StatementPrinter.while_,
    gast.For: _StatementPrinter.for_,
    gast.AsyncFor: _StatementPrinter.for_,
    gast.With: _StatementPrinter.with_,
    gast.AsyncWith: _StatementPrinter.with_,
    gast.Try: _StatementPrinter.try_,
}
# Statements of later Python versions, which older versions of gast do not have.
_STATEMENTS.update(
    {
        getattr(gast, type_name): printer
        for type_name, printer in {
            "TryStar": _StatementPrinter.try_,
            "Match": _StatementPrinter.match,
            "TypeAlias": _StatementPrinter.type_alias,
        }.items()
        if hasattr(gast, type_name)
    }
)


def print_with_lines(node):
    """(source, {printed line: (user line, user function)}) for a gast tree.

    ``node`` is a module, a statement, a list of statements or an expression.

    >>> import gast
    >>> print_with_lines(gast.parse("def f(a):\\n    return a + 1").body[0])
    ('def f(a):\\n    return a + 1', {1: (1, None), 2: (2, None)})
    """
    printer = _StatementPrinter()
    if isinstance(node, list):
        printer.statements(node)
    elif isinstance(node, gast.stmt):
        printer.statements([node])
    elif isinstance(node, (gast.Module, gast.Interactive)):
        printer.type_ignores = {
            ignore.lineno: "ignore" + ignore.tag for ignore in getattr(node, "type_ignores", ())
        }
        printer.statements(node.body)
    elif isinstance(node, gast.Expression):
        return expression_source(node.body), {}
    elif isinstance(node, gast.ExceptHandler):
        printer.except_handler(node)
    elif type(node).__name__ == "match_case":
        printer.match_case(node)
    else:
        return expression_source(node), {}
    text = "\n".join(printer.lines)
    if text.count("\n") == len(printer.lines) - 1:
        return text, printer.stands_for
    return text, _physical_line_numbers(printer.lines, printer.stands_for)


def _physical_line_numbers(lines, stands_for):
    """The line map once lines holding a multi-line string span all their lines."""
    physical = {}
    number = 1
    for index, line in enumerate(lines, 1):
        if index in stands_for:
            physical[number] = stands_for[index]
        number += line.count("\n") + 1
    return physical


def to_source(node) -> str:
    """Python source for a gast tree.

    >>> import gast
    >>> to_source(gast.parse("x = (1).real"))
    'x = 1 .real\\n'
    """
    return print_with_lines(node)[0] + "\n"
