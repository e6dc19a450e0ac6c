"""What a staged loop checks about its variables, beyond what ``rt.while_loop`` checks.

>>> import runtime as rt
>>> check_same_structure("pair", (rt.constant(1), rt.constant(2)), (rt.constant(1),))
Traceback (most recent call last):
...
runtime.errors.NestedStructureError: 'pair' does not have the same nested structure after one iteration of a tensor-dependent loop: (., .) before it, (.,) after it; a graph loop needs the same structure on every iteration.
"""

from __future__ import annotations

import numpy as np

import runtime as rt
from autograph.operators.staging_errors import refusal
from autograph.operators.variables import UndefinedReturnValue, is_undefined
from runtime.core.graph import CONST
from runtime.ops.control_flow_ops import WHILE


def guarded(value) -> bool:
    """A return value that the ``do_return`` flag keeps from being used before it is set."""
    return isinstance(value, UndefinedReturnValue) and value.guarded


def describe_variable(name, value_before):
    """How errors name a variable of a loop: the return value by what it is, not its name."""
    if isinstance(value_before, UndefinedReturnValue):
        return "the function's return value"
    return name


def require_value(name, value, after=False):
    """A loop variable must have a value, not None, before the loop and after each iteration
    (``after``): the errors of every backend's staged loop."""
    if is_undefined(value):
        if after:
            raise ValueError(f"'{name}' is undefined after an iteration of a tensor-dependent loop")
        raise ValueError(
            f"'{name}' must be defined before the loop: it is used in a tensor-dependent loop, "
            "which a graph may run zero times, so give it a value before the loop."
        )
    if value is None:
        raise ValueError(
            f"'{name}' is None {'after an iteration of' if after else 'before'} a tensor-dependent "
            "loop; loop variables must be tensors, so give it an initial tensor value."
        )


def not_a_loop_variable(name, value, kinds):
    """The TypeError for a variable holding ``value``, which a staged loop cannot carry;
    ``kinds``: what the backend's loops carry ("tensors, numbers and lists of tensors")."""
    return TypeError(
        f"'{name}' holds a {type(value).__name__}, which cannot be a variable of a "
        f"tensor-dependent loop; only {kinds} can."
    )


def refuse_scalar_iteration(iterable):
    """A ``for`` over a scalar tensor is a TypeError, eager or staged."""
    if iterable.shape.rank == 0:
        raise TypeError("Cannot iterate over a scalar tensor")


def check_same_structure(name, before, after):
    """A loop variable must keep its structure (a tuple's length, a dict's keys) from one
    iteration to the next: a TypeError (and ValueError) that names it, as TensorFlow's does."""
    try:
        rt.nest.assert_same_structure(before, after)
    except (TypeError, ValueError):
        raise rt.errors.NestedStructureError(
            f"'{name}' does not have the same nested structure after one iteration of a "
            f"tensor-dependent loop: {rt.nest.describe(before)} before it, "
            f"{rt.nest.describe(after)} after it; a graph loop needs the same structure on "
            "every iteration."
        ) from None


def refuse_a_loop_that_never_ends(values, iterations):
    """A ``while`` that ran ``iterations`` times as Python, then was staged, giving the loop's
    outputs ``values``: TensorFlow's NotImplementedError if the graph loop can never end.

    The staged loop's own test and body decide. The values the test reads, and those
    their next values are computed from, are followed through the body; when all of them
    enter as constants and the body computes them by pure ops, one iteration is run on
    them: a true test and the same values back mean every iteration tests the same values
    (``i = rt.constant(1)`` in the body, TensorFlow's reference example), whatever else the
    loop carries. A loop that changes what its test reads (``i = i + rt.constant(1)``), or
    whose test reads the function's inputs, or that has ``maximum_iterations``, is staged,
    and gives Python's answer.
    """
    loop = _while_op(values)
    if loop is None or loop.attrs["has_maximum_iterations"]:
        return
    cond, body = loop.subgraphs()
    followed = _followed_positions(cond, body)
    if followed is None or not all(_of_constants(loop.inputs[k]) for k in followed):
        return
    entry = {k: _value(loop.inputs[k]) for k in followed}
    if not _run(cond, cond.outputs[0], entry):
        return
    for k in followed:
        if k < len(body.outputs) and not _same_array(_run(body, body.outputs[k], entry), entry[k]):
            return
    raise refusal(
        NotImplementedError(
            "The condition of while loop started as non-Tensor, then changed to Tensor: after "
            f"{iterations} iteration{'s' if iterations != 1 else ''} as Python, the values it "
            "tests became tensors made of constants (a variable changed type, as "
            "`i = rt.constant(1)` makes it) that every iteration gives again, so the graph "
            "loop would never end. Give the loop's variables tensor values before it "
            "(`i = rt.constant(0)`) to make it a graph loop from the start, or keep them Python "
            "values."
        )
    )


def _followed_positions(cond, body):
    """The loop positions (loop variables, then captures) that the test reads and that the
    next values of those are computed from; None if any is computed by an impure op."""
    followed = _positions_read(cond, cond.outputs[0])
    pending = list(followed or ())
    while pending and followed is not None:
        k = pending.pop()
        if k >= len(body.outputs):  # a capture: the same value on every iteration
            continue
        read = _positions_read(body, body.outputs[k])
        if read is None:
            return None
        pending += read - followed
        followed |= read
    return followed


def _positions_read(graph, tensor):
    """The positions of ``graph``'s inputs that ``tensor`` is computed from, by pure ops and
    constants alone; None if another op (a variable's read, a print, a nested loop) is on
    the way."""
    position = {id(p.op): k for k, p in enumerate(graph.inputs)}
    read, pending, seen = set(), [tensor.op], set()
    while pending:
        op = pending.pop()
        if id(op) in seen or op.opdef is CONST:
            continue
        seen.add(id(op))
        if id(op) in position:
            read.add(position[id(op)])
        elif not op.opdef.pure or op.stateful or op.subgraphs():
            return None
        else:
            pending.extend(t.op for t in op.inputs)
    return read


def _run(graph, tensor, values):
    """``tensor`` of a loop's sub-graph, computed with its inputs at ``values`` (by position)."""
    feeds = {graph.inputs[k]: value for k, value in values.items()}
    return rt.Session(graph).run(tensor, feeds)


def _same_array(a, b) -> bool:
    a, b = np.asarray(a), np.asarray(b)
    nan_aware = a.dtype.kind in "fc"
    return a.dtype == b.dtype and np.array_equal(a, b, equal_nan=nan_aware)


def _while_op(values):
    """The While op whose outputs are among ``values``, if any."""
    for leaf in rt.nest.flatten(values):
        if isinstance(leaf, rt.SymbolicTensor) and leaf.op.opdef is WHILE:
            return leaf.op
    return None


def _value(tensor):
    """The value of ``tensor``, computed from constants alone, by running its graph."""
    return rt.Session(tensor.graph).run(tensor)


def _of_constants(tensor) -> bool:
    """Whether ``tensor`` is computed by pure ops from Const ops alone."""
    pending, seen = [tensor.op], set()
    while pending:
        op = pending.pop()
        if id(op) in seen or op.opdef is CONST:
            continue
        seen.add(id(op))
        if not op.opdef.pure or op.stateful or op.subgraphs():
            return False
        pending.extend(t.op for t in op.inputs)
    return True
