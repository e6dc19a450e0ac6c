"""JAX-staged loops: ``while`` -> ``lax.while_loop``; ``for`` -> ``lax.fori_loop`` (or a while loop).

The loop carries the variables its statement names (``State``), each a
structure of leaves, as arrays of fixed dtype and shape: the body's result is
checked against what entered, and an error names the variable, as the default
executor's do. A variable the loop creates (first assigned in the body, or the
return value of a ``return`` inside it) is learned from one abstract iteration
(``jax.eval_shape``) and starts as zeros of that type. A ``for`` loop with no
``break`` or ``return`` runs as ``lax.fori_loop``: over an array or a range of
known length, that is a ``lax.scan``, which ``jax.grad`` differentiates.

>>> import jax
>>> from autograph.operators.state import State
>>> def count_halvings(x):
...     n = 0
...     def loop_test():
...         return x > 1
...     def loop_body():
...         nonlocal x, n
...         x = x / 2
...         n += 1
...     staged_while(lambda i: loop_test(), lambda i: loop_body(), State(("x", "n"), loop_body))
...     return n
>>> int(jax.jit(count_halvings)(40.0))
6
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
from jax import lax

import runtime as rt
from autograph.operators import loop_checks, unset
from autograph.operators.data_structures import contents, is_container, set_contents
from autograph.operators.jax_values import (
    as_array,
    as_predicate,
    spec_of,
    stageable,
    zeros_like_leaf,
)
from autograph.operators.loop_checks import check_same_structure
from autograph.operators.variables import is_undefined


def staged_while(loop_test, loop_body, state, length=None, counted=True):
    """``while loop_test(i): loop_body(i)`` over the variables of ``state``; ``i`` counts from 0.

    With a ``length`` and no ``loop_test`` (None), it runs ``length`` times: a fori_loop.
    Not ``counted``, ``i`` is None: a ``while`` statement's loop carries only its variables.
    """
    saved = state.save()
    try:
        _stage(loop_test, loop_body, state, saved, length, counted)
    except BaseException:
        state.restore(saved)
        raise


def _stage(loop_test, loop_body, state, saved, length, counted):
    initial, names = saved[0], state.names
    containers = {i: v for i, v in enumerate(initial) if is_container(v)}
    values = [contents(v) if i in containers else v for i, v in enumerate(initial)]
    # A variable with no value yet: optional ones (only closures read them) stay as they are;
    # the others learn from one abstract iteration what the body makes of them.
    missing = [i for i, v in enumerate(values) if is_undefined(v)]
    untouched = {i for i in missing if names[i] in state.optional}
    learned = _learn(
        [i for i in missing if i not in untouched], values, loop_body, state, saved, containers
    )
    for i, value in learned.items():
        if value is None:
            untouched.add(i)  # the body leaves it undefined: not carried
        else:
            values[i] = value
    carried = [i for i in range(len(values)) if i not in untouched]
    templates = {i: _loop_value(names[i], values[i]) for i in carried}
    specs, start = [], []
    for i in carried:
        for leaf in rt.nest.flatten(templates[i]):
            shape, dtype = spec_of(leaf)
            specs.append((names[i], shape, dtype))
            start.append(as_array(leaf, dtype))
    # A variable the loop creates has no value if it runs zero times: a flag says whether an
    # iteration set it, and reading it after the loop checks the flag (unset), as Python would.
    created = [
        i
        for i in learned
        if i in templates and names[i].isidentifier() and not loop_checks.guarded(initial[i])
    ]
    count = len(start)
    start += [jnp.asarray(False) for _ in created]
    written = {}

    def set_carried(leaves):
        leaves = iter(leaves[:count])
        now = list(initial)
        for i in carried:
            template = templates[i]
            now[i] = rt.nest.pack_sequence_as(
                template, [next(leaves) for _ in rt.nest.flatten(template)]
            )
            written[i] = now[i]
        _set(state, now, containers)

    def step(i, leaves):
        set_carried(leaves)
        loop_body(i)
        now = state.get()
        flags = [
            flag if now[k] is written[k] else jnp.asarray(True)
            for k, flag in zip(created, leaves[count:])
        ]
        out = []
        for k in carried:
            after = now[k]
            if k in containers and after is containers[k]:
                after = contents(after)
            if type(templates[k]) is list and not _same_length(templates[k], after):
                raise TypeError(
                    f"'{names[k]}' is a Python list whose length changes in a tensor-dependent "
                    "loop; under JAX a loop carries arrays of fixed shapes: preallocate an array "
                    "(jnp.zeros(n)) and write its items with .at[i].set(value)."
                )
            after = _loop_value(names[k], after, after_iteration=True)
            check_same_structure(names[k], templates[k], after)
            out += rt.nest.flatten(after)
        return [_checked(leaf, spec) for leaf, spec in zip(out, specs)] + flags

    if loop_test is None:
        final = lax.fori_loop(0, length, step, start)
    elif not counted and start:

        def cond_fun(carry):
            set_carried(carry)
            return as_predicate(loop_test(None))

        final = lax.while_loop(cond_fun, lambda carry: step(None, carry), start)
    else:  # an index, or a loop that carries nothing else (it counts its iterations)

        def cond_fun(carry):
            set_carried(carry[1])
            return as_predicate(loop_test(carry[0]))

        def body_fun(carry):
            return carry[0] + 1, step(carry[0], carry[1])

        _, final = lax.while_loop(cond_fun, body_fun, (jnp.asarray(0, jnp.int32), start))
    state.restore(saved)  # what the traces of the body did to what the loop does not carry
    set_carried(final)
    for i, flag in zip(created, final[count:]):
        unset.mark_with_check(written[i], _unset_check(flag, names[i]))


def _unset_check(flag, name):
    """What reading a variable the loop may not have set does: a check when the program runs,
    which fails (the call raises) if no iteration set it."""

    def check(value):
        jax.debug.callback(functools.partial(_require, name=name), flag)
        return value

    return check


def _require(flag, name):
    if not flag:
        raise UnboundLocalError(f"loop must iterate at least once to initialize {name}")


def _learn(positions, values, loop_body, state, saved, containers):
    """What one iteration leaves in the variables at ``positions``, undefined before the loop:
    zeros of its type, or None where the body leaves a variable undefined."""
    if not positions:
        return {}
    # The others enter the abstract iteration as arrays of their types, as in the real loop.
    flat = [rt.nest.flatten(v) if not is_undefined(v) else [v] for v in values]
    inputs = [leaf for leaves in flat for leaf in leaves if stageable(leaf)]
    seen = {}

    def one_iteration(index, *arrays):
        state.restore(saved)
        arrays = iter(arrays)
        now = [
            rt.nest.pack_sequence_as(v, [next(arrays) if stageable(x) else x for x in leaves])
            if not is_undefined(v)
            else v
            for v, leaves in zip(values, flat)
        ]
        _set(state, now, containers)
        loop_body(index)
        now = state.get()
        for i in positions:
            seen[i] = now[i]
        return [
            leaf
            for i in positions
            if not is_undefined(now[i])
            for leaf in rt.nest.flatten(now[i])
            if stageable(leaf)
        ]

    try:
        jax.eval_shape(
            one_iteration,
            jax.ShapeDtypeStruct((), jnp.int32),
            *[jax.ShapeDtypeStruct(*spec_of(leaf)) for leaf in inputs],
        )
    except UnboundLocalError:
        return {}  # the loop itself reports the undefined variables by name
    finally:
        state.restore(saved)
    learned = {}
    for i in positions:
        value = seen.get(i)
        if is_undefined(value):
            learned[i] = None
        elif value is not None and all(stageable(leaf) for leaf in rt.nest.flatten(value)):
            learned[i] = rt.nest.map_structure(zeros_like_leaf, value)
    return learned


def _same_length(before, after):
    return type(after) is list and len(after) == len(before)


def _set(state, values, containers):
    """Writes ``values`` to the variables; a container (carried by its contents) gets them."""
    values = list(values)
    for i, container in containers.items():
        if not is_undefined(values[i]) and values[i] is not container:
            set_contents(container, values[i])
            values[i] = container
    state.set(values)


def _loop_value(name, value, after_iteration=False):
    """A variable's value as a loop carries it: defined, not None, of numbers and arrays."""
    loop_checks.require_value(name, value, after_iteration)
    for leaf in rt.nest.flatten(value):
        if not stageable(leaf):
            raise TypeError(
                f"'{name}' holds a {type(leaf).__name__}, which cannot be a variable of a "
                "tensor-dependent loop; only arrays and numbers (and structures of them) can."
            )
    return value


def _checked(leaf, spec):
    """A leaf after an iteration, as the loop carries it: TensorFlow's words when it does not fit."""
    name, shape, dtype = spec
    after_shape, after_dtype = spec_of(leaf)
    if after_dtype != dtype:
        raise TypeError(
            f"'{name}' has dtype {dtype.name} before the loop, but dtype {after_dtype.name} after "
            f"one iteration. A loop variable keeps its dtype: cast the new value "
            f"(.astype(jnp.{dtype.name})) or start from that dtype."
        )
    if after_shape != shape:
        raise ValueError(
            f"'{name}' has shape {shape} before the loop, but shape {after_shape} after one "
            "iteration. Under JAX a loop variable keeps its shape (lax loops have no shape "
            "invariants): preallocate the largest shape and write into it."
        )
    return as_array(leaf, dtype)
