"""Seed 000 ("AutoGraph 示例"): the eager ``strjoin`` turned into a graph with ``@ag.function``.

The first call converts and traces ``strjoin`` into a graph, then runs it:
the ``rt.print`` op inside the graph writes ``hello world`` and the call
returns an eager tensor.

    python examples/strjoin_function.py

prints::

    hello world
    rt.Tensor(b'hello world', shape=(), dtype=string)
"""

import autograph as ag
import runtime as rt


@ag.function
def strjoin(x, y):
    z = rt.strings.join([x, y], separator=" ")
    rt.print(z)  # a graph op: prints every time the graph runs
    return z


result = strjoin(x=rt.constant("hello"), y=rt.constant("world"))
print(result)
