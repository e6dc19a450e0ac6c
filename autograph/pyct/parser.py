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

from autograph.pyct import anno, code_match, gast_conversion, source_lines, walk
from autograph.pyct.lambda_source import covering, lambda_nodes


class ConversionError(Exception):
    """A function cannot be converted; the message names the construct and its line."""


def function_source(fn):
    """The dedented source of ``fn`` and the line of the file where it starts."""
    lines, start = _file_lines(fn)
    return textwrap.dedent("".join(inspect.getblock(lines[start:]))), start + 1


def _file_lines(fn):
    """The lines of the file that defines ``fn``, and the index of its first line."""
    try:
        return source_lines.definition_lines(fn)  # fn's own code: no following of __wrapped__
    except (OSError, TypeError) as e:
        raise ConversionError(f"The source of {fn!r} is not available: {e}") from None


def parse_function(fn):
    """The FunctionDef (or Lambda) node of ``fn``, its decorators removed, and its source.

    Line numbers of the returned nodes are those of the user's file.
    """
    if fn.__name__ == "<lambda>":
        return _parse_lambda(fn)
    parsed = _parse_definition(fn)
    if parsed is not None:
        module, source = parsed
    else:
        source, first_line = function_source(fn)
        module = _parse(source, fn, first_line)
    # Listing every statement takes a while, and only a source with two defs can nest one.
    may_nest = source.count("def") > 1
    for node in walk.statements(module.body) if may_nest else module.body:
        if isinstance(node, (gast.FunctionDef, gast.AsyncFunctionDef)):
            anno.setanno(node, anno.Basic.USER_FUNCTION, node.name)
    _check_code_matches(fn)
    for node in module.body:
        if isinstance(node, (gast.FunctionDef, gast.AsyncFunctionDef)):
            node.decorator_list = []
            return node, source
    raise ConversionError(f"Could not find the definition of {fn.__name__} in its source")


def _check_code_matches(fn):
    if code_match.matches(fn) is False:
        raise ConversionError(
            f"The source of {fn.__qualname__} in {fn.__code__.co_filename} is not the code that "
            f"runs: the file was changed after {fn.__name__} was defined. Reload its module "
            "(importlib.reload) or restart Python, so that what is converted is what runs."
        )


def _parse_lambda(fn):
    """The Lambda node of ``fn`` and its source: the lambda alone, found in its file's lines."""
    lines, first = _file_lines(fn)
    _check_code_matches(fn)
    code = fn.__code__
    arguments = list(code.co_varnames[: code.co_argcount])
    nodes = [n for n in lambda_nodes(lines, first) if [a.id for a in n.args.args] == arguments]
    if len(nodes) > 1:
        nodes = covering(nodes, code)
    if len(nodes) != 1:
        raise ConversionError(
            f"Cannot identify the source of the lambda at line {code.co_firstlineno}: "
            f"{len(nodes)} lambdas with its arguments are on that line"
        )
    node = nodes[0]
    source = "".join(lines[node.lineno - 1 : node.end_lineno])
    return node, textwrap.dedent(source)


def _parse_definition(fn):
    """The parsed module of the lines that define ``fn``, and their source; None if unsure.

    inspect finds where a block ends by tokenizing it, which takes longer than
    parsing it. Here the block ends at the first line after its first one that
    is indented no deeper than that one (comments and blank lines aside).
    Where a string or brackets make that a wrong place, the lines do not parse;
    then the block ends at the first such line after the last one that ``fn``'s
    code covers. Where the lines do not parse either, None says to ask inspect.
    """
    lines, start = _file_lines(fn)
    parsed = _parse_block(lines, start, start + 1)
    if parsed is None:
        parsed = _parse_block(lines, start, _last_line(fn.__code__))
    return parsed


def _parse_block(lines, start, last_line):
    """The parsed module and the source of the definition at ``lines[start]``, or None.

    The definition ends where ``_block_end`` says, seen from ``last_line``.
    """
    end = _block_end(lines, start, last_line)
    source = source_lines.dedent(lines[start:end])
    try:
        module = gast_conversion.parse("\n" * start + source)  # padded: the file's line numbers
    except SyntaxError:
        return None
    if not (module.body and isinstance(module.body[0], (gast.FunctionDef, gast.AsyncFunctionDef))):
        return None
    return module, source


def _last_line(code):
    """The last line of the file that ``code``, or code nested in it, runs."""
    lines = [line for _, _, line in code.co_lines() if line is not None]
    nested = [_last_line(c) for c in code.co_consts if inspect.iscode(c)]
    return max(lines + nested + [code.co_firstlineno])


def _block_end(lines, start, last_line):
    """The index of the line that ends the block opened at ``lines[start]``, seen from ``last_line``."""
    indent = _indentation(lines[start])
    end = last_line  # the index of the line after it
    while end < len(lines) and (_is_blank(lines[end]) or _indentation(lines[end]) > indent):
        end += 1
    while end > last_line and _is_blank(lines[end - 1]):
        end -= 1
    return end


def _indentation(line):
    return len(line) - len(line.lstrip())


def _is_blank(line):
    """Whether ``line`` is empty or a comment (as far as the block's indentation goes)."""
    text = line.strip()
    return not text or text.startswith("#")


def _parse(source, fn, first_line):
    padding = "\n" * (first_line - 1)  # so that nodes get the lines of the user's file
    try:
        return gast_conversion.parse(padding + source)
    except SyntaxError:
        raise ConversionError(f"Could not parse the source of {fn!r}") from None
