"""``ag__.match_structure``: a ``match`` pattern that Python itself must check, on a Python value.

The converter turns the patterns that test a value (``case 0:``, ``case x:``) into ``if``
tests, which stage on tensors. A sequence, mapping or class pattern runs Python's own
``match`` in a small function of its own (``converters/match_statements.py``); a symbolic
tensor has no length, items or attributes to match until the graph runs.

>>> def pair(subject):
...     match subject:
...         case [a, b]:
...             return (a, b)
...     return None
>>> match_structure(pair, [1, 2], "a sequence pattern (line 3)")
(1, 2)
"""

from __future__ import annotations

from autograph.operators.backends import staging
from runtime.errors import OperatorNotAllowedInGraphError


def match_structure(case_fn, subject, pattern):
    """What ``case_fn`` captures from ``subject`` (a tuple), or None where it does not match.

    ``pattern`` names the pattern and its line, for the error a staged ``subject`` gets.
    """
    if staging(subject) is not None:
        raise OperatorNotAllowedInGraphError(
            f"A `match` on a symbolic tensor cannot check {pattern}: the tensor's length, "
            f"items and attributes are only known when the graph runs. {_INSTEAD}"
        )
    try:
        return case_fn(subject)
    except OperatorNotAllowedInGraphError as e:  # a value inside it compared with a tensor
        raise OperatorNotAllowedInGraphError(
            f"A `match` cannot check {pattern} against symbolic tensors: its values are "
            f"only known when the graph runs. {_INSTEAD}"
        ) from e


_INSTEAD = (
    "Match a tensor's value alone (`case 0:`, `case 1 | 2:`, `case n if n > 0:`, `case _:`), "
    "which AutoGraph stages like an `if`."
)
