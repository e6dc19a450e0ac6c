"""Tests for Session.run (fetches, feeds, pruning, errors) and the compiled graph programs."""

import ast
import collections
import io

import numpy as np
import pytest

import runtime as rt
from runtime.execution.compile import compile_graph

Pair = collections.namedtuple("Pair", ["first", "second"])


def _scalar_graph():
    """x: int32 scalar placeholder; y = x * 2; z = x + 10."""
    g = rt.Graph()
    with g.as_default():
        x = rt.placeholder(rt.int32, [], name="x")
        y = x * 2
        z = x + 10
    return g, x, y, z


# --- fetch structures ------------------------------------------------------------------------------


def test_run_single_tensor_returns_numpy_scalar():
    g, x, y, _ = _scalar_graph()
    with rt.Session(g) as sess:
        out = sess.run(y, {x: 4})
    assert out == 8
    assert isinstance(out, np.int32)


def test_run_array_fetch_returns_ndarray():
    g = rt.Graph()
    with g.as_default():
        x = rt.placeholder(rt.float32, [None, 2], name="x")
        y = x * 2.0
    value = np.array([[1.0, 2.0], [3.0, 4.0]], dtype=np.float32)
    with rt.Session(g) as sess:
        out = sess.run(y, {x: value})
    assert isinstance(out, np.ndarray)
    assert out.dtype == np.float32
    np.testing.assert_array_equal(out, value * 2)


def test_run_nested_list_and_tuple_fetches():
    g, x, y, z = _scalar_graph()
    with rt.Session(g) as sess:
        out = sess.run([y, (z, [y, z]), (y,)], {x: 1})
    assert type(out) is list
    assert type(out[1]) is tuple
    assert type(out[1][1]) is list
    assert type(out[2]) is tuple
    assert out == [2, (11, [2, 11]), (2,)]


def test_run_dict_fetch():
    g, x, y, z = _scalar_graph()
    with rt.Session(g) as sess:
        out = sess.run({"zeta": z, "alpha": y, "both": [y, z]}, {x: 3})
    assert isinstance(out, dict)
    assert out == {"zeta": 13, "alpha": 6, "both": [6, 13]}


def test_run_namedtuple_fetch():
    g, x, y, z = _scalar_graph()
    with rt.Session(g) as sess:
        out = sess.run(Pair(first=z, second=y), {x: 5})
    assert isinstance(out, Pair)
    assert out == Pair(15, 10)


def test_run_empty_and_repeated_fetches():
    g, x, y, _ = _scalar_graph()
    with rt.Session(g) as sess:
        assert sess.run([], {x: 1}) == []
        assert sess.run([y, y, y], {x: 1}) == [2, 2, 2]


def test_run_op_fetch_gives_none():
    g = rt.Graph()
    with g.as_default():
        x = rt.placeholder(rt.int32, [], name="x")
        y = x + 1
        nothing = rt.no_op()
    with rt.Session(g) as sess:
        assert sess.run(nothing) is None
        assert sess.run([y, nothing, {"op": nothing}], {x: 1}) == [2, None, {"op": None}]
        assert sess.run(y.op, {x: 1}) is None


def test_run_string_scalar_gives_bytes():
    g = rt.Graph()
    with g.as_default():
        s = rt.placeholder(rt.string, [], name="s")
        t = rt.strings.join([s, rt.constant("!")])
    with rt.Session(g) as sess:
        out = sess.run(t, {s: "hey"})
    assert type(out) is bytes
    assert out == b"hey!"


def test_run_string_array_gives_bytes_elements():
    g = rt.Graph()
    with g.as_default():
        s = rt.placeholder(rt.string, [None], name="s")
        t = s + "_x"
    with rt.Session(g) as sess:
        out = sess.run(t, {s: ["a", "bc"]})
    assert out.shape == (2,)
    assert list(out) == [b"a_x", b"bc_x"]
    assert all(type(v) is bytes for v in out)


def test_run_fetch_by_name():
    g, x, y, _ = _scalar_graph()
    with rt.Session(g) as sess:
        assert sess.run(y.name, {x: 7}) == 14
        assert sess.run("mul:0", {"x:0": 2}) == 4


def test_fetch_constant_graph_without_feeds():
    g = rt.Graph()
    with g.as_default():
        a = rt.constant([1, 2, 3])
        b = rt.reduce_sum(a * a)
    with rt.Session(g) as sess:
        assert sess.run(b) == 14
        np.testing.assert_array_equal(sess.run(a), [1, 2, 3])


def test_fetched_arrays_are_independent_of_the_graph():
    g = rt.Graph()
    with g.as_default():
        a = rt.constant([1, 2, 3])
        b = a + 0
    with rt.Session(g) as sess:
        first = sess.run(a)
        first[0] = 100
        np.testing.assert_array_equal(sess.run(a), [1, 2, 3])
        np.testing.assert_array_equal(sess.run(b), [1, 2, 3])


def test_graph_constant_does_not_alias_the_source_array():
    source = np.array([1, 2, 3], dtype=np.int32)
    g = rt.Graph()
    with g.as_default():
        c = rt.constant(source)
    source[0] = 100
    with rt.Session(g) as sess:
        np.testing.assert_array_equal(sess.run(c), [1, 2, 3])


def test_invalid_fetches():
    g, x, _, _ = _scalar_graph()
    with rt.Session(g) as sess:
        with pytest.raises(TypeError):
            sess.run(None)
        with pytest.raises(TypeError):
            sess.run(3)
        with pytest.raises(TypeError):
            sess.run(np.int32(1))


def test_fetch_from_other_graph_raises():
    g, _, _, _ = _scalar_graph()
    other = rt.Graph()
    with other.as_default():
        foreign = rt.constant(1, name="foreign")
    with rt.Session(g) as sess, pytest.raises(ValueError):
        sess.run(foreign)


# --- pruning and stateful ops ----------------------------------------------------------------------


def test_ops_on_unfed_placeholders_are_pruned():
    g = rt.Graph()
    with g.as_default():
        x = rt.placeholder(rt.int32, [], name="x")
        _unused = x * 2
        c = rt.constant(3)
        y = c + 1
    with rt.Session(g) as sess:
        assert sess.run(y) == 4


def test_print_not_needed_by_fetches_does_not_run():
    buf = io.StringIO()
    g = rt.Graph()
    with g.as_default():
        x = rt.placeholder(rt.int32, [], name="x")
        printed = rt.print("value:", x, output_stream=buf)
        y = x + 1
    with rt.Session(g) as sess:
        assert sess.run(y, {x: 1}) == 2
        assert buf.getvalue() == ""
        assert sess.run(printed, {x: 7}) is None
        assert buf.getvalue() == "value: 7\n"


def test_print_runs_on_every_run():
    buf = io.StringIO()
    g = rt.Graph()
    with g.as_default():
        x = rt.placeholder(rt.int32, [], name="x")
        printed = rt.print(x, output_stream=buf)
    with rt.Session(g) as sess:
        for i in range(3):
            sess.run(printed, {x: i})
    assert buf.getvalue() == "0\n1\n2\n"


def test_fetching_op_and_tensor_together():
    buf = io.StringIO()
    g = rt.Graph()
    with g.as_default():
        x = rt.placeholder(rt.int32, [3], name="x")
        printed = rt.print(x, output_stream=buf)
        total = rt.reduce_sum(x)
    with rt.Session(g) as sess:
        assert sess.run([total, printed], {x: [1, 2, 3]}) == [6, None]
    assert buf.getvalue() == "[1 2 3]\n"


# --- feeds ------------------------------------------------------------------------------------------


def test_missing_feed_names_placeholder():
    g, x, y, _ = _scalar_graph()
    with rt.Session(g) as sess, pytest.raises(rt.errors.InvalidArgumentError) as info:
        sess.run(y)
    assert "You must feed a value for placeholder tensor 'x' with dtype int32" in str(info.value)


def test_missing_feed_for_one_of_several_placeholders():
    g = rt.Graph()
    with g.as_default():
        a = rt.placeholder(rt.float32, [None], name="a")
        b = rt.placeholder(rt.float32, [None], name="b_input")
        c = a + b
    with rt.Session(g) as sess, pytest.raises(rt.errors.InvalidArgumentError) as info:
        sess.run(c, {a: [1.0]})
    message = str(info.value)
    assert "You must feed a value for placeholder tensor 'b_input' with dtype float32" in message


def test_missing_feed_when_fetching_placeholder_itself():
    g, x, _, _ = _scalar_graph()
    with rt.Session(g) as sess, pytest.raises(rt.errors.InvalidArgumentError, match="'x'"):
        sess.run(x)


def test_missing_feed_for_placeholder_used_in_cond_branch():
    g = rt.Graph()
    with g.as_default():
        flag = rt.placeholder(rt.bool, [], name="flag")
        v = rt.placeholder(rt.int32, [], name="v")
        out = rt.cond(flag, lambda: v * 2, lambda: rt.constant(0))
    with rt.Session(g) as sess:
        with pytest.raises(rt.errors.InvalidArgumentError, match="'v'"):
            sess.run(out, {flag: False})
        assert sess.run(out, {flag: True, v: 4}) == 8
        assert sess.run(out, {flag: False, v: 4}) == 0


def test_fetching_fed_placeholder_returns_fed_value():
    g, x, _, _ = _scalar_graph()
    with rt.Session(g) as sess:
        assert sess.run(x, {x: 42}) == 42


@pytest.mark.parametrize("bad", [1.5, np.float32(2.0), np.array(1.0), "text", b"b", True])
def test_wrong_dtype_feed_for_int_placeholder(bad):
    g, x, y, _ = _scalar_graph()
    with rt.Session(g) as sess, pytest.raises(TypeError, match="'x(:0)?'"):
        sess.run(y, {x: bad})


def test_wrong_dtype_float_array_into_int_placeholder():
    g = rt.Graph()
    with g.as_default():
        x = rt.placeholder(rt.int32, [None], name="ints")
        y = x + 1
    with rt.Session(g) as sess:
        with pytest.raises(TypeError, match="ints"):
            sess.run(y, {x: np.array([1.0, 2.0])})
        with pytest.raises(TypeError, match="ints"):
            sess.run(y, {x: [1.5, 2.5]})
        with pytest.raises(TypeError, match="ints"):
            sess.run(y, {x: rt.constant([1.0, 2.0])})


@pytest.mark.parametrize("bad", [3, 2.5, [1, 2], np.float32(1.0)])
def test_wrong_dtype_number_into_string_placeholder(bad):
    g = rt.Graph()
    with g.as_default():
        s = rt.placeholder(rt.string, None, name="words")
        t = s + "!"
    with rt.Session(g) as sess, pytest.raises(TypeError, match="words"):
        sess.run(t, {s: bad})


@pytest.mark.parametrize(
    ("shape", "value"),
    [
        ([], [1, 2]),
        ([3], [1, 2]),
        ([3], [[1, 2, 3]]),
        ([None, 2], [[1, 2, 3]]),
        ([2, None], [1, 2]),
    ],
)
def test_wrong_shape_feed_names_placeholder(shape, value):
    g = rt.Graph()
    with g.as_default():
        x = rt.placeholder(rt.int32, shape, name="shaped")
        y = x + 1
    with rt.Session(g) as sess, pytest.raises(ValueError, match="shaped"):
        sess.run(y, {x: value})


@pytest.mark.parametrize(
    ("shape", "value"),
    [(None, 5), (None, [[1, 2, 3]]), ([None], [1, 2, 3, 4]), ([None, 2], np.zeros((0, 2)))],
)
def test_unknown_dims_accept_any_size(shape, value):
    g = rt.Graph()
    with g.as_default():
        x = rt.placeholder(rt.float32, shape, name="x")
        y = x * 2.0
    with rt.Session(g) as sess:
        out = sess.run(y, {x: value})
    expected = np.asarray(value, dtype=np.float32) * 2
    assert np.shape(out) == expected.shape
    np.testing.assert_array_equal(out, expected)


def test_same_kind_values_are_cast_to_placeholder_dtype():
    g = rt.Graph()
    with g.as_default():
        f = rt.placeholder(rt.float32, [None], name="f")
        i = rt.placeholder(rt.int32, [None], name="i")
        f2, i2 = f * 1.0, i * 1
    with rt.Session(g) as sess:
        out_f, out_i = sess.run(
            [f2, i2], {f: np.array([0.5, 1.5], dtype=np.float64), i: np.array([1, 2], np.int64)}
        )
        assert out_f.dtype == np.float32
        assert out_i.dtype == np.int32
        np.testing.assert_array_equal(out_f, [0.5, 1.5])
        np.testing.assert_array_equal(out_i, [1, 2])
        ints_for_floats = sess.run(f2, {f: [1, 2]})
        assert ints_for_floats.dtype == np.float32
        np.testing.assert_array_equal(ints_for_floats, [1.0, 2.0])


def test_feed_eager_tensors():
    g = rt.Graph()
    with g.as_default():
        s = rt.placeholder(rt.string, [], name="s")
        x = rt.placeholder(rt.float32, [2], name="x")
        greeting = rt.strings.join([s, rt.constant("world")], separator=" ")
        doubled = x * 2.0
    with rt.Session(g) as sess:
        assert sess.run(greeting, {s: rt.constant("hello")}) == b"hello world"
        out = sess.run(doubled, {x: rt.constant([1.0, 2.5])})
        np.testing.assert_array_equal(out, np.array([2.0, 5.0], np.float32))


@pytest.mark.parametrize(
    "value",
    [
        ["a", "b"],
        ("a", "b"),
        [b"a", b"b"],
        np.array(["a", "b"]),
        np.array([b"a", b"b"]),
        np.array(["a", "b"], dtype=object),
    ],
)
def test_feed_string_values_come_back_as_bytes(value):
    g = rt.Graph()
    with g.as_default():
        s = rt.placeholder(rt.string, [None], name="s")
    with rt.Session(g) as sess:
        out = sess.run(s, {s: value})
    assert list(out) == [b"a", b"b"]
    assert all(type(v) is bytes for v in out)


def test_feed_by_name():
    g, _, y, _ = _scalar_graph()
    with rt.Session(g) as sess:
        assert sess.run(y, {"x:0": 6}) == 12


def test_feeding_non_placeholder_overrides_it():
    g = rt.Graph()
    with g.as_default():
        x = rt.placeholder(rt.int32, [], name="x")
        y = x * 2
        z = y + 1
        c = rt.constant(5)
        w = c * 3
    with rt.Session(g) as sess:
        assert sess.run(z, {x: 1}) == 3
        assert sess.run(z, {y: 10}) == 11
        assert sess.run(z, {x: 1, y: 100}) == 101
        assert sess.run(w) == 15
        assert sess.run(w, {c: 2}) == 6
        assert sess.run([y, z], {y: 7}) == [7, 8]


def test_a_fed_constant_reaches_cond_branches_and_loop_bodies():
    g = rt.Graph()
    with g.as_default():
        c = rt.constant(1.0, name="c")
        x = rt.placeholder(rt.float32, [], name="x")
        y = rt.cond(x > 0, lambda: c * 10.0, lambda: c - 10.0)
        (w,) = rt.while_loop(lambda i: i < c, lambda i: (i + 1.0,), [rt.constant(0.0)])
    with rt.Session(graph=g) as sess:
        assert sess.run(y, {x: 1.0}) == 10.0
        assert sess.run(y, {x: 1.0, c: 5.0}) == 50.0
        assert sess.run(w, {c: 3.0}) == 3.0


def test_a_constant_read_in_a_branch_keeps_its_control_dependencies():
    g = rt.Graph()
    with g.as_default():
        v = rt.Variable(0.0)
        x = rt.placeholder(rt.float32, [], name="x")
        update = v.assign_add(1.0)
        with rt.control_dependencies([update]):
            c = rt.constant(2.0)
        y = rt.cond(x > 0, lambda: c * 10.0, lambda: c - 10.0)
    with rt.Session(graph=g) as sess:
        assert sess.run(y, {x: 1.0}) == 20.0
        assert sess.run(v) == 1.0


def test_feeding_overridden_tensor_skips_upstream_side_effects():
    buf = io.StringIO()
    g = rt.Graph()
    with g.as_default():
        x = rt.placeholder(rt.int32, [], name="x")
        printed = rt.print("upstream", output_stream=buf)
        with rt.control_dependencies([printed]):
            y = x + 1
        z = y * 10
    with rt.Session(g) as sess:
        assert sess.run(z, {y: 2}) == 20
        assert buf.getvalue() == ""
        assert sess.run(z, {x: 2}) == 30
        assert buf.getvalue() == "upstream\n"


def test_feed_key_from_other_graph_raises():
    g, _, y, _ = _scalar_graph()
    other = rt.Graph()
    with other.as_default():
        foreign = rt.placeholder(rt.int32, [], name="x")
    with rt.Session(g) as sess, pytest.raises(ValueError):
        sess.run(y, {foreign: 1})


# --- the session object -----------------------------------------------------------------------------


def test_session_context_manager_makes_graph_default():
    g = rt.Graph()
    with rt.Session(graph=g) as sess:
        assert rt.get_default_graph() is g
        assert not rt.executing_eagerly()
        a = rt.constant(20)
        b = a + 22
        assert b.graph is g
        assert sess.run(b) == 42
    assert rt.executing_eagerly()
    assert rt.get_default_graph() is not g


def test_session_without_graph_uses_default_graph():
    g = rt.Graph()
    with g.as_default():
        t = rt.constant(3) * 3
        sess = rt.Session()
    assert sess.graph is g
    assert sess.run(t) == 9
    sess.close()


def test_closed_session_raises():
    g, x, y, _ = _scalar_graph()
    sess = rt.Session(g)
    assert sess.run(y, {x: 1}) == 2
    sess.close()
    with pytest.raises(RuntimeError, match="closed"):
        sess.run(y, {x: 1})


def test_session_closed_after_with_block():
    g, x, y, _ = _scalar_graph()
    with rt.Session(g) as sess:
        assert sess.run(y, {x: 1}) == 2
    with pytest.raises(RuntimeError, match="closed"):
        sess.run(y, {x: 1})


def test_repeated_runs_with_different_feeds():
    g, x, y, z = _scalar_graph()
    with rt.Session(g) as sess:
        results = [sess.run([y, z], {x: i}) for i in range(5)]
    assert results == [[2 * i, i + 10] for i in range(5)]


def test_cached_programs_correct_when_graph_grows():
    g = rt.Graph()
    with g.as_default():
        x = rt.placeholder(rt.int32, [None], name="x")
        y = x * 2
    with rt.Session(g) as sess:
        np.testing.assert_array_equal(sess.run(y, {x: [1, 2]}), [2, 4])
        with g.as_default():
            z = y + 1
            total = rt.reduce_sum(z)
        np.testing.assert_array_equal(sess.run(y, {x: [1, 2]}), [2, 4])
        np.testing.assert_array_equal(sess.run(z, {x: [1, 2]}), [3, 5])
        assert sess.run(total, {x: [1, 2, 3]}) == 15
        np.testing.assert_array_equal(sess.run(y, {x: [5]}), [10])


def test_cached_program_respects_new_control_dependency_graph_growth():
    buf = io.StringIO()
    g = rt.Graph()
    with g.as_default():
        x = rt.placeholder(rt.int32, [], name="x")
        y = x + 1
    with rt.Session(g) as sess:
        assert sess.run(y, {x: 1}) == 2
        with g.as_default():
            p = rt.print("later", output_stream=buf)
            with rt.control_dependencies([p]):
                w = rt.identity(y)
        assert sess.run(y, {x: 1}) == 2
        assert buf.getvalue() == ""
        assert sess.run(w, {x: 1}) == 2
        assert buf.getvalue() == "later\n"


def test_two_sessions_on_one_graph():
    g, x, y, z = _scalar_graph()
    s1, s2 = rt.Session(g), rt.Session(g)
    assert s1.run(y, {x: 1}) == 2
    assert s2.run(z, {x: 1}) == 11
    s1.close()
    assert s2.run(y, {x: 3}) == 6
    s2.close()


# --- compiled programs and run-time failures -------------------------------------------------------


def test_compiled_program_source_is_readable_python():
    g = rt.Graph()
    with g.as_default():
        x = rt.placeholder(rt.int32, [3], name="x")
        y = x * 3
        z = y + 1
    program = compile_graph(g, [x], [z])
    source = str(program)
    tree = ast.parse(source)
    assert len(tree.body) == 1
    assert isinstance(tree.body[0], ast.FunctionDef)
    assert [a.arg for a in tree.body[0].args.args] == ["placeholder"]
    lines = source.splitlines()
    assert lines[0].startswith("def ")
    assert isinstance(tree.body[0].body[-1], ast.Return)
    # One line per op on arrays, in order; arithmetic is written as Python operators.
    mul_line = next(
        i for i, line in enumerate(lines) if line.strip().startswith("mul = placeholder * ")
    )
    add_line = next(i for i, line in enumerate(lines) if line.strip().startswith("add = mul + "))
    assert 0 < mul_line < add_line
    np.testing.assert_array_equal(program(np.array([4, 5, 6], np.int32))[0], [13, 16, 19])


def test_compiled_program_writes_scalars_used_once_into_one_expression():
    g = rt.Graph()
    with g.as_default():
        x = rt.placeholder(rt.int32, [], name="x")
        z = (x * 3 + 1) * (x - 2)
    program = compile_graph(g, [x], [z])
    assert str(program).splitlines()[1:] == [
        "    return ((placeholder * const + const_1) * (placeholder - const_2),)"
    ]
    assert program(np.int32(4)) == (26,)


def test_compiled_program_only_holds_needed_ops():
    g = rt.Graph()
    with g.as_default():
        x = rt.placeholder(rt.int32, [], name="x")
        rt.square(x, name="unneeded")
        y = rt.negative(x)
    source = str(compile_graph(g, [x], [y]))
    assert "return (-placeholder,)" in source
    assert "Square(" not in source and "unneeded" not in source


def test_compiled_program_with_op_output_returns_none():
    buf = io.StringIO()
    g = rt.Graph()
    with g.as_default():
        x = rt.placeholder(rt.int32, [], name="x")
        p = rt.print(x, output_stream=buf)
    program = compile_graph(g, [x], [p, x])
    ast.parse(str(program))
    assert program(np.int32(9)) == (None, 9)
    assert buf.getvalue() == "9\n"


def test_compiled_cond_and_while_are_python_control_flow():
    g = rt.Graph()
    with g.as_default():
        x = rt.placeholder(rt.int32, [], name="x")
        c = rt.cond(x > 0, lambda: x * 10, lambda: -x)
        (w,) = rt.while_loop(lambda i: i < 100, lambda i: [i * 2], [x])
    program = compile_graph(g, [x], [c, w])
    tree = ast.parse(str(program))
    kinds = {type(node) for node in ast.walk(tree)}
    assert ast.If in kinds
    assert ast.While in kinds
    assert program(np.int32(3)) == (30, 192)
    assert program(np.int32(200)) == (2000, 200)


def test_compiled_program_with_unusual_op_names():
    g = rt.Graph()
    with g.as_default():
        a = rt.placeholder(rt.int32, [], name="a.b")
        b = rt.placeholder(rt.int32, [], name="a_b")
        k = rt.placeholder(rt.int32, [], name="lambda")
        d = rt.constant(1000, name="np")
        e = rt.constant(10000, name="print")
        total = (a - b) * k + d + e
    with rt.Session(g) as sess:
        assert sess.run(total, {a: 10, b: 3, k: 2}) == 11014


def test_constant_named_like_the_generated_function():
    g = rt.Graph()
    with g.as_default():
        x = rt.placeholder(rt.int32, [], name="x")
        c = rt.constant(100, name="graph_fn")
        total = x + c
    with rt.Session(g) as sess:
        assert sess.run(total, {x: 1}) == 101


def test_kernel_failure_reported_as_invalid_argument_naming_op():
    g = rt.Graph()
    with g.as_default():
        a = rt.placeholder(rt.float32, [None], name="a")
        b = rt.placeholder(rt.float32, [None], name="b")
        c = rt.add(a, b, name="bad_add")
        d = c * 2.0
    with rt.Session(g) as sess:
        with pytest.raises(rt.errors.InvalidArgumentError, match="bad_add") as info:
            sess.run(d, {a: [1.0, 2.0], b: [1.0, 2.0, 3.0]})
        assert info.value.op is c.op
        np.testing.assert_array_equal(sess.run(d, {a: [1.0], b: [2.0]}), [6.0])


def test_kernel_failure_inside_cond_branch_names_inner_op():
    g = rt.Graph()
    with g.as_default():
        m = rt.placeholder(rt.float32, [None, None], name="m")
        flag = rt.placeholder(rt.bool, [], name="flag")
        out = rt.cond(flag, lambda: rt.matmul(m, m, name="inner_matmul"), lambda: m)
    value = np.ones((2, 3), np.float32)
    with rt.Session(g) as sess:
        with pytest.raises(rt.errors.InvalidArgumentError, match="inner_matmul"):
            sess.run(out, {m: value, flag: True})
        np.testing.assert_array_equal(sess.run(out, {m: value, flag: False}), value)


def test_kernel_failure_when_calling_program_directly():
    g = rt.Graph()
    with g.as_default():
        a = rt.placeholder(rt.int32, [None], name="a")
        b = rt.placeholder(rt.int32, [None], name="b")
        c = rt.multiply(a, b, name="elementwise")
    program = compile_graph(g, [a, b], [c])
    ok = program(np.array([1, 2], np.int32), np.array([3, 4], np.int32))
    np.testing.assert_array_equal(ok[0], [3, 8])
    with pytest.raises(rt.errors.InvalidArgumentError, match="elementwise") as info:
        program(np.array([1, 2], np.int32), np.array([3, 4, 5], np.int32))
    assert info.value.op is c.op


def test_kernel_raised_op_error_names_failing_op():
    g = rt.Graph()
    with g.as_default():
        a = rt.placeholder(rt.int32, [None], name="a")
        idx = rt.placeholder(rt.int32, [], name="idx")
        picked = rt.gather(a, idx, name="pick")
    with rt.Session(g) as sess:
        assert sess.run(picked, {a: [5, 6, 7], idx: 2}) == 7
        with pytest.raises(rt.errors.InvalidArgumentError) as info:
            sess.run(picked, {a: [5, 6, 7], idx: 10})
    assert info.value.op is picked.op
    assert "pick" in str(info.value)


def test_integer_division_by_zero_names_failing_op():
    g = rt.Graph()
    with g.as_default():
        a = rt.placeholder(rt.int32, [None], name="a")
        d = rt.placeholder(rt.int32, [None], name="d")
        q = rt.floordiv(a, d, name="my_div")
    with rt.Session(g) as sess:
        np.testing.assert_array_equal(sess.run(q, {a: [7, 9], d: [2, 3]}), [3, 3])
        with pytest.raises(rt.errors.InvalidArgumentError) as info:
            sess.run(q, {a: [1, 2], d: [0, 1]})
    assert info.value.op is q.op
    assert "my_div" in str(info.value)


def test_compile_graph_missing_input_raises_naming_placeholder():
    g, _, y, _ = _scalar_graph()
    with pytest.raises(rt.errors.InvalidArgumentError, match="'x'"):
        compile_graph(g, [], [y])
