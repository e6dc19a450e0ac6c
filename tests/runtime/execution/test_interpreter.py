"""The one walk over a graph (``runtime.execution.interpreter``), the one kernel call
(``runtime.ops.registry.run_kernel``), and If and While as every walk reads them."""

from __future__ import annotations

import inspect
import warnings

import numpy as np
import pytest

import autograph as ag
import runtime as rt
from runtime import errors
from runtime.execution.compile import compile_function
from runtime.execution.interpreter import (
    CONTROL_FLOW_RULES,
    IfParts,
    Interpreter,
    WhileParts,
    run_if,
    run_while,
)
from runtime.execution.schedule import function_ops
from runtime.execution.tracing import trace
from runtime.ops import math_ops
from runtime.ops.control_flow_ops import IF, WHILE
from runtime.ops.registry import run_kernel


class Evaluating(Interpreter):
    """A walk computing each op with its kernel: the smallest walk there is. If and While
    take the base's primitives, which run their sub-graphs with this walk."""

    def rule_for(self, op):
        rule = CONTROL_FLOW_RULES.get(op.opdef)
        if rule is not None:
            return rule
        return lambda walker, op, inputs: _as_list(
            op, run_kernel(op.opdef.kernel, inputs, op.attrs)
        )

    def run_graph(self, graph, values):
        env = self.run_ops(function_ops(graph), dict(zip(map(id, graph.inputs), values)))
        return [env[id(t)] for t in graph.outputs]


def _as_list(op, out):
    return [out] if len(op.outputs) == 1 else list(out)


def _graph(fn, *specs):
    return trace(fn, [rt.TensorSpec(shape, dtype) for shape, dtype in specs], "f")


def _line_of(marker):
    """The line of this file holding ``marker`` (a comment on the line under test)."""
    lines, _ = inspect.getsourcelines(inspect.getmodule(_line_of))
    return 1 + next(i for i, text in enumerate(lines) if marker in text and "_line_of" not in text)


# --- the walk ----------------------------------------------------------------------------------


def test_a_walk_runs_each_op_on_its_inputs_values_in_program_order():
    g = _graph(lambda x, y: (x * y + 1.0) / (x - y), ([3], rt.float32), ([3], rt.float32))
    x, y = np.float32([1, 2, 3]), np.float32([4, 6, 3])
    env = Evaluating().run_ops(g.get_operations(), {id(g.inputs[0]): x, id(g.inputs[1]): y})
    with np.errstate(divide="ignore"):
        expected = (x * y + 1) / (x - y)  # 3 - 3: inf, as the kernel gives it
    np.testing.assert_allclose(env[id(g.outputs[0])], expected)


def test_a_placeholder_not_fed_goes_to_its_rule_and_a_fed_one_is_skipped():
    g = _graph(lambda x: x + 1, ([], rt.int32))
    seen = []

    class Recording(Interpreter):
        def rule_for(self, op):
            seen.append(op.type)
            return lambda walker, op, inputs: ["value"]

    Recording().run_ops(g.get_operations(), {id(g.inputs[0]): 3})
    assert "Placeholder" not in seen and seen[-1] == "Add"
    seen.clear()
    Recording().run_ops(g.get_operations(), {})
    assert seen[0] == "Placeholder"


class BrokenMul(Evaluating):
    """A walk whose rule for Mul has a bug."""

    def rule_for(self, op):
        if op.opdef is math_ops.MUL:
            return lambda walker, op, inputs: {}["a bug of the rule"]
        return super().rule_for(op)


def test_an_error_of_a_rule_names_the_op_and_the_users_line():
    def f(x):
        return x * 2  # the op that fails

    g = _graph(f, ([], rt.int32))

    with pytest.raises(KeyError) as info:
        BrokenMul().run_ops(g.get_operations(), {id(g.inputs[0]): np.int32(3)})
    (note,) = info.value.__notes__
    assert "node mul (Mul) defined at" in note
    assert f'{__file__}", line {_line_of("# the op that fails")}' in note


def test_an_error_inside_a_branch_names_the_op_in_the_branch_once():
    def f(x):
        return rt.cond(x > 0, lambda: x * 2, lambda: x)  # the branch

    g = _graph(f, ([], rt.int32))

    with pytest.raises(KeyError) as info:
        BrokenMul().run_ops(g.get_operations(), {id(g.inputs[0]): np.int32(3)})
    (note,) = info.value.__notes__  # the Mul's, not the If's as well
    assert "(Mul) defined at" in note and f"line {_line_of('# the branch')}" in note


def test_the_emitters_walk_names_the_op_a_rule_failed_at_inside_a_branch(monkeypatch):
    # The emitter's run_ops is the walk inlined: a failing rule still gets one note, the
    # innermost op's, and the emitter's op is restored.
    from runtime.execution.emitter import Emitter

    def f(x):
        return rt.cond(x > 0, lambda: x * 3, lambda: x)  # the emitted branch

    g = _graph(f, ([], rt.int32))
    emit_form = Emitter.emit_form

    def failing_for_mul(self, op, inputs):
        if op.opdef is math_ops.MUL:
            raise KeyError("a bug of the rule")
        return emit_form(self, op, inputs)

    monkeypatch.setattr(Emitter, "emit_form", failing_for_mul)
    with pytest.raises(KeyError) as info:
        compile_function(g)
    (note,) = info.value.__notes__
    assert "(Mul) defined at" in note and f"line {_line_of('# the emitted branch')}" in note


def _failing_with(error):
    """A walk whose every rule raises ``error``."""

    def fail(walker, op, inputs):
        raise error

    class Failing(Interpreter):
        def rule_for(self, op):
            return fail

    return Failing()


def test_an_op_error_naming_its_op_leaves_as_it_is_and_one_without_gets_the_note():
    g = _graph(lambda x: x * 2, ([], rt.int32))
    mul = g.get_operations()[-1]
    for carried, noted in [(mul, False), (None, True)]:
        error = errors.InvalidArgumentError("the message", carried)
        with pytest.raises(errors.InvalidArgumentError) as info:
            _failing_with(error).run_ops(g.get_operations(), {id(g.inputs[0]): 3})
        assert info.value is error and str(error) == "the message"
        assert bool(getattr(error, "__notes__", None)) is noted


def test_a_broken_onnx_rule_names_the_op_and_the_users_line(tmp_path, monkeypatch):
    pytest.importorskip("onnx")
    from runtime.export import onnx_graph

    def broken(b, op, inputs):
        return {}["a bug of the rule"]

    monkeypatch.setitem(onnx_graph.LOWERINGS, math_ops.MUL, broken)

    @ag.function(input_signature=[rt.TensorSpec([], rt.float32)])
    def f(x):
        return x * 3.0  # exported

    with pytest.raises(KeyError) as info:
        rt.onnx.export(f, tmp_path / "m.onnx")
    (note,) = info.value.__notes__
    assert "(Mul) defined at" in note and f"line {_line_of('# exported')}" in note


def test_a_broken_xla_rule_names_the_op_and_the_users_line(monkeypatch):
    pytest.importorskip("jax")
    from runtime.xla import lowerings

    def broken(ctx, x, y):
        return {}["a bug of the rule"]

    monkeypatch.setitem(lowerings.LOWERINGS, math_ops.MUL, broken)

    @ag.function(jit_compile=True)
    def f(x):
        return x * 3.0  # compiled

    with pytest.raises(KeyError) as info:
        f(rt.constant(2.0))
    note = info.value.__notes__[0]  # JAX's note on its filtered traceback follows
    assert "(Mul) defined at" in note and f"line {_line_of('# compiled')}" in note


# --- the kernel call ---------------------------------------------------------------------------


def test_run_kernel_ignores_floating_point_errors_as_tensorflow_does():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with np.errstate(all="raise"):
            got = run_kernel(np.divide, [np.float32([1, -1, 0]), np.float32(0)], {})
    np.testing.assert_array_equal(got, [np.inf, -np.inf, np.nan])


def test_run_kernel_makes_a_kernel_refusing_its_inputs_an_invalid_argument_error():
    with pytest.raises(ValueError) as numpy_error:
        np.reshape(np.zeros(3), (2,))
    with pytest.raises(errors.InvalidArgumentError) as info:
        run_kernel(np.reshape, [np.zeros(3)], {"shape": (2,)})
    assert info.value.message == f"ValueError: {numpy_error.value}"
    with pytest.raises(errors.InvalidArgumentError) as info:
        run_kernel(np.reshape, [np.zeros(3)], {"shape": (2,)}, label="Reshape")
    assert info.value.message == f"Reshape: {numpy_error.value}"
    with pytest.raises(KeyError):  # not a refusal of the inputs: a bug, raised as it is
        run_kernel(lambda: {}["k"], [], {})


# --- If and While, once ------------------------------------------------------------------------


def _run_graph(graph, values):
    return list(compile_function(graph)(*values))


def _the_op(graph, opdef):
    (op,) = [op for op in graph.get_operations() if op.opdef is opdef]
    return op


@pytest.mark.parametrize("limit", [None, 0, 3, 100])
def test_run_while_computes_what_a_python_loop_does(limit):
    def f(n, step):
        return rt.while_loop(
            lambda i, total: i < n,
            lambda i, total: [i + 1, total + i * step],
            [rt.constant(0), rt.constant(0)],
            maximum_iterations=limit,
        )

    g = _graph(f, ([], rt.int32), ([], rt.int32))
    op = _the_op(g, WHILE)
    for n, step in [(0, 2), (5, 3), (12, -1)]:
        i, total = 0, 0  # the reference: the loop in Python
        while i < n and (limit is None or i < limit):
            i, total = i + 1, total + i * step
        values = {id(g.inputs[0]): np.int32(n), id(g.inputs[1]): np.int32(step)}
        env = Evaluating().run_ops(g.get_operations()[: g.get_operations().index(op)], values)
        loop = WhileParts.of(op, [env[id(t)] for t in op.inputs])
        assert loop.limit == limit and len(loop.initial) == 2
        assert [int(v) for v in run_while(loop, _run_graph)] == [i, total]
        assert [int(v) for v in compile_function(g)(np.int32(n), np.int32(step))] == [i, total]


def test_run_while_counts_and_stacks_as_a_differentiated_loop_does():
    cond = _graph(lambda i, x: i < 3, ([], rt.int32), ([], rt.float32))
    body = _graph(lambda i, x: (i + 1, x * 2.0, x), ([], rt.int32), ([], rt.float32))
    loop = WhileParts([np.int32(0), np.float32(1.5)], [], None, cond, body, 1)
    i, x, count, stack = run_while(loop, _run_graph)
    assert (int(i), float(x), count) == (3, 12.0, 3)
    np.testing.assert_allclose(stack, [1.5, 3.0, 6.0])


def test_run_if_runs_the_branch_the_predicate_picks_on_the_operands():
    g = _graph(lambda p, x: rt.cond(p, lambda: x * 10, lambda: -x), ([], rt.bool), ([], rt.int32))
    op = _the_op(g, IF)
    for pred, x in [(True, 4), (False, 4)]:
        cond = IfParts.of(op, [np.bool_(pred), np.int32(x)])
        assert [int(v) for v in run_if(cond, _run_graph)] == [x * 10 if pred else -x]


def test_a_walk_with_the_base_primitives_runs_if_and_while_as_the_compiled_program_does():
    def f(n):
        def body(i, total):
            return [i + 1, rt.cond(i % 3 > 0, lambda: total + i, lambda: total - 1)]

        return rt.while_loop(lambda i, total: i < n, body, [rt.constant(0), rt.constant(0)])

    g = _graph(f, ([], rt.int32))
    for n in [0, 1, 7]:
        i, total = 0, 0  # the reference: the loop in Python
        while i < n:
            i, total = i + 1, total + i if i % 3 > 0 else total - 1
        env = Evaluating().run_ops(function_ops(g), {id(g.inputs[0]): np.int32(n)})
        assert [int(env[id(t)]) for t in g.outputs] == [i, total]
        assert [int(v) for v in compile_function(g)(np.int32(n))] == [i, total]


def test_an_eager_op_given_a_symbolic_tensor_names_it():
    g = rt.Graph()
    with g.as_default():
        x = rt.placeholder(rt.float32, [], name="x")
    with pytest.raises(TypeError, match="Add, executing eagerly.* was given 'x:0', of a graph"):
        rt.constant(1.0) + x
