"""Special functions: ``stack`` (a list, or what a staged loop made of it, as one tensor) and
``trace`` (print while tracing).

>>> import autograph as ag
>>> ag.stack([1, 2, 3]).numpy()
array([1, 2, 3], dtype=int32)
"""

from __future__ import annotations

from autograph.operators import data_structures


def stack(list_or_tensor, element_dtype=None, element_shape=None, strict=True):
    """The elements of a list as one tensor, stacked along a new first axis.

    ``list_or_tensor`` may be a Python list (of tensors or numbers), the
    TensorArray a staged loop makes of a list appended to in it, or a tensor
    (returned as it is). An empty list needs ``element_dtype`` (and
    ``element_shape``, if its elements are not scalars), given here or by
    ``ag.set_element_type`` in the same function. ``strict`` is accepted
    for TensorFlow's sake: whatever cannot be stacked raises.
    """
    del strict
    return data_structures.list_stack(list_or_tensor, element_dtype, element_shape)


def trace(*args):
    """Prints ``args`` when the call runs as Python: while a function is traced, not when its
    graph runs (use ``rt.print`` for that). Tensors print as their symbolic description.

    >>> import autograph as ag
    >>> ag.trace("shape", (2, 3))
    shape (2, 3)
    """
    print(*args)
