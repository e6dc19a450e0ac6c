"""The TensorFlow 1 and eager programs of seed 000_68e9bcb01ede0c3b, rewritten with rt."""

import runtime as rt


def build_join_graph():
    graph = rt.Graph()
    with graph.as_default():
        x = rt.placeholder(name="x", shape=[], dtype=rt.string)
        y = rt.placeholder(name="y", shape=[], dtype=rt.string)
        z = rt.strings.join([x, y], name="join", separator=" ")
    return graph, x, y, z


def test_placeholder_string_join():
    graph, x, y, z = build_join_graph()
    with rt.Session(graph=graph) as sess:
        result = sess.run(fetches=z, feed_dict={x: "hello", y: "world"})
    assert result == b"hello world"
    assert isinstance(result, bytes)


def test_placeholder_string_join_names_and_reuse():
    graph, x, y, z = build_join_graph()
    assert x.name == "x:0" and y.name == "y:0"
    assert z.op.name == "join"
    assert graph.get_tensor_by_name("join:0") is z
    with rt.Session(graph=graph) as sess:
        assert sess.run(z, {x: "good", y: "morning"}) == b"good morning"
        assert sess.run("join:0", {"x:0": b"a", "y:0": b"b"}) == b"a b"


def test_eager_join_and_print(capsys):
    x = rt.constant("hello")
    y = rt.constant("world")
    z = rt.strings.join([x, y], separator=" ")
    rt.print(z)
    assert capsys.readouterr().out == "hello world\n"
    assert z.numpy() == b"hello world"


def build_loop_then_join():
    """The graph the seed says ``@tf.function my_add`` amounts to."""
    graph = rt.Graph()
    with graph.as_default():
        a = rt.placeholder(shape=[], dtype=rt.string)
        b = rt.placeholder(shape=[], dtype=rt.string)

        def cond(i):
            return i < rt.constant(3)

        def body(i):
            rt.print(i)
            return i + 1

        loop = rt.while_loop(cond, body, loop_vars=[0])
        with rt.control_dependencies(loop):
            c = rt.strings.join([a, b])
        print("tracing")
    return graph, a, b, c


def test_while_loop_then_control_dependencies(capsys):
    graph, a, b, c = build_loop_then_join()
    assert capsys.readouterr().out == "tracing\n"  # Python print runs once, while building
    with rt.Session(graph=graph) as sess:
        result = sess.run(c, feed_dict={a: rt.constant("hello"), b: rt.constant("world")})
        assert result == b"helloworld"
        assert capsys.readouterr().out == "0\n1\n2\n"
        # Running again with other strings re-runs the loop; nothing is traced again.
        assert sess.run(c, {a: "good", b: "morning"}) == b"goodmorning"
        assert capsys.readouterr().out == "0\n1\n2\n"


def test_loop_result_is_a_list_of_one_tensor():
    graph, a, b, c = build_loop_then_join()
    with graph.as_default():
        loop = rt.while_loop(lambda i: i < 3, lambda i: i + 1, loop_vars=[0])
    assert isinstance(loop, list) and len(loop) == 1
    with rt.Session(graph=graph) as sess:
        assert sess.run(loop) == [3]
