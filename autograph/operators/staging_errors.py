"""Errors that staging raises about the program itself, which no ``except`` of the program catches.

When an ``if`` or a loop is staged, its branches or body are traced, and then
checked: a variable defined in one branch only, a Python list whose length
depends on a tensor, a loop variable whose dtype changes. Such an error is about
the program, not a value it computes: a ``try`` around the statement must not
hand it to the user's handler, which would run on as if the program's own code
had raised, and give a wrong answer. (TensorFlow's AutoGraph lets the handler
catch it.) The error keeps its type and message; it is *marked*, and the
converted ``except`` clauses re-raise a marked error (``converters/try_statements.py``).

What the program's own functions raise while they are traced (a branch's
``ValueError``) is theirs: a handler catches it, as Python's would.

>>> def staged(branch):
...     with marking(branch):
...         branch()
...         raise ValueError("'y' must also be initialized in the else branch")
>>> def branch():
...     pass
>>> try:
...     staged(branch)
... except ValueError as error:
...     is_marked(error)
True
>>> def branch():
...     raise ValueError("the program's own")
>>> try:
...     staged(branch)
... except ValueError as error:
...     is_marked(error)
False
"""

from __future__ import annotations

import builtins
import contextlib
import sys

_GROUPS = getattr(builtins, "BaseExceptionGroup", ())  # Python 3.11 on
_MARK = "_autograph_staging_error"  # True on an error staging raised about the program


def is_marked(error) -> bool:
    """Whether ``error`` is one that staging raised about the program."""
    return getattr(error, _MARK, False) is True


def handling_staging_error() -> bool:
    """Whether the exception being handled (in an ``except`` clause) is marked.

    Converted ``except`` clauses begin with ``if ag__.handling_staging_error(): raise``.
    """
    error = sys.exc_info()[1]
    if isinstance(error, _GROUPS):  # an ``except*`` clause's: any of its errors
        return error.subgroup(is_marked) is not None
    return is_marked(error)


def refusal(error):
    """``error``, marked: for a refusal raised from an operator the program's code calls."""
    _mark(error)
    return error


@contextlib.contextmanager
def marking(*program_functions):
    """Marks what leaves the block, unless it came out of one of ``program_functions``.

    Those are the branches or the body of the statement being staged: what
    raises inside them is the program's own (or marked already, by a statement
    staged inside them). The traceback tells, so that the functions need no
    wrapper: a chain of a hundred ``elif``s nests a hundred staged ``if``s, and
    each frame counts towards Python's recursion limit.
    """
    try:
        yield
    except Exception as error:
        if not is_marked(error) and not _raised_in(error, program_functions):
            _mark(error)
        raise


def _raised_in(error, functions):
    codes = {getattr(fn, "__code__", None) for fn in functions}
    tb = error.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code in codes:
            return True
        tb = tb.tb_next
    return False


def _mark(error):
    with contextlib.suppress(AttributeError, TypeError):  # a type without a __dict__: left as is
        setattr(error, _MARK, True)
