"""The default backend: symbolic tensors of the runtime, staged as ``rt.cond`` and ``rt.while_loop``.

The staged statements are the shared ones (``staged_if``, ``staged_loops``) over
this backend's primitives: branches traced into sub-graphs (``FuncGraph``),
joined by one If op (``build_cond``); loops as ``rt.while_loop``, lists as
``TensorList``s (``runtime_loops``).

>>> import runtime as rt
>>> with rt.Graph().as_default():
...     x = rt.placeholder(rt.int32, [])
...     RUNTIME.cond(x > 0, lambda: x, lambda: -x).op.type
'If'
"""

from __future__ import annotations

import runtime as rt
from autograph.operators import known, runtime_loops, runtime_values, unset
from autograph.operators.backend_protocol import Backend
from autograph.operators.data_structures import like_tensor_list
from autograph.operators.kinds import IterationKind
from autograph.operators.logical import staged_if_exp
from autograph.operators.py_builtins import as_tensor
from autograph.operators.runtime_loops import StagedIterable
from autograph.operators.staged_if import resolved
from runtime.execution.tracing import set_outputs, trace
from runtime.functions.control_flow import build_cond


class RuntimeBackend(Backend):
    name = "runtime"
    plain_types = (rt.EagerTensor,)

    def is_staged(self, value):
        return isinstance(value, (rt.SymbolicTensor, StagedIterable))

    # The functions themselves, not methods calling them: a chain of 100 elifs nests 100
    # staged ifs, and every frame counts towards Python's recursion limit.
    simplified = staticmethod(known.simplified)
    assuming = staticmethod(known.assuming)
    if_exp = staticmethod(staged_if_exp)

    # --- a staged `if`: sub-graphs, and an If op -------------------------------------------

    def trace_branch(self, run, name):
        graph = trace(run, [], name, rt.get_default_graph(), convert=False)
        return graph, graph.structured_outputs

    def cond_branches(self, pred, true_branch, false_branch, true_leaves, false_leaves, labels):
        for graph, leaves in ((true_branch, true_leaves), (false_branch, false_leaves)):
            with graph.as_default():
                leaves = [resolved(self, leaf) for leaf in leaves]
            set_outputs(graph, leaves)
        # With nothing to return, the cond still runs the effects (prints, assignments) of its
        # branches.
        if not (labels or true_branch.is_stateful or false_branch.is_stateful):
            return []
        return build_cond(pred, true_branch, false_branch, labels=labels)

    def fail_when_run(self, error):
        rt.Assert(rt.constant(False), [f"{type(error).__name__}: {error}"])

    stageable = staticmethod(runtime_values.stageable)
    kind_of = staticmethod(runtime_values.kind_of)
    stand_in = staticmethod(runtime_values.stand_in)
    learnable = staticmethod(runtime_values.learnable)
    unset_flag = staticmethod(unset.flag_of)
    mark_unset = staticmethod(unset.mark)

    def like_other_branch(self, value, other, branch):
        # A list that one branch made a TensorList (in a staged loop) is one in both.
        with branch.as_default():
            return like_tensor_list(value, other)

    # --- a staged loop: rt.while_loop ------------------------------------------------------

    while_loop = staticmethod(runtime_loops.while_loop)
    probe = staticmethod(runtime_loops.probe)
    loop_value = staticmethod(runtime_loops.loop_value)
    loop_variable_kinds = runtime_loops.LOOP_VARIABLE_KINDS
    carriable = staticmethod(runtime_loops.carriable)
    untyped = staticmethod(runtime_loops.untyped)
    predicate = staticmethod(runtime_loops.as_condition)
    iteration = staticmethod(runtime_loops.iteration)
    check_unset = staticmethod(unset.mark)  # checked where read: unset.checked
    require_set = staticmethod(unset.require)

    # --- values --------------------------------------------------------------------------

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
        return StagedIterable(IterationKind.ENUMERATE, [iterable], start)

    def zip(self, *iterables):
        return StagedIterable(IterationKind.ZIP, [as_tensor(t) for t in iterables])


RUNTIME = RuntimeBackend()
