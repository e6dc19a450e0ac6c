"""``except`` clauses let through what staging raises about the program itself.

A ``try`` around a staged statement keeps Python's meaning for what the
program's own code raises while it is traced: a handler catches it. An error
that staging raises about the program (a variable defined in one branch only, a
Python list whose length depends on a tensor, a loop variable whose dtype
changes: see ``operators/staging_errors.py``) is not the program's to handle: a
handler that caught it would run on as if the program had raised it, and the
function would give a wrong answer. So each clause begins by re-raising one:

    try:
        ...
    except ValueError:
        if ag__.handling_staging_error():
            raise
        ...

It runs last, on the code control flow made: the ``if`` it adds is plain Python.

>>> import autograph as ag
>>> def parse(text):
...     try:
...         n = int(text)
...     except ValueError:
...         n = 0
...     return n
>>> print(ag.to_code(parse))
def parse(text):
    try:
        n = ag__.int_(text)
    except ValueError:
        if ag__.handling_staging_error():
            raise
        n = 0
    return ag__.ld(n)
<BLANKLINE>
"""

from __future__ import annotations

import gast

from autograph.converters.base import StatementConverter, statements
from autograph.pyct import walk

_TRIES = (gast.Try, gast.TryStar)


class _TryConverter(StatementConverter):
    compound_only = True

    def visit_Try(self, node):
        node = self.generic_visit(node)
        for handler in node.handlers:
            reraise = statements("if ag__.handling_staging_error():\n    raise", handler)
            handler.body[:0] = reraise
        return node

    visit_TryStar = visit_Try


def transform(node, ctx):
    # Most functions have no try: their statements tell, without a walk of every node.
    if not any(isinstance(s, _TRIES) for s in walk.statements(node.body)):
        return node
    return _TryConverter(ctx).visit(node)
