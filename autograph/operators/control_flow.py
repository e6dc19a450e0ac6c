"""``if`` and ``while`` as converted code calls them (``for``: ``for_loops``).

Each decides at run time: on Python values (and eager tensors) the statement
runs as plain Python; on a symbolic tensor it becomes ``rt.cond`` or
``rt.while_loop``. Branches and bodies are functions that read and write the
enclosing function's variables (``nonlocal``); the variables the statement
carries, named by ``names``, are read and written through their closures
(``State``) when it is staged.

>>> import runtime as rt
>>> x = 0
>>> def if_true():
...     global x
...     x = 1
>>> if_stmt(rt.constant(True), if_true)
>>> x
1
"""

from __future__ import annotations

import runtime as rt
from autograph.operators import loop_checks, side_effects
from autograph.operators.backends import PLAIN_TYPES, staging
from autograph.operators.kinds import StatementKind
from autograph.operators.staging_errors import marking
from autograph.operators.state import State

_SymbolicTensor = rt.SymbolicTensor


def is_symbolic(value) -> bool:
    """True for a tensor that only has a value when a graph runs."""
    return isinstance(value, _SymbolicTensor)


def nothing():
    pass


def refuse_staging(statement, unsupported):
    if unsupported:
        raise NotImplementedError(
            f"A tensor-dependent {statement} is not supported here: {unsupported}"
        )


# --- if ------------------------------------------------------------------------------------------


def if_stmt(cond, if_true, if_false=None, names=(), unsupported=None, optional=()):
    """Runs ``if_true()`` or ``if_false()``; on a symbolic ``cond``, stages both as an rt.cond.

    ``names`` are the variables the branches carry (see ``State``).
    """
    backend = None if type(cond) in PLAIN_TYPES else staging(cond)
    if backend is not None:
        cond = backend.simplified(cond)
    if backend is not None and backend.is_staged(cond):
        refuse_staging("`if`", unsupported)
        state = State(names, if_true, if_false, optional=optional)
        watch = side_effects.watching(StatementKind.IF, (if_true, if_false), state.names)
        with watch, marking(if_true, if_false):
            backend.stage_if(cond, if_true, if_false or nothing, state)
    elif cond:
        if_true()
    elif if_false is not None:
        if_false()


# --- while -------------------------------------------------------------------------------------


def while_stmt(loop_test, loop_body, names=(), unsupported=None, optional=(), options=None):
    """Runs ``while loop_test(): loop_body()``; a symbolic test stages the loop as rt.while_loop.

    A loop that starts with Python values and whose test turns symbolic
    after some iterations is staged from that iteration on, unless the graph loop could never
    end (``loop_checks.refuse_a_loop_that_never_ends``). ``names`` are the
    variables the loop carries (see ``State``); ``options`` those of ``set_loop_options``.
    """
    test = _first_test(loop_test, tuple(names) + tuple(optional), loop_body)
    iterations = 0  # run as Python
    while True:
        backend = None if type(test) in PLAIN_TYPES else staging(test)
        if backend is not None:
            test = backend.simplified(test)
        if backend is not None and backend.is_staged(test):
            refuse_staging("`while` loop", unsupported)
            state = State(names, loop_test, loop_body, optional=optional)
            watch = side_effects.watching(StatementKind.LOOP, (loop_test, loop_body), state.names)
            with watch, marking(loop_test, loop_body):
                backend.stage_while(loop_test, loop_body, state, options=options)
            if iterations:
                loop_checks.refuse_a_loop_that_never_ends(state.get(), iterations)
            return
        if not test:
            return
        loop_body()
        iterations += 1
        test = loop_test()


def _first_test(loop_test, names, loop_body):
    """The loop's first test. In a graph it is evaluated in a throwaway graph, so that
    deciding whether to stage leaves no dangling ops behind (a staged loop traces it again)."""
    if rt.executing_eagerly():
        return loop_test()
    state = State(names, loop_test, loop_body)
    before = state.save()
    with rt.FuncGraph("first_test", outer_graph=rt.get_default_graph()).as_default():
        test = loop_test()
    if is_symbolic(test):
        state.restore(before)  # nothing the throwaway graph computed may stay in the variables
    return test
