"""Nested structures of lists, tuples, namedtuples and dicts, and their leaves.

>>> flatten({"b": [1, 2], "a": (3,)})
[3, 1, 2]
>>> pack_sequence_as([0, (0, 0)], [7, 8, 9])
[7, (8, 9)]
>>> pack_sequence_as({"b": 0, "a": 0}, [1, 2])  # values by sorted key, keys in order
{'b': 2, 'a': 1}

Objects with ``_nest_components()`` and ``_nest_rebuild(components)`` (a
TensorArray) are structures too: they flatten into their components. One that
knows more than its components (a TensorArray's static size) may also have
``_nest_join(other)``: see ``join``.
"""

from __future__ import annotations


def _sorted_keys(d):
    try:
        return sorted(d)
    except TypeError:
        return list(d)


def _is_namedtuple(x):
    return isinstance(x, tuple) and hasattr(type(x), "_fields")


def is_nested(x) -> bool:
    return isinstance(x, (list, tuple, dict)) or hasattr(x, "_nest_components")


def _children(x):
    if isinstance(x, dict):
        return [x[k] for k in _sorted_keys(x)]
    if isinstance(x, (list, tuple)):
        return list(x)
    return list(x._nest_components())


def _rebuild(x, children):
    if isinstance(x, dict):  # leaves in sorted-key order, the keys in the dict's own order
        by_key = dict(zip(_sorted_keys(x), children))
        return type(x)((key, by_key[key]) for key in x)
    if _is_namedtuple(x):
        return type(x)(*children)
    if isinstance(x, tuple):
        return tuple(children)
    if isinstance(x, list):
        return list(children)
    return x._nest_rebuild(children)


def flatten(structure) -> list:
    """The leaves of ``structure``, depth first (dict entries by sorted key)."""
    out = []
    _flatten_into(structure, out)
    return out


def _flatten_into(x, out):
    if is_nested(x):
        for child in _children(x):
            _flatten_into(child, out)
    else:
        out.append(x)


def pack_sequence_as(structure, flat):
    """The inverse of ``flatten``: ``flat`` leaves put back into the shape of ``structure``."""
    flat = list(flat)
    packed, used = _pack(structure, flat, 0)
    if used != len(flat):
        raise ValueError(f"Structure has {used} leaves but {len(flat)} values were given")
    return packed


def _pack(x, flat, i):
    if not is_nested(x):
        if i >= len(flat):
            raise ValueError("Too few values to pack into the structure")
        return flat[i], i + 1
    children = []
    for child in _children(x):
        packed, i = _pack(child, flat, i)
        children.append(packed)
    return _rebuild(x, children), i


def join(a, b):
    """A structure like ``a`` whose objects claim only what holds for both ``a`` and ``b``.

    Where either of two structures (a cond's branches) may be the value, an
    object with ``_nest_join`` (a TensorArray: its size and element shape) is
    joined with its counterpart in ``b``; other leaves are ``a``'s. The two
    must have the same structure.

    >>> join({"k": [1, (2,)]}, {"k": [3, (4,)]})
    {'k': [1, (2,)]}
    """
    if hasattr(a, "_nest_join"):
        return a._nest_join(b)
    if not is_nested(a):
        return a
    return _rebuild(a, [join(x, y) for x, y in zip(_children(a), _children(b))])


def map_structure(fn, *structures):
    """Applies ``fn`` leaf by leaf to structures of the same shape."""
    first = structures[0]
    for other in structures[1:]:
        assert_same_structure(first, other)
    flats = [flatten(s) for s in structures]
    return pack_sequence_as(first, [fn(*leaves) for leaves in zip(*flats)])


def describe(x) -> str:
    """A short text for a structure's shape, used in error messages."""
    if isinstance(x, dict):
        return "{" + ", ".join(f"{k!r}: {describe(x[k])}" for k in _sorted_keys(x)) + "}"
    if isinstance(x, (list, tuple)):
        inner = ", ".join(describe(c) for c in x)
        return f"[{inner}]" if isinstance(x, list) else f"({inner}{',' if len(x) == 1 else ''})"
    if hasattr(x, "_nest_components"):
        return type(x).__name__
    return "None" if x is None else "."


def assert_same_structure(a, b, check_types=False):
    """Raises ValueError when ``a`` and ``b`` do not nest the same way."""
    if not _same(a, b, check_types):
        raise ValueError(
            f"The two structures don't have the same nested structure: {describe(a)} vs {describe(b)}"
        )


def _same(a, b, check_types):
    if is_nested(a) != is_nested(b):
        return False
    if not is_nested(a):
        return True
    if isinstance(a, dict) != isinstance(b, dict):
        return False
    if isinstance(a, dict) and _sorted_keys(a) != _sorted_keys(b):
        return False
    if check_types and type(a) is not type(b):
        return False
    ca, cb = _children(a), _children(b)
    return len(ca) == len(cb) and all(_same(x, y, check_types) for x, y in zip(ca, cb))
