"""The runtime backend's loop primitives: ``rt.while_loop`` over symbolic tensors and TensorLists.

The loop itself is the shared one (``staged_loops``); here is what is the
runtime's own: a Python list a loop changes becomes a ``TensorList`` (its type
learned from the probed iteration when it starts empty), the probe is a
throwaway ``FuncGraph``, ``set_loop_options`` gives shape invariants and
``maximum_iterations``, and a ``for`` over ``rt.range`` computes its items.

>>> import runtime as rt
>>> with rt.Graph().as_default():
...     type(loop_value("items", [1, 2])).__name__
'TensorList'
"""

from __future__ import annotations

import numpy as np

import runtime as rt
from autograph.operators import loop_checks, loop_options, side_effects
from autograph.operators.data_structures import TensorList, contents
from autograph.operators.kinds import IterationKind
from autograph.operators.variables import is_undefined
from runtime.ops.constant_ops import RANGE, constant_value


def while_loop(loop, cond_fn, body_fn):
    """``Backend.while_loop``: one ``rt.while_loop``, with the shape invariants the probe and
    ``set_loop_options`` give, and its ``maximum_iterations``."""
    options, counted = loop.options, loop.index_label is not None
    index = [rt.constant(0)] if counted else []
    extra = index + [rt.convert_to_tensor(v) for v in loop.values[: loop.carried_from]]
    first_values = tuple(loop.values[loop.carried_from :])
    before, names = loop.before, loop.labels[loop.carried_from :]
    carried = range(len(first_values))
    invariants = None
    if loop.learned is not None:  # a stand-in's shape is the one the body gives, not the zeros'
        invariants = [leaf.shape for v in extra for leaf in rt.nest.flatten(v)]
        for value, learned in zip(first_values, loop.learned):
            leaves = rt.nest.flatten(value if learned is None else learned)
            if learned is not None:
                invariants += [rt.convert_to_tensor(leaf).shape for leaf in leaves]
            else:
                invariants += [loop_options.leaf_shape(leaf) for leaf in leaves]
    invariants = loop_options.shape_invariants(
        options, invariants, before, carried, extra, first_values
    )

    def cond(*loop_vars):
        i = loop_vars[0] if counted else None
        return as_condition(cond_fn(i, *loop_vars[len(index) :]))

    def body(*loop_vars):
        i = loop_vars[0] if counted else None
        out = body_fn(i, *loop_vars[len(index) :])
        loop_options.check_invariants(options, before, carried, names, out[loop.carried_from :])
        return (i + 1, *out) if counted else out

    loop_vars = tuple(extra) + first_values
    final = rt.while_loop(
        cond,
        body,
        loop_vars,
        names=([loop.index_label] if counted else []) + list(loop.labels),
        shape_invariants=loop_options.laid_out(loop_vars, invariants),
        maximum_iterations=loop_options.maximum_iterations(options),
    )
    return final[len(index) :]


def probe(run, values, counted):
    """``Backend.probe``: ``run`` in a throwaway graph, the values entering as tensors."""
    graph = rt.FuncGraph("loop_probe", outer_graph=rt.get_default_graph())
    try:
        with graph.as_default():
            # Loop variables are tensors in the real loop: so they are in the probe, or a
            # Python value (i = 0) would take Python paths the staged loop never takes.
            inputs = [_probe_input(graph, v) for v in values]
            return run(inputs, graph.add_input(rt.int32, []) if counted else None)
    except side_effects.HiddenChangeError:
        raise  # about the program, whatever the probe finds
    except (UnboundLocalError, TypeError, ValueError):
        return None


def _probe_input(probe, value):
    if isinstance(value, (rt.Tensor, bool, int, float, np.generic)) and not is_undefined(value):
        t = rt.convert_to_tensor(value)
        return probe.add_input(t.dtype, t.shape)
    if isinstance(value, list):  # a TensorList in the loop; the probe must not change it
        try:
            return TensorList.from_list(value)
        except (TypeError, ValueError):
            return list(value)
    if isinstance(value, (dict, TensorList)):
        return contents(value)
    return value


def carriable(value):
    """Whether a loop can carry ``value`` (tried in a throwaway graph)."""
    try:
        with rt.FuncGraph("carriable", outer_graph=rt.get_default_graph()).as_default():
            loop_value("", value)
    except (TypeError, ValueError):
        return False
    return True


def untyped(value) -> bool:
    """An empty list (or TensorList) whose elements' type only an iteration tells."""
    return (type(value) is list and not value) or (
        isinstance(value, TensorList) and value.dtype is None
    )


def as_condition(test):
    if isinstance(test, rt.Tensor):
        return test
    return rt.constant(bool(test))


LOOP_VARIABLE_KINDS = "tensors, numbers and lists of tensors"


def loop_value(name, value, after=False, like=None, before=None):
    """``Backend.loop_value``: a state value as a loop variable: defined, not None, a tensor or a
    TensorArray (a list: a TensorList, of the type ``like``, the probe's, has)."""
    list_type = None
    if isinstance(like, TensorList) and like.dtype is not None:
        list_type = (like.dtype, like.element_shape)
    loop_checks.require_value(name, value, after)
    if isinstance(value, TensorList) and value.dtype is None and list_type is not None:
        value = TensorList.from_list([], *list_type)  # an empty one: its type learned
    if isinstance(value, (tuple, dict)):  # a structure: each part is a loop variable
        return rt.nest.map_structure(lambda part: loop_value(name, part, after=after), value)
    if isinstance(value, list):
        try:
            return TensorList.from_list(value, *(list_type or ()))
        except (TypeError, ValueError) as e:
            raise TypeError(
                f"'{name}' is a Python list that a tensor-dependent loop changes, so in the graph "
                f"it is a TensorList, of tensors of one dtype and shape; but it holds {value!r}: "
                f"{e}"
            ) from None
    if isinstance(value, (rt.Tensor, rt.TensorArray)):
        return value
    try:
        return rt.convert_to_tensor(value)
    except (TypeError, ValueError):
        raise loop_checks.not_a_loop_variable(name, value, LOOP_VARIABLE_KINDS) from None


# --- for: what it iterates over -------------------------------------------------------------


def iteration(iterable):
    """``Backend.iteration``: ``(length, item)`` of a ``for`` over a symbolic tensor (its first
    dimension) or a ``StagedIterable``."""
    if isinstance(iterable, StagedIterable):
        return iterable.length(), iterable.item
    loop_checks.refuse_scalar_iteration(iterable)
    return iteration_of(iterable)


class StagedIterable:
    """``enumerate``/``zip`` over symbolic tensors, for ``for_stmt`` to stage: ``length()``
    (built before the loop), then ``item(i)`` (in its body)."""

    def __init__(self, kind, tensors, start=0):
        self.kind, self.tensors, self.start = kind, tensors, start
        self._items = None

    def length(self):
        parts = [iteration_of(t) for t in self.tensors]
        self._items = [item for _, item in parts]
        return rt.reduce_min(rt.stack([length for length, _ in parts]))

    def item(self, i):
        items = tuple(item(i) for item in self._items)
        return (i + self.start, items[0]) if self.kind == IterationKind.ENUMERATE else items


def iteration_of(t):
    """``(length, item)`` of a ``for`` over the tensor ``t``: a range's items are computed, so
    it is never built (its size may be known only at run time, which XLA cannot compile);
    another tensor's are its slices."""
    parts = _range_parts(t)
    if parts is not None:
        return parts
    first = t.shape[0] if t.shape.rank else None
    return rt.constant(first) if first is not None else rt.shape(t)[0], t.__getitem__


def _range_parts(iterable):
    """``(length, item)`` for a ``for`` over ``rt.range`` of ints with a constant step: the
    items are computed (start + i * step), so the range is never built nor sliced."""
    if not (
        isinstance(iterable, rt.SymbolicTensor)
        and iterable.op.opdef is RANGE
        and iterable.dtype.is_integer
    ):
        return None
    start, limit, delta = iterable.op.inputs
    step = constant_value(delta)
    if step is None or step == 0:
        return None
    step = int(step)
    # The common rt.range(n) (start 0, step 1) needs no arithmetic: only the ops it needs
    # are traced, so there is less to trace, optimise and compile.
    from_zero = _is_constant(start, 0)
    if step > 0:
        span = limit if from_zero else limit - start
    else:
        span = -limit if from_zero else start - limit
    if abs(step) != 1:
        span = (span + (abs(step) - 1)) // abs(step)
    length = rt.maximum(span, 0)
    if length.dtype is not rt.int32:
        length = rt.cast(length, rt.int32)

    def item(i):
        value = i if iterable.dtype is rt.int32 else rt.cast(i, iterable.dtype)
        if step != 1:
            value = value * step
        return value if from_zero else start + value

    return length, item


def _is_constant(t, number):
    value = constant_value(t)
    return value is not None and np.ndim(value) == 0 and value == number
