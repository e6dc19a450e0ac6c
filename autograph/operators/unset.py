"""Graph values of variables that may not be set: what a staged loop gives a variable it creates.

A variable that only a loop gives a value (first assigned in its body) has
none if the loop runs zero times. In a graph the loop carries a stand-in for
it, and a flag that says whether an iteration set it. The loop's result is
*marked* with that flag; reading it (``ag__.ld``, which converted code calls
wherever a variable may be unassigned) then asserts the flag, so that the
graph fails at run time where Python would raise UnboundLocalError, naming the
variable as TensorFlow does, and only if the program reads it.

>>> import runtime as rt
>>> g = rt.Graph()
>>> with g.as_default():
...     iterated = rt.placeholder(rt.bool, [])
...     last = rt.constant(0)
...     mark(last, iterated, "last")
...     read = checked(last)
>>> rt.Session(g).run(read, {iterated: True})
np.int32(0)
>>> rt.Session(g).run(read, {iterated: False})
Traceback (most recent call last):
...
runtime.errors.InvalidArgumentError: assertion failed: [loop must iterate at least once to initialize last]...
"""

from __future__ import annotations

import functools
import weakref

import runtime as rt

# graph -> {id(tensor): (tensor, its "set" flag, the variable's name)}; a graph's marks go with it
_marks = weakref.WeakKeyDictionary()


def mark(value, flag, name):
    """Marks the tensors of ``value`` (the variable ``name``) as set only if ``flag`` is."""
    for leaf in rt.nest.flatten(value):
        if isinstance(leaf, rt.SymbolicTensor):
            _marks.setdefault(leaf.graph, {})[id(leaf)] = (leaf, flag, name)


def flag_of(value):
    """The flag of a marked ``value`` (one of its tensors), or None."""
    entry = _entry(value)
    return entry[1] if entry is not None else None


def _entry(value):
    if not _marks:
        return None
    for leaf in rt.nest.flatten(value):
        if isinstance(leaf, rt.SymbolicTensor):
            entry = _marks.get(leaf.graph, {}).get(id(leaf))
            if entry is not None and entry[0] is leaf:
                return entry
    return None


def flag_after(value, before, flag):
    """Whether a variable is set after an iteration that began with it at ``before`` (whose flag
    was ``flag``): as it was if the iteration left it, set if the iteration assigned it."""
    if value is before:
        return flag
    inner = flag_of(value)
    return inner if inner is not None else rt.constant(True)


def mark_with_check(value, check):
    """Marks ``value``, a value of another backend's loop: reading it gives ``check(value)``
    (that backend's own run-time check of its flag). The mark goes with the value."""
    for leaf in rt.nest.flatten(value):
        key = id(leaf)
        forget = functools.partial(_checks.pop, key, None)
        _checks[key] = (weakref.ref(leaf, lambda _, forget=forget: forget()), check)


_checks = {}  # id(leaf) -> (weak reference to the leaf, its check)


def checked(value):
    """``value`` to read: if it is marked, its tensors come after an assertion of its flag."""
    if _checks:
        for leaf in rt.nest.flatten(value):
            entry = _checks.get(id(leaf))
            if entry is not None and entry[0]() is leaf:
                return entry[1](value)
    entry = _entry(value)
    if entry is None:
        return value
    _, flag, name = entry
    return require(value, flag, name)


def never_initialized(name):
    """What a program says when a loop that creates ``name`` ran no iteration."""
    return f"loop must iterate at least once to initialize {name}"


def require(value, flag, name):
    """``value``'s tensors, available only after an assertion that ``flag`` holds."""
    check = rt.Assert(flag, [never_initialized(name)])
    with rt.control_dependencies([check]):
        return rt.nest.map_structure(
            lambda leaf: rt.identity(leaf) if isinstance(leaf, rt.Tensor) else leaf, value
        )
