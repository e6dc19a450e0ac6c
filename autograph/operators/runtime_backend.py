"""The default backend: symbolic tensors of the runtime, staged as ``rt.cond`` and ``rt.while_loop``.

The staging itself lives beside the statements it serves (``conditionals``,
``control_flow``, ``for_loops``); this is the ``Backend`` face of it.

>>> import runtime as rt
>>> with rt.Graph().as_default():
...     x = rt.placeholder(rt.int32, [])
...     RUNTIME.cond(x > 0, lambda: x, lambda: -x).op.type
'If'
"""

from __future__ import annotations

import runtime as rt
from autograph.operators import known
from autograph.operators.backends import Backend
from autograph.operators.conditionals import staged_if
from autograph.operators.control_flow import _StagedIterable, staged_while
from autograph.operators.for_loops import staged_for
from autograph.operators.logical import staged_if_exp
from autograph.operators.py_builtins import _as_tensor


class RuntimeBackend(Backend):
    name = "runtime"
    plain_types = (rt.EagerTensor,)

    def is_staged(self, value):
        return isinstance(value, (rt.SymbolicTensor, _StagedIterable))

    # The functions themselves, not methods calling them: a chain of 100 elifs nests 100
    # staged ifs, and every frame counts towards Python's recursion limit.
    simplified = staticmethod(known.simplified)
    stage_if = staticmethod(staged_if)
    stage_while = staticmethod(staged_while)
    stage_for = staticmethod(staged_for)
    if_exp = staticmethod(staged_if_exp)

    def cond(self, pred, true_fn, false_fn):
        return rt.cond(pred, true_fn, false_fn)

    def logical_not(self, value):
        return rt.logical_not(value)

    def logical_and(self, a, b):
        return rt.logical_and(a, b)

    def range(self, *args):
        return rt.range(*args)

    def print(self, objects, sep, end, file):
        rt.print(*objects, sep=sep, end=end, output_stream=file)

    def assert_(self, test, message):
        if test.dtype is not rt.bool:
            test = rt.not_equal(test, rt.zeros_like(test))  # Python's truth of a number
        rt.Assert(test, [message])

    def enumerate(self, iterable, start=0):
        return _StagedIterable("enumerate", [iterable], start)

    def zip(self, *iterables):
        return _StagedIterable("zip", [_as_tensor(t) for t in iterables])


RUNTIME = RuntimeBackend()
