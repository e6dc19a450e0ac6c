"""Stateful ops: rt.print formatting and timing, random draws and seeds, assertions."""

import io
import sys

import numpy as np
import pytest

import runtime as rt


def printed(capsys, *inputs, **kwargs):
    rt.print(*inputs, **kwargs)
    return capsys.readouterr().out


# --- print: formatting ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "value, expected",
    [
        (rt.constant([1, 2, 3]), "[1 2 3]\n"),
        (rt.constant(7), "7\n"),
        (rt.constant(-2), "-2\n"),
        (rt.constant("hello world"), "hello world\n"),
        (rt.constant(0.1), "0.1\n"),
        (rt.constant([0.5, 1.0, 2.25]), "[0.5 1 2.25]\n"),
        (rt.constant([True, False, True]), "[1 0 1]\n"),
        (rt.constant(True), "1\n"),
        (rt.constant([[1, 2], [3, 4]]), "[[1 2]\n [3 4]]\n"),
        (rt.range(10), "[0 1 2 ... 7 8 9]\n"),
        (rt.range(6), "[0 1 2 3 4 5]\n"),
        (rt.reshape(rt.range(8), [2, 2, 2]), "[[[0 1]\n  [2 3]]\n\n [[4 5]\n  [6 7]]]\n"),
    ],
)
def test_print_formats_like_tf_print(capsys, value, expected):
    assert printed(capsys, value) == expected


def test_print_summarize(capsys):
    assert printed(capsys, rt.range(10), summarize=3) == "[0 1 2 ... 7 8 9]\n"
    assert printed(capsys, rt.range(10), summarize=2) == "[0 1 ... 8 9]\n"
    assert printed(capsys, rt.range(10), summarize=-1) == "[0 1 2 3 4 5 6 7 8 9]\n"


def test_print_summarize_rows_and_columns(capsys):
    out = printed(capsys, rt.reshape(rt.range(64), [8, 8]), summarize=1)
    assert out == "[[0 ... 7]\n ...\n [56 ... 63]]\n"


def test_print_mixed_strings_quoted_unless_alone(capsys):
    assert printed(capsys, "x:", rt.constant([1, 2])) == "x: [1 2]\n"
    assert printed(capsys, "s:", rt.constant("text")) == 's: "text"\n'
    assert printed(capsys, rt.constant(["a", "b"])) == '["a" "b"]\n'


def test_print_sep_and_end(capsys):
    assert printed(capsys, "a", rt.constant(1), 2, sep=", ", end="|") == "a, 1, 2|"


def test_print_variable(capsys):
    assert printed(capsys, rt.Variable([1.5, 2.0])) == "[1.5 2]\n"


def test_print_float64_round_trip_digits(capsys):
    assert printed(capsys, rt.constant(0.1, dtype=rt.float64)) == "0.1\n"
    assert printed(capsys, rt.constant(1.0 / 3.0, dtype=rt.float64)) == "0.33333333333333331\n"


# --- print: where and when --------------------------------------------------------------------


def test_print_writes_to_current_sys_stdout():
    buf = io.StringIO()
    old = sys.stdout
    sys.stdout = buf
    try:
        rt.print(rt.constant([4, 5]))
    finally:
        sys.stdout = old
    assert buf.getvalue() == "[4 5]\n"


def test_print_output_stream(capsys):
    buf = io.StringIO()
    rt.print("v", rt.constant(3), output_stream=buf)
    assert buf.getvalue() == "v 3\n"
    rt.print(rt.constant(9), output_stream=sys.stderr)
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == "9\n"


def test_print_eager_prints_at_once(capsys):
    rt.print(rt.constant(1))
    assert capsys.readouterr().out == "1\n"
    rt.print(rt.constant(2))
    assert capsys.readouterr().out == "2\n"


def test_print_in_graph_prints_on_every_run(capsys):
    g = rt.Graph()
    with g.as_default():
        x = rt.placeholder(rt.int32, [2])
        p = rt.print("x =", x * 10)
    assert capsys.readouterr().out == ""  # building prints nothing
    with rt.Session(g) as sess:
        sess.run(p, {x: [1, 2]})
        sess.run(p, {x: [1, 2]})
        sess.run(p, {x: [3, 4]})
    assert capsys.readouterr().out == "x = [10 20]\nx = [10 20]\nx = [30 40]\n"


def test_print_in_graph_runs_through_control_dependencies(capsys):
    g = rt.Graph()
    with g.as_default():
        x = rt.placeholder(rt.int32, [])
        p = rt.print("got", x)
        with rt.control_dependencies([p]):
            y = x + 1
    with rt.Session(g) as sess:
        assert sess.run(y, {x: 1}) == 2
        assert sess.run(y, {x: 5}) == 6
    assert capsys.readouterr().out == "got 1\ngot 5\n"


def test_print_in_while_loop_prints_each_iteration_in_order(capsys):
    g = rt.Graph()
    with g.as_default():
        n = rt.placeholder(rt.int32, [])

        def body(i, acc):
            rt.print("i", i, "acc", acc)
            return i + 1, acc * 2

        _, out = rt.while_loop(lambda i, acc: i < n, body, (0, 1))
    assert capsys.readouterr().out == ""
    with rt.Session(g) as sess:
        assert sess.run(out, {n: 4}) == 16
        first = capsys.readouterr().out
        sess.run(out, {n: 2})
        second = capsys.readouterr().out
    assert first == "i 0 acc 1\ni 1 acc 2\ni 2 acc 4\ni 3 acc 8\n"
    assert second == "i 0 acc 1\ni 1 acc 2\n"


def test_print_in_eager_while_loop(capsys):
    def body(i):
        rt.print(i)
        return (i + 1,)

    rt.while_loop(lambda i: i < 3, body, (0,))
    assert capsys.readouterr().out == "0\n1\n2\n"


def test_print_in_cond_prints_only_taken_branch(capsys):
    g = rt.Graph()
    with g.as_default():
        x = rt.placeholder(rt.int32, [])

        def yes():
            rt.print("positive")
            return x

        def no():
            rt.print("not positive")
            return -x

        y = rt.cond(x > 0, yes, no)
    with rt.Session(g) as sess:
        assert sess.run(y, {x: 3}) == 3
        assert sess.run(y, {x: -3}) == 3
    assert capsys.readouterr().out == "positive\nnot positive\n"


def test_cond_branches_returning_print_ops(capsys):
    # As in TF 2, a branch may return an op; running the cond runs the chosen one.
    g = rt.Graph()
    with g.as_default():
        x = rt.placeholder(rt.int32, [])
        r = rt.cond(x > 0, lambda: rt.print("pos", x), lambda: rt.print("neg", x))
    with rt.Session(g) as sess:
        sess.run(r, {x: 2})
        sess.run(r, {x: -2})
    assert capsys.readouterr().out == "pos 2\nneg -2\n"


# --- random -----------------------------------------------------------------------------------


def test_an_assertion_message_shows_its_strings_c_escaped_as_tensorflow_does():
    """TensorFlow summarizes string data with C escapes: quotes and newlines keep one line."""
    with rt.Graph().as_default() as g:
        check = rt.Assert(rt.constant(False), ["y['a'] is \"b\"\n", "x"])
    with pytest.raises(rt.errors.InvalidArgumentError) as info:
        rt.Session(g).run(check)
    assert str(info.value).startswith("assertion failed: [y[\\'a\\'] is \\\"b\\\"\\n] [x]")


def test_random_eager_draws_differ():
    a = rt.random.uniform([8]).numpy()
    b = rt.random.uniform([8]).numpy()
    assert not np.array_equal(a, b)


def test_random_graph_draws_new_numbers_each_run():
    g = rt.Graph()
    with g.as_default():
        u = rt.random.uniform([5])
        n = rt.random.normal([5])
    with rt.Session(g) as sess:
        runs = [sess.run([u, n]) for _ in range(3)]
    for k in range(2):
        assert not np.array_equal(runs[0][k], runs[1][k])
        assert not np.array_equal(runs[1][k], runs[2][k])


def test_random_graph_one_value_per_run():
    g = rt.Graph()
    with g.as_default():
        u = rt.random.uniform([4])
        diff = u - u
    with rt.Session(g) as sess:
        a, b, d = sess.run([u, u, diff])
    np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(d, np.zeros(4))


def test_random_with_seed_in_graph_still_draws_anew():
    rt.random.set_seed(11)
    g = rt.Graph()
    with g.as_default():
        u = rt.random.uniform([4], seed=3)
    with rt.Session(g) as sess:
        first, second = sess.run(u), sess.run(u)
    assert not np.array_equal(first, second)


def test_set_seed_reproducible_eager():
    rt.random.set_seed(1234)
    a = [rt.random.uniform([3]).numpy(), rt.random.normal([3]).numpy()]
    rt.random.set_seed(1234)
    b = [rt.random.uniform([3]).numpy(), rt.random.normal([3]).numpy()]
    for x, y in zip(a, b):
        np.testing.assert_array_equal(x, y)
    assert not np.array_equal(a[0], rt.random.uniform([3]).numpy())


def test_set_seed_two_ops_differ():
    rt.random.set_seed(5)
    a = rt.random.uniform([6]).numpy()
    b = rt.random.uniform([6]).numpy()
    assert not np.array_equal(a, b)


def test_set_seed_reproducible_graph_sequence():
    def sequence():
        rt.random.set_seed(99)
        g = rt.Graph()
        with g.as_default():
            u = rt.random.uniform([3])
            n = rt.random.normal([2])
        with rt.Session(g) as sess:
            return [sess.run([u, n]) for _ in range(3)]

    one, two = sequence(), sequence()
    for (u1, n1), (u2, n2) in zip(one, two):
        np.testing.assert_array_equal(u1, u2)
        np.testing.assert_array_equal(n1, n2)


def test_set_seed_new_session_replays_the_sequence():
    # tf.compat.v1.set_random_seed: with a seed, every new Session draws the same sequence again.
    rt.random.set_seed(1234)
    g = rt.Graph()
    with g.as_default():
        a = rt.random.uniform([3])
    with rt.Session(g) as sess1:
        first = [sess1.run(a), sess1.run(a)]
    with rt.Session(g) as sess2:
        second = [sess2.run(a), sess2.run(a)]
    assert not np.array_equal(first[0], first[1])
    for x, y in zip(first, second):
        np.testing.assert_array_equal(x, y)


def test_random_values_in_range_and_dtype():
    rt.random.set_seed(0)
    u = rt.random.uniform([2000], minval=-2.0, maxval=3.0)
    assert u.dtype == rt.float32 and u.shape == (2000,)
    vals = u.numpy()
    assert vals.min() >= -2.0 and vals.max() < 3.0
    assert abs(vals.mean() - 0.5) < 0.15
    ints = rt.random.uniform([500], minval=0, maxval=4, dtype=rt.int32).numpy()
    assert ints.dtype == np.int32
    assert set(ints.tolist()) == {0, 1, 2, 3}
    n = rt.random.normal([4000], mean=5.0, stddev=2.0, dtype=rt.float64).numpy()
    assert n.dtype == np.float64
    assert abs(n.mean() - 5.0) < 0.15 and abs(n.std() - 2.0) < 0.15


def test_random_in_while_loop_draws_per_iteration():
    g = rt.Graph()
    with g.as_default():
        ta0 = rt.TensorArray(rt.float32, size=4)
        _, ta = rt.while_loop(
            lambda i, ta: i < 4, lambda i, ta: (i + 1, ta.write(i, rt.random.uniform([]))), (0, ta0)
        )
        draws = ta.stack()
    with rt.Session(g) as sess:
        values = sess.run(draws)
    assert len(set(values.tolist())) == 4


# --- assertions -------------------------------------------------------------------------------


def test_assert_equal_eager_fails_at_once():
    with pytest.raises(rt.errors.InvalidArgumentError) as info:
        rt.debugging.assert_equal(rt.constant([1, 2]), rt.constant([1, 3]), message="mismatch")
    assert "mismatch" in str(info.value)


def test_assert_equal_eager_holds():
    rt.debugging.assert_equal(rt.constant([1, 2]), rt.constant([1, 2]))
    rt.debugging.assert_equal(rt.constant(3.0), 3.0)


def test_assert_eager_fails_and_holds():
    with pytest.raises(rt.errors.InvalidArgumentError) as info:
        rt.Assert(rt.constant(False), ["value is", rt.constant([7, 8])])
    assert "value is" in str(info.value) and "7 8" in str(info.value)
    rt.Assert(rt.constant(True), ["never shown"])
    rt.Assert(rt.constant([True, True]), ["never shown"])


def test_invalid_argument_error_is_an_op_error():
    assert issubclass(rt.errors.InvalidArgumentError, rt.errors.OpError)


def test_assert_equal_in_graph_raises_only_when_run():
    g = rt.Graph()
    with g.as_default():
        x = rt.placeholder(rt.int32, [2])
        check = rt.debugging.assert_equal(x, rt.constant([1, 2]), message="bad x")
        with rt.control_dependencies([check]):
            y = x * 2
    with rt.Session(g) as sess:
        np.testing.assert_array_equal(sess.run(y, {x: [1, 2]}), [2, 4])
        with pytest.raises(rt.errors.InvalidArgumentError) as info:
            sess.run(y, {x: [1, 5]})
        assert "bad x" in str(info.value)
        sess.run(check, {x: [1, 2]})


def test_assert_in_graph_raises_only_when_run():
    g = rt.Graph()
    with g.as_default():
        x = rt.placeholder(rt.float32, [])
        check = rt.Assert(x > 0.0, ["x must be positive, got", x])
        other = x + 1.0
    with rt.Session(g) as sess:
        sess.run(check, {x: 2.0})
        assert sess.run(other, {x: -1.0}) == pytest.approx(0.0)  # not fetched: does not run
        with pytest.raises(rt.errors.InvalidArgumentError) as info:
            sess.run(check, {x: -1.0})
    assert "x must be positive, got" in str(info.value)


def test_assert_in_while_loop_body_fails_on_the_bad_iteration(capsys):
    g = rt.Graph()
    with g.as_default():
        n = rt.placeholder(rt.int32, [])

        def body(i):
            rt.print("step", i)
            rt.Assert(i < 3, ["i too big:", i])
            return (i + 1,)

        (out,) = rt.while_loop(lambda i: i < n, body, (0,))
    with rt.Session(g) as sess:
        assert sess.run(out, {n: 3}) == 3
        capsys.readouterr()
        with pytest.raises(rt.errors.InvalidArgumentError):
            sess.run(out, {n: 10})
    assert capsys.readouterr().out == "step 0\nstep 1\nstep 2\nstep 3\n"


def test_uniform_bounds_known_only_when_the_graph_runs_are_inputs():
    g = rt.Graph()
    with g.as_default():
        low = rt.placeholder(rt.int32, [])
        ints = rt.random.uniform([200], low, low + 3, rt.int32)
        floats = rt.random.uniform([200], rt.cast(low, rt.float32), 2.0 * rt.cast(low, rt.float32))
    with rt.Session(g) as sess:
        for value in (-5, 4, 30):
            drawn, scaled = sess.run([ints, floats], {low: value})
            assert drawn.dtype == np.int32 and set(np.unique(drawn)) == {
                value,
                value + 1,
                value + 2,
            }
            lo, hi = sorted([value, 2 * value])
            assert scaled.dtype == np.float32 and np.all((scaled >= lo) & (scaled <= hi))
