"""The variables a converted statement carries, read and written through its functions' closures.

Converted code passes a statement's functions (branches, loop body and test)
and the names of the variables it carries. Each function declares ``nonlocal``
the variables it assigns, so between them their closure cells are the
enclosing function's own variables: reading and writing a cell is reading and
writing the variable, with no accessor functions in the generated code. A
variable declared ``global`` lives in the functions' globals instead, and a
part of an object (``self.count``, ``x['b']``, ``y[0]``) is reached from the
cell or global of its base.

>>> def counter():
...     total = 0
...     def add_one():
...         nonlocal total
...         total += 1
...     state = State(("total",), add_one)
...     add_one()
...     before = state.get()
...     state.set((10,))
...     return before, total
>>> counter()
((1,), 10)
"""

from __future__ import annotations

import ast

from autograph.operators.data_structures import contents, is_container, set_contents
from autograph.operators.variables import Undefined, is_undefined

_MISSING = object()


class State:
    """``get()`` and ``set(values)`` for the variables ``names``, found in ``functions``' closures.

    A variable not assigned yet (an empty cell, a missing global or attribute)
    reads as ``Undefined(name)``; setting a global or an attribute to an
    Undefined value removes it again, so that restoring a state leaves nothing
    that was not there. A name no function holds a cell for is a global: the
    converter names only variables that the functions assign (``nonlocal`` or
    ``global``), or parts of what they read. Of the ``optional`` ones a staged
    statement need not give a value (only closures, or the statement itself, read them).
    """

    __slots__ = ("names", "optional", "_cells", "_globals", "_functions")

    def __init__(self, names, *functions, optional=()):
        # Optional variables come after the others: a statement may leave them undefined.
        self.names = tuple(names) + tuple(optional) if optional else names
        self.optional = frozenset(optional)
        self._cells = {}
        self._globals = {}
        self._functions = functions
        for fn in functions:
            closure = getattr(fn, "__closure__", None)
            if closure:
                self._cells.update(zip(fn.__code__.co_freevars, closure))
            self._globals = getattr(fn, "__globals__", self._globals)

    def _cell(self, name):
        """The cell of ``name``: in the functions given, or in functions of the same converted
        code that they call (an elif's branches sit beside the if's, called from its else)."""
        cell = self._cells.get(name)
        if cell is not None or self._functions is None:
            return cell
        files = {fn.__code__.co_filename for fn in self._functions if fn is not None}
        seen, queue = set(), [fn for fn in self._functions if fn is not None]
        for fn in queue:  # grows while it is read
            for var, inner in zip(fn.__code__.co_freevars, fn.__closure__ or ()):
                self._cells.setdefault(var, inner)
                try:
                    value = inner.cell_contents
                except ValueError:
                    continue
                code = getattr(value, "__code__", None)
                if code is not None and code.co_filename in files and id(value) not in seen:
                    seen.add(id(value))
                    queue.append(value)
        self._functions = None  # searched once
        return self._cells.get(name)

    def get(self) -> tuple:
        """The variables' current values, in the order of ``names``."""
        return tuple([self._read(name) for name in self.names])

    def set(self, values):
        """Assigns ``values`` to the variables, in the order of ``names``."""
        for name, value in zip(self.names, values):
            self._write(name, value)

    def save(self):
        """The variables' values, and what the containers (lists, dicts) among them hold."""
        values = self.get()
        return values, [(v, contents(v)) for v in values if is_container(v)]

    def restore(self, saved):
        """Makes the variables, and the containers among them, as ``save()`` found them."""
        values, held = saved
        self.set(values)
        for container, what in held:
            set_contents(container, what)

    def _read(self, name):
        cell = self._cells.get(name) or self._cell(name)
        if cell is not None:  # the common case, a plain variable: as directly as it goes
            try:
                return cell.cell_contents
            except ValueError:
                return Undefined(name)
        base, steps = symbol_path(name)
        value = self._base(base)
        for step in steps:
            if value is _MISSING or is_undefined(value):
                break
            value = self._step(value, step)
        # Named for the whole symbol, as errors should name it.
        return Undefined(name) if value is _MISSING or is_undefined(value) else value

    def _step(self, owner, step):
        kind, key = step
        if kind is _ATTRIBUTE:
            return getattr(owner, key, _MISSING)
        if kind is _NAMED_KEY:
            key = self._base(key)
            if key is _MISSING or is_undefined(key):
                return _MISSING
        try:
            return owner[key]
        except (KeyError, IndexError, TypeError):
            return _MISSING

    def _write(self, name, value):
        base, steps = symbol_path(name)
        if not steps:
            cell = self._cell(base)
            if cell is not None:
                cell.cell_contents = value
            elif not is_undefined(value):
                self._globals[base] = value
            else:  # restoring a global that did not exist: it goes again
                self._globals.pop(base, None)
            return
        owner = self._base(base)
        for step in steps[:-1]:
            if owner is _MISSING or is_undefined(owner):
                return  # nothing holds the part: it stays as undefined as it was
            owner = self._step(owner, step)
        if owner is _MISSING or is_undefined(owner):
            return
        kind, key = steps[-1]
        if kind is _ATTRIBUTE:
            if not is_undefined(value):
                setattr(owner, key, value)
            elif hasattr(owner, key):
                delattr(owner, key)
            return
        if kind is _NAMED_KEY:
            key = self._base(key)
            if key is _MISSING or is_undefined(key):
                return
        if not is_undefined(value):
            owner[key] = value
        elif isinstance(owner, dict):  # a key that was not there goes again
            owner.pop(key, None)

    def _base(self, base):
        cell = self._cell(base)
        if cell is None:
            return self._globals.get(base, _MISSING)
        try:
            return cell.cell_contents
        except ValueError:  # an empty cell: the variable is not assigned yet
            return _MISSING


_ATTRIBUTE, _KEY, _NAMED_KEY = "attribute", "key", "named key"
NAMED_KEY = _NAMED_KEY  # the kind of a step by a key that a variable holds (x[k])
_paths = {}  # symbol -> (base, steps): a function's few symbols, parsed once


def symbol_path(name):
    """``("x", [(_KEY, "a"), (_ATTRIBUTE, "b")])`` for the symbol ``x['a'].b``.

    Symbols are Python expressions the converter wrote: a name, then attributes
    and subscripts by a str or int constant, or by a name.

    >>> symbol_path("self.items[0]")
    ('self', (('attribute', 'items'), ('key', 0)))
    >>> symbol_path("x[k]")
    ('x', (('named key', 'k'),))
    """
    known = _paths.get(name)
    if known is not None:
        return known
    steps = []
    node = ast.parse(name, mode="eval").body
    while not isinstance(node, ast.Name):
        if isinstance(node, ast.Attribute):
            steps.append((_ATTRIBUTE, node.attr))
        elif isinstance(node.slice, ast.Name):
            steps.append((_NAMED_KEY, node.slice.id))
        else:
            steps.append((_KEY, ast.literal_eval(node.slice)))
        node = node.value
    known = _paths[name] = (node.id, tuple(reversed(steps)))
    return known
