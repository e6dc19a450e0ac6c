"""What a staged loop checks about its variables, beyond what ``rt.while_loop`` checks.

A variable that only the loop gives a value (first assigned in its body) has
none if the loop runs zero times. The loop carries a stand-in for it, and a
flag that an iteration sets; after the loop, using the variable asserts the
flag, so that the graph fails at run time, as TensorFlow's does, rather than
hand back the stand-in.

A loop inside the body of another may leave such a variable as it found it (it
ran zero times this time): the flag goes along, from the outer loop's body to
the inner loop and back, so that the outer loop knows whether the variable
was ever set.

>>> import runtime as rt
>>> g = rt.Graph()
>>> with g.as_default():
...     iterated = rt.placeholder(rt.bool, [])
...     results = [rt.constant(0)]
...     require_an_iteration(results, iterated, [0], ["last"])
>>> rt.Session(g).run(results[0], {iterated: True})
np.int32(0)
>>> rt.Session(g).run(results[0], {iterated: False})
Traceback (most recent call last):
...
runtime.errors.InvalidArgumentError: assertion failed: [loop must iterate at least once to initialize last]...
"""

from __future__ import annotations

import contextlib
import threading

import runtime as rt
from autograph.operators.variables import UndefinedReturnValue


def guarded(value) -> bool:
    """A return value that the ``do_return`` flag keeps from being used before it is set."""
    return isinstance(value, UndefinedReturnValue) and value.guarded


def describe_variable(name, value_before):
    """How errors name a variable of a loop: the return value by what it is, not its name."""
    if isinstance(value_before, UndefinedReturnValue):
        return "the function's return value"
    return name


def require_an_iteration(results, iterated, positions, names):
    """From now on, the ``results`` at ``positions`` (the variables ``names``) can only be
    used if ``iterated`` (a bool tensor) is true; else using them fails, naming them."""
    message = f"loop must iterate at least once to initialize {', '.join(names)}"
    check = rt.Assert(iterated, [message])
    with rt.control_dependencies([check]):
        for position in positions:
            results[position] = rt.nest.map_structure(rt.identity, results[position])


def check_same_structure(name, before, after):
    """A loop variable must keep its structure (a tuple's length, a dict's keys) from one
    iteration to the next: a TypeError that names it, as TensorFlow's does."""
    try:
        rt.nest.assert_same_structure(before, after)
    except (TypeError, ValueError):
        raise TypeError(
            f"'{name}' does not have the same nested structure after one iteration of a "
            f"tensor-dependent loop: {rt.nest.describe(before)} before it, "
            f"{rt.nest.describe(after)} after it; a graph loop needs the same structure on "
            "every iteration."
        ) from None


# --- flags handed between nested loops -----------------------------------------------------------


class _Scopes(threading.local):
    def __init__(self):
        self.stack = []  # per loop body being traced: {id(value): (value, its "set" flag)}


_scopes = _Scopes()


@contextlib.contextmanager
def tracking(values_and_flags):
    """While a loop's body is traced: which of its variables' values may not be set yet."""
    _scopes.stack.append({id(v): (v, flag) for v, flag in values_and_flags})
    try:
        yield
    finally:
        _scopes.stack.pop()


def flag_of(value):
    """The "set" flag of ``value`` if it stands for a variable that may not be set yet, or None."""
    entry = _scopes.stack[-1].get(id(value)) if _scopes.stack else None
    return entry[1] if entry is not None and entry[0] is value else None


def flag_after(value, before, flag):
    """Whether a variable is set after an iteration that began with it at ``before`` (whose flag
    was ``flag``): as it was if the iteration left it, set if the iteration assigned it."""
    if value is before:
        return flag
    inner = flag_of(value)
    return inner if inner is not None else rt.constant(True)


def hand_over(value, flag):
    """Tells the loop whose body is being traced that ``value`` is set only if ``flag`` is."""
    if _scopes.stack:
        _scopes.stack[-1][id(value)] = (value, flag)
