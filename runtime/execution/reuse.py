"""Reusing dead temporaries: an elementwise op writes its result into an operand nothing reads later.

numpy does this by itself in ``acc + x * i``: the product is a temporary that
only the sum reads, so the sum is computed into it (temporary elision). In
compiled code every intermediate has a name, which hides that from numpy, so
each step of a loop over large arrays would allocate and fill fresh memory.
This plan puts the reuse back, where it is safe:

- the operand was made in this block by an elementwise form (a ufunc: a fresh
  array, no view of another, held by no one else);
- every op that reads it is an elementwise form of this block, and this op is
  the last of them: no kernel keeps it (a TensorArray write), no view of it
  exists, no sub-graph reads it;
- it is not a result of the block (an output, a loop variable, a test);
- the result has its dtype and its shape, fully known;
- it is large (numpy's own threshold, 256 KiB): below that, a fresh array
  costs less than the keyword call.

>>> import runtime as rt
>>> from runtime.execution.compile import compile_graph
>>> g = rt.Graph()
>>> with g.as_default():
...     x = rt.placeholder(rt.float32, [1 << 16], name="x")
...     y = x * 2.0 + 1.0
>>> print(compile_graph(g, [x], [y]))
def graph_fn(placeholder):
    mul = placeholder * const
    add = np_add(mul, const_1, out=mul)
    return (add,)
"""

from __future__ import annotations

import numpy as np

MIN_BYTES = 256 * 1024


def plan(ops, forms, inlined, results):
    """``{id(op): k}``: the ops of a block that write their result into their input ``k``.

    ``forms`` maps each op's id to its Form (or None), ``inlined`` holds the ids
    of values written into their consumer, ``results`` the block's results.
    """
    made = [op for op in ops if len(op.outputs) == 1 and _elementwise(forms.get(id(op)))]
    elementwise = [op for op in made if _large(op.outputs[0])]
    if not elementwise:
        return {}
    kept = {id(t) for t in results}
    readers = {}  # id(tensor) -> the ops of this block reading it, in order
    for op in ops:
        for t in op.inputs:
            readers.setdefault(id(t), []).append(op)
    fresh = {id(op.outputs[0]) for op in made}  # the tensors elementwise forms of this block make
    chosen = {}
    for op in elementwise:
        out = op.outputs[0]
        for k, t in enumerate(op.inputs):
            if id(t) not in fresh or id(t) in kept or id(t) in inlined:
                continue
            if t.dtype is not out.dtype or t.shape.as_tuple() != out.shape.as_tuple():
                continue
            uses = readers[id(t)]
            if uses[-1] is op and all(_elementwise(forms.get(id(u))) for u in uses):
                chosen[id(op)] = k
                break
    return chosen


def _elementwise(form):
    return form is not None and form.ufunc is not None


def _large(t):
    dims = t.shape.as_tuple()
    if not dims or None in dims or not (t.dtype.is_numeric or t.dtype.is_bool):
        return False
    count = 1
    for d in dims:
        count *= d
    return count * np.dtype(t.dtype.as_numpy_dtype).itemsize >= MIN_BYTES
