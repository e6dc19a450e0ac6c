"""``assert`` as converted code runs it: Python's assert, or an assert op in a graph.

>>> assert_stmt(1 > 0, lambda: "never computed")
>>> assert_stmt(1 < 0, lambda: "one is not below zero")
Traceback (most recent call last):
...
AssertionError: one is not below zero
"""

from __future__ import annotations

import runtime as rt
from autograph.operators.backends import PLAIN_TYPES, staging
from autograph.operators.control_flow import is_symbolic


def assert_stmt(test, message=None, source=None):
    """``assert test, message()``; a symbolic ``test`` adds an ``rt.Assert`` op instead.

    ``message`` computes the user's message, if there is one; ``source`` is the
    asserted expression's text, for the op's message when there is none. The
    op raises ``rt.errors.InvalidArgumentError`` each time the graph runs with
    ``test`` false; in a function graph it runs in program order, like every
    stateful op.
    """
    if is_symbolic(test):
        if test.dtype is not rt.bool:
            test = rt.not_equal(test, rt.zeros_like(test))  # Python's truth of a number
        rt.Assert(test, [message() if message is not None else f"assert {source}"])
        return
    backend = None if type(test) in PLAIN_TYPES else staging(test)
    if backend is not None and backend.is_staged(test):  # another framework's staged value
        backend.assert_(test, message() if message is not None else f"assert {source}")
        return
    if not test:
        raise AssertionError(message()) if message is not None else AssertionError()
