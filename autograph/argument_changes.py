"""Arguments a traced function must leave as they are: TensorFlow refuses a function that
changes a list or dict it was given (the change would happen once, while tracing), and
arguments it cannot key a trace by (a ``set``).

>>> def append(l):
...     l.append(0)
>>> call_unchanged(append, "append", [1])
Traceback (most recent call last):
...
ValueError: append(l) should not modify its Python input arguments. Modifying a copy is allowed. The following parameter(s) were modified: l
>>> check_keyable("f", [("x", (1, {2}))])
Traceback (most recent call last):
...
TypeError: f: argument 'x' holds a set, {2}, which a traced function cannot be called with: Could not generate a generic TraceType for {2} (it is mutable and unordered). Pass a tuple or a sorted list instead.
"""

from __future__ import annotations

import inspect


def call_unchanged(fn, fn_name, /, *args, **kwargs):
    """``fn(*args, **kwargs)``; ValueError, in TensorFlow's words, naming the parameters whose
    lists or dicts it changed. (``fn`` and ``fn_name`` are positional-only: the user's own
    keywords may have those names.)"""
    signature, named = _named(fn, args, kwargs)
    before = {name: _shape_of(value) for name, value in named.items()}
    result = fn(*args, **kwargs)
    changed = [name for name, value in named.items() if _shape_of(value) != before[name]]
    if changed:
        raise ValueError(
            f"{fn_name}{signature} should not modify its Python input arguments. Modifying a "
            f"copy is allowed. The following parameter(s) were modified: {', '.join(changed)}"
        )
    return result


def _named(fn, args, kwargs):
    """``fn``'s signature (or "") and the arguments by parameter name (or as given)."""
    try:
        signature = inspect.signature(fn)
        return signature, dict(signature.bind(*args, **kwargs).arguments)
    except (TypeError, ValueError):
        return "", {"args": list(args), "kwargs": kwargs}


def _shape_of(value):
    """The lists', tuples' and dicts' contents, nested, by identity: what a change alters.
    A dict's keys compare in any order (as TensorFlow's nest sorts them): reordering is no
    change."""
    if isinstance(value, dict):
        return ("dict", id(value), {k: _shape_of(v) for k, v in value.items()})
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, id(value), tuple(_shape_of(v) for v in value))
    return id(value)


def check_keyable(fn_name, arguments):
    """TypeError naming the argument that holds a ``set``: a call cannot be keyed by it."""
    for name, value in arguments:
        found = _find_set(value)
        if found is not None:
            raise TypeError(
                f"{fn_name}: argument '{name}' holds a set, {found!r}, which a traced function "
                f"cannot be called with: Could not generate a generic TraceType for {found!r} "
                "(it is mutable and unordered). Pass a tuple or a sorted list instead."
            )


def _find_set(value):
    if isinstance(value, set):
        return value
    inner = value.values() if isinstance(value, dict) else value
    if isinstance(value, (list, tuple, dict)):
        for item in inner:
            found = _find_set(item)
            if found is not None:
                return found
    return None
