"""rt.cond and rt.while_loop, eagerly and in TF1-style graphs, checked against plain Python."""

import collections
import re

import numpy as np
import pytest

import runtime as rt

Pair = collections.namedtuple("Pair", "a b")


def collatz_steps(n):
    steps = 0
    while n != 1:
        n = n // 2 if n % 2 == 0 else 3 * n + 1
        steps += 1
    return steps


def fibonacci(n):
    a, b = 0, 1
    for _ in range(n):
        a, b = b, a + b
    return a


def run(graph, fetches, feed_dict=None):
    with rt.Session(graph) as sess:
        return sess.run(fetches, feed_dict)


# --- cond: eager ------------------------------------------------------------------------------


@pytest.mark.parametrize("pred, expected", [(True, 10), (False, -10)])
def test_cond_python_bool_eager(pred, expected):
    calls = []

    def true_fn():
        calls.append("t")
        return rt.constant(10)

    def false_fn():
        calls.append("f")
        return rt.constant(-10)

    out = rt.cond(pred, true_fn, false_fn)
    assert int(out) == expected
    assert calls == (["t"] if pred else ["f"])


@pytest.mark.parametrize("value", [3, -4])
def test_cond_eager_tensor_pred_calls_one_branch(value):
    x = rt.constant(value)
    calls = []

    def true_fn():
        calls.append("t")
        return x * 10

    def false_fn():
        calls.append("f")
        return -x

    out = rt.cond(x > 0, true_fn, false_fn)
    assert out.numpy() == (value * 10 if value > 0 else -value)
    assert calls == (["t"] if value > 0 else ["f"])


def test_cond_eager_nested_structure():
    x = rt.constant([1.0, 2.0])
    out = rt.cond(
        rt.constant(True),
        lambda: {"a": x * 2.0, "b": (x + 1.0, [x - 1.0])},
        lambda: {"a": x, "b": (x, [x])},
    )
    assert set(out) == {"a", "b"}
    assert isinstance(out["b"], tuple) and isinstance(out["b"][1], list)
    np.testing.assert_allclose(out["a"].numpy(), [2.0, 4.0])
    np.testing.assert_allclose(out["b"][0].numpy(), [2.0, 3.0])
    np.testing.assert_allclose(out["b"][1][0].numpy(), [0.0, 1.0])


# --- cond: graph ------------------------------------------------------------------------------


@pytest.mark.parametrize("pred", [True, False])
def test_cond_python_bool_in_graph(pred):
    g = rt.Graph()
    with g.as_default():
        x = rt.placeholder(rt.int32, [])
        y = rt.cond(pred, lambda: x + 1, lambda: x - 1)
    assert run(g, y, {x: 5}) == (6 if pred else 4)


def test_cond_symbolic_pred_traces_both_branches_once():
    calls = {"t": 0, "f": 0}

    def true_fn():
        calls["t"] += 1
        return x * 10

    def false_fn():
        calls["f"] += 1
        return -x

    g = rt.Graph()
    with g.as_default():
        x = rt.placeholder(rt.int32, [])
        y = rt.cond(x > 0, true_fn, false_fn)
    assert calls == {"t": 1, "f": 1}
    with rt.Session(g) as sess:
        results = [sess.run(y, {x: v}) for v in (3, -4, 0, 7)]
    assert results == [30, 4, 0, 70]
    assert calls == {"t": 1, "f": 1}  # running never calls Python again


def test_cond_in_graph_adds_one_op_for_the_branches():
    g = rt.Graph()
    with g.as_default():
        x = rt.placeholder(rt.float32, [])
        pred = x > 0
        before = len(g.get_operations())
        rt.cond(pred, lambda: x * 2.0 + 1.0, lambda: x * x - 3.0)
    # Branch bodies live in sub-graphs; the outer graph gains the cond op (and maybe nothing else).
    assert len(g.get_operations()) - before == 1


def test_cond_graph_nested_structure():
    g = rt.Graph()
    with g.as_default():
        p = rt.placeholder(rt.bool, [])
        x = rt.placeholder(rt.int32, [3])
        out = rt.cond(
            p,
            lambda: {"sum": rt.reduce_sum(x), "pair": (x * 2, [x + 1])},
            lambda: {"sum": rt.reduce_max(x), "pair": (x * 0, [x - 1])},
        )
    assert set(out) == {"sum", "pair"}
    assert isinstance(out["pair"], tuple) and isinstance(out["pair"][1], list)
    xs = np.array([4, 1, 7], dtype=np.int32)
    res_t = run(g, out, {p: True, x: xs})
    res_f = run(g, out, {p: False, x: xs})
    assert res_t["sum"] == 12
    np.testing.assert_array_equal(res_t["pair"][0], xs * 2)
    np.testing.assert_array_equal(res_t["pair"][1][0], xs + 1)
    assert res_f["sum"] == 7
    np.testing.assert_array_equal(res_f["pair"][0], np.zeros(3))
    np.testing.assert_array_equal(res_f["pair"][1][0], xs - 1)


def test_cond_branch_shapes_differ_gives_unknown_dim():
    g = rt.Graph()
    with g.as_default():
        p = rt.placeholder(rt.bool, [])
        y = rt.cond(p, lambda: rt.constant([1, 2]), lambda: rt.constant([1, 2, 3]))
    assert y.shape.as_list() == [None]
    np.testing.assert_array_equal(run(g, y, {p: True}), [1, 2])
    np.testing.assert_array_equal(run(g, y, {p: False}), [1, 2, 3])


def test_cond_branch_dtype_mismatch_is_type_error_naming_output():
    g = rt.Graph()
    with g.as_default():
        x = rt.placeholder(rt.int32, [])
        with pytest.raises(TypeError) as info:
            rt.cond(x > 0, lambda: (x, x * 2), lambda: (x, rt.constant(1.5)))
    msg = str(info.value)
    assert re.search(r"\b1\b", msg), msg  # the second output (index 1) is the one that differs
    assert "int32" in msg and "float32" in msg, msg


def test_cond_branch_structure_mismatch_is_value_error():
    g = rt.Graph()
    with g.as_default():
        x = rt.placeholder(rt.int32, [])
        with pytest.raises(ValueError) as info:
            rt.cond(x > 0, lambda: (x, x), lambda: x)
    msg = str(info.value)
    assert "true_fn" in msg and "false_fn" in msg, msg


def test_cond_branch_count_mismatch_is_value_error():
    g = rt.Graph()
    with g.as_default():
        x = rt.placeholder(rt.int32, [])
        with pytest.raises(ValueError):
            rt.cond(x > 0, lambda: [x, x, x], lambda: [x, x])


def test_cond_captures_outer_tensors():
    g = rt.Graph()
    with g.as_default():
        p = rt.placeholder(rt.bool, [])
        a = rt.placeholder(rt.float32, [2])
        b = rt.placeholder(rt.float32, [2])
        scale = rt.constant(3.0)
        y = rt.cond(p, lambda: a * scale, lambda: b - a)
    av, bv = np.array([1.0, 2.0], np.float32), np.array([10.0, 20.0], np.float32)
    np.testing.assert_allclose(run(g, y, {p: True, a: av, b: bv}), av * 3.0)
    np.testing.assert_allclose(run(g, y, {p: False, a: av, b: bv}), bv - av)


def test_cond_result_feeds_later_ops():
    g = rt.Graph()
    with g.as_default():
        p = rt.placeholder(rt.bool, [])
        a = rt.placeholder(rt.int32, [])
        y = rt.cond(p, lambda: a + 1, lambda: a - 1)
        z = y * 2
    assert run(g, z, {p: True, a: 1}) == 4
    assert run(g, z, {p: False, a: 1}) == 0


def test_nested_cond_in_graph():
    g = rt.Graph()
    with g.as_default():
        x = rt.placeholder(rt.int32, [])

        def sign_class():
            return rt.cond(
                x > 0,
                lambda: rt.constant(1),
                lambda: rt.cond(x < 0, lambda: rt.constant(-1), lambda: rt.constant(0)),
            )

        y = sign_class()
    with rt.Session(g) as sess:
        got = [sess.run(y, {x: v}) for v in (-5, 0, 9)]
    assert got == [-1, 0, 1]


def test_cond_inside_while_collatz_graph():
    g = rt.Graph()
    with g.as_default():
        n0 = rt.placeholder(rt.int32, [])

        def body(n, steps):
            n = rt.cond(n % 2 == 0, lambda: n // 2, lambda: 3 * n + 1)
            return n, steps + 1

        _, steps = rt.while_loop(lambda n, steps: n != 1, body, (n0, 0))
    with rt.Session(g) as sess:
        got = [int(sess.run(steps, {n0: n})) for n in range(1, 40)]
    assert got == [collatz_steps(n) for n in range(1, 40)]


@pytest.mark.parametrize("n", [1, 6, 7, 27])
def test_cond_inside_while_collatz_eager(n):
    def body(x, steps):
        x = rt.cond(x % 2 == 0, lambda: x // 2, lambda: 3 * x + 1)
        return x, steps + 1

    _, steps = rt.while_loop(lambda x, steps: x != 1, body, (n, 0))
    assert int(steps) == collatz_steps(n)


def test_while_inside_cond_graph():
    g = rt.Graph()
    with g.as_default():
        n = rt.placeholder(rt.int32, [])

        def triangular():
            _, total = rt.while_loop(lambda i, t: i <= n, lambda i, t: (i + 1, t + i), (0, 0))
            return total

        y = rt.cond(n >= 0, triangular, lambda: rt.constant(-1))
    with rt.Session(g) as sess:
        got = [int(sess.run(y, {n: v})) for v in (-3, 0, 1, 10, 100)]
    assert got == [-1, 0, 1, sum(range(11)), sum(range(101))]


# --- while_loop: eager ------------------------------------------------------------------------


@pytest.mark.parametrize("n", [0, 1, 2, 10, 30])
def test_while_eager_fibonacci(n):
    _, a, _ = rt.while_loop(lambda i, a, b: i < n, lambda i, a, b: (i + 1, b, a + b), (0, 0, 1))
    assert int(a) == fibonacci(n)


def test_while_eager_returns_tensors_with_values():
    i, s = rt.while_loop(lambda i, s: i < 4, lambda i, s: (i + 1, s + i), (0, 0))
    assert isinstance(i, rt.Tensor) and isinstance(s, rt.Tensor)
    assert i.dtype == rt.int32
    assert (int(i), int(s)) == (4, 0 + 1 + 2 + 3)


@pytest.mark.parametrize("container", [tuple, list])
def test_while_eager_preserves_tuple_or_list(container):
    out = rt.while_loop(lambda i, s: i < 3, lambda i, s: (i + 1, s * 2), container([0, 1]))
    assert type(out) is container
    assert [int(v) for v in out] == [3, 8]


def test_while_eager_nested_structure():
    loop_vars = (0, {"acc": rt.constant([0.0, 0.0]), "pair": [1, (2, 3)]})

    def body(i, state):
        a, (b, c) = state["pair"]
        return i + 1, {"acc": state["acc"] + 1.0, "pair": [a + b, (b * 2, c)]}

    i, state = rt.while_loop(lambda i, state: i < 3, body, loop_vars)
    a, b, c = 1, 2, 3
    for _ in range(3):
        a, b = a + b, b * 2
    assert int(i) == 3
    assert set(state) == {"acc", "pair"}
    assert isinstance(state["pair"], list) and isinstance(state["pair"][1], tuple)
    np.testing.assert_allclose(state["acc"].numpy(), [3.0, 3.0])
    assert [int(state["pair"][0]), int(state["pair"][1][0]), int(state["pair"][1][1])] == [a, b, c]


def test_while_eager_false_at_start_returns_initial_values():
    calls = []

    def body(i):
        calls.append(1)
        return (i + 1,)

    (i,) = rt.while_loop(lambda i: i < 0, body, (5,))
    assert int(i) == 5
    assert calls == []


def test_while_eager_single_var_body_may_return_bare_value():
    (i,) = rt.while_loop(lambda i: i < 10, lambda i: i + 3, [1])
    assert int(i) == 10


@pytest.mark.parametrize("limit", [0, 1, 5])
def test_while_eager_maximum_iterations_python_int(limit):
    (i,) = rt.while_loop(lambda i: True, lambda i: (i + 1,), (0,), maximum_iterations=limit)
    assert int(i) == limit


def test_while_eager_maximum_iterations_tensor_and_early_stop():
    (i,) = rt.while_loop(
        lambda i: i < 100, lambda i: (i + 1,), (0,), maximum_iterations=rt.constant(7)
    )
    assert int(i) == 7
    (i,) = rt.while_loop(lambda i: i < 3, lambda i: (i + 1,), (0,), maximum_iterations=50)
    assert int(i) == 3


def test_while_eager_shape_invariant_allows_growing_vector():
    i, v = rt.while_loop(
        lambda i, v: i < 4,
        lambda i, v: (i + 1, rt.concat([v, rt.expand_dims(i, 0)], 0)),
        (rt.constant(0), rt.constant([7])),
        shape_invariants=(rt.TensorShape([]), rt.TensorShape([None])),
    )
    assert int(i) == 4
    np.testing.assert_array_equal(v.numpy(), [7, 0, 1, 2, 3])


def test_while_eager_dtype_change_is_type_error_naming_variable():
    with pytest.raises(TypeError) as info:
        rt.while_loop(
            lambda i, x: i < 3,
            lambda i, x: (i + 1, rt.cast(x, rt.float32)),
            (rt.constant(0), rt.constant(1)),
        )
    msg = str(info.value)
    assert re.search(r"\b1\b", msg), msg
    assert "int32" in msg and "float32" in msg, msg


def test_while_eager_shape_change_is_value_error_naming_variable():
    with pytest.raises(ValueError) as info:
        rt.while_loop(
            lambda i, v: i < 3,
            lambda i, v: (i + 1, rt.concat([v, [0]], 0)),
            (rt.constant(0), rt.constant([1, 2])),
        )
    msg = str(info.value)
    assert re.search(r"\b1\b", msg), msg
    assert "(2,)" in msg and "(3,)" in msg, msg


# --- while_loop: graph ------------------------------------------------------------------------


def test_while_graph_fibonacci():
    g = rt.Graph()
    with g.as_default():
        n = rt.placeholder(rt.int32, [])
        _, a, _ = rt.while_loop(lambda i, a, b: i < n, lambda i, a, b: (i + 1, b, a + b), (0, 0, 1))
    with rt.Session(g) as sess:
        got = [int(sess.run(a, {n: k})) for k in range(0, 41, 5)]
    assert got == [fibonacci(k) for k in range(0, 41, 5)]


def test_while_graph_body_traced_once():
    calls = {"cond": 0, "body": 0}

    def cond(i, s):
        calls["cond"] += 1
        return i < n

    def body(i, s):
        calls["body"] += 1
        return i + 1, s + i * i

    g = rt.Graph()
    with g.as_default():
        n = rt.placeholder(rt.int32, [])
        _, s = rt.while_loop(cond, body, (0, 0))
    assert calls == {"cond": 1, "body": 1}
    assert run(g, s, {n: 20}) == sum(k * k for k in range(20))
    assert calls == {"cond": 1, "body": 1}


def test_while_graph_does_not_add_ops_per_iteration():
    g = rt.Graph()
    with g.as_default():
        n = rt.placeholder(rt.int32, [])
        _, total = rt.while_loop(lambda i, t: i < n, lambda i, t: (i + 1, t + i), (0, 0))
    built = len(g.get_operations())
    with rt.Session(g) as sess:
        assert sess.run(total, {n: 10}) == sum(range(10))
        after_10 = len(g.get_operations())
        assert sess.run(total, {n: 10000}) == sum(range(10000))
        after_10000 = len(g.get_operations())
    assert built == after_10 == after_10000


@pytest.mark.parametrize("container", [tuple, list])
def test_while_graph_preserves_tuple_or_list(container):
    g = rt.Graph()
    with g.as_default():
        x = rt.placeholder(rt.int32, [])
        out = rt.while_loop(lambda i, s: i < 3, lambda i, s: (i + 1, s * 2), container([0, x]))
    assert type(out) is container
    assert list(run(g, list(out), {x: 5})) == [3, 40]


def test_while_graph_nested_structure():
    g = rt.Graph()
    with g.as_default():
        n = rt.placeholder(rt.int32, [])
        loop_vars = (0, {"acc": rt.zeros([2]), "pair": [1, (2.5, rt.constant([1, 1]))]})

        def body(i, state):
            a, (b, c) = state["pair"]
            return i + 1, {"acc": state["acc"] + 1.0, "pair": [a * 3, (b + 0.5, c * 2)]}

        i, state = rt.while_loop(lambda i, state: i < n, body, loop_vars)
    assert isinstance(state, dict) and set(state) == {"acc", "pair"}
    assert isinstance(state["pair"], list) and isinstance(state["pair"][1], tuple)
    res = run(g, (i, state), {n: 4})
    assert isinstance(res, tuple)
    assert res[0] == 4
    np.testing.assert_allclose(res[1]["acc"], [4.0, 4.0])
    assert res[1]["pair"][0] == 3**4
    assert res[1]["pair"][1][0] == pytest.approx(4.5)
    np.testing.assert_array_equal(res[1]["pair"][1][1], [16, 16])


def test_while_graph_captures_outer_tensors():
    g = rt.Graph()
    with g.as_default():
        limit = rt.placeholder(rt.int32, [])
        step = rt.placeholder(rt.int32, [])
        (i,) = rt.while_loop(lambda i: i < limit, lambda i: (i + step,), (0,))
    assert run(g, i, {limit: 10, step: 3}) == 12
    assert run(g, i, {limit: 10, step: 5}) == 10


def test_while_graph_maximum_iterations_python_int():
    g = rt.Graph()
    with g.as_default():
        start = rt.placeholder(rt.int32, [])
        (i,) = rt.while_loop(lambda i: i < 100, lambda i: (i + 1,), (start,), maximum_iterations=5)
    assert run(g, i, {start: 0}) == 5
    assert run(g, i, {start: 98}) == 100


def test_while_graph_maximum_iterations_tensor():
    g = rt.Graph()
    with g.as_default():
        limit = rt.placeholder(rt.int32, [])
        i, s = rt.while_loop(
            lambda i, s: True, lambda i, s: (i + 1, s + 2), (0, 0), maximum_iterations=limit
        )
    with rt.Session(g) as sess:
        for k in (0, 1, 13):
            assert list(sess.run([i, s], {limit: k})) == [k, 2 * k]


def test_while_graph_shape_invariant_allows_growing_vector():
    g = rt.Graph()
    with g.as_default():
        n = rt.placeholder(rt.int32, [])
        _, v = rt.while_loop(
            lambda i, v: i < n,
            lambda i, v: (i + 1, rt.concat([v, rt.expand_dims(i * i, 0)], 0)),
            (rt.constant(0), rt.zeros([0], rt.int32)),
            shape_invariants=(rt.TensorShape([]), rt.TensorShape([None])),
        )
    assert v.shape.as_list() == [None]
    np.testing.assert_array_equal(run(g, v, {n: 5}), [k * k for k in range(5)])
    assert run(g, v, {n: 0}).shape == (0,)


def test_while_graph_dtype_change_is_type_error_naming_variable():
    g = rt.Graph()
    with g.as_default():
        x = rt.placeholder(rt.int32, [])
        with pytest.raises(TypeError) as info:
            rt.while_loop(lambda i, y: i < 3, lambda i, y: (i + 1, rt.cast(y, rt.float64)), (0, x))
    msg = str(info.value)
    assert re.search(r"\b1\b", msg), msg
    assert "int32" in msg and "float64" in msg, msg


def test_while_graph_shape_change_is_value_error_naming_variable():
    g = rt.Graph()
    with g.as_default():
        v0 = rt.placeholder(rt.float32, [2])
        with pytest.raises(ValueError) as info:
            rt.while_loop(lambda i, v: i < 3, lambda i, v: (i + 1, rt.concat([v, v], 0)), (0, v0))
    msg = str(info.value)
    assert re.search(r"\b1\b", msg), msg
    assert "(2,)" in msg and "(4,)" in msg, msg


def test_while_graph_collatz_matches_python_for_many_inputs():
    g = rt.Graph()
    with g.as_default():
        n0 = rt.placeholder(rt.int32, [])

        def body(n, steps):
            even = rt.cast(rt.equal(n % 2, 0), rt.int32)
            return even * (n // 2) + (1 - even) * (3 * n + 1), steps + 1

        _, steps = rt.while_loop(lambda n, steps: n > 1, body, [n0, 0])
    with rt.Session(g) as sess:
        got = [int(sess.run(steps, {n0: n})) for n in range(1, 101)]
    assert got == [collatz_steps(n) for n in range(1, 101)]


def test_while_namedtuple_loop_var_eager_and_graph():
    def body(i, p):
        return i + 1, Pair(p.a + 1, p.b * 2)

    i, p = rt.while_loop(lambda i, p: i < 3, body, (0, Pair(0, 1)))
    assert isinstance(p, Pair) and (int(p.a), int(p.b)) == (3, 8)
    g = rt.Graph()
    with g.as_default():
        n = rt.placeholder(rt.int32, [])
        _, p = rt.while_loop(lambda i, p: i < n, body, (0, Pair(0, 1)))
    assert isinstance(p, Pair)
    res = run(g, p, {n: 5})
    assert isinstance(res, Pair) and (res.a, res.b) == (5, 32)


def test_cond_and_inner_while_capture_through_two_levels():
    def python(k, n):
        t = 0
        for i in range(n):
            t = t + k if i % 2 == 0 else t - 1
            t += sum(i for _ in range(k))
        return t

    g = rt.Graph()
    with g.as_default():
        k = rt.placeholder(rt.int32, [])
        n = rt.placeholder(rt.int32, [])

        def body(i, t):
            t = rt.cond(i % 2 == 0, lambda: t + k, lambda: t - 1)
            _, inner = rt.while_loop(lambda j, s: j < k, lambda j, s: (j + 1, s + i), (0, 0))
            return i + 1, t + inner

        _, total = rt.while_loop(lambda i, t: i < n, body, (0, 0))
    with rt.Session(g) as sess:
        for kv, nv in [(0, 0), (3, 7), (2, 10), (5, 1)]:
            assert sess.run(total, {k: kv, n: nv}) == python(kv, nv)


def test_shape_invariants_follow_the_structure_of_the_loop_variables():
    # [] is the scalar counter's shape and [None] the growing vector's: shapes where the loop
    # variables are tensors, never read as an empty or a one-item structure.
    g = rt.Graph()
    with g.as_default():
        n = rt.placeholder(rt.int32, [])
        _, v = rt.while_loop(
            lambda i, v: i < n,
            lambda i, v: (i + 1, rt.concat([v, [rt.cast(i, rt.float32)]], 0)),
            [rt.constant(0), rt.zeros([1])],
            shape_invariants=([], [None]),
        )
        assert v.shape.as_list() == [None]
    np.testing.assert_array_equal(rt.Session(graph=g).run(v, {n: 3}), [0.0, 0.0, 1.0, 2.0])
    with g.as_default(), pytest.raises(ValueError, match="does not have their structure"):
        rt.while_loop(lambda i: i < n, lambda i: i + 1, [rt.constant(0)], shape_invariants=[])
