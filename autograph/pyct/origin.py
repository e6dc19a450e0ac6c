"""Where generated code came from: every generated statement carries a user line.

A converter gives the statements it writes the line of the user statement
they replace (``set_origin``); the printer then maps each printed line to it
(``autograph.pyct.printer``), and errors are reported at those lines.
"""

from __future__ import annotations

from autograph.pyct import walk


def set_origin(nodes, lineno):
    """Gives ``nodes``, and what they hold that has no line yet, the user line ``lineno``."""
    stack = list(nodes) if isinstance(nodes, list) else [nodes]
    while stack:
        node = stack.pop()
        if "lineno" in node._attributes:
            if getattr(node, "lineno", None) is not None:
                continue  # the user's own code, and all it holds, already has its lines
            node.lineno = lineno
        stack += walk.children(node)
