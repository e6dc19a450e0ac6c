"""Finding a lambda's own source in the lines of its file.

A lambda is an expression inside a statement, often one spread over several
lines (``ag.function(\\n    lambda x: x * 2,\\n    input_signature=[...],\\n)``,
as formatters write calls): neither its first line nor inspect's block parses on
its own. Here each ``lambda`` keyword on the lambda's first line is followed,
token by token, to where its expression ends (a ``,``, ``;`` or ``for`` outside
brackets, a bracket it did not open, or the end of the logical line), and that
text alone is parsed, in the lines and columns of the file. Of those with the
lambda's arguments, the one whose body covers the code's source positions is it
(Python 3.11 and later record them; before, two such lambdas on a line are
ambiguous).

>>> lines = ["f = apply(\\n", "    lambda x: x + 1, lambda x, y: x * y,\\n", ")\\n"]
>>> [(n.lineno, n.col_offset, len(n.args.args)) for n in lambda_nodes(lines, 1)]
[(2, 4, 1), (2, 21, 2)]
"""

from __future__ import annotations

import io
import tokenize

import gast

from autograph.pyct import gast_conversion

_OPENERS, _CLOSERS = "([{", ")]}"
_ENDS_AT_DEPTH_0 = {",", ";", "for", "async"}


def lambda_nodes(lines, first):
    """The Lambda nodes of the lambdas that start on ``lines[first]``, each parsed alone."""
    tokens = _tokens(lines, first)
    nodes = []
    for i, token in enumerate(tokens):
        if token.start[0] > 1:
            break
        if token.type == tokenize.NAME and token.string == "lambda":
            node = _parse_lambda(lines, first, tokens, i)
            if node is not None:
                nodes.append(node)
    return nodes


def covering(nodes, code):
    """The nodes whose body holds every source position of ``code`` (Python 3.11+), else all."""
    positions = getattr(code, "co_positions", None)
    if positions is None:
        return nodes
    # (the code's entry instruction has an empty span, at the line's start)
    spans = [
        (p[0], p[2], p[1], p[3])
        for p in positions()
        if None not in p and (p[0], p[2]) != (p[1], p[3])
    ]
    if not spans:
        return nodes
    return [
        n
        for n in nodes
        if all(
            (n.body.lineno, n.body.col_offset) <= (line, col)
            and (end_line, end_col) <= (n.body.end_lineno, n.body.end_col_offset)
            for line, col, end_line, end_col in spans
        )
    ]


def _tokens(lines, first):
    """The tokens from ``lines[first]`` on, to the first one that does not tokenize."""
    text = "".join(lines[first:])
    found = []
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            found.append(token)
            if token.type == tokenize.ENDMARKER:
                break
    except (tokenize.TokenError, SyntaxError, IndentationError):
        pass  # a bracket closed that opened before these lines: what came before it counts
    return found


def _parse_lambda(lines, first, tokens, start):
    """The Lambda node of the lambda at ``tokens[start]``, or None where it does not parse."""
    for end in _expression_ends(tokens, start):
        node = _parse_span(lines, first, tokens[start].start, end)
        if node is not None:
            return node
    return None


def _parse_span(lines, first, start, end):
    """The Lambda node the text from ``start`` to ``end`` (token positions) parses to, or None."""
    (line, col), (end_line, end_col) = start, end
    text_lines = lines[first + line - 1 : first + end_line]
    if not text_lines:
        return None
    if len(text_lines) == 1:
        text = text_lines[0][col:end_col]
    else:
        text = text_lines[0][col:] + "".join(text_lines[1:-1]) + text_lines[-1][:end_col]
    # In brackets, so that its lines may break anywhere; the bracket on a line of its own before
    # it, so that the lambda keeps its line and column in the file (on the file's first line,
    # just before it: its column then shifts by one where it starts the line).
    line_in_file = first + line
    if line_in_file >= 2:
        source = "\n" * (line_in_file - 2) + "(\n" + " " * col + text + "\n)"
    else:
        source = "(" + " " * max(col - 1, 0) + text + "\n)"
    try:
        module = gast_conversion.parse(source)
    except SyntaxError:
        return None
    node = module.body[0].value if len(module.body) == 1 else None
    return node if isinstance(node, gast.Lambda) else None


def _expression_ends(tokens, start):
    """Where the lambda expression starting at ``tokens[start]`` may end, (line, column) each.

    The end of a line may be one (tokenized from the lambda's line, a bracket opened before
    it is not seen, so a line break inside it looks like the statement's end); the first
    ``,``, ``;``, ``for`` or unopened bracket outside brackets is the last.
    """
    depth, in_arguments = 0, True
    for token in tokens[start + 1 :]:
        kind, text = token.type, token.string
        if in_arguments:  # (a default's commas and colons are in brackets)
            depth += kind == tokenize.OP and text in _OPENERS
            depth -= kind == tokenize.OP and text in _CLOSERS
            in_arguments = not (depth == 0 and kind == tokenize.OP and text == ":")
        elif kind == tokenize.NEWLINE:
            yield token.start
        elif kind == tokenize.ENDMARKER:
            break
        elif kind == tokenize.OP and text in _OPENERS:
            depth += 1
        elif kind == tokenize.OP and text in _CLOSERS:
            if depth == 0:
                yield token.start
                return
            depth -= 1
        elif depth == 0 and text in _ENDS_AT_DEPTH_0 and kind in (tokenize.OP, tokenize.NAME):
            yield token.start
            return
    if tokens:
        yield tokens[-1].end
