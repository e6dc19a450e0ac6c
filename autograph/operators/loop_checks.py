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


def refuse_a_loop_that_never_ends(test, values, iterations):
    """A ``while`` that ran ``iterations`` times as Python, then was staged on ``test``, a
    symbolic tensor, giving the loop's outputs ``values``: TensorFlow's NotImplementedError if
    the graph loop can never end.

    It never ends when its test, computed from constants alone, is true, and its body gives
    every variable it carries back unchanged or as the same constant it entered with: each
    iteration then tests the same values (``i = rt.constant(1)`` in the body, TensorFlow's
    reference example). A loop whose body changes what it carries (``i = i + rt.constant(1)``)
    or whose test reads the function's inputs is staged, and gives Python's answer.
    """
    loop = _while_op(values)
    if loop is None or not _of_constants(test) or not _value(test):
        return
    _, body = loop.subgraphs()
    for entry, inside, out in zip(loop.inputs, body.inputs, body.outputs):
        if out is inside:
            continue
        if not (_of_constants(entry) and _of_constants(out)):
            return
        before, after = _value(entry), _value(out)
        if before.dtype != after.dtype or not np.array_equal(before, after):
            return
    raise refusal(
        NotImplementedError(
            "The condition of while loop started as non-Tensor, then changed to Tensor: after "
            f"{iterations} iteration{'s' if iterations != 1 else ''} as Python, the values it "
            "tests became tensors made of constants alone (a variable changed type, as "
            "`i = rt.constant(1)` makes it) that every iteration gives again, so the graph "
            "loop would never end. Give the loop's variables tensor values before it "
            "(`i = rt.constant(0)`) to make it a graph loop from the start, or keep them Python "
            "values."
        )
    )


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
