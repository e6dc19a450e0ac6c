"""Named tuples in a saved model: written as their class name and fields, loaded as a named
tuple class of that name and those fields, as TensorFlow restores them. A loaded function
matches a named tuple argument by class name and fields.

The class is made with ``type``, not ``collections.namedtuple`` (which writes the field
names into code it runs: no code is made from a file's text), and the classes made are
kept for the last ``MAX_CLASSES`` names and fields only (a file cannot pin memory with them).

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
import operator
import unicodedata

MAX_CLASSES = 256
_CLASSES = collections.OrderedDict()  # (name, fields) -> the class loading made, newest last


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
        # (as Python reads them: "\ufb01" and "fi" are one name)
        and len({unicodedata.normalize("NFKC", f) for f in fields}) == len(fields)
        and len(items) == len(fields)
    ):
        raise ValueError("a named tuple's name or fields are damaged")
    key = (name, tuple(fields))
    made = _CLASSES.get(key)
    if made is None:
        made = _CLASSES[key] = _named_tuple_class(name, tuple(fields))
        while len(_CLASSES) > MAX_CLASSES:
            _CLASSES.popitem(last=False)
    else:
        _CLASSES.move_to_end(key)
    return made(*items)


def _named_tuple_class(name, fields):
    """A tuple class with ``_fields`` and a property per field, printing as a named tuple."""

    def __new__(cls, *items):  # noqa: N807 (the class's own)
        return tuple.__new__(cls, items)

    def __repr__(self):  # noqa: N807
        shown = ", ".join(f"{f}={v!r}" for f, v in zip(self._fields, self))
        return f"{type(self).__name__}({shown})"

    def _asdict(self):
        return dict(zip(self._fields, self))

    namespace = {
        "__slots__": (),
        "_fields": fields,
        "__new__": __new__,
        "__repr__": __repr__,
        "_asdict": _asdict,
        "__module__": __name__,
    }
    namespace.update({f: property(operator.itemgetter(i)) for i, f in enumerate(fields)})
    return type(name, (tuple,), namespace)


def same_kind(given, traced):
    """Whether ``given`` is a named tuple of the class name and fields of ``traced``."""
    return (
        is_named_tuple(given)
        and type(given).__name__ == type(traced).__name__
        and given._fields == traced._fields
    )
