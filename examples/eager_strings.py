"""Seed 000 ("动态计算图"): eager execution, no graph and no Session.

Each op runs as soon as it is called. First the string join and ``rt.print`` at
top level, then the same code wrapped in a plain Python function ``strjoin``
(still eager: calling it just runs the ops one after another).

    python examples/eager_strings.py

prints::

    hello world
    hello world
    rt.Tensor(b'hello world', shape=(), dtype=string)
"""

import runtime as rt

# "普通动态计算图": every op executes at once and returns a concrete tensor.
x = rt.constant("hello")
y = rt.constant("world")
z = rt.strings.join([x, y], separator=" ")
rt.print(z)  # a lone string tensor prints without quotes: hello world


# "动态计算图封装": the same ops in a function; still eager, no tracing.
def strjoin(x, y):
    z = rt.strings.join([x, y], separator=" ")
    rt.print(z)
    return z


result = strjoin(x=rt.constant("hello"), y=rt.constant("world"))
print(result)  # str() of an eager tensor, as TensorFlow's tf.Tensor(...)
