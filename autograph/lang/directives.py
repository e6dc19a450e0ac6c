"""Directives: calls that tell AutoGraph how to stage a loop or a list, and do nothing else.

The converter reads them where they are written (``converters/directives.py``);
run as Python, they only check their arguments.

>>> import autograph as ag
>>> import runtime as rt
>>> @ag.function
... def grow(n):
...     v = rt.constant([0])
...     for i in rt.range(n):
...         ag.experimental.set_loop_options(shape_invariants=[(v, rt.TensorShape([None]))])
...         v = rt.concat([v, [i]], 0)
...     return v
>>> grow(rt.constant(3)).numpy()
array([0, 0, 1, 2], dtype=int32)
"""

from __future__ import annotations

import runtime as rt


def set_loop_options(
    parallel_iterations=None, swap_memory=None, maximum_iterations=None, shape_invariants=None
):
    """Options for the staged loop whose body this call begins (it must be the first statement).

    ``maximum_iterations``: the loop stops after that many iterations.
    ``shape_invariants``: a list of ``(variable, shape)`` pairs; the loop
    variable holding that value before the loop may take any shape
    compatible with ``shape`` (a ``rt.TensorShape``, ``None`` dims
    unknown), instead of keeping its shape. ``parallel_iterations`` and
    ``swap_memory`` are accepted for TensorFlow's sake: this runtime runs
    iterations one after another and keeps everything in memory.

    A loop that runs as Python (over a Python list, or while its test is a
    Python value) ignores the options, as in TensorFlow.
    """
    if parallel_iterations is not None and (
        not isinstance(parallel_iterations, int) or parallel_iterations < 1
    ):
        raise ValueError(
            f"set_loop_options: parallel_iterations must be a positive int, got {parallel_iterations!r}"
        )
    if shape_invariants is not None:
        for pair in shape_invariants:
            if not (isinstance(pair, (tuple, list)) and len(pair) == 2):
                raise ValueError(
                    "set_loop_options: shape_invariants must be a list of (variable, shape) "
                    f"pairs, got {pair!r}"
                )


def set_element_type(entity, dtype, shape=None):
    """Declares the dtype (and shape) of the elements of the list ``entity``.

    ``ag.stack`` of that list in the same function then knows what to make
    even when the list is empty. Run as Python, it checks ``dtype`` and does
    nothing else.
    """
    del entity
    rt.as_dtype(dtype)
    if shape is not None:
        rt.TensorShape(shape)
