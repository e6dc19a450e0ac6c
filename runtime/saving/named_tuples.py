"""Named tuples in a saved model: written as their class name and fields, loaded as a named
tuple class of that name and those fields (made once per name and fields), as TensorFlow
restores them. A loaded function matches a named tuple argument by class name and fields.

>>> import collections
>>> Point = collections.namedtuple("Point", ["y", "x"])
>>> name, fields = describe(Point(1, 2))
>>> loaded = rebuild(name, fields, [1, 2])
>>> loaded, loaded._fields, same_kind(Point(3, 4), loaded)
(Point(y=1, x=2), ('y', 'x'), True)
"""

from __future__ import annotations

import collections
import keyword

_CLASSES = {}  # (name, fields) -> the class loading made


def is_named_tuple(value):
    return isinstance(value, tuple) and isinstance(getattr(type(value), "_fields", None), tuple)


def describe(value):
    """``(class name, [field names])`` of a named tuple."""
    return type(value).__name__, list(type(value)._fields)


def rebuild(name, fields, items):
    """A named tuple of class ``name`` with ``fields`` holding ``items``; the names checked
    (ValueError where they could not name a named tuple's class and fields)."""
    names = [name, *fields]
    if not (
        all(type(n) is str and n.isidentifier() and not keyword.iskeyword(n) for n in names)
        and not any(f.startswith("_") for f in fields)
        and len(set(fields)) == len(fields)
        and len(items) == len(fields)
    ):
        raise ValueError("a named tuple's name or fields are damaged")
    key = (name, tuple(fields))
    if key not in _CLASSES:
        _CLASSES[key] = collections.namedtuple(name, fields)
    return _CLASSES[key](*items)


def same_kind(given, traced):
    """Whether ``given`` is a named tuple of the class name and fields of ``traced``."""
    return (
        is_named_tuple(given)
        and type(given).__name__ == type(traced).__name__
        and given._fields == traced._fields
    )
