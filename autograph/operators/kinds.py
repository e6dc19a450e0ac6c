"""The kinds of staged statements and iterations, named once.

``side_effects.watching`` is told which statement is being traced (its errors
say what happens to a change in each); a staged ``for`` is told what it
iterates over (each backend's iterable).

>>> StatementKind.LOOP, IterationKind.ZIP
('loop', 'zip')
"""

from __future__ import annotations


class StatementKind:
    """The staged statement whose tracing ``side_effects.watching`` watches."""

    LOOP = "loop"  # the body of a tensor-dependent loop
    IF = "if"  # a branch of a tensor-dependent `if`
    BREAK = "break"  # the rest of a Python loop after a tensor-dependent `break`


class IterationKind:
    """What a staged ``for`` iterates over."""

    RANGE = "range"  # range() with a staged argument
    OVER = "over"  # an array's rows (its first dimension)
    ENUMERATE = "enumerate"
    ZIP = "zip"
