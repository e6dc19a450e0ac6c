"""Tracing a function graph into JAX: each op through its row of ``runtime.xla.lowerings``.

``Lowering.run(graph, values)`` walks the ops a graph runs, in program order
(stateful ones included: the one walk, ``runtime.execution.interpreter``), and
gives each the values of its inputs:

- a pure op whose inputs are all known when compiling (numpy values: constants,
  shapes) runs its numpy kernel now, so the compiled program holds its result;
- any other op is lowered by its rule, which builds JAX operations;
- an op with no XLA form raises ``UnimplementedError`` naming it and the
  user's line that made it.

Run-time failures (an assert, an integer division by zero, an index out of
range) become *checks*: the first failing one sets the state's error code,
after which prints and assignments do nothing and loops stop, as the default
executor stops at a failing op. The host raises the error after the call.

>>> import runtime as rt
>>> from runtime.execution.tracing import trace
>>> g = trace(lambda x: x * 2 + 1, [rt.TensorSpec([], rt.int32)], "f")
>>> import jax
>>> jax.jit(lambda x: Lowering(Host()).run(g, [x]))(3)
[Array(7, dtype=int32)]
"""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from runtime import errors
from runtime.core.graph import PLACEHOLDER
from runtime.execution.interpreter import Interpreter, describe_op, failure_message
from runtime.execution.schedule import missing_feed_error, ops_to_run
from runtime.ops.registry import run_kernel
from runtime.xla import control_flow, lowerings
from runtime.xla.effects import is_static
from runtime.xla.state import DETAIL, ERROR, KEY, NeedsObservation, ProgramState
from runtime.xla.tensor_lists import TensorArrayValue

# What a kernel raises on the zeros standing in for values not known when compiling: the op
# may not fail on its real values (the shapes are what the stand-ins tell of).
_VALUE_FAILURES = (ZeroDivisionError, OverflowError)


class Check(NamedTuple):
    """A run-time failure a program may report: error code ``k`` is ``checks[k - 1]``."""

    op: object
    error_type: type
    message: str | None  # "{0}" and "{1}" are filled with the check's details; None: an Assert's
    respecialize: bool  # a value observed before changed: observe again and compile for it


class Host:
    """What a lowered program shares with the Python side: the checks it makes, what it learned,
    the values it was compiled for, and what its callbacks report while it runs."""

    def __init__(self, specialization=None, graph=None, learned=None, plans=None):
        self.checks = []
        self.input_positions = {id(t): i for i, t in enumerate(graph.inputs)} if graph else {}
        self._codes = {}
        # op -> what tracing its branches or body taught (control_flow): it holds for this
        # specialization only (the specs of what a loop allocates follow the sizes compiled in);
        # graph -> its ops in order, for every specialization of a program: it may be shared.
        self.learned = {} if learned is None else learned
        self.plans = {} if plans is None else plans
        self.specialization = specialization or Specialization()
        self.printed_text = []
        self.assert_messages = {}
        self.callbacks = 0  # how many host callbacks the last trace made

    def code(self, check):
        """The error code of ``check``, the same for the same check in every trace."""
        key = (id(check.op), check.message, check.respecialize)
        code = self._codes.get(key)
        if code is None:
            self.checks.append(check)
            code = self._codes[key] = len(self.checks)
        return code

    def printed(self, stream, text):
        self.printed_text.append((stream, text))

    def assertion_failed(self, code, message):
        self.assert_messages[code] = message


class Specialization:
    """Values XLA needs when compiling that the graph knows only at run time, as observed.

    ``values``: (op, input position) -> the numpy value; ``capacities``: op (a
    dynamic TensorArray's reserve or stack, a ``GradientListElement``) -> the size it needs
    (``runtime.xla.observe.Observation``); ``inputs``: the
    program's inputs compiled in (position -> value), as ``jax.jit``'s
    ``static_argnums`` are. ``observed`` says the program was observed running:
    an op still missing is one that did not run, and any value serves it (a
    check catches it if it runs after all).
    """

    def __init__(self, values=None, capacities=None, observed=False, inputs=None):
        self.values = dict(values or {})
        self.capacities = dict(capacities or {})
        self.observed = observed
        self.inputs = dict(inputs or {})

    def with_inputs(self, inputs):
        return Specialization(self.values, self.capacities, self.observed, inputs)

    def key(self):
        values = tuple(sorted((id(op), p, _bytes(v)) for (op, p), v in self.values.items()))
        capacities = tuple(sorted((id(op), c) for op, c in self.capacities.items()))
        inputs = tuple(sorted((i, _bytes(v)) for i, v in self.inputs.items()))
        return values, capacities, inputs, self.observed


def _bytes(value):
    value = np.asarray(value)
    return value.dtype.str, value.shape, value.tobytes()


def table_rule(opdef):
    """The rule of ``runtime.xla.lowerings`` for ``opdef``, or None: the one look-up."""
    return lowerings.rule_for(opdef)


class Lowering(Interpreter):
    """One trace of a program: its state, and the op being lowered (``op``) for the rules.

    A walk (``runtime.execution.interpreter``) whose values are JAX values (or
    numpy ones, known when compiling). Every op has one walk rule,
    ``Lowering.lower(ctx, op, values)``: it evaluates the op now, or calls the
    op's rule of the XLA table, ``rule(ctx, *values, **attrs)``, and makes its
    result a list. Table rules get the Lowering as ``ctx``; see
    ``runtime.xla.lowerings`` for what they may ask of it.
    """

    def __init__(self, host, state=None, inputs=None):
        self.host = host
        # id(traced value) -> (value, position): the program's inputs not compiled in
        self._inputs = {id(v): (v, i) for i, v in (inputs or {}).items()}
        self._env = {}  # id(tensor) -> value, in the graph being lowered
        self.learned = host.learned
        self.state = state if state is not None else ProgramState()
        self.op = None
        self._bounds = {}  # id(traced value) -> (value, lowest, highest): a loop's counters
        # op -> {position: capacity}: the TensorArrays a cond or loop widens to one size. They
        # follow the sizes observed, so unlike ``learned`` they hold for this trace only.
        self.widths = {}

    # --- walking a graph ----------------------------------------------------------------------

    def run(self, graph, values, outputs=None):
        """The values of ``graph``'s outputs (or of ``outputs``), its inputs being ``values``."""
        outputs = graph.outputs if outputs is None else outputs
        env = {id(t): v for t, v in zip(graph.inputs, values)}
        saved, self._env = self._env, env
        try:
            self.run_ops(self._plan(graph, outputs, env), env)
        finally:
            self._env = saved
        return [env[id(t)] for t in outputs]

    def _plan(self, graph, outputs, env):
        key = (graph, *map(id, outputs))
        plan = self.host.plans.get(key)
        if plan is None:
            plan = self.host.plans[key] = ops_to_run(graph, outputs, set(env), True)
            for op in plan:
                if op.opdef is PLACEHOLDER:
                    raise missing_feed_error(op)
        return plan

    def rule_for(self, op):
        return Lowering.lower

    def branch(self, op, cond):
        return control_flow.branch(self, cond)  # lax.cond

    def loop(self, op, loop):
        return control_flow.loop(self, loop)  # lax.while_loop

    def lower(self, op, values):
        """``op`` on ``values``: evaluated now if it can be, else by its rule of the XLA table."""
        positions = lowerings.STATIC_OPERANDS.get(op.opdef)
        if positions:
            values = list(values)
            for p in positions:
                if not is_static(values[p]):
                    values[p] = self._speculate(op, p, values[p])
        if op.opdef.pure and op.outputs and not op._subgraphs and all(map(is_static, values)):
            return self._evaluate_now(op, values)
        rule = table_rule(op.opdef)
        if rule is None:
            self.unimplemented(lowerings.UNLOWERABLE.get(op.opdef, "it is not in the XLA table"))
        try:
            result = rule(self, *values, **op.attrs)
        except errors.UnimplementedError:
            raise
        except errors.OpError as e:
            return self._failure(op, type(e), e.message)
        except (TypeError, ValueError, IndexError) as e:
            return self._shape_failure(op, values, e)
        return self._typed(op, result)

    def _typed(self, op, result):
        n = len(op.outputs)
        # A rule gives one output bare, several as a tuple; cond and loops give a list.
        outputs = [result] if n == 1 and not isinstance(result, list) else list(result or ())
        typed = []
        for t, v in zip(op.outputs, outputs):
            dtype = t.dtype
            if dtype.is_opaque or dtype.is_string or isinstance(v, TensorArrayValue):
                typed.append(v)
            elif is_static(v):
                typed.append(np.asarray(v).astype(dtype.as_numpy_dtype, copy=False)[()])
            elif v.dtype != dtype.as_numpy_dtype or getattr(v, "weak_type", False):
                typed.append(lax.convert_element_type(v, dtype.as_numpy_dtype))
            else:
                typed.append(v)
        return typed

    def _evaluate_now(self, op, values):
        """A pure op on values known when compiling: its own kernel, once, while tracing."""
        try:
            out = run_kernel(op.opdef.kernel, values, op.attrs)
        except errors.OpError as e:
            return self._failure(op, type(e), e.message)
        except MemoryError as e:  # no stand-in of that size either: it fails when compiling
            message = failure_message(f"MemoryError: {e}", op)
            raise errors.InvalidArgumentError(message, op) from None
        return [out] if len(op.outputs) == 1 else list(out)

    def _shape_failure(self, op, values, error):
        """JAX refused the inputs while tracing: if the kernel refuses inputs of those shapes too,
        the op fails when it runs, with the kernel's message; otherwise the rule is wrong."""
        if op._subgraphs:
            raise error  # a cond or loop: the error is one of an op inside, already handled
        stand_ins = []
        for v in values:
            if is_static(v):
                stand_ins.append(v)
            elif hasattr(v, "shape") and hasattr(v, "dtype"):
                stand_ins.append(np.broadcast_to(np.zeros((), v.dtype), v.shape))
            else:
                raise error
        try:
            run_kernel(op.opdef.kernel, stand_ins, op.attrs)
        except errors.OpError as e:
            if isinstance(e.__cause__, _VALUE_FAILURES):  # of the zeros standing in: no answer
                raise error from None
            return self._failure(op, type(e), e.message)
        raise error

    def _failure(self, op, error_type, message):
        """The op fails whenever it runs: a check that always fails, and stand-in outputs."""
        shapes = [t.shape for t in op.outputs]
        if not all(s.is_fully_defined() for s in shapes):
            raise error_type(failure_message(message, op), op)
        self.check(True, message, error_type=error_type)
        return [np.zeros(s.as_list(), t.dtype.as_numpy_dtype) for s, t in zip(shapes, op.outputs)]

    def _speculate(self, op, position, value):
        """A value known only at run time, where XLA needs it when compiling: the observed one,
        checked each time the op runs."""
        input_index = self.host.input_positions.get(id(op.inputs[position]))
        if input_index is not None:
            raise NeedsObservation(op, input_index)  # not compiled in yet: compile it in
        specialization = self.host.specialization
        known = specialization.values.get((op, position))
        if known is None:
            if not specialization.observed:
                raise NeedsObservation(op)
            known = np.ones(np.shape(value), value.dtype)  # the op did not run when observed
        what = "a shape or size XLA needs when compiling"
        self.check(
            jnp.any(value != known),
            f"{op.type}: {what} changed from the value observed",
            respecialize=True,
        )
        return known

    def capacity(self):
        """The observed size of what the current op makes: a dynamic TensorArray (its largest
        size), a stack of one (the length stacked), or the gradient list of one element (its
        largest index, plus one)."""
        specialization = self.host.specialization
        capacity = specialization.capacities.get(self.op)
        if capacity is None:
            if not specialization.observed:
                raise NeedsObservation(self.op)
            return 0  # the op did not run when observed
        return capacity

    # --- what rules may ask for ---------------------------------------------------------------

    def bound(self, value, lowest, highest):
        """Notes that the integer ``value`` (traced) is within [lowest, highest] where it is used."""
        self._bounds[id(value)] = (value, lowest, highest)

    def bounds(self, value):
        """``(lowest, highest)`` known for an integer scalar, or None: a check it makes certain
        to pass is left out of the program."""
        if is_static(value):
            if np.ndim(value) or np.asarray(value).dtype.kind not in "iu":
                return None
            return int(value), int(value)
        known = self._bounds.get(id(value))
        if known is None or known[0] is not value:
            return None
        return known[1], known[2]

    def compile_in(self, tensor):
        """Asks for the integer scalar inputs of the program that ``tensor`` (of the graph being
        lowered) is computed from by pure ops to be compiled in by value, as inputs that are
        sizes are: the program is then compiled for each value of them it is called with.
        Returns if there are none not compiled in yet."""
        for source in _sources(tensor):
            value = self._env.get(id(source))
            known = self._inputs.get(id(value))
            if known is not None and known[0] is value and _integer_scalar(value):
                raise NeedsObservation(self.op, known[1])

    def within(self, index, lowest, highest):
        """Whether ``index`` is known to be within [lowest, highest] (so needs no check)."""
        known = self.bounds(index)
        return known is not None and lowest <= known[0] and known[1] <= highest

    def unimplemented(self, reason):
        """Raises UnimplementedError naming the op being lowered and the user's line."""
        op = self.op
        raise errors.UnimplementedError(
            f"{op.type} has no XLA form: {reason}. Run the function without jit_compile, or "
            f"compute this outside it.\n\t [[{describe_op(op)}]]",
            op,
        )

    def ok(self):
        """None while no failure is possible yet; else whether none happened (a traced bool)."""
        error = self.state.get(ERROR)
        if error is None:
            return None
        return error == 0

    def gate(self, new, old):
        """``new``, or ``old`` if the call already failed (an assignment after a failing op)."""
        ok = self.ok()
        return new if ok is None else jnp.where(ok, new, old)

    def check(self, failed, message, detail=None, error_type=errors.InvalidArgumentError,
              respecialize=False):  # fmt: skip
        """Records that the current op fails when ``failed`` holds, unless a failure came first.

        Returns ``(code, first)``: the check's error code, and whether it is the
        call's first failure (a traced bool, or a Python bool).
        """
        if is_static(failed) or isinstance(failed, bool):
            if not bool(np.all(failed)):
                return None, False
            failed = True
        check = Check(self.op, error_type, message, respecialize)
        code = self.host.code(check)
        error = self.state.get(ERROR)
        first = failed if error is None else jnp.logical_and(error == 0, failed)
        self.state[ERROR] = jnp.where(first, code, 0 if error is None else error).astype(jnp.int32)
        if detail is not None:
            old = list(self.state.get(DETAIL, (jnp.int32(0), jnp.int32(0))))
            for i, d in enumerate(detail if isinstance(detail, tuple) else (detail,)):
                old[i] = jnp.where(first, jnp.asarray(d, jnp.int32), old[i])
            self.state[DETAIL] = tuple(old)
        return code, first

    def callback(self, fn, *args):
        """Calls ``fn`` on the host with the values of ``args``, in program order, unless the
        call has failed by then."""
        ok = self.ok()
        if ok is None:
            self.host.callbacks += 1
            jax.debug.callback(fn, *args, ordered=True)
        else:
            self.callback_when(ok, fn, *args)

    def callback_when(self, pred, fn, *args):
        """``callback`` only when ``pred`` (a traced bool) holds when the program runs."""
        self.host.callbacks += 1
        if isinstance(pred, bool):
            if pred:
                jax.debug.callback(fn, *args, ordered=True)
            return

        def call():
            jax.debug.callback(fn, *args, ordered=True)

        lax.cond(pred, call, lambda: None)

    def draw_key(self):
        """A fresh key for one random op; the program's key moves on."""
        key, draw = jax.random.split(self.state[KEY])
        self.state[KEY] = key
        return draw

    def carry_value(self, state, key):
        """The value of state entry ``key`` as an array a ``lax`` loop or cond can carry."""
        value = state.get(key)
        if value is None:
            return (jnp.int32(0), jnp.int32(0)) if key == DETAIL else jnp.int32(0)
        if isinstance(value, (int, np.ndarray, np.generic)):
            return jnp.asarray(value, dtype=getattr(value, "dtype", jnp.int32))
        return value


def _sources(tensor):
    """The inputs of its graph (placeholders) that ``tensor`` is computed from by pure ops."""
    found, seen, todo = [], set(), [tensor]
    while todo:
        t = todo.pop()
        if id(t) in seen:
            continue
        seen.add(id(t))
        op = t.op
        if op.opdef is PLACEHOLDER:
            found.append(t)
        elif op.opdef.pure and not op._subgraphs:
            todo.extend(op.inputs)
    return found


def _integer_scalar(value):
    return np.ndim(value) == 0 and np.dtype(value.dtype).kind in "iu"
