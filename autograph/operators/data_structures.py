"""Lists in converted code: ``lst.append(x)`` becomes ``lst = list_append(lst, x)``.

On a Python list it appends, as Python does. Inside a tensor-dependent loop
the list is a TensorArray (``rt.stack(lst)`` after the loop gives a tensor),
and appending writes the next element.

>>> items = []
>>> list_append(items, 1) is items, items
(True, [1])
"""

from __future__ import annotations

import runtime as rt


def list_append(target, item):
    if isinstance(target, rt.TensorArray):
        return target.write(target.size(), item)
    target.append(item)
    return target


def list_stack(target, element_dtype=None, element_shape=None):
    """``ag.stack``: a list (or the TensorArray a staged loop made of it) as one tensor.

    >>> list_stack([1, 2]).numpy()
    array([1, 2], dtype=int32)
    >>> list_stack([], rt.float32, [2]).shape
    TensorShape([0, 2])
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
        shape = [] if element_shape is None else rt.TensorShape(element_shape).as_list()
        if None in shape:
            raise ValueError(
                f"cannot stack an empty list whose elements have the unknown shape {shape}"
            )
        return rt.zeros([0, *shape], element_dtype)
    if element_dtype is not None:
        target = [rt.convert_to_tensor(item, element_dtype) for item in target]
    return rt.stack(target)
