"""Loop counters carried as Python ints: the plan for one while loop (``runtime.execution.emitter``).

A scalar ``int32`` loop variable ``i`` that the loop's test bounds (``i < n``) and
its body steps by one (``i + 1``) cannot overflow: in the body ``i < n <= 2**31 - 1``,
so ``i + 1`` fits. Such a counter runs as a Python int inside the generated loop
(an int's compare and add cost half a numpy scalar's) and is ``int32`` again at the
loop's exit. The values computed from it in the loop are Python ints too, where
every consumer takes one with the same result:

- ``+``, ``-``, ``*`` of int32 scalars, each checked: a result outside int32's range
  is computed again on ``int32`` operands, so it wraps (and warns) as numpy does;
- the loop's test (``<``, ``<=``, ``>``, ``>=``): Python's ``bool`` is as good a test;
- a TensorArray's index, and the value written to a fixed-size array
  (``write_int32``: stored as the int32 it equals).

Any other consumer (a cond, another output of the body, a kernel) leaves the loop as
it was: no conversion is written where a numpy scalar is expected.

A value of the plan may still be an ``int32`` (one operand a numpy scalar, or a
checked result computed again): numpy gives it the same value, so every consumer
above sees what it would have seen.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from runtime.core import dtypes
from runtime.core.graph import CONST
from runtime.execution.schedule import function_ops
from runtime.ops.math_ops import ADD, GREATER, GREATER_EQUAL, LESS, LESS_EQUAL, MUL, SUB
from runtime.ops.tensor_array_ops import READ, WRITE

INT32_MIN, INT32_MAX = -(2**31), 2**31 - 1
_ARITHMETIC = (ADD, SUB, MUL)
_COMPARISONS = (LESS, LESS_EQUAL, GREATER, GREATER_EQUAL)


@dataclass
class Plan:
    """What the emitter writes differently for one loop."""

    positions: list  # the loop variables carried as Python ints
    ints: set = field(default_factory=set)  # id(tensor): a Python int (or an equal int32)
    checked: set = field(default_factory=set)  # id(op): arithmetic whose result is range-checked
    tests: set = field(default_factory=set)  # id(op): a loop's test on Python ints
    literals: dict = field(default_factory=dict)  # id(const tensor) -> its Python int's text
    int_writes: set = field(default_factory=set)  # id(write op) whose value is a Python int
    int_captures: list = field(default_factory=list)  # the test's bounds: int() once, before


def plan(op):
    """The ``Plan`` for the While ``op``, or None where no loop variable qualifies."""
    if op.attrs["stacked"] is not None:
        return None
    n = op.attrs["num_loop_vars"]
    cond_graph, body_graph = op.attrs["cond_graph"], op.attrs["body_graph"]
    for position in range(n):
        result = _plan_counter(position, cond_graph, body_graph, op)
        if result is not None:
            return result
    return None


def _is_int32_scalar(t):
    return t.dtype is dtypes.int32 and t.shape.rank == 0


def _const_int(t):
    if t.op.opdef is not CONST or not _is_int32_scalar(t):
        return None
    return int(t.op.attrs["value"])


def _plan_counter(k, cond_graph, body_graph, op):
    if not _is_int32_scalar(op.outputs[k]):
        return None
    (test,) = cond_graph.outputs
    counter_in_cond = cond_graph.inputs[k]
    test_op = test.op
    bounded = (test_op.opdef is LESS and test_op.inputs[0] is counter_in_cond) or (
        test_op.opdef is GREATER and test_op.inputs[1] is counter_in_cond
    )
    if not bounded or not all(_is_int32_scalar(t) for t in test_op.inputs):
        return None
    step = body_graph.outputs[k].op
    counter_in_body = body_graph.inputs[k]
    if step.opdef is not ADD or not any(x is counter_in_body for x in step.inputs):
        return None
    other = step.inputs[1] if step.inputs[0] is counter_in_body else step.inputs[0]
    if _const_int(other) != 1:
        return None
    result = Plan([k])
    if not _spread(result, cond_graph, counter_in_cond, allowed_outputs={}):
        return None
    if not _spread(
        result, body_graph, counter_in_body, allowed_outputs={id(body_graph.outputs[k]): k}
    ):
        return None
    result.checked.discard(id(step))  # proven to fit: no check
    n = op.attrs["num_loop_vars"]
    uses = _consumers(function_ops(cond_graph))
    for j in range(n, len(cond_graph.inputs)):
        bound = cond_graph.inputs[j]
        if (
            _is_int32_scalar(bound)
            and all(id(c) in result.tests for c, _ in uses.get(id(bound), ()))
            and not any(t is bound for t in cond_graph.outputs)
        ):
            result.int_captures.append(j - n)
    return result


def _consumers(ops):
    consumers = {}
    for consumer in ops:
        for position, t in enumerate(consumer.inputs):
            consumers.setdefault(id(t), []).append((consumer, position))
    return consumers


def _note_literals(result, consumer):
    """Marks ``consumer``'s constant int32 operands to be written as Python int literals."""
    for x in consumer.inputs:
        value = _const_int(x)
        if value is not None:
            result.literals[id(x)] = repr(value)


def _spread(result, graph, counter, allowed_outputs):
    """Marks the values computed from ``counter`` in ``graph``; False if one has a consumer
    that needs a numpy scalar."""
    consumers = _consumers(function_ops(graph))
    outputs = {}
    for index, t in enumerate(graph.outputs):
        outputs.setdefault(id(t), []).append(index)
    is_cond = len(graph.outputs) == 1 and graph.outputs[0].dtype is dtypes.bool_
    pending = [counter]
    result.ints.add(id(counter))
    while pending:
        t = pending.pop()
        for index in outputs.get(id(t), ()):
            if allowed_outputs.get(id(t)) != index:
                return False
        for consumer, position in consumers.get(id(t), ()):
            kind = consumer.opdef
            if kind in _ARITHMETIC and all(_is_int32_scalar(x) for x in consumer.inputs):
                out = consumer.outputs[0]
                result.checked.add(id(consumer))
                _note_literals(result, consumer)
                if id(out) not in result.ints:
                    result.ints.add(id(out))
                    pending.append(out)
            elif kind in _COMPARISONS and is_cond and consumer.outputs[0] is graph.outputs[0]:
                if not all(_is_int32_scalar(x) for x in consumer.inputs):
                    return False
                result.tests.add(id(consumer))
                _note_literals(result, consumer)
            elif kind in (READ, WRITE) and position == 1:
                pass  # an index: compared with the array's length, as an int32 would be
            elif kind is WRITE and position == 2 and consumer.attrs["dynamic_size"] is False:
                if not _is_int32_scalar(t):
                    return False
                result.int_writes.add(id(consumer))
            else:
                return False
    # A constant given a Python int's text must feed nothing else.
    for key in result.literals:
        if key in outputs:
            return False
        for consumer, _ in consumers.get(key, ()):
            if id(consumer) not in result.checked and id(consumer) not in result.tests:
                return False
    return True
