"""Where generated code came from: a map from generated lines to the user's file and lines.

Every statement a converter writes carries the line of the user statement it
replaces (``set_origin``). After printing, the printed source is parsed again
and walked in step with the tree that was printed, which has the same shape,
so each printed line finds the user line it stands for.
"""

from __future__ import annotations

import ast

import gast


def set_origin(nodes, lineno):
    """Gives ``nodes`` (and everything under them without a line) the user line ``lineno``."""
    for node in nodes if isinstance(nodes, list) else [nodes]:
        for child in gast.walk(node):
            if (
                getattr(child, "lineno", None) is None
                and hasattr(child, "_attributes")
                and "lineno" in child._attributes
            ):
                child.lineno = lineno


def source_map(printed_tree, generated_source, line_offset=0):
    """{generated line: user line} for the tree ``printed_tree`` that printed as ``generated_source``."""
    reparsed = ast.parse(generated_source)
    mapping = {}
    original_nodes = [n for n in ast.walk(printed_tree) if isinstance(n, (ast.stmt, ast.expr))]
    printed_nodes = [n for n in ast.walk(reparsed) if isinstance(n, (ast.stmt, ast.expr))]
    for original, printed in zip(original_nodes, printed_nodes):
        user_line = getattr(original, "lineno", None)
        if user_line is None or type(original) is not type(printed):
            continue
        mapping.setdefault(printed.lineno + line_offset, user_line)
    return mapping
