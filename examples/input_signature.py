"""Seed 000 ("应用 tf.Module 封装 AutoGraph", also seed 003): ``input_signature`` fixes the inputs.

``add_print`` accepts exactly one float32 scalar. A float call adds 3.0 to the
variable and prints 4; an int32 tensor does not fit the signature, so the call
raises ``TypeError`` instead of tracing a new graph.

    python examples/input_signature.py

prints::

    4
    TypeError: <which argument and which dtypes>
"""

import autograph as ag
import runtime as rt

x = rt.Variable(1.0, dtype=rt.float32)


@ag.function(input_signature=[rt.TensorSpec(shape=[], dtype=rt.float32)])
def add_print(a):
    x.assign_add(a)
    rt.print(x)
    return x


add_print(rt.constant(3.0))  # 4

try:
    add_print(rt.constant(3))  # an int32 tensor does not fit the signature
except TypeError as error:
    print(f"{type(error).__name__}: {error}")
