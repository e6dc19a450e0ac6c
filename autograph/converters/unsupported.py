"""Constructs that cannot be converted get an error naming them and their line.

Generator functions nested in the converted one are left as they are.
"""

from __future__ import annotations

import gast

from autograph.pyct import anno, walk
from autograph.pyct.parser import ConversionError

_GENERATOR = (gast.Yield, gast.YieldFrom)
_ASYNC = (gast.Await, gast.AsyncFor, gast.AsyncWith)
_UNSUPPORTED = frozenset(_GENERATOR + _ASYNC)


def check(fn_node, fn_name):
    """Raises ConversionError for what the function itself does that cannot be converted.

    Of several such constructs, the first in the source is named.
    """
    if isinstance(fn_node, gast.AsyncFunctionDef):
        raise ConversionError(
            f"{fn_name} (line {fn_node.lineno}): `async def` functions are not supported"
        )
    found = [n for n in walk.nodes(fn_node, into_scopes=False) if type(n) in _UNSUPPORTED]
    if found:
        node = min(found, key=lambda n: n.lineno)
        if isinstance(node, _GENERATOR):
            raise ConversionError(
                f"{fn_name} (line {node.lineno}): generators (`yield`) are not supported; "
                "return a list or a tensor instead"
            )
        raise ConversionError(f"{fn_name} (line {node.lineno}): `async` code is not supported")
    for node in walk.statements(fn_node.body):
        nested = isinstance(node, (gast.FunctionDef, gast.AsyncFunctionDef))
        if nested and any(isinstance(n, _GENERATOR) for n in walk.nodes(node, into_scopes=False)):
            anno.setanno(node, anno.Basic.SKIP_CONVERSION, True)
