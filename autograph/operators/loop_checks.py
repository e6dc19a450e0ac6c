"""What a staged loop checks about its variables, beyond what ``rt.while_loop`` checks.

>>> import runtime as rt
>>> check_same_structure("pair", (rt.constant(1), rt.constant(2)), (rt.constant(1),))
Traceback (most recent call last):
...
runtime.errors.NestedStructureError: 'pair' does not have the same nested structure after one iteration of a tensor-dependent loop: (., .) before it, (.,) after it; a graph loop needs the same structure on every iteration.
"""

from __future__ import annotations

import runtime as rt
from autograph.operators.staging_errors import refusal
from autograph.operators.variables import UndefinedReturnValue, is_undefined
from runtime.core.graph import CONST


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


def refuse_a_test_of_constants(test, iterations):
    """A ``while`` that ran ``iterations`` times as Python and whose test then became ``test``, a
    symbolic tensor: TensorFlow's NotImplementedError if it is computed from constants alone.

    A tensor-dependent ``break`` or ``return``, or a variable given a value from the function's
    inputs, makes the test a tensor that the graph loop can change: the rest of the loop is
    staged. A variable that merely changed type (``i = rt.constant(1)`` in the body) gives a
    test of values that no input changes, and a graph loop of it may never end (TensorFlow's
    reference example). An op with sub-graphs, or one that is not pure (a placeholder, a
    variable's read), counts as an input.
    """
    if not isinstance(test, rt.SymbolicTensor) or not _of_constants(test):
        return
    raise refusal(
        NotImplementedError(
            "The condition of while loop started as non-Tensor, then changed to Tensor: after "
            f"{iterations} iteration{'s' if iterations != 1 else ''} as Python, the values it "
            "tests became tensors made of constants alone (a variable changed type, as "
            "`i = rt.constant(1)` makes it), which no input of the graph changes, so a graph "
            "loop from there may never end. Give the loop's variables tensor values before it "
            "(`i = rt.constant(0)`) to make it a graph loop from the start, or keep them Python "
            "values."
        )
    )


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
