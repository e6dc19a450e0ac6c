"""Lowerings of If and While: ``lax.cond`` and ``lax.while_loop``, carrying the program's state.

A branch or loop body is traced with a fork of the state (``runtime.xla.state``);
the entries it changes (a variable assigned, the random key drawn from, a
failure recorded) are carried out of it as values. Which entries those are,
which TensorArrays a body first writes, and whether a loop's test has effects,
is learned by tracing: a trace that finds out raises ``Redo`` and the op is
traced again knowing it. What an op learned is kept, so later traces of the
program (new shapes, new observed sizes) get it right the first time.

A loop whose test has effects (a print, an assert, a check that may fail) is
*rotated*: the test runs once before the loop and then at the end of each
iteration, inside the body, so its effects are carried like the body's.
Every loop also stops at the first failure, as the default executor does.
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np
from jax import lax

from runtime.xla.state import ERROR, Redo
from runtime.xla.tensor_lists import TensorList, allocate


def _learned(ctx, key):
    return ctx.learned.setdefault(key, {"carry": {}, "allocate": {}, "rotate": False})


def _learn(learned, redo):
    for key in redo.learned.get("carry", ()):
        learned["carry"][key] = True
    learned["allocate"].update(redo.learned.get("allocate", {}))
    learned["rotate"] = learned["rotate"] or redo.learned.get("rotate", False)


def _retrying(ctx, key, attempt):
    """Runs ``attempt(learned)`` until it traces without learning anything new."""
    learned = _learned(ctx, key)
    while True:
        saved = dict(ctx.state.values)
        try:
            return attempt(learned)
        except Redo as redo:
            ctx.state.values = saved  # what the attempt changed is forgotten with it
            _learn(learned, redo)


def _values(outputs, tensors, allocations):
    """Outputs as ``lax`` carries them: arrays of the tensors' dtypes, TensorArrays allocated."""
    values = []
    for k, (v, t) in enumerate(zip(outputs, tensors)):
        if isinstance(v, TensorList):
            if v.buffer is None and k in allocations:
                v = allocate(v, *allocations[k])
        else:
            v = lax.convert_element_type(jnp.asarray(v), t.dtype.as_numpy_dtype)
        values.append(v)
    return values


def _new_allocations(before, after):
    """TensorArrays an iteration or branch allocated that came in unallocated."""
    found = {}
    for k, (a, b) in enumerate(zip(before, after)):
        if isinstance(a, TensorList) and a.buffer is None and b.buffer is not None:
            found[k] = b.element_spec()
    return found


def _traced(ctx, before, fn):
    """Runs ``fn`` with a fork of ``before`` as the state; returns its result and the fork."""
    inner = before.fork()
    saved, ctx.state = ctx.state, inner
    try:
        return fn(), inner
    finally:
        ctx.state = saved


# --- cond ----------------------------------------------------------------------------------------


def lower_if(ctx, pred, *args, then_graph, else_graph):
    if isinstance(pred, (np.ndarray, np.generic)):  # known when compiling: one branch, inline
        return ctx.run(then_graph if pred else else_graph, list(args))
    branches = [
        lambda: ctx.run(then_graph, list(args)),
        lambda: ctx.run(else_graph, list(args)),
    ]
    return conditional(ctx, ctx.op, pred, branches, ctx.op.outputs)


def conditional(ctx, key, pred, branches, tensors):
    """``lax.cond`` over ``branches`` (callables returning outputs for ``tensors``).

    The state entries either branch changes leave the cond as values; ``key``
    names what is learned about them.
    """

    def attempt(learned):
        base, carry = ctx.state, list(learned["carry"])
        specs = {}

        def branch(fn):
            def traced():
                outputs, inner = _traced(ctx, base, fn)
                new = inner.changed_from(base) - set(carry)
                if new:
                    raise Redo(carry=new)
                values = _values(outputs, tensors, learned["allocate"])
                for k, v in enumerate(values):
                    if isinstance(v, TensorList):
                        spec = v.element_spec()
                        if specs.setdefault(k, spec) != spec:  # one branch wrote it first
                            raise Redo(allocate={k: specs[k] or spec})
                return values, [ctx.carry_value(inner, k) for k in carry]

            return traced

        outputs, carried = lax.cond(pred, branch(branches[0]), branch(branches[1]))
        for k, v in zip(carry, carried):
            ctx.state[k] = v
        return list(outputs)

    return _retrying(ctx, key, attempt)


# --- while ---------------------------------------------------------------------------------------


def lower_while(
    ctx, *inputs, cond_graph, body_graph, num_loop_vars, has_maximum_iterations
):
    op, n = ctx.op, num_loop_vars
    limit = inputs[-1] if has_maximum_iterations else None
    captures = list(inputs[n : len(inputs) - (1 if has_maximum_iterations else 0)])
    loop = _Loop(ctx, op, cond_graph, body_graph, captures, limit)
    return _retrying(ctx, op, lambda learned: loop.lower(list(inputs[:n]), learned))


class _Loop:
    """One While op being lowered: its test and body as functions of the loop variables."""

    def __init__(self, ctx, op, cond_graph, body_graph, captures, limit):
        self.ctx, self.op = ctx, op
        self.cond_graph, self.body_graph = cond_graph, body_graph
        self.captures, self.limit = captures, limit
        self.tensors = op.outputs

    def lower(self, loop_vars, learned):
        ctx = self.ctx
        init = _values(loop_vars, self.tensors, learned["allocate"])
        if learned["rotate"]:
            return self._rotated(init, learned)
        base, carry = ctx.state, list(learned["carry"])

        def test(c):
            values, carried, count = c
            before = base.fork(dict(zip(carry, carried)))
            pred, inner = _traced(ctx, before, lambda: self._test(values))
            if inner.changed_from(before):
                raise Redo(rotate=True)
            return self._guard(pred, inner, count)

        def body(c):
            values, carried, count = c
            before = base.fork(dict(zip(carry, carried)))
            outputs, inner = _traced(ctx, before, lambda: self._body(values))
            self._learn_from(values, outputs, inner.changed_from(before), carry)
            return outputs, [ctx.carry_value(inner, k) for k in carry], count + 1

        carried = [ctx.carry_value(base, k) for k in carry]
        values, carried, _ = lax.while_loop(test, body, (init, carried, jnp.int32(0)))
        for k, v in zip(carry, carried):
            ctx.state[k] = v
        return list(values)

    def _rotated(self, init, learned):
        """The loop with its test inside the body, so that the test's effects are carried.

        Each iteration runs the test, then the body only if it held (a cond); the
        loop stops after an iteration whose test failed. Nothing runs outside the
        loop's own trace, so a trace that learns something leaves no effect behind.
        """
        ctx = self.ctx
        base, carry = ctx.state, list(learned["carry"])

        def body(c):
            values, carried, count, _ = c
            before = base.fork(dict(zip(carry, carried)))

            def iteration():
                pred = self._checked_test(values, count)
                outputs = conditional(
                    ctx,
                    ("body", self.op),
                    pred,
                    [lambda: self._body(values), lambda: list(values)],
                    self.tensors,
                )
                return outputs, pred

            (outputs, pred), inner = _traced(ctx, before, iteration)
            self._learn_from(values, outputs, inner.changed_from(before), carry)
            return outputs, [ctx.carry_value(inner, k) for k in carry], count + 1, pred

        carried = [ctx.carry_value(base, k) for k in carry]
        init_state = (init, carried, jnp.int32(0), jnp.bool_(True))
        values, carried, _, _ = lax.while_loop(lambda c: c[3], body, init_state)
        for k, v in zip(carry, carried):
            ctx.state[k] = v
        return list(values)

    def _checked_test(self, values, count):
        """The test, run only while under the iteration limit (its effects too), until a failure."""
        ctx = self.ctx
        if self.limit is None:
            pred = self._test(values)
        else:
            under = count < self.limit
            (pred,) = conditional(
                ctx,
                ("test", self.op),
                under,
                [lambda: [self._test(values)], lambda: [np.bool_(False)]],
                [self.cond_graph.outputs[0]],
            )
        return self._guard(pred, ctx.state, None)

    def _test(self, values):
        (pred,) = self.ctx.run(self.cond_graph, list(values) + self.captures)
        return pred

    def _body(self, values):
        outputs = self.ctx.run(self.body_graph, list(values) + self.captures)
        return _values(outputs, self.tensors, {})

    def _guard(self, pred, state, count):
        """The loop goes on while ``pred``, under its iteration limit, and until a failure."""
        pred = jnp.asarray(pred)
        if count is not None and self.limit is not None:
            pred = pred & (count < self.limit)
        error = state.get(ERROR)
        if error is not None and not isinstance(error, (int, np.integer)):
            pred = pred & (error == 0)
        return pred

    def _learn_from(self, values, outputs, changed, carry):
        new = changed - set(carry)
        allocations = _new_allocations(values, outputs)
        if new or allocations:
            raise Redo(carry=new, allocate=allocations)
