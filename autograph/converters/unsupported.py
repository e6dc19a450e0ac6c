"""Constructs that cannot be converted get an error naming them and their line.

Generator functions nested in the converted one are left as they are.
"""

from __future__ import annotations

import gast

from autograph.pyct import anno, walk
from autograph.pyct.parser import ConversionError

_GENERATOR = (gast.Yield, gast.YieldFrom)


def _own_nodes(fn_node):
    stack = walk.children(fn_node)
    while stack:
        node = stack.pop()
        yield node
        if not isinstance(
            node, (gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda, gast.ClassDef)
        ):
            stack += walk.children(node)


def check(fn_node, fn_name):
    """Raises ConversionError for what the function itself does that cannot be converted."""
    if isinstance(fn_node, gast.AsyncFunctionDef):
        raise ConversionError(
            f"{fn_name} (line {fn_node.lineno}): `async def` functions are not supported"
        )
    for node in _own_nodes(fn_node):
        if isinstance(node, _GENERATOR):
            raise ConversionError(
                f"{fn_name} (line {node.lineno}): generators (`yield`) are not supported; "
                "return a list or a tensor instead"
            )
        if isinstance(node, (gast.Await, gast.AsyncFor, gast.AsyncWith)):
            raise ConversionError(f"{fn_name} (line {node.lineno}): `async` code is not supported")
    for node in walk.statements(fn_node.body):
        nested = isinstance(node, (gast.FunctionDef, gast.AsyncFunctionDef))
        if nested and any(isinstance(n, _GENERATOR) for n in _own_nodes(node)):
            anno.setanno(node, "skip_conversion", True)
