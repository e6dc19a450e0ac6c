"""rt.TensorArray eagerly, in graphs, and as a while_loop variable."""

import numpy as np
import pytest

import runtime as rt


def run(graph, fetches, feed_dict=None):
    with rt.Session(graph) as sess:
        return sess.run(fetches, feed_dict)


# --- eager ------------------------------------------------------------------------------------


def test_eager_write_read_stack_size():
    ta = rt.TensorArray(rt.int32, size=4)
    for i in range(4):
        ta = ta.write(i, i * i)
    assert [int(ta.read(i)) for i in range(4)] == [0, 1, 4, 9]
    stacked = ta.stack()
    assert stacked.dtype == rt.int32
    np.testing.assert_array_equal(stacked.numpy(), [0, 1, 4, 9])
    size = ta.size()
    assert size.dtype == rt.int32 and int(size) == 4


def test_eager_writes_out_of_order_and_vector_elements():
    ta = rt.TensorArray(rt.float32, size=3)
    ta = ta.write(2, [5.0, 6.0])
    ta = ta.write(0, [1.0, 2.0])
    ta = ta.write(1, rt.constant([3.0, 4.0]))
    out = ta.stack()
    assert out.shape == (3, 2)
    assert out.dtype == rt.float32
    np.testing.assert_allclose(out.numpy(), [[1, 2], [3, 4], [5, 6]])
    np.testing.assert_allclose(ta.read(1).numpy(), [3.0, 4.0])


def test_eager_dynamic_size_grows():
    ta = rt.TensorArray(rt.int32, size=0, dynamic_size=True)
    assert int(ta.size()) == 0
    for i in range(6):
        ta = ta.write(i, 10 * i)
        assert int(ta.size()) == i + 1
    np.testing.assert_array_equal(ta.stack().numpy(), [0, 10, 20, 30, 40, 50])


def test_eager_dynamic_size_grows_past_a_gap():
    ta = rt.TensorArray(rt.int32, size=1, dynamic_size=True)
    ta = ta.write(0, 1)
    ta = ta.write(4, 5)
    assert int(ta.size()) == 5
    assert int(ta.read(4)) == 5


def test_eager_unstack_then_read_and_size():
    value = np.arange(12, dtype=np.float32).reshape(4, 3)
    ta = rt.TensorArray(rt.float32, size=4).unstack(rt.constant(value))
    assert int(ta.size()) == 4
    for i in range(4):
        np.testing.assert_allclose(ta.read(i).numpy(), value[i])
    np.testing.assert_allclose(ta.stack().numpy(), value)


def test_eager_write_out_of_range_on_fixed_size_raises():
    ta = rt.TensorArray(rt.int32, size=3)
    ta = ta.write(2, 1)
    with pytest.raises(rt.errors.InvalidArgumentError):
        ta.write(3, 1)


def test_eager_read_out_of_range_raises():
    ta = rt.TensorArray(rt.int32, size=2).write(0, 1).write(1, 2)
    with pytest.raises(rt.errors.InvalidArgumentError):
        ta.read(5)


def test_eager_as_while_loop_variable():
    n = 6

    def body(i, ta):
        return i + 1, ta.write(i, i * i)

    i, ta = rt.while_loop(lambda i, ta: i < n, body, (0, rt.TensorArray(rt.int32, size=n)))
    assert int(i) == n
    np.testing.assert_array_equal(ta.stack().numpy(), [k * k for k in range(n)])


# --- graph ------------------------------------------------------------------------------------


def test_graph_write_read_stack():
    g = rt.Graph()
    with g.as_default():
        x = rt.placeholder(rt.float32, [])
        ta = rt.TensorArray(rt.float32, size=3)
        ta = ta.write(0, x).write(1, x * 2.0).write(2, x * 3.0)
        stacked = ta.stack()
        middle = ta.read(1)
        size = ta.size()
    res = run(g, [stacked, middle, size], {x: 1.5})
    np.testing.assert_allclose(res[0], [1.5, 3.0, 4.5])
    assert res[1] == pytest.approx(3.0)
    assert res[2] == 3


def test_graph_runs_are_independent():
    # Each run builds its array afresh: a second run does not see the first run's elements.
    g = rt.Graph()
    with g.as_default():
        x = rt.placeholder(rt.int32, [])
        ta = rt.TensorArray(rt.int32, size=0, dynamic_size=True).write(0, x).write(1, x + 1)
        out = ta.stack()
    with rt.Session(g) as sess:
        np.testing.assert_array_equal(sess.run(out, {x: 1}), [1, 2])
        np.testing.assert_array_equal(sess.run(out, {x: 10}), [10, 11])


@pytest.mark.parametrize("dynamic", [False, True])
def test_graph_while_loop_writes_squares_then_stack(dynamic):
    g = rt.Graph()
    with g.as_default():
        n = rt.placeholder(rt.int32, [])
        ta0 = rt.TensorArray(rt.int32, size=0 if dynamic else n, dynamic_size=dynamic)

        def body(i, ta):
            return i + 1, ta.write(i, i * i)

        _, ta = rt.while_loop(lambda i, ta: i < n, body, (0, ta0))
        squares = ta.stack()
        size = ta.size()
    with rt.Session(g) as sess:
        for k in (1, 5, 50):
            got, got_size = sess.run([squares, size], {n: k})
            np.testing.assert_array_equal(got, [i * i for i in range(k)])
            assert got_size == k


def test_graph_while_loop_static_size_known_at_build():
    g = rt.Graph()
    with g.as_default():
        ta0 = rt.TensorArray(rt.float32, size=4)
        _, ta = rt.while_loop(
            lambda i, ta: i < 4,
            lambda i, ta: (i + 1, ta.write(i, rt.cast(i, rt.float32) / 2.0)),
            (0, ta0),
        )
        out = ta.stack()
    np.testing.assert_allclose(run(g, out), [0.0, 0.5, 1.0, 1.5])


def test_graph_unstack_read_in_loop():
    g = rt.Graph()
    with g.as_default():
        values = rt.placeholder(rt.int32, [None])
        src = rt.TensorArray(rt.int32, size=rt.size(values)).unstack(values)

        def body(i, acc):
            return i + 1, acc + src.read(i) * (i + 1)

        _, total = rt.while_loop(lambda i, acc: i < src.size(), body, (0, 0))
    data = [3, 1, 4, 1, 5, 9, 2, 6]
    assert run(g, total, {values: data}) == sum(v * (i + 1) for i, v in enumerate(data))


def test_graph_write_out_of_range_raises_when_run():
    g = rt.Graph()
    with g.as_default():
        idx = rt.placeholder(rt.int32, [])
        ta = rt.TensorArray(rt.int32, size=2).write(idx, 7)  # building is fine
        out = ta.stack()
    with rt.Session(g) as sess:
        np.testing.assert_array_equal(sess.run(out, {idx: 1}), [0, 7])
        with pytest.raises(rt.errors.InvalidArgumentError):
            sess.run(out, {idx: 2})


def test_graph_while_loop_overflowing_fixed_size_raises():
    g = rt.Graph()
    with g.as_default():
        n = rt.placeholder(rt.int32, [])
        _, ta = rt.while_loop(
            lambda i, ta: i < n,
            lambda i, ta: (i + 1, ta.write(i, i)),
            (0, rt.TensorArray(rt.int32, size=3)),
        )
        out = ta.stack()
    with rt.Session(g) as sess:
        np.testing.assert_array_equal(sess.run(out, {n: 3}), [0, 1, 2])
        with pytest.raises(rt.errors.InvalidArgumentError):
            sess.run(out, {n: 4})


# --- a cond's branches --------------------------------------------------------------------------


def _arrays_of_sizes(x, sizes, element_shapes=(None, None)):
    """rt.cond(x > 0) between arrays of ``sizes[0]`` and ``sizes[1]`` copies of ``x``."""

    def filled(size, element_shape):
        return lambda: rt.TensorArray(rt.float64, size=size, element_shape=element_shape).unstack(
            rt.fill([size], x)
        )

    return rt.cond(x > 0, *(filled(s, e) for s, e in zip(sizes, element_shapes)))


def test_a_cond_of_arrays_of_two_sizes_claims_neither_size():
    g = rt.Graph()
    with g.as_default():
        x = rt.placeholder(rt.float64, [])
        stacked = _arrays_of_sizes(x, (2, 3)).stack()
        same = _arrays_of_sizes(x, (2, 2)).stack()
    assert stacked.shape.as_list() == [None]  # either size: the static shape claims neither
    assert same.shape.as_list() == [2]
    with rt.Session(g) as sess:
        for value, rows in ((1.5, 2), (-1.5, 3)):
            np.testing.assert_array_equal(sess.run(stacked, {x: value}), [value] * rows)
            np.testing.assert_array_equal(sess.run(same, {x: value}), [value] * 2)


def test_a_cond_of_arrays_joins_their_element_shapes():
    g = rt.Graph()
    with g.as_default():
        x = rt.placeholder(rt.float64, [])
        ta = rt.cond(
            x > 0,
            lambda: rt.TensorArray(rt.float64, size=1).write(0, rt.fill([2, 4], x)),
            lambda: rt.TensorArray(rt.float64, size=1).write(0, rt.fill([3, 4], x)),
        )
        stacked = ta.stack()
    assert stacked.shape.as_list() == [1, None, 4]
    with rt.Session(g) as sess:
        assert sess.run(stacked, {x: 1.0}).shape == (1, 2, 4)
        assert sess.run(stacked, {x: -1.0}).shape == (1, 3, 4)


@pytest.mark.parametrize("dtype", [None, rt.float32])
def test_a_cond_of_an_unwritten_array_takes_the_written_ones_type(dtype):
    # An element shape no write has fixed is no claim: the empty array still stacks.
    g = rt.Graph()
    with g.as_default():
        x = rt.placeholder(rt.float32, [])
        ta = rt.cond(
            x > 0,
            lambda: rt.TensorArray(dtype, size=0, dynamic_size=True),
            lambda: rt.TensorArray(dtype, size=0, dynamic_size=True).write(0, [x, x]),
        )
    assert ta.dtype is rt.float32 and ta.element_shape.as_list() == [2]
    with rt.Session(g) as sess:
        assert sess.run(ta.stack(), {x: 1.0}).shape == (0, 2)
        np.testing.assert_array_equal(sess.run(ta.stack(), {x: -1.0}), [[-1.0, -1.0]])


def test_a_loop_that_replaces_an_array_claims_neither_size():
    # Zero iterations leave the array that entered (2 elements); any other, the body's (3).
    g = rt.Graph()
    with g.as_default():
        x = rt.placeholder(rt.float64, [])
        n = rt.placeholder(rt.int32, [])
        entering = rt.TensorArray(rt.float64, size=2).unstack(rt.fill([2], x))

        def body(i, ta):
            return i + 1, rt.TensorArray(rt.float64, size=3).unstack(rt.fill([3], x * 2.0))

        stacked = rt.while_loop(lambda i, ta: i < n, body, (0, entering))[1].stack()
    assert stacked.shape.as_list() == [None]
    with rt.Session(g) as sess:
        np.testing.assert_array_equal(sess.run(stacked, {x: 1.5, n: 0}), [1.5, 1.5])
        np.testing.assert_array_equal(sess.run(stacked, {x: 1.5, n: 2}), [3.0, 3.0, 3.0])
