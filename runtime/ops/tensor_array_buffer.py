"""What a TensorArray's flow holds at run time: its elements, in one preallocated array.

Elements of one numeric (or bool) dtype and shape live in the rows of one
numpy array, allocated at the first write with a row for each element of the
array's size, and written in place (``values[i] = v``); an array that grows
doubles its rows, so appending is amortised O(1). ``stack`` returns that array
(its first ``length`` rows) without copying, and marks it shared, as
``unstack`` does with the tensor it is given: the next write copies it first,
so a tensor once stacked, or unstacked, never changes. Elements of other kinds
(strings, elements of different shapes) are kept in a list, stacked with one
``np.array`` at the end.

An element never written reads, and stacks, as zeros of the element shape:
the one its ops declare, else the one the written elements have (as
TensorFlow's TensorListStack infers it).

>>> import numpy as np
>>> buffer = ElementBuffer(3)
>>> for i in range(3):
...     buffer = buffer.write(np.int32(i), np.int32(i * i))
>>> buffer.stack(np.int32, ())
array([0, 1, 4], dtype=int32)
"""

from __future__ import annotations

import numpy as np

from runtime import errors

_ZERO = np.int32(0)  # indices are int32 scalars: compared with int32, the comparison is cheap
_ONE = np.int32(1)
_INT32 = np.int32
# The formats whose items a memoryview can assign (not float16's "e" nor complex ones).
_MEMORYVIEW_WRITES = frozenset("?bBhHiIlLqQnNfd")


class ElementBuffer:
    """The elements of one TensorArray: ``length`` of them, in ``values`` rows or in ``items``."""

    __slots__ = (
        "values", "cells", "int32_cells", "scalar", "items", "length", "capacity", "shape", "shared"
    )  # fmt: skip

    def __init__(self, length):
        self.length = np.int32(length)  # how many elements the array has
        self.values = None  # the array of elements, once one is written (None: none, or a list)
        self.capacity = _ZERO  # its rows (more than ``length`` once it has grown)
        self.shape = None  # the shape of an element of ``values``
        self.shared = False  # ``values`` is a tensor's too: copy it before writing
        self.cells = None  # what a write of a scalar element indexes: a memoryview of values
        self.int32_cells = None  # ``cells`` while they are int32 and exactly ``length`` of them
        self.scalar = None  # the numpy type of a scalar element, while such writes may go fast
        self.items = None  # the list of elements, where they cannot share an array

    @classmethod
    def of_rows(cls, value):
        """The rows of ``value`` as elements, without copying it."""
        buffer = cls(len(value))
        if _packable(value):
            buffer._hold(value, shared=True)
        else:
            buffer.items = list(value)
        return buffer

    def _hold(self, values, shared):
        self.values, self.capacity, self.shape = values, np.int32(len(values)), values.shape[1:]
        self.shared = shared
        self.scalar = self.cells = self.int32_cells = None
        if not shared and values.ndim == 1:
            self.scalar = values.dtype.type  # an element's numpy type: np.int32
            cells = memoryview(values)  # its item assignment costs half an array's
            self.cells = cells if cells.format in _MEMORYVIEW_WRITES else values
            if self.scalar is _INT32 and len(values) == self.length:
                self.int32_cells = self.cells

    # --- writing ------------------------------------------------------------------------------

    def write(self, index, value):
        """``value`` at ``index`` of a fixed-size array; returns the buffer."""
        if type(value) is self.scalar and _ZERO <= index < self.length:
            self.cells[index] = value
            return self
        return self._write(index, value, growing=False)

    def write_int32(self, index, value):
        """``write`` of an int32 element given as the Python int it equals (a loop counter's
        value: ``runtime.execution.int_counters``); returns the buffer.

        ``int32_cells`` has exactly ``length`` items, so its own bounds check is the array's
        (a Python int compared with ``length``, an int32, costs three times as much).
        """
        cells = self.int32_cells
        if cells is not None and index >= 0:
            try:
                cells[index] = value
                return self
            except IndexError:
                pass
        return self.write(index, _INT32(value))

    def write_growing(self, index, value):
        """``value`` at ``index`` of an array that grows to hold it; returns the buffer."""
        if type(value) is self.scalar and _ZERO <= index < self.capacity:
            self.cells[index] = value
            if index >= self.length:
                self.length = index + _ONE
                self.int32_cells = None
            return self
        return self._write(index, value, growing=True)

    def _write(self, index, value, growing):
        index = int(index)
        if index < 0:
            raise errors.InvalidArgumentError(
                f"TensorArray: cannot write to negative index {index}"
            )
        if index >= self.length:
            if not growing:
                raise errors.InvalidArgumentError(
                    f"Tried to write to index {index} but array is not resizeable and size is: "
                    f"{int(self.length)}"
                )
            self.length = np.int32(index + 1)
            self.int32_cells = None
        if self.items is None and self.values is None:
            if _packable(value):
                rows = max(int(self.length), 16) if growing else int(self.length)
                self._hold(np.zeros((rows, *np.shape(value)), value.dtype), shared=False)
            else:
                self.items = [None] * int(self.length)
        elif self.values is not None and (np.shape(value) != self.shape or not _packable(value)):
            self._unpack()
        if self.values is None:
            if index >= len(self.items):
                self.items.extend([None] * (index + 1 - len(self.items)))
            self.items[index] = value
            return self
        if self.shared or index >= self.capacity:
            rows = int(self.capacity) if index < self.capacity else 2 * (index + 1)
            grown = np.zeros((rows, *self.shape), self.values.dtype)
            grown[: len(self.values)] = self.values
            self._hold(grown, shared=False)
        self.values[index] = value
        return self

    def _unpack(self):
        """From an array to a list: an element of another shape or kind is written."""
        self.items = list(self.values[: int(self.length)])  # views of rows never written again
        self.values = self.shape = self.cells = self.scalar = self.int32_cells = None
        self.capacity, self.shared = _ZERO, False

    # --- reading ------------------------------------------------------------------------------

    def read(self, index, dtype, shape):
        """The element at ``index`` (``dtype`` and ``shape``: what the ops declare)."""
        if not 0 <= index < self.length:
            raise errors.InvalidArgumentError(
                f"TensorArray: read index {int(index)} out of range [0, {int(self.length)})"
            )
        if self.values is not None:
            row = self.values[index]
            return row.copy() if type(row) is np.ndarray else row  # a row is a view
        value = self.items[index] if self.items is not None and index < len(self.items) else None
        return value if value is not None else self._zeros(int(index), dtype, shape)[()]

    def stack(self, dtype, shape):
        """All elements along a new first axis: the array itself, which becomes shared."""
        length = int(self.length)
        if self.values is not None:
            if not self.shared:
                self._hold(self.values, shared=True)
            return self.values if len(self.values) == length else self.values[:length]
        if not length:
            return np.zeros((0, *self._element_shape(None, shape)), _numpy(dtype))
        items = self.items or []
        values = [
            items[i] if i < len(items) and items[i] is not None else self._zeros(i, dtype, shape)
            for i in range(length)
        ]
        shapes = {np.shape(v) for v in values}
        if len(shapes) > 1:
            raise errors.InvalidArgumentError(
                f"TensorArray: cannot stack elements of shapes {sorted(shapes)}"
            )
        return np.array(values, dtype=_numpy(dtype))

    def __len__(self):
        return int(self.length)

    def _zeros(self, index, dtype, shape):
        return np.zeros(self._element_shape(index, shape), _numpy(dtype))

    def _element_shape(self, index, shape):
        """The shape of an element never written: declared, else that of the elements written."""
        if shape is not None and None not in shape:
            return tuple(shape)
        known = {np.shape(v) for v in self.items or () if v is not None}
        if len(known) == 1:
            return known.pop()
        what = "the array is empty" if index is None else f"element {index} was never written"
        raise errors.InvalidArgumentError(
            f"TensorArray: {what} and the shape of its elements is unknown"
        )

    def __repr__(self):
        return f"<ElementBuffer of {int(self.length)}>"


def _packable(value):
    """Whether elements like ``value`` can be rows of one numeric array."""
    return isinstance(value, (np.ndarray, np.generic)) and value.dtype.kind in "biufc"


def _numpy(dtype):
    return dtype.as_numpy_dtype if hasattr(dtype, "as_numpy_dtype") else dtype
