"""What tracing one branch of a staged ``if`` knows: the value of its condition.

Lowering ``return``, ``break`` and ``continue`` guards code with flags: ``if not
do_return:``. Once a flag is a tensor, every later test of it would stage
another ``rt.cond``, although inside the branch where ``not do_return`` holds,
``do_return`` is known to be False. Tests of a known tensor run as Python:
the graph is smaller, and a loop inside that branch is not staged under its
flag again (where a variable it assigns would then have no value on the other
path).

>>> import runtime as rt
>>> with rt.Graph().as_default():
...     flag = rt.placeholder(rt.bool, [])
...     with assuming(rt.logical_not(flag), True):
...         inside = value_of(flag), value_of(rt.logical_not(flag))
...     outside = value_of(flag)
>>> inside, outside
((False, True), None)
"""

from __future__ import annotations

import contextlib
import threading

import runtime as rt
from runtime.ops.math_ops import LOGICAL_NOT


class _Facts(threading.local):
    def __init__(self):
        self.known = {}  # id(tensor) -> (tensor, its value on the path being traced)


_facts = _Facts()


@contextlib.contextmanager
def assuming(condition, value):
    """While tracing the branch where the symbolic ``condition`` is ``value``."""
    added = []
    while True:
        if id(condition) not in _facts.known:
            _facts.known[id(condition)] = (condition, value)
            added.append(id(condition))
        op = condition.op
        if op.opdef is not LOGICAL_NOT:
            break
        condition, value = op.inputs[0], not value
    try:
        yield
    finally:
        for key in added:
            del _facts.known[key]


def value_of(tensor):
    """True or False where ``tensor`` (a symbolic bool) is known on this path, else None."""
    if not _facts.known:
        return None
    negated = False
    while True:
        entry = _facts.known.get(id(tensor))
        if entry is not None and entry[0] is tensor:
            return entry[1] != negated
        op = getattr(tensor, "op", None)
        if op is None or op.opdef is not LOGICAL_NOT:
            return None
        tensor, negated = op.inputs[0], not negated


def simplified(value):
    """``value``, or the Python bool it is known to be on this path."""
    if isinstance(value, rt.SymbolicTensor):
        known = value_of(value)
        if known is not None:
            return known
    return value
