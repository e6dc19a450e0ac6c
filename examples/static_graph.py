"""The seed's TensorFlow 1 program, with our runtime: a graph, placeholders and a Session.

A while loop prints 0, 1, 2; the string join waits for it through a control
dependency, so fetching the join runs the loop first.

    python examples/static_graph.py [FIRST_WORD SECOND_WORD]
"""

import sys

import runtime as rt


def build_graph():
    graph = rt.Graph()
    with graph.as_default():
        a = rt.placeholder(rt.string, shape=[], name="a")
        b = rt.placeholder(rt.string, shape=[], name="b")

        def body(i):
            rt.print(i)
            return i + 1

        loop = rt.while_loop(lambda i: i < rt.constant(3), body, loop_vars=[0])
        with rt.control_dependencies(loop):
            c = rt.strings.join([a, b], separator=" ", name="join")
    return graph, a, b, c


def main(argv):
    first, second = (argv + ["hello", "world"][len(argv) :])[:2]
    graph, a, b, c = build_graph()
    print(graph)
    with rt.Session(graph=graph) as sess:
        result = sess.run(c, feed_dict={a: rt.constant(first), b: rt.constant(second)})
    print(result)


if __name__ == "__main__":
    main(sys.argv[1:])
