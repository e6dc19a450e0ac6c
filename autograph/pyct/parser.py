"""Getting a function's source and parsing it with gast (``printer`` prints it back).

>>> def double(x):
...     return x * 2
>>> node, source = parse_function(double)
>>> from autograph.pyct.printer import to_source
>>> node.name, to_source(node).strip()
('double', 'def double(x):\\n    return x * 2')
"""

from __future__ import annotations

import inspect
import textwrap

import gast

from autograph.pyct import anno, walk


class ConversionError(Exception):
    """A function cannot be converted; the message names the construct and its line."""


def function_source(fn):
    """The dedented source of ``fn`` and the line of the file where it starts."""
    try:
        # Through the code object: inspect would follow a decorator's __wrapped__ to another function.
        lines, first_line = inspect.getsourcelines(fn.__code__)
    except (OSError, TypeError) as e:
        raise ConversionError(f"The source of {fn!r} is not available: {e}") from None
    return textwrap.dedent("".join(lines)), first_line


def parse_function(fn):
    """The FunctionDef (or Lambda) node of ``fn``, its decorators removed, and its source.

    Line numbers of the returned nodes are those of the user's file.
    """
    source, first_line = function_source(fn)
    module = _parse(source, fn, first_line)
    for node in walk.statements(module.body):
        if isinstance(node, (gast.FunctionDef, gast.AsyncFunctionDef)):
            anno.setanno(node, "user_function", node.name)
    if fn.__name__ == "<lambda>":
        return _find_lambda(module, fn, first_line), source
    for node in module.body:
        if isinstance(node, (gast.FunctionDef, gast.AsyncFunctionDef)):
            node.decorator_list = []
            return node, source
    raise ConversionError(f"Could not find the definition of {fn.__name__} in its source")


def _parse(source, fn, first_line):
    padding = "\n" * (first_line - 1)  # so that nodes get the lines of the user's file
    try:
        return gast.parse(padding + source)
    except SyntaxError:
        # A lambda in the middle of an expression: its lines alone are not a statement.
        try:
            lambda_source = source.strip().rstrip(",").removesuffix("\\")
            return gast.parse(padding + "(" + lambda_source + "\n)")
        except SyntaxError:
            raise ConversionError(f"Could not parse the source of {fn!r}") from None


def _find_lambda(module, fn, first_line):
    code = fn.__code__
    candidates = [
        n
        for n in gast.walk(module)
        if isinstance(n, gast.Lambda)
        and n.lineno == code.co_firstlineno
        and [a.id for a in n.args.args] == list(code.co_varnames[: code.co_argcount])
    ]
    if len(candidates) != 1:
        raise ConversionError(
            f"Cannot identify the source of the lambda at line {code.co_firstlineno}: "
            f"{len(candidates)} lambdas with its arguments are on that line"
        )
    return candidates[0]
