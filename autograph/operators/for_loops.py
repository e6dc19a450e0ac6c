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

import numpy as np

import runtime as rt
from autograph.operators import side_effects
from autograph.operators.backends import PLAIN_TYPES, staging
from autograph.operators.control_flow import (
    _length,
    _StagedIterable,
    as_condition,
    nothing,
    refuse_staging,
    staged_while,
)
from autograph.operators.staging_errors import marking
from autograph.operators.state import State
from runtime.ops.constant_ops import constant_value


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
        watch = side_effects.begin("loop", (loop_body,), state.names)
        try:
            with marking(loop_body):
                backend.stage_for(iterable, extra_test, loop_body, state, options=options)
        except BaseException:
            side_effects.end(watch, failed=True)
            raise
        side_effects.end(watch)
        return
    if isinstance(iterable, rt.Tensor) and iterable.shape.rank == 0:
        raise TypeError("Cannot iterate over a scalar tensor")
    for item in iterable:
        if extra_test is not None:
            keep_going = extra_test()
            backend = None if type(keep_going) in PLAIN_TYPES else staging(keep_going)
            if backend is not None:
                # A tensor-dependent `break` in a Python loop: the rest runs under a staged if.
                refuse_staging("`break` out of a Python loop", unsupported)
                state = State(names, loop_body, optional=optional)
                watch = side_effects.begin("break", (loop_body,), state.names)
                try:
                    with marking(loop_body):
                        backend.stage_if(
                            keep_going, lambda item=item: loop_body(item), nothing, state
                        )
                except BaseException:
                    side_effects.end(watch, failed=True)
                    raise
                side_effects.end(watch)
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


def _range_parts(iterable):
    """``(length, item)`` for a ``for`` over ``rt.range`` of ints with a constant step: the
    items are computed (start + i * step), so the range is never built nor sliced."""
    if not (
        isinstance(iterable, rt.SymbolicTensor)
        and iterable.op.type == "Range"
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


def staged_for(iterable, extra_test, loop_body, state, options=None):
    """The runtime's staged ``for``: an rt.while_loop over an index."""
    parts = _range_parts(iterable)
    if parts is not None:
        length, item = parts
    elif isinstance(iterable, _StagedIterable):
        length, item = iterable.length(), iterable.item
    else:
        if iterable.shape.rank == 0:
            raise TypeError("Cannot iterate over a scalar tensor")
        length, item = _length(iterable), iterable.__getitem__

    def test(i):
        more = i < length
        if extra_test is None:
            return more
        keep_going = extra_test()
        return rt.logical_and(more, as_condition(keep_going))

    staged_while(test, lambda i: loop_body(item(i)), state, index=rt.constant(0), options=options)
