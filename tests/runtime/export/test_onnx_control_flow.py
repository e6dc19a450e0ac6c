"""cond as If, while_loop as Loop, TensorArrays as sequences, variables as initializers.

Each function is exported and run by onnxruntime against the runtime, with
inputs that take each branch, and loops that run zero, one and many times.
"""

from __future__ import annotations

import numpy as np

import autograph as ag
import runtime as rt
from tests.runtime.export.onnx_harness import check_export, session, spec

I32, F32 = rt.int32, rt.float32


def _ops(model, op_type):
    """The nodes of ``op_type`` in the model, sub-graphs included."""
    found = []

    def walk(graph):
        for node in graph.node:
            if node.op_type == op_type:
                found.append(node)
            for attribute in node.attribute:
                if attribute.g.node:
                    walk(attribute.g)

    walk(model.graph)
    return found


# --- cond -------------------------------------------------------------------------------------


def test_cond_becomes_if_and_takes_both_branches(tmp_path):
    def f(x, y):
        return rt.cond(x > y, lambda: x * 10 - y, lambda: y - x), rt.cond(
            x < 0, lambda: -x, lambda: x
        )

    model = check_export(
        f, [spec([], I32), spec([], I32)], [(5, 2), (2, 5), (-3, -3)], tmp_path / "m"
    )
    assert len(_ops(model, "If")) == 2


def test_python_if_on_tensors_exports_with_elif_and_early_return(tmp_path):
    def classify(x):
        if x > 100:
            return x - 100
        elif x > 10:
            y = x * 2
        else:
            y = -x
        return y + 1

    check_export(classify, [spec([], I32)], [(500,), (50,), (5,), (-5,)], tmp_path / "m")


def test_nested_conds_with_tensors_of_unknown_length(tmp_path):
    def f(x):
        total = rt.reduce_sum(x)
        if total > 0:
            if rt.size(x) > 2:
                out = x[:2] * 2.0
            else:
                out = x + 1.0
        else:
            out = -x
        return out

    calls = [([1.0, 2.0, 3.0],), ([1.0],), ([-1.0, -2.0],), (np.zeros([0], np.float32),)]
    check_export(f, [spec([None], F32)], calls, tmp_path / "m")


# --- while_loop -------------------------------------------------------------------------------


def test_while_loop_becomes_loop_running_zero_one_and_many_times(tmp_path):
    def collatz(n):
        steps = 0
        while n > 1:
            n = n // 2 if n % 2 == 0 else 3 * n + 1
            steps += 1
        return steps, n

    model = check_export(collatz, [spec([], I32)], [(27,), (1,), (2,), (-4,)], tmp_path / "m")
    assert len(_ops(model, "Loop")) == 1


def test_maximum_iterations_is_the_trip_count(tmp_path):
    def f(n, limit):
        return rt.while_loop(
            lambda i, s: i < n, lambda i, s: (i + 1, s + i), (0, 0), maximum_iterations=limit
        )

    calls = [(10, 3), (10, 0), (2, 5), (0, 5), (10, -1)]
    model = check_export(f, [spec([], I32), spec([], I32)], calls, tmp_path / "m")
    (loop,) = _ops(model, "Loop")
    assert loop.input[0], "maximum_iterations is the Loop's trip count M"


def test_for_over_range_and_over_a_tensor_with_break_and_continue(tmp_path):
    def f(x, n):
        total = 0.0
        for i in rt.range(n):
            if i % 2 == 0:
                continue
            total += rt.cast(i, rt.float32)
        for v in x:
            if v < 0:
                break
            total += v
        return total

    calls = [([1.0, 2.0, -1.0, 5.0], 5), (np.zeros([0], np.float32), 0), ([3.0], 1)]
    check_export(f, [spec([None], F32), spec([], I32)], calls, tmp_path / "m")


def test_nested_loops_with_a_cond_inside(tmp_path):
    def f(n):
        count = 0
        i = 0
        while i < n:
            j = 0
            while j < i:
                if (i + j) % 3 == 0:
                    count += i * j
                j += 1
            i += 1
        return count

    check_export(f, [spec([], I32)], [(0,), (1,), (6,), (13,)], tmp_path / "m")


def test_loop_variables_of_changing_shape(tmp_path):
    def f(n):
        return rt.while_loop(
            lambda i, x: i < n,
            lambda i, x: (i + 1, rt.concat([x, rt.reshape(i * i, [1])], axis=0)),
            (0, rt.zeros([0], rt.int32)),
            shape_invariants=(rt.TensorShape([]), rt.TensorShape([None])),
        )

    check_export(f, [spec([], I32)], [(0,), (1,), (5,)], tmp_path / "m")


# --- TensorArray ------------------------------------------------------------------------------


def test_list_appended_in_a_loop_becomes_a_sequence_even_when_empty(tmp_path):
    def squares(n):
        out = []
        for i in rt.range(n):
            out.append(i * i)
        return rt.stack(out)

    def stacked(n):
        ta = rt.TensorArray(rt.float32, size=0, dynamic_size=True, element_shape=[2])
        for i in rt.range(n):
            ta = ta.write(ta.size(), rt.fill([2], rt.cast(i, rt.float32)))
        return ta.stack(), ta.size()

    check_export(squares, [spec([], I32)], [(0,), (1,), (6,)], tmp_path / "a")
    model = check_export(stacked, [spec([], I32)], [(0,), (4,)], tmp_path / "b")
    assert _ops(model, "SequenceInsert")


def test_tensor_array_of_fixed_size_written_read_and_unstacked(tmp_path):
    def f(x):
        n = rt.shape(x)[0]
        ta = rt.TensorArray(rt.float32, size=n)
        ta = ta.unstack(x)
        out = rt.TensorArray(rt.float32, size=n)
        for i in rt.range(n):
            out = out.write(n - 1 - i, ta.read(i) * 2.0)
        return out.stack(), out.read(0)

    calls = [([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]],), ([[7.0, 8.0]],)]
    check_export(f, [spec([None, 2], F32)], calls, tmp_path / "m")


def test_unwritten_elements_read_as_zeros_and_growing_past_the_end(tmp_path):
    def f(k):
        fixed = rt.TensorArray(rt.int32, size=4, element_shape=[])
        fixed = fixed.write(1, k)
        grown = rt.TensorArray(rt.int32, size=1, dynamic_size=True, element_shape=[])
        grown = grown.write(k, 7)  # past the end: grows, with zeros between
        grown = grown.write(0, k + 1)
        return fixed.stack(), fixed.read(3), grown.stack(), grown.size()

    check_export(f, [spec([], I32)], [(0,), (1,), (3,)], tmp_path / "m")


# --- variables --------------------------------------------------------------------------------


def test_variables_are_initializers_and_assignments_are_seen_by_later_reads(tmp_path):
    v = rt.Variable([1.0, 2.0], name="weights")
    counter = rt.Variable(10)

    @ag.function(input_signature=[spec([2], F32)])
    def f(x):
        before = v * x
        v.assign_add(x)
        counter.assign_sub(3)
        after = v * x
        v.assign([0.5, 0.5])
        return before, after, v.read_value(), counter.read_value()

    path = tmp_path / "m.onnx"
    model = rt.onnx.export(f, path)
    initializers = {i.name for i in model.graph.initializer}
    assert "weights:0" in initializers
    got = session(path).run(None, {"x": np.array([3.0, 4.0], np.float32)})
    ours = [t.numpy() for t in f(rt.constant([3.0, 4.0]))]  # from the same starting state
    for g, e in zip(got, ours):
        np.testing.assert_allclose(g, e)
    # The model keeps no state: a second run starts from the exported values again.
    again = session(path).run(None, {"x": np.array([3.0, 4.0], np.float32)})
    np.testing.assert_allclose(again[1], got[1])


def test_variables_assigned_inside_branches_and_loops_leave_them(tmp_path):
    total = rt.Variable(0)
    last = rt.Variable(-1)

    @ag.function(input_signature=[spec([], I32)])
    def f(n):
        for i in rt.range(n):
            total.assign_add(i)
            if i % 3 == 0:
                last.assign(i)
        if n > 4:
            total.assign(total * 2)
        return total.read_value(), last.read_value()

    path = tmp_path / "m.onnx"
    rt.onnx.export(f, path)
    sess = session(path)
    for n in (0, 1, 4, 7):
        total.assign(0)
        last.assign(-1)
        ours = [t.numpy() for t in f(rt.constant(n))]
        got = sess.run(None, {"n": np.array(n, np.int32)})
        assert [g.tolist() for g in got] == [o.tolist() for o in ours], n


def test_prints_and_asserts_are_left_out(tmp_path):
    def f(x):
        rt.print("x is", x)
        rt.debugging.assert_equal(x, x)
        return x + 1

    model = check_export(f, [spec([], I32)], [(1,)], tmp_path / "m")
    assert {node.op_type for node in model.graph.node} <= {"Add", "Identity"}
