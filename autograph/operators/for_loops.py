"""``for`` as converted code calls it: over a tensor, a staged loop; over anything else, Python.

>>> import runtime as rt
>>> seen = []
>>> def loop_body(item):
...     seen.append(item)
>>> for_stmt([1, 2], loop_body)
>>> seen
[1, 2]
"""

from __future__ import annotations

import runtime as rt
from autograph.operators import loop_checks
from autograph.operators.backends import PLAIN_TYPES, staging
from autograph.operators.control_flow import nothing, refuse_staging
from autograph.operators.kinds import StatementKind
from autograph.operators.side_effects import watching
from autograph.operators.staging_errors import marking
from autograph.operators.state import State


def for_stmt(
    iterable, loop_body, names=(), stop_on=(), unsupported=None, optional=(), options=None
):
    """Runs ``for item in iterable: loop_body(item)`` until one of the flags ``stop_on`` is set.

    Over a symbolic tensor (``rt.range(n)`` in a graph, or any tensor) the loop
    is staged as an rt.while_loop over its first dimension; over anything
    else it runs as Python, unrolled when building a graph. ``names`` are the
    variables the loop carries (see ``State``); ``stop_on`` are those of them
    that a ``break`` or a ``return`` in the loop sets; ``options`` those of ``set_loop_options``.
    """
    extra_test = _none_set(stop_on, loop_body) if stop_on else None
    if isinstance(iterable, rt.TensorArray):  # a list a graph loop made: over its elements
        iterable = iterable.stack()
    backend = staging(iterable)
    if backend is not None:
        refuse_staging("`for` loop", unsupported)
        state = State(names, loop_body, optional=optional)
        with watching(StatementKind.LOOP, (loop_body,), state.names), marking(loop_body):
            backend.stage_for(iterable, extra_test, loop_body, state, options=options)
        return
    if isinstance(iterable, rt.Tensor):
        loop_checks.refuse_scalar_iteration(iterable)
    for item in iterable:
        if extra_test is not None:
            keep_going = extra_test()
            backend = None if type(keep_going) in PLAIN_TYPES else staging(keep_going)
            if backend is not None:
                # A tensor-dependent `break` in a Python loop: the rest runs under a staged if.
                refuse_staging("`break` out of a Python loop", unsupported)
                state = State(names, loop_body, optional=optional)
                with watching(StatementKind.BREAK, (loop_body,), state.names), marking(loop_body):
                    backend.stage_if(keep_going, lambda item=item: loop_body(item), nothing, state)
                continue
            if not keep_going:
                break
        loop_body(item)


def _none_set(flags, loop_body):
    """``not flag and not other_flag ...`` for the loop to test before each iteration.

    The flags are read through the loop body's cells, as the loop's state is.
    """
    state = State(flags, loop_body)

    def none_set():
        keep_going = True
        for flag in state.get():
            backend = None if type(flag) in PLAIN_TYPES else staging(flag)
            if backend is not None:
                flag = backend.simplified(flag)
            if backend is not None and backend.is_staged(flag):
                not_set = backend.logical_not(flag)
                if keep_going is not True:
                    not_set = backend.logical_and(keep_going, not_set)
                keep_going = not_set
            elif flag:
                return False
        return keep_going

    return none_set
