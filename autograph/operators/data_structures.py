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
