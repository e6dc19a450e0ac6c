"""What a staged loop checks about its variables, beyond what ``rt.while_loop`` checks.

>>> import runtime as rt
>>> check_same_structure("pair", (rt.constant(1), rt.constant(2)), (rt.constant(1),))
Traceback (most recent call last):
...
runtime.errors.NestedStructureError: 'pair' does not have the same nested structure after one iteration of a tensor-dependent loop: (., .) before it, (.,) after it; a graph loop needs the same structure on every iteration.
"""

from __future__ import annotations

import runtime as rt
from autograph.operators.variables import UndefinedReturnValue, is_undefined


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
