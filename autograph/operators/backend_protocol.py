"""What a framework gives converted control flow: the ``Backend`` protocol.

``backends`` finds, for a value, the backend that stages it; this is what such a
backend is. The staged statements are written once, over its primitives
(``staged_if``; loops: ``staged_loops``): a new framework writes the primitives.
"""

from __future__ import annotations

import contextlib
import functools

import runtime as rt
from autograph.operators import loop_checks, staged_if, staged_loops, unset


class Backend:
    """What converted control flow needs from a framework (the methods to write for a new one).

    The statements are written once (``staged_if``, ``staged_loops``): they read
    and write the variables a statement carries (``state``: ``State`` objects),
    join what branches leave in them, learn the types of variables a loop
    creates, and check that branches and iterations agree. A backend gives them
    a few primitives: the staged conditional and loop, how to trace a branch,
    which leaves it can carry, and a stand-in of a leaf's type (a backend of a
    few lines: ``tests/autograph/operators/test_staging_protocol.py``). Those to write are
    the methods that raise ``NotImplementedError`` here (``docs/architecture.md``, "Staging
    backends: the protocol", lists them); the others have defaults.
    """

    name = "?"
    loop_variable_kinds = "its values (and structures of them)"  # what its loops carry, in errors

    def is_staged(self, value) -> bool:
        """True for a value of this framework that has no Python value yet (a bool of it fails)."""
        raise NotImplementedError

    def simplified(self, value):
        """``value``, or the Python bool it is known to be on the branch being traced."""
        return value

    # --- the statements: written once, from the primitives below ---------------------------

    stage_if = staged_if.stage_if  # (cond, if_true, if_false, state)

    stage_while = staged_loops.stage_while  # (loop_test, loop_body, state, options=None)
    stage_for = staged_loops.stage_for  # (iterable, extra_test, loop_body, state, options=None)

    # --- primitives of a staged `if` ---------------------------------------------------------

    def assuming(self, cond, value):
        """A context manager: while tracing the branch where the staged ``cond`` is ``value``
        (so that ``simplified`` knows it there)."""
        return contextlib.nullcontext()

    def trace_branch(self, run, name):
        """``(branch, values)``: ``run()`` traced once as one branch of a conditional
        (``name``: "if_true", "if_false"), and the list of values it returned; the leaves of
        those values are what ``cond_branches`` may ask the branch for."""
        raise NotImplementedError

    def cond_branches(self, pred, true_branch, false_branch, true_leaves, false_leaves, labels):
        """The staged conditional: the list of its results, the ``true_leaves`` (of the values
        ``true_branch`` returned) where ``pred`` holds, else the ``false_leaves``. A leaf may be
        a ``staged_if.StandIn``: give ``staged_if.resolved(self, leaf)``, made in the branch.
        ``labels`` (``'x'``, one per leaf) name them in errors: leaves that differ in dtype."""
        raise NotImplementedError

    def fail_when_run(self, error):
        """Called while a branch is traced: that branch raises ``error`` when the program takes it."""
        raise NotImplementedError

    def stageable(self, leaf) -> bool:
        """Whether a staged conditional or loop can carry ``leaf`` (numbers, the framework's arrays)."""
        raise NotImplementedError

    def kind_of(self, leaf):
        """What two leaves must share for one staged value to stand for both (a dtype, a shape)."""
        raise NotImplementedError

    def stand_in(self, leaf):
        """A value of ``leaf``'s kind (zeros of its dtype and shape), made where the program is
        being traced; None where ``leaf`` itself may stand."""
        raise NotImplementedError

    def learnable(self, leaf) -> bool:
        """Whether a variable a loop creates may hold ``leaf``: the loop starts it from
        ``stand_in(leaf)``, learned from one traced iteration (else it must be defined before
        the loop)."""
        return self.stageable(leaf)

    def like_other_branch(self, value, other, branch):
        """``value`` (what ``branch`` left in a variable) in the form ``other`` has, where the
        framework has two forms of one thing (a Python list, a staged list)."""
        return value

    def unset_flag(self, value):
        """The flag that says whether a loop set ``value`` (see ``unset``), or None."""
        return None

    def mark_unset(self, value, flag, name):
        """Marks ``value``, a conditional's result, as set only where ``flag`` holds."""

    # --- primitives of a staged loop ------------------------------------------------------

    probe_fails_on_unbound = True
    """Whether a branch that reads a variable the loop body assigns only later fails the probe
    (TensorFlow's rule: it must be defined before the loop); JAX's probe lets it be."""
    carries_contents = False
    """Whether a loop carries a list or dict by its contents, and changes it in place (else the
    variable holds what ``loop_value`` made of it: a list of the framework's)."""

    checks_created_parts = True
    """Whether an item or attribute a loop creates (``d['a']``, ``b.v``), unset if it runs zero
    times, is checked right after the loop (TensorFlow's rule: reading one is not checked, so a
    later read would use the stand-in). JAX's loops leave the stand-in, as they always did: a
    program that never reads it runs, as in Python (a dict returned keeps the stand-in's key)."""

    def while_loop(self, loop, cond_fn, body_fn):
        """The staged loop: ``while cond_fn(*values): values = body_fn(*values)`` from
        ``loop.values`` (a ``staged_loops.Loop``); the final values. ``cond_fn`` returns what
        ``predicate`` accepts; ``body_fn`` a tuple like ``loop.values``."""
        raise NotImplementedError

    def probe(self, run, values, counted):
        """``run(inputs, index)`` once, where ``inputs`` stand for ``values`` as the loop will
        carry them (arrays of the same kind, not their values) and ``index`` for the loop's
        index (None unless ``counted``); what it returned, or None where it raised an error that
        means the iteration cannot be traced before the loop (a variable not defined yet)."""
        raise NotImplementedError

    def loop_value(self, name, value, after=False, like=None, before=None):
        """``value`` (of the variable ``name``) as the loop carries it, or the error that names
        it. ``after``: what an iteration left (``before``: what entered it); ``like``: what the
        probed iteration made of it."""
        loop_checks.require_value(name, value, after)
        for leaf in rt.nest.flatten(value):
            if not self.stageable(leaf):
                raise loop_checks.not_a_loop_variable(name, leaf, self.loop_variable_kinds)
        return value

    def carriable(self, value) -> bool:
        """Whether ``loop_value`` accepts ``value`` (an optional variable the loop may leave)."""
        try:
            self.loop_value("", value)
        except (TypeError, ValueError):
            return False
        return True

    def untyped(self, value) -> bool:
        """Whether only an iteration tells what ``value`` holds (an empty list): it is probed."""
        return False

    def predicate(self, value):
        """``value`` (a staged value or a Python bool) as the loop's condition."""
        return value

    def iteration(self, iterable):
        """``(length, item)``: how many items a staged ``iterable`` has, and ``item(i)``."""
        raise NotImplementedError

    def check_unset(self, value, flag, name):
        """Marks ``value``, a loop's result, so that reading it checks ``flag`` (see ``unset``):
        by default, reading it (``ag__.ld``) gives ``require_set(value, flag, name)``."""
        unset.mark_with_check(value, functools.partial(self.require_set, flag=flag, name=name))

    def require_set(self, value, flag, name):
        """``value``, once the program has checked ``flag`` (False where a loop that creates the
        variable ``name`` ran no iteration): the check raises, naming ``name``, when not set
        (``unset.never_initialized(name)``). Every backend whose loops run: a loop that never
        sets a variable it creates must not leave its stand-in to be read as its value."""
        raise NotImplementedError(
            f"{type(self).__name__} must write require_set: a staged loop that creates a "
            "variable leaves it unset when it runs no iteration, and reading it must fail"
        )

    # --- values ------------------------------------------------------------------------------

    def cond(self, pred, true_fn, false_fn):
        """``true_fn() if pred else false_fn()`` as a value (``x if c else y``, ``and``, ``or``)."""
        raise NotImplementedError

    def if_exp(self, pred, true_fn, false_fn):
        """``x if c else y``: ``cond``, with errors that name the conditional expression."""
        return self.cond(pred, true_fn, false_fn)

    def logical_not(self, value):
        raise NotImplementedError

    def logical_and(self, a, b):
        raise NotImplementedError

    def range(self, *args):
        """``range(*args)`` where an argument is staged: something ``stage_for`` iterates over."""
        raise NotImplementedError

    def print(self, objects, sep, end, file):
        """``print(*objects)`` each time the staged program runs (staged values by their value)."""
        raise NotImplementedError

    def assert_(self, test, message):
        """``assert test, message`` checked each time the staged program runs."""
        raise NotImplementedError

    def enumerate(self, iterable, start=0):
        raise NotImplementedError

    def zip(self, *iterables):
        raise NotImplementedError
