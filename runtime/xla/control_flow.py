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

from runtime.core.graph import CONST
from runtime.execution.interpreter import if_rule, run_if, while_rule
from runtime.ops.math_ops import ADD, GREATER, GREATER_EQUAL, LESS, LESS_EQUAL, LOGICAL_AND, SUB
from runtime.xla.effects import is_static
from runtime.xla.gradient_lists import (
    GradientList,
    Stack,
    allocate_stack,
    empty_stack,
    fitted,
    push,
    stack_spec,
    wider,
    zeros_like_stack,
)
from runtime.xla.state import ERROR, Redo
from runtime.xla.tensor_lists import TensorArrayValue, allocate, widened


def _learned(ctx, key):
    return ctx.learned.setdefault(key, {"carry": {}, "allocate": {}, "rotate": False})


def _learn(learned, redo):
    for key in redo.learned.get("carry", ()):
        learned["carry"][key] = True
    learned["allocate"].update(redo.learned.get("allocate", {}))
    learned["rotate"] = learned["rotate"] or redo.learned.get("rotate", False)


def _retrying(ctx, key, attempt):
    """Runs ``attempt(learned, widths)`` until it traces without learning anything new.

    ``widths`` (position -> capacity: TensorArrays widened to one size; or -> a stack's spec:
    the empty gradient list a cond's other branch gives there) hold for this trace only: they
    follow the sizes observed, which another specialization has others of.
    """
    learned = _learned(ctx, key)
    widths = ctx.widths.setdefault(key, {})
    while True:
        saved = dict(ctx.state.values)
        try:
            return attempt(learned, widths)
        except Redo as redo:
            ctx.state.values = saved  # what the attempt changed is forgotten with it
            _learn(learned, redo)
            for k, capacity in redo.learned.get("widen", {}).items():
                widths[k] = max(capacity, widths.get(k, 0))
            widths.update(redo.learned.get("stack", {}))


def _values(outputs, tensors, allocations, widths=None):
    """Outputs as ``lax`` carries them: arrays of the tensors' dtypes, TensorArrays allocated
    (and widened: ``widths``, position -> capacity), gradient lists filled."""
    values = []
    for k, (v, t) in enumerate(zip(outputs, tensors)):
        if isinstance(v, TensorArrayValue):
            if v.buffer is None and k in allocations:
                v = allocate(v, *allocations[k])
            if widths and k in widths:
                v = widened(v, widths[k])
        elif isinstance(v, Stack):
            if v.rows is None and k in allocations:
                v = allocate_stack(v, allocations[k])
        elif isinstance(v, GradientList):
            if v.buffer is None and isinstance(widths and widths.get(k), Stack):
                v = zeros_like_stack(widths[k])  # a stack of the other branch
            elif k in allocations:
                v = fitted(v, allocations[k])
        else:
            v = lax.convert_element_type(jnp.asarray(v), t.dtype.as_numpy_dtype)
        values.append(v)
    return values


def _integer(value):
    return getattr(value, "ndim", None) == 0 and np.dtype(value.dtype).kind in "iu"


def _new_allocations(before, after):
    """TensorArrays and stacks an iteration allocated that came in unallocated, and gradient
    lists it filled or widened."""
    found = {}
    for k, (a, b) in enumerate(zip(before, after)):
        if isinstance(a, GradientList):
            spec = wider(a.element_spec(), b.element_spec())
            if spec != a.element_spec():
                found[k] = spec
        elif _unallocated(a) and not _unallocated(b):
            found[k] = b.element_spec()
    return found


def _fit_lists(before, after):
    """``after`` with each TensorArray and gradient list at least as wide as it was in
    ``before``: a loop's body may give back a list narrower than it came in (a new one)."""
    fit = []
    for a, b in zip(before, after):
        if isinstance(a, GradientList) and a.buffer is not None:
            b = fitted(b, a.element_spec())
        elif (
            isinstance(a, TensorArrayValue)
            and isinstance(b, TensorArrayValue)
            and a.kind() != b.kind()
        ):
            b = widened(b, max(a.capacity, b.capacity))
        fit.append(b)
    return fit


def _widths(before, after):
    """TensorArrays an iteration gave back wider than they came in (another size or kind)."""
    return {
        k: b.capacity
        for k, (a, b) in enumerate(zip(before, after))
        if isinstance(a, TensorArrayValue) and a.kind() != b.kind()
    }


def _unallocated(v):
    return (isinstance(v, TensorArrayValue) and v.buffer is None) or (
        isinstance(v, Stack) and v.rows is None
    )


def _traced(ctx, before, fn):
    """Runs ``fn`` with a fork of ``before`` as the state; returns its result and the fork."""
    inner = before.fork()
    saved, ctx.state = ctx.state, inner
    try:
        return fn(), inner
    finally:
        ctx.state = saved


# --- cond ----------------------------------------------------------------------------------------


def lower_if(ctx, *values, **attrs):
    """The XLA table's rule for If: the one If rule (``interpreter.if_rule``), whose primitive
    is ``branch`` below (``Lowering.branch``)."""
    return if_rule(ctx, ctx.op, values)


def branch(ctx, cond):
    """If's primitive (``cond``: its ``IfParts``): ``lax.cond``, or ``lax.select`` of two cheap
    branches; a predicate known when compiling picks its branch now (``run_if``)."""
    if is_static(cond.pred):  # known when compiling: one branch, inline
        return run_if(cond, ctx.run)
    if _cheap(cond.then_graph) and _cheap(cond.else_graph):
        selected = _select(ctx, cond)
        if selected is not None:
            return selected
    branches = [lambda graph=graph: ctx.run(graph, cond.operands) for graph in cond.branches]
    return conditional(ctx, ctx.op, cond.pred, branches, ctx.op.outputs)


_CHEAP_OPS = 8


def _cheap(graph):
    """A branch of a few pure ops on scalars: computing it always costs less than branching."""
    ops = graph.get_operations()
    return len(ops) <= _CHEAP_OPS and all(
        op.outputs
        and not op.stateful
        and not op.subgraphs()
        and all(t.shape.rank == 0 and not t.dtype.is_opaque for t in op.outputs)
        for op in ops
    )


def _select(ctx, cond):
    """Both cheap branches computed, and their results selected by the predicate (XLA keeps a
    cond of two constants a branch). None when a branch may fail at run time: then it is a cond,
    so that only the branch taken can fail."""
    before = ctx.state
    results = []
    for graph in cond.branches:
        outputs, inner = _traced(ctx, before, lambda g=graph: ctx.run(g, cond.operands))
        if inner.changed_from(before):
            return None  # what was traced is pure: XLA drops it
        results.append(_values(outputs, ctx.op.outputs, {}))
    return [lax.select(cond.pred, a, b) for a, b in zip(*results)]


def conditional(ctx, key, pred, branches, tensors):
    """``lax.cond`` over ``branches`` (callables returning outputs for ``tensors``).

    The state entries either branch changes leave the cond as values; ``key``
    names what is learned about them.
    """

    def attempt(learned, widths):
        base, carry = ctx.state, list(learned["carry"])
        specs, kinds, stacks, ranges = {}, {}, {}, []

        def branch(fn):
            def traced():
                outputs, inner = _traced(ctx, base, fn)
                new = inner.changed_from(base) - set(carry)
                if new:
                    raise Redo(carry=new)
                values = _values(outputs, tensors, learned["allocate"], widths)
                for k, v in enumerate(values):
                    if isinstance(v, TensorArrayValue):
                        spec = v.element_spec()
                        if specs.setdefault(k, spec) != spec:  # one branch wrote it first
                            raise Redo(allocate={k: specs[k] or spec})
                        seen = kinds.setdefault(k, (v.kind(), v.capacity))
                        if seen[0] != v.kind():  # the branches' lists have other sizes
                            raise Redo(widen={k: max(seen[1], v.capacity)})
                    elif isinstance(v, (Stack, GradientList)):
                        seen = stacks.setdefault(k, v)
                        if type(seen) is not type(v):
                            # A loop being differentiated in one branch stacks values, which the
                            # other gives as an empty list (never read): it gives zeros instead.
                            stack, empty = (v, seen) if isinstance(v, Stack) else (seen, v)
                            if empty.buffer is None:
                                raise Redo(stack={k: stack_spec(stack)})
                        elif isinstance(v, GradientList):
                            spec = v.element_spec()
                            if specs.setdefault(k, spec) != spec:  # one branch's list is wider
                                raise Redo(allocate={k: wider(specs[k], spec)})
                ranges.append([ctx.bounds(v) if _integer(v) else None for v in outputs])
                return values, [ctx.carry_value(inner, k) for k in carry]

            return traced

        outputs, carried = lax.cond(pred, branch(branches[0]), branch(branches[1]))
        for k, v in zip(carry, carried):
            ctx.state[k] = v
        for output, known in zip(outputs, zip(*ranges)):
            if None not in known:  # a range each branch keeps to (a loop's count): the cond's
                ctx.bound(output, min(low for low, _ in known), max(high for _, high in known))
        return list(outputs)

    return _retrying(ctx, key, attempt)


# --- while ---------------------------------------------------------------------------------------


def lower_call(ctx, *inputs, function, depth):
    """A call of a traced function (a gradient's): its forward graph, inline."""
    outputs = function.forward_outputs(depth)
    graph = outputs[0].graph if outputs else function.graph
    return ctx.run(graph, list(inputs), outputs)


def lower_while(ctx, *values, **attrs):
    """The XLA table's rule for While: the one While rule (``interpreter.while_rule``), whose
    primitive is ``loop`` below (``Lowering.loop``)."""
    return while_rule(ctx, ctx.op, values)


def loop(ctx, parts):
    """While's primitive (``parts``: its ``WhileParts``): ``lax.while_loop``, carrying the
    program's state."""
    lowered = _Loop(ctx, ctx.op, parts)
    loop_vars = parts.initial
    if parts.stacked is not None:  # differentiated: it also counts its iterations and stacks
        lowered.stack(loop_vars, parts.stacked)
    return _retrying(ctx, ctx.op, lambda learned, widths: lowered.lower(loop_vars, learned, widths))


class _Loop:
    """One While op being lowered: its test and body as functions of the loop variables."""

    def __init__(self, ctx, op, parts):
        self.ctx, self.op, self.parts = ctx, op, parts
        self.cond_graph, self.body_graph = parts.cond_graph, parts.body_graph
        self.captures, self.limit = parts.captured, parts.limit
        self.tensors = op.outputs
        self.stacks = None  # a differentiated loop's stacks: empty, one per stacked value
        self.capacity = None  # with stacks: the most iterations the loop can run
        self.stack_bounds = ()  # the range each stacked value was known to keep (or None)

    def stack(self, loop_vars, stacked):
        """Makes the loop count its iterations and stack ``stacked`` values of its body, each
        in an array with room for the most iterations it can run, which must be known now."""
        n = len(loop_vars)
        capacity = self._most_iterations(loop_vars)
        if capacity is None:
            for bound in self._bounds_not_known(loop_vars):
                self.ctx.compile_in(bound)  # an argument: compiled in, the bound is known
            self.ctx.unimplemented(
                "a loop being differentiated stacks each iteration's values in an array of fixed "
                "size, and this loop has no bound known when compiling. Give it one: "
                "maximum_iterations= (rt.while_loop(..., maximum_iterations=n), or "
                "ag.experimental.set_loop_options(maximum_iterations=n) in the loop), with n "
                "a constant or computed from integer arguments (compiled in, by value)"
            )
        self.capacity = capacity
        self.stacks = [empty_stack(capacity) for _ in range(stacked)]
        self.tensors = [*self.op.outputs[:n], *self.op.outputs[n + 1 :]]  # the count is not carried

    def _most_iterations(self, loop_vars):
        """The most iterations the loop can run, known when lowering, or None."""
        found = []
        if self.limit is not None:
            known = self.ctx.bounds(self.limit)
            if known is not None:
                found.append(max(known[1], 0))
        body = self.body_graph
        for k, (lowest, highest) in self._counters(loop_vars).items():
            step = abs(int(_step(body.outputs[k], body.inputs[k])))
            found.append((highest - lowest) // step + 1)
        return min(found) if found else None

    def _bounds_not_known(self, loop_vars):
        """The tensors (of the graph holding the loop) that would bound it if they were known
        when lowering: its ``maximum_iterations``, and the bounds its test sets its counters."""
        n, op = len(loop_vars), self.op
        if self.limit is not None:
            yield op.inputs[-1]
        cond, body = self.cond_graph, self.body_graph
        outer = {id(t): v for t, v in zip(cond.inputs[n:], op.inputs[n:])}
        for k, start in enumerate(loop_vars):
            if isinstance(start, TensorArrayValue) or self.ctx.bounds(start) is None:
                continue
            step = _step(body.outputs[k], body.inputs[k])
            if step is not None and step > 0:
                yield from _captured_bounds(cond.outputs[0], cond.inputs[k], outer)

    def lower(self, loop_vars, learned, widths):
        ctx = self.ctx
        n = len(loop_vars)
        stacks = self.stacks or []
        init = _values(loop_vars + stacks, self.tensors, learned["allocate"], widths)
        if learned["rotate"] or self.cond_graph.is_stateful:  # a test that prints or asserts
            if self.stacks is not None:
                ctx.unimplemented(
                    "a loop being differentiated whose test has effects (prints or asserts)"
                )
            return self._rotated(init, learned)
        base, carry = ctx.state, list(learned["carry"])
        counters = self._counters(loop_vars)

        def test(c):
            values, carried, count = c
            before = base.fork(dict(zip(carry, carried)))
            pred, inner = _traced(ctx, before, lambda: self._test(values))
            if inner.changed_from(before):
                raise Redo(rotate=True)
            return self._guard(pred, inner, count)

        def body(c):
            values, carried, count = c
            for k, (lowest, highest) in counters.items():
                ctx.bound(values[k], lowest, highest)
            before = base.fork(dict(zip(carry, carried)))
            outputs, inner = _traced(ctx, before, lambda: self._stacking_body(values, count))
            outputs = _fit_lists(values, outputs)
            self._learn_from(values, outputs, inner.changed_from(before), carry)
            return outputs, [ctx.carry_value(inner, k) for k in carry], self._next(count)

        carried = [ctx.carry_value(base, k) for k in carry]
        values, carried, count = lax.while_loop(test, body, (init, carried, self._first_count()))
        for k, v in zip(carry, carried):
            ctx.state[k] = v
        if self.stacks is None:
            return list(values)
        for stack, bounds in zip(values[n:], self.stack_bounds):
            stack.bounds = bounds  # a counter read back by the gradient keeps its range
        ctx.bound(count, 0, self.capacity)  # the backward loop's maximum_iterations: its bound
        return self.parts.outputs(values[:n], count, values[n:])

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
            outputs = _fit_lists(values, outputs)
            self._learn_from(values, outputs, inner.changed_from(before), carry)
            return outputs, [ctx.carry_value(inner, k) for k in carry], self._next(count), pred

        carried = [ctx.carry_value(base, k) for k in carry]
        init_state = (init, carried, self._first_count(), jnp.bool_(True))
        values, carried, _, _ = lax.while_loop(lambda c: c[3], body, init_state)
        for k, v in zip(carry, carried):
            ctx.state[k] = v
        return list(values)

    def _counters(self, init):
        """The loop's counters and the range each keeps to in the body: ``{k: (low, high)}``.

        A counter starts at a known integer, goes up by a positive constant each
        iteration, and the test says ``counter < bound`` (``<=``), alone or in an
        ``and``, with a bound that is known (or itself has a known range). In the
        body it is then within [start, bound - 1]: index checks on it go away.
        A counter going down (a backward loop's index, from the forward count less
        one) starts below a known highest and the test says ``counter >= bound``
        (``>``) with a known bound: in the body it is within [bound, highest].
        """
        found = {}
        cond, body = self.cond_graph, self.body_graph
        outer = {id(t): v for t, v in zip(cond.inputs[len(init) :], self.captures)}
        for k, start in enumerate(init):
            known = self.ctx.bounds(start) if not isinstance(start, TensorArrayValue) else None
            step = _step(body.outputs[k], body.inputs[k])
            if known is None or step is None:
                continue
            # A bound the start is already past: the body never runs, and any range holds
            # for it; the start's own gives the loop room for one iteration, never used.
            if step > 0 and known[0] == known[1]:
                highest = _limit_under(cond.outputs[0], cond.inputs[k], outer, self.ctx, True)
                if highest is not None:
                    found[k] = (known[0], max(highest, known[0]))
            elif step < 0:
                lowest = _limit_under(cond.outputs[0], cond.inputs[k], outer, self.ctx, False)
                if lowest is not None:
                    found[k] = (min(lowest, known[1]), known[1])
        return found

    def _first_count(self):
        """The iteration count starts at 0 where there is a limit to count to or stacks to
        write, else is None."""
        return None if self.limit is None and self.stacks is None else jnp.int32(0)

    def _next(self, count):
        return None if count is None else count + 1

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
        loop_vars = values[: len(values) - len(self.stacks or ())]
        (pred,) = self.ctx.run(self.cond_graph, list(loop_vars) + self.captures)
        return pred

    def _body(self, values):
        outputs = self.ctx.run(self.body_graph, list(values) + self.captures)
        return _values(outputs, self.tensors, {})

    def _stacking_body(self, values, count):
        """The body; a differentiated loop's also pushes its stacked values at ``count``."""
        if self.stacks is None:
            return self._body(values)
        n = len(values) - len(self.stacks)
        outputs = self.ctx.run(self.body_graph, list(values[:n]) + self.captures)
        pushed = [push(self.ctx, s, v, count) for s, v in zip(values[n:], outputs[n:])]
        self.stack_bounds = [self.ctx.bounds(v) for v in outputs[n:]]
        return _values(outputs[:n], self.tensors, {}) + pushed

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
        allocations, widths = _new_allocations(values, outputs), _widths(values, outputs)
        if new or allocations or widths:
            raise Redo(carry=new, allocate=allocations, widen=widths)


def _step(output, counter):
    """``c`` where ``output`` is ``counter + c`` (or ``counter - (-c)``) for a constant ``c``
    other than 0, else None."""
    op = output.op
    if op.opdef not in (ADD, SUB):
        return None
    a, b = op.inputs
    step = b if a is counter else a if b is counter and op.opdef is ADD else None
    if step is None or step.op.opdef is not CONST or np.ndim(step.op.attrs["value"]) != 0:
        return None
    value = step.op.attrs["value"] if op.opdef is ADD else -step.op.attrs["value"]
    return value if value != 0 else None


def _bound_of(bound, outer, ctx, end):
    """A test's bound, known when lowering: a constant, or a captured value with a known range
    (its ``end``: 0 lowest, 1 highest); None otherwise."""
    if bound.op.opdef is CONST:
        value = np.asarray(bound.op.attrs["value"])
        return int(value) if value.ndim == 0 else None
    known = ctx.bounds(outer[id(bound)]) if id(bound) in outer else None
    return None if known is None else known[end]


def _conjuncts(pred):
    """The ops whose results ``pred`` is the ``and`` of (its own op where it is no ``and``)."""
    op = pred.op
    if op.opdef is LOGICAL_AND:
        for t in op.inputs:
            yield from _conjuncts(t)
    else:
        yield op


def _captured_bounds(pred, counter, outer):
    """The captured tensors a test requires ``counter`` to be below (``<`` or ``<=``)."""
    for op in _conjuncts(pred):
        if op.opdef in (LESS, LESS_EQUAL) and op.inputs[0] is counter and id(op.inputs[1]) in outer:
            yield outer[id(op.inputs[1])]


def _limit_under(pred, counter, outer, ctx, upper):
    """The largest (``upper``) or smallest value ``counter`` has when ``pred`` holds, from a
    ``counter < bound`` or ``<=`` (``counter >= bound`` or ``>``) it requires, alone or in an
    ``and``; None when it says nothing of the kind."""
    strict, inclusive = (LESS, LESS_EQUAL) if upper else (GREATER, GREATER_EQUAL)
    found = []
    for op in _conjuncts(pred):
        if op.opdef not in (strict, inclusive) or op.inputs[0] is not counter:
            continue
        limit = _bound_of(op.inputs[1], outer, ctx, 1 if upper else 0)
        if limit is not None:
            found.append(limit if op.opdef is inclusive else limit - 1 if upper else limit + 1)
    return (min if upper else max)(found) if found else None
