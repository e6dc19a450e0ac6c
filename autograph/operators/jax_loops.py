"""The JAX backend's loop primitives: ``lax.while_loop``, and ``lax.fori_loop`` for a ``for``.

The loop itself is the shared one (``staged_loops``); here is what is JAX's own.
The loop carries its variables' leaves as arrays of fixed dtype and shape: each
leaf after an iteration is checked against what entered, and an error names the
variable, as the default executor's do. A variable the loop creates is learned
from one abstract iteration (``jax.eval_shape``). A ``for`` loop with no
``break`` or ``return`` runs as ``lax.fori_loop``: over an array or a range of
known length, that is a ``lax.scan``, which ``jax.grad`` differentiates.

>>> import jax, jax.numpy as jnp
>>> import autograph as ag
>>> def running_max(xs):
...     best = xs[0]
...     for x in xs:
...         best = jnp.maximum(best, x)
...     return best
>>> float(jax.jit(ag.to_graph(running_max))(jnp.array([1.0, 4.0, 2.0])))
4.0
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
from jax import lax

import runtime as rt
from autograph.operators import loop_checks, unset
from autograph.operators.jax_values import as_array, as_predicate, spec_of, stageable
from autograph.operators.variables import is_undefined


def while_loop(loop, cond_fn, body_fn):
    """``Backend.while_loop``: the loop variables' leaves as arrays through ``lax.while_loop``, or
    ``lax.fori_loop`` when the loop runs ``loop.length`` times."""
    # The carry holds the variables' leaves, then the loop's "set" flags.
    own = loop.carried_from
    values = list(loop.values[own:]) + list(loop.values[:own])
    labels = list(loop.labels[own:]) + list(loop.labels[:own])
    specs, start = [], []
    for label, value in zip(labels, values):
        for leaf in rt.nest.flatten(value):
            shape, dtype = spec_of(leaf)
            specs.append((label, shape, dtype))
            start.append(as_array(leaf, dtype))

    def unflattened(leaves):
        leaves = iter(leaves)
        out = [
            rt.nest.pack_sequence_as(v, [next(leaves) for _ in rt.nest.flatten(v)]) for v in values
        ]
        return out[len(out) - own :] + out[: len(out) - own]  # in the order of loop.values

    def flattened(out):
        out = list(out[own:]) + list(out[:own])
        leaves = [leaf for value in out for leaf in rt.nest.flatten(value)]
        return [_checked(leaf, spec) for leaf, spec in zip(leaves, specs)]

    def run_body(index, leaves):
        return flattened(body_fn(index, *unflattened(leaves)))

    if loop.index_label is None:
        cond_fun = lambda leaves: as_predicate(cond_fn(None, *unflattened(leaves)))  # noqa: E731
        return unflattened(lax.while_loop(cond_fun, functools.partial(run_body, None), start))
    if loop.length is not None:  # the index is fori_loop's own
        return unflattened(lax.fori_loop(0, loop.length, run_body, start))

    def cond_fun(carry):
        return as_predicate(cond_fn(carry[0], *unflattened(carry[1])))

    def body_fun(carry):
        return carry[0] + 1, run_body(carry[0], carry[1])

    _, final = lax.while_loop(cond_fun, body_fun, (jnp.asarray(0, jnp.int32), start))
    return unflattened(final)


def probe(run, values, counted):
    """``Backend.probe``: ``run`` once in ``jax.eval_shape``, the leaves entering as abstract
    arrays of their types, as in the real loop."""
    flat = [rt.nest.flatten(v) if not is_undefined(v) else [v] for v in values]
    inputs = [leaf for leaves in flat for leaf in leaves if stageable(leaf)]
    seen = []

    def one_iteration(index, *arrays):
        arrays = iter(arrays)
        now = [
            rt.nest.pack_sequence_as(v, [next(arrays) if stageable(x) else x for x in leaves])
            if not is_undefined(v)
            else v
            for v, leaves in zip(values, flat)
        ]
        seen.append(run(now, index if counted else None))
        return []

    try:
        jax.eval_shape(
            one_iteration,
            jax.ShapeDtypeStruct((), jnp.int32),
            *[jax.ShapeDtypeStruct(*spec_of(leaf)) for leaf in inputs],
        )
    except UnboundLocalError:
        return None  # the loop itself reports the undefined variables by name
    return seen[0]


LOOP_VARIABLE_KINDS = "arrays and numbers (and structures of them)"


def loop_value(name, value, after=False, like=None, before=None):
    """``Backend.loop_value``: a variable's value as a loop carries it: defined, not None, of
    numbers and arrays; a list keeps its length."""
    if after and type(before) is list and not (type(value) is list and len(value) == len(before)):
        raise TypeError(
            f"'{name}' is a Python list whose length changes in a tensor-dependent "
            "loop; under JAX a loop carries arrays of fixed shapes: preallocate an array "
            "(jnp.zeros(n)) and write its items with .at[i].set(value)."
        )
    loop_checks.require_value(name, value, after)
    for leaf in rt.nest.flatten(value):
        if not stageable(leaf):
            raise loop_checks.not_a_loop_variable(name, leaf, LOOP_VARIABLE_KINDS)
    return value


def require_set(value, flag, name):
    """``Backend.require_set``: ``value``, after a run-time check of ``flag`` (reading a variable
    a loop created runs it: ``Backend.check_unset``)."""
    jax.debug.callback(functools.partial(_require, name=name), flag)
    return value


def _require(flag, name):
    if not flag:
        raise UnboundLocalError(unset.never_initialized(name))


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
