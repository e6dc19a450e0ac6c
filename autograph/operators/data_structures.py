"""Python lists, dicts and sets that tensor-dependent control flow changes in place.

Converted code leaves ``lst.append(x)``, ``lst.pop()`` and ``d[k] = v`` as they
are: on Python values they do what Python does. The converter counts a change
in place as a change of the container, so a staged ``if`` or loop carries it:

- a staged ``if`` stages the container's *contents*: each branch starts from
  the same contents, and after the ``rt.cond`` the container holds the
  results, in place (the same object, as in Python). A Python list cannot
  have a length that depends on a tensor, so branches that leave it with
  different lengths are an error that names it;
- a staged loop turns a list into a ``TensorList``, a list whose elements live
  in the graph: ``append``, ``pop``, ``extend``, ``l[i]``, ``l[i] = v``,
  ``l + [v]`` and ``len(l)`` work on it, in the loop and after it;
  ``ag.stack(l)`` (or ``rt.stack(l)``) makes it one tensor, and an
  ``ag.function`` that returns it returns a Python list of its elements.

>>> import runtime as rt
>>> with rt.Graph().as_default():
...     items = TensorList.from_list([1, 2])
...     items.append(3)
...     last = items.pop()
>>> type(items).__name__, items.dtype.name
('TensorList', 'int32')
"""

from __future__ import annotations

import runtime as rt
from autograph.operators.staging_errors import refusal


class TensorList(rt.TensorArray):
    """A list of same-typed tensors in a graph, changed in place like a Python list.

    Its elements are those of a growable ``rt.TensorArray`` (its ``flow`` is the
    value a loop carries); the list methods replace the flow, so every name
    for the list sees the change, as for a Python list.
    """

    @classmethod
    def from_list(cls, items, dtype=None, element_shape=None):
        """A TensorList holding ``items`` (a Python list); an empty one learns its dtype from
        its first element."""
        if dtype is None and items:
            dtype = rt.convert_to_tensor(items[0]).dtype
        array = cls(dtype, size=0, dynamic_size=True, element_shape=element_shape)
        for i, item in enumerate(items):
            array = array.write(i, item)
        return array

    def _become(self, other):
        self.flow, self.dtype, self.element_shape = other.flow, other.dtype, other.element_shape
        self._static_size = other._static_size

    def copy(self):
        """Another TensorList with the same elements (the same flow)."""
        return self._with_flow(self.flow)

    def _nest_rebuild(self, components):
        flow = components[0]
        if isinstance(flow, rt.EagerTensor):  # a function's result: the list it stands for
            buffer = flow._value  # the elements (runtime/ops/tensor_array_buffer.py)
            shape = self.element_shape.as_list() if self.element_shape.rank is not None else None
            return [
                rt.EagerTensor(buffer.read(i, self.dtype, shape), self.dtype)
                for i in range(len(buffer))
            ]
        return self._with_flow(flow)

    # --- the list's methods, in place --------------------------------------------------------

    def _index(self, index):
        if isinstance(index, int) and index < 0:
            return self.size() + index
        return index

    def __getitem__(self, index):
        if isinstance(index, slice):
            return self.stack()[index]
        return self.read(self._index(index))

    def __setitem__(self, index, value):
        if isinstance(index, slice):
            raise refusal(
                TypeError(
                    "A list changed in a tensor-dependent loop is a TensorList: assign its items one "
                    "at a time (lst[i] = v), not a slice."
                )
            )
        self._become(self.write(self._index(index), value))

    def append(self, item):
        self._become(self.write(self.size(), item))

    def extend(self, items):
        if isinstance(items, (rt.TensorArray, rt.Tensor)):
            more = items.stack() if isinstance(items, rt.TensorArray) else items
            self._become(self.unstack(rt.concat([self.stack(), more], 0)))
            return
        for item in items:
            self.append(item)

    def pop(self, index=-1):
        if not (isinstance(index, int) and index == -1):
            raise refusal(
                NotImplementedError(
                    "A list changed in a tensor-dependent loop is a TensorList: only its last item "
                    "can be popped (lst.pop())."
                )
            )
        item = self[-1]
        self._become(self.unstack(self.stack()[:-1]))
        return item

    def __add__(self, other):
        if not isinstance(other, (list, tuple, rt.TensorArray)):
            return NotImplemented
        # Writes change a flow's elements where they are: the sum gets elements of its own,
        # but where they have no known type (a loop learns it by tracing an iteration first).
        joined = self.unstack(self.stack()) if self.dtype is not None else self.copy()
        joined.extend(other)
        return joined

    def __radd__(self, other):
        if not isinstance(other, (list, tuple)):
            return NotImplemented
        joined = TensorList.from_list(list(other), self.dtype, self.element_shape)
        joined.extend(self)
        return joined

    def __iadd__(self, other):
        self.extend(other)
        return self

    def __len__(self):
        if isinstance(self.flow, rt.EagerTensor):
            return int(self.size().numpy())
        raise refusal(
            TypeError(
                "The length of a list changed in a tensor-dependent loop is known only when the "
                "graph runs: len(lst) in converted code gives it as a tensor."
            )
        )

    def __iter__(self):
        if isinstance(self.flow, rt.EagerTensor):
            return iter([self.read(i) for i in range(len(self))])
        raise refusal(
            TypeError(
                "A list changed in a tensor-dependent loop has a length known only when the graph "
                "runs: iterate over it in converted code (a `for` loop is staged over it), or "
                "ag.stack(lst) it first."
            )
        )

    def __bool__(self):
        raise refusal(
            TypeError(
                "Whether a list changed in a tensor-dependent loop is empty is known only when the "
                "graph runs: test len(lst) > 0."
            )
        )

    def __repr__(self):
        dtype = self.dtype.name if self.dtype is not None else "unknown"
        return f"<TensorList dtype={dtype} element_shape={self.element_shape}>"


# --- containers that a staged `if` stages by their contents ----------------------------------


def is_container(value) -> bool:
    """Whether staged control flow carries ``value``'s contents, changed in place."""
    return type(value) in _CONTENTS


def contents(container):
    """A detached copy of what ``container`` holds now."""
    return _CONTENTS[type(container)](container)


def set_contents(container, held):
    """Makes ``container`` hold ``held`` (what ``contents`` gave, or the same structure staged)."""
    _SET_CONTENTS[type(container)](container, held)


def same_contents(a, b) -> bool:
    """Whether two copies from ``contents`` hold the very same objects."""
    if isinstance(a, TensorList):
        return isinstance(b, TensorList) and a.flow is b.flow
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(a[k] is b[k] for k in a)
    return type(a) is type(b) and len(a) == len(b) and all(x is y for x, y in zip(a, b))


def _set_list(container, held):
    container[:] = held


def _set_dict(container, held):
    container.clear()
    container.update(held)


_CONTENTS = {list: list, dict: dict, TensorList: TensorList.copy}
_SET_CONTENTS = {list: _set_list, dict: _set_dict, TensorList: TensorList._become}


# --- in a staged `if` ------------------------------------------------------------------------


class Held:
    """What a branch of a staged ``if`` left in a container it started with."""

    __slots__ = ("contents",)

    def __init__(self, container):
        self.contents = contents(container)

    @classmethod
    def of(cls, held):
        """A Held for contents ``held`` (what a container's contents would be)."""
        made = cls.__new__(cls)
        made.contents = held
        return made


def unwrap_held(values):
    """``values`` with what containers held in place of each ``Held``."""
    return tuple(v.contents if isinstance(v, Held) else v for v in values)


def unchanged(a, b) -> bool:
    """Whether two branches left a variable as the same object (a container, holding the same)."""
    if a is b:
        return True
    return is_container(a) and is_container(b) and same_contents(a, b)


def like_tensor_list(value, other):
    """``value``, a Python list, as a TensorList if ``other`` is one; else ``value``."""
    if type(value) is list and isinstance(other, TensorList):
        return TensorList.from_list(value, other.dtype, other.element_shape)
    return value


def check_list_lengths(name, a, b):
    """A Python list cannot have a length that depends on a tensor: an error that names it."""
    if type(a) is list and type(b) is list and len(a) != len(b):
        raise ValueError(
            f"'{name}' is a Python list of {len(a)} item(s) in the main branch of a "
            f"tensor-dependent `if` but of {len(b)} in the else branch: a graph cannot give a "
            "Python list a length that depends on a tensor. Change it alike in both branches, "
            "or build a tensor (rt.concat, or a list appended to in a tensor-dependent loop)."
        )


def list_stack(target, element_dtype=None, element_shape=None):
    """``ag.stack``: a list (or the TensorArray a staged loop made of it) as one tensor.

    >>> list_stack([1, 2]).numpy()
    array([1, 2], dtype=int32)
    >>> list_stack([], rt.float32, [2]).shape
    TensorShape([0, 2])
    >>> list_stack([], rt.int32)
    Traceback (most recent call last):
    ...
    ValueError: cannot stack an empty list whose elements have the unknown shape None; declare it with ag.set_element_type(lst, dtype, shape), () for scalars
    """
    if isinstance(target, rt.TensorArray):
        return target.stack()
    if isinstance(target, rt.Tensor):
        return target
    if not isinstance(target, (list, tuple)):
        raise TypeError(f"stack expects a list or a tensor, got {type(target).__name__}")
    if not target:
        if element_dtype is None:
            raise ValueError(
                "cannot stack a list without knowing its element type; use "
                "ag.set_element_type(lst, dtype, shape) to declare it"
            )
        # As in TensorFlow, a shape not given is unknown: () declares scalars.
        shape = rt.TensorShape(element_shape).as_list() if element_shape is not None else None
        if shape is None or None in shape:
            raise ValueError(
                f"cannot stack an empty list whose elements have the unknown shape {shape}; "
                "declare it with ag.set_element_type(lst, dtype, shape), () for scalars"
            )
        return rt.zeros([0, *shape], element_dtype)
    if element_dtype is not None:
        target = [rt.convert_to_tensor(item, element_dtype) for item in target]
    return rt.stack(target)
