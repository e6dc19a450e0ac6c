"""Compiled programs: scalar expressions written inline must mean what the graph means.

``runtime.execution.compile`` writes a scalar used once into the expression that uses it,
with only the parentheses Python needs, and uses ``not``/``and``/``or`` for
bools tested by ``if``/``while``. Hypothesis builds random expression graphs;
each compiled program must agree with running the same ops eagerly.
"""

from __future__ import annotations

import ast

import hypothesis.strategies as st
import numpy as np
import pytest
from hypothesis import given, settings

import runtime as rt
from runtime.execution.compile import compile_graph

_INT_LEAVES = st.sampled_from(["x", "y", "z", -3, 0, 2, 7])
_COMPARISONS = st.sampled_from(["<", "<=", ">", ">=", "==", "!="])

# Expressions as nested tuples: ("+", a, b), ("not", p), ("cond", p, a, b); leaves name inputs.
INTS = st.deferred(
    lambda: st.one_of(
        _INT_LEAVES,
        st.tuples(st.sampled_from(["+", "-", "*", "max"]), INTS, INTS),
        st.tuples(st.sampled_from(["//", "%"]), INTS, st.sampled_from([-3, 2, 5])),
        st.tuples(st.sampled_from(["neg", "abs"]), INTS),
        st.tuples(st.just("cond"), BOOLS, INTS, INTS),
    )
)
BOOLS = st.deferred(
    lambda: st.one_of(
        st.tuples(_COMPARISONS, INTS, INTS),
        st.tuples(st.sampled_from(["and", "or", "xor"]), BOOLS, BOOLS),
        st.tuples(st.just("not"), BOOLS),
    )
)


_BINARY = {
    "+": lambda a, b: a + b,
    "-": lambda a, b: a - b,
    "*": lambda a, b: a * b,
    "//": lambda a, b: a // b,
    "%": lambda a, b: a % b,
    "max": rt.maximum,
    "<": lambda a, b: a < b,
    "<=": lambda a, b: a <= b,
    ">": lambda a, b: a > b,
    ">=": lambda a, b: a >= b,
    "==": rt.equal,
    "!=": rt.not_equal,
    "and": rt.logical_and,
    "or": rt.logical_or,
    "xor": lambda a, b: a ^ b,
}


def _build(expr, env):
    """The ops of ``expr`` on ``env``'s tensors: eager values or placeholders."""
    if isinstance(expr, str):
        return env[expr]
    if isinstance(expr, int):
        return rt.constant(expr)
    kind, *args = expr
    if kind == "cond":
        pred, a, b = args
        return rt.cond(_build(pred, env), lambda: _build(a, env), lambda: _build(b, env))
    operands = [_build(a, env) for a in args]
    if kind == "neg":
        return -operands[0]
    if kind == "abs":
        return rt.abs(operands[0])
    if kind == "not":
        return rt.logical_not(operands[0])
    return _BINARY[kind](*operands)


@settings(max_examples=200, deadline=None)
@given(
    expr=st.one_of(INTS, BOOLS),
    values=st.tuples(*[st.integers(-20, 20)] * 3),
)
def test_inlined_expressions_agree_with_eager_ops(expr, values):
    expected = _build(expr, {n: rt.constant(v) for n, v in zip("xyz", values)}).numpy()
    g = rt.Graph()
    with g.as_default():
        inputs = {n: rt.placeholder(rt.int32, [], name=n) for n in "xyz"}
        out = _build(expr, inputs)
    program = compile_graph(g, list(inputs.values()), [out])
    ast.parse(str(program))
    (result,) = program(*(np.int32(v) for v in values))
    assert result == expected and type(result) is type(expected), str(program)


def test_a_loop_test_of_one_expression_heads_the_while():
    g = rt.Graph()
    with g.as_default():
        n = rt.placeholder(rt.int32, [], name="n")
        _, total = rt.while_loop(
            lambda i, total: (i < n) & ~(total > 20), lambda i, total: (i + 1, total + i), [0, 0]
        )
    program = compile_graph(g, [n], [total])
    assert "    while while_0 < placeholder and not while_1 > const_2:" in str(program).splitlines()
    total_by_hand, i = 0, 0
    while i < 10 and not total_by_hand > 20:
        total_by_hand, i = total_by_hand + i, i + 1
    assert program(np.int32(10)) == (total_by_hand,)


def test_values_used_twice_or_read_by_a_loop_keep_their_names():
    g = rt.Graph()
    with g.as_default():
        x = rt.placeholder(rt.int32, [], name="x")
        double = x * 2
        (y,) = rt.while_loop(lambda v: v < double, lambda v: v + double, [x])
    source = str(compile_graph(g, [x], [y]))
    assert "mul = placeholder * const" in source  # a loop reads it every iteration: computed once
    assert compile_graph(g, [x], [y])(np.int32(3)) == (9,)


def test_a_scalar_cast_is_numpy_s_type_called_on_the_value():
    g = rt.Graph()
    with g.as_default():
        i = rt.placeholder(rt.int32, [], name="i")
        x = rt.placeholder(rt.float32, [3], name="x")
        y = x * rt.cast(i, rt.float32)
        k = rt.cast(rt.cast(i, rt.float64) / 4.0, rt.int8)
    program = compile_graph(g, [i, x], [y, k])
    assert "placeholder_1 * float32(placeholder)" in str(program)
    assert "int8(float64(placeholder) / const)" in str(program)
    y_value, k_value = program(np.int32(3), np.array([1, 2, 3], np.float32))
    np.testing.assert_array_equal(y_value, np.array([3, 6, 9], np.float32))
    assert type(k_value) is np.int8 and k_value == 0


def test_constants_are_copied_into_sub_graphs_so_their_passes_see_them():
    import autograph as ag

    @ag.function
    def count(n):
        i, zero = 0, rt.constant(0)
        while i < n:
            i = i + zero + 1  # + zero is x + 0 only if the loop body sees the constant
        return i

    concrete = count.get_concrete_function(rt.TensorSpec([], rt.int32))
    (loop,) = [op for op in concrete.graph.get_operations() if op.type == "While"]
    assert len(loop.inputs) == 2  # the loop variable and n: no constant passed in
    # The counter runs as a Python int (runtime.execution.int_counters): the constant is a literal.
    assert " + 1" in str(concrete._program) and "zero" not in str(concrete._program)
    assert count(rt.constant(5)).numpy() == 5


def test_a_long_chain_of_scalar_ops_is_cut_into_named_lines():
    g = rt.Graph()
    with g.as_default():
        x = rt.placeholder(rt.int32, [], name="x")
        y = x
        for k in range(1000):
            y = y * 3 + k
    program = compile_graph(g, [x], [y])
    lines = str(program).splitlines()
    assert 100 < len(lines) < 1000 and max(len(line) for line in lines) < 120
    expected = np.int32(5)
    with np.errstate(all="ignore"):
        for k in range(1000):
            expected = expected * np.int32(3) + np.int32(k)
    assert program(np.int32(5)) == (expected,)


def _nested_conds(x, depth):
    """``depth`` conds, each in the true branch of the one before: x + depth or x - k."""
    if depth == 0:
        return x
    return rt.cond(x > -depth, lambda: _nested_conds(x + 1, depth - 1), lambda: x - depth)


def _nested_loops(x, depth):
    """``depth`` while loops, each in the body of the one before, each running twice."""
    if depth == 0:
        return x + 1
    _, out = rt.while_loop(
        lambda i, v: i < 2, lambda i, v: (i + 1, _nested_loops(v, depth - 1)), (0, x)
    )
    return out


def test_blocks_nested_deeper_than_python_allows_are_programs_of_their_own():
    """Python allows 100 levels of indentation, and 20 nested loops."""
    g = rt.Graph()
    with g.as_default():
        x = rt.placeholder(rt.int32, [])
        deep_if = _nested_conds(x, 120)
        deep_loop = _nested_loops(x, 12)
    with rt.Session(g) as sess:
        assert sess.run(deep_if, {x: 0}) == 120
        assert sess.run(deep_if, {x: -200}) == -320
        assert sess.run(deep_loop, {x: 0}) == 2**12


def test_a_differentiated_loop_nested_deeper_than_python_allows_keeps_its_stacks():
    """A loop being differentiated returns its iterations' values (lists) too, also where its
    body is a program of its own: d/dx of x * 1.5**3 inside 11 conds (the loop at depth 12)."""

    def nested(x, depth):
        if depth == 0:
            _, out = rt.while_loop(lambda i, v: i < 3, lambda i, v: (i + 1, v * 1.5), (0, x))
            return out
        return rt.cond(x > -100.0, lambda: nested(x, depth - 1), lambda: x)

    g = rt.Graph()
    with g.as_default():
        x = rt.placeholder(rt.float32, [])
        y = nested(x, 11)
        (slope,) = rt.gradients(y, [x])
    with rt.Session(g) as sess:
        assert sess.run([y, slope], {x: 2.0}) == [np.float32(2.0 * 1.5**3), np.float32(1.5**3)]


def test_an_error_in_a_program_of_its_own_names_its_op_once():
    g = rt.Graph()
    with g.as_default():
        x = rt.placeholder(rt.int32, [])

        def nested(depth):
            if depth == 0:
                with rt.control_dependencies([rt.Assert(x < 0, ["x is not negative"])]):
                    return rt.identity(x)
            return rt.cond(x > -depth, lambda: nested(depth - 1) + 1, lambda: x)

        out = nested(30)
    with rt.Session(g) as sess:
        assert sess.run(out, {x: -100}) == -100
        with pytest.raises(rt.errors.InvalidArgumentError) as info:
            sess.run(out, {x: 3})
    message = str(info.value)
    assert message.count("[[") == 1 and "x is not negative" in message and "Assert" in message
