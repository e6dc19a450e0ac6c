"""The variables a converted statement carries, read and written through its functions' closures.

Converted code passes a statement's functions (branches, loop body and test)
and the names of the variables it carries. Each function declares ``nonlocal``
the variables it assigns, so between them their closure cells are the
enclosing function's own variables: reading and writing a cell is reading and
writing the variable, with no accessor functions in the generated code. A
variable declared ``global`` lives in the functions' globals instead, and an
attribute (``self.count``) is reached from the cell or global of its base.

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

from autograph.operators.variables import Undefined, is_undefined

_MISSING = object()


class State:
    """``get()`` and ``set(values)`` for the variables ``names``, found in ``functions``' closures.

    A variable not assigned yet (an empty cell, a missing global or attribute)
    reads as ``Undefined(name)``; setting a global or an attribute to an
    Undefined value removes it again, so that restoring a state leaves nothing
    that was not there. A name no function holds a cell for is a global: the
    converter names only variables that the functions assign (``nonlocal`` or
    ``global``), or attributes of what they read.
    """

    __slots__ = ("names", "_cells", "_globals")

    def __init__(self, names, *functions):
        self.names = names
        self._cells = {}
        self._globals = {}
        for fn in functions:
            closure = getattr(fn, "__closure__", None)
            if closure:
                self._cells.update(zip(fn.__code__.co_freevars, closure))
            self._globals = getattr(fn, "__globals__", self._globals)

    def get(self) -> tuple:
        """The variables' current values, in the order of ``names``."""
        return tuple([self._read(name) for name in self.names])

    def set(self, values):
        """Assigns ``values`` to the variables, in the order of ``names``."""
        for name, value in zip(self.names, values):
            self._write(name, value)

    def _read(self, name):
        cell = self._cells.get(name)
        if cell is not None:  # the common case, a plain variable: as directly as it goes
            try:
                return cell.cell_contents
            except ValueError:
                return Undefined(name)
        base, *attributes = name.split(".")
        value = self._base(base)
        for attribute in attributes:
            if value is _MISSING or is_undefined(value):
                return Undefined(name)  # named for the whole chain, as errors should name it
            value = getattr(value, attribute, _MISSING)
        return Undefined(name) if value is _MISSING else value

    def _write(self, name, value):
        base, *attributes = name.split(".")
        if not attributes:
            cell = self._cells.get(base)
            if cell is not None:
                cell.cell_contents = value
            elif not is_undefined(value):
                self._globals[base] = value
            else:  # restoring a global that did not exist: it goes again
                self._globals.pop(base, None)
            return
        owner = self._read(".".join([base, *attributes[:-1]]))
        if is_undefined(owner):
            return  # nothing holds the attribute: it stays as undefined as it was
        if is_undefined(value):
            if hasattr(owner, attributes[-1]):
                delattr(owner, attributes[-1])
        else:
            setattr(owner, attributes[-1], value)

    def _base(self, base):
        cell = self._cells.get(base)
        if cell is None:
            return self._globals.get(base, _MISSING)
        try:
            return cell.cell_contents
        except ValueError:  # an empty cell: the variable is not assigned yet
            return _MISSING
