"""Seeds 000, 002 and 003 ("AutoGraph 机制原理"): when ``@ag.function`` traces, and when it only runs.

``myadd`` has a Python side effect, ``print("tracing")``, which happens only
while the function is being traced into a graph, and a graph side effect,
``rt.print(i)`` in a loop over ``rt.range(3)``, which happens every time the
graph runs.

- First call with string tensors: trace (``tracing``), then run (0 1 2).
- Second call with string tensors of the same shape: the cached graph runs (0 1 2).
- Int tensors: a new input signature, so a new trace (``tracing`` 0 1 2).
- Python strings: their values are part of the signature, so every new value
  traces again.

    python examples/tracing_myadd.py

Each call is announced by a ``>>>`` line and followed by the tensor it returned,
as a notebook would echo it.
"""

import autograph as ag
import runtime as rt


@ag.function(autograph=True)
def myadd(a, b):
    for i in rt.range(3):  # becomes a while loop in the graph
        rt.print(i)
    c = a + b
    print("tracing")  # plain Python: runs only while tracing
    return c


print('>>> myadd(rt.constant("hello"), rt.constant("world"))')
print(repr(myadd(rt.constant("hello"), rt.constant("world"))))

print('>>> myadd(rt.constant("good"), rt.constant("morning"))')
print(repr(myadd(rt.constant("good"), rt.constant("morning"))))

print(">>> myadd(rt.constant(1), rt.constant(2))")
print(repr(myadd(rt.constant(1), rt.constant(2))))

print('>>> myadd("hello", "world")')
print(repr(myadd("hello", "world")))
print('>>> myadd("good", "morning")')
print(repr(myadd("good", "morning")))

print("traces:", myadd.tracing_count)  # 4: strings, ints, and one per Python value
