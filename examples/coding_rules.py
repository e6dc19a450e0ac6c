"""Seed 000 ("AutoGraph 使用规范", also seed 003): the three AutoGraph coding rules.

1. Use runtime ops, not other Python functions, inside ``@ag.function``:
   ``np.random.randn`` runs only while tracing, so its matrix is frozen into the
   graph and every call prints the same numbers; ``rt.random.normal`` is an op
   of the graph and draws new numbers on every call. Likewise ``print`` prints
   once, while tracing, the symbolic tensor; ``rt.print`` prints every call.
2. Do not create an ``rt.Variable`` inside ``@ag.function``: a variable made
   outside keeps its state across calls (2, then 3); one made inside raises
   ``ValueError``.
3. Do not mutate outer Python data structures inside ``@ag.function``: a plain
   function appends one eager tensor per call, the traced one appends the
   symbolic input ``x`` once, while tracing, and never again.

    python examples/coding_rules.py

The matrices are random; after each pair of calls a line says whether the two
calls printed the same numbers.
"""

import contextlib
import io
import sys

import numpy as np

import autograph as ag
import runtime as rt


def echo_output(fn):
    """Calls ``fn()``, lets its printing through, and also returns what it printed."""
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):  # rt.print writes to the current sys.stdout
        fn()
    text = buffer.getvalue()
    sys.stdout.write(text)
    return text


# Rule 1: use runtime functions (rt.print, rt.range, rt.random...) inside ag.function.
print("== Rule 1: use runtime ops, not numpy, inside ag.function ==")


@ag.function
def np_random():
    a = np.random.randn(3, 3)  # plain numpy: runs once, while tracing
    rt.print(a)


@ag.function
def tf_random():
    a = rt.random.normal((3, 3))  # a random op in the graph: runs on every call
    rt.print(a)


first, second = echo_output(np_random), echo_output(np_random)
print("np_random printed the same matrix twice:", first == second)  # True
first, second = echo_output(tf_random), echo_output(tf_random)
print("tf_random printed the same matrix twice:", first == second)  # False


# The rule's own example: rt.print, not print. Python's print runs once, while tracing, and
# shows the symbolic tensor; rt.print is an op of the graph and prints on every call.
@ag.function
def py_print(x):
    print(x)


@ag.function
def tf_print(x):
    rt.print(x)


py_print(rt.constant(1.0))
py_print(rt.constant(2.0))
tf_print(rt.constant(1.0))
tf_print(rt.constant(2.0))

# Rule 2: create variables outside the function.
print("== Rule 2: create rt.Variable outside ag.function ==")
x = rt.Variable(1.0, dtype=rt.float32)


@ag.function
def outer_var():
    x.assign_add(1.0)
    rt.print(x)
    return x


outer_var()  # 2
print(repr(outer_var()))  # 3, then the returned tensor


@ag.function
def inner_var():
    x = rt.Variable(1.0, dtype=rt.float32)
    x.assign_add(1.0)
    rt.print(x)
    return x


try:
    inner_var()  # raises: the function would create a new variable on every trace
except ValueError as error:
    # Only the first line: the rest points at this file's line, which depends on the path.
    print(f"{type(error).__name__}: {str(error).splitlines()[0]}")

# Rule 3: do not modify Python lists or dicts from outside the function.
print("== Rule 3: do not modify outer Python lists inside ag.function ==")
tensor_list = []


def append_tensor(x):  # plain eager function: appends on every call
    tensor_list.append(x)
    return tensor_list


append_tensor(rt.constant(5.0))
append_tensor(rt.constant(6.0))
print(tensor_list)
for value in tensor_list:
    print(value.numpy())
    print(value)

tensor_list = []


@ag.function  # with this line the result is not what one would expect
def append_tensor(x):  # noqa: F811 (the seed redefines it to show the difference)
    tensor_list.append(x)  # runs only while tracing, and appends the symbolic input
    return tensor_list


append_tensor(rt.constant(5.0))
append_tensor(rt.constant(6.0))  # same signature: the graph runs, the list is untouched
print(tensor_list)
print(len(tensor_list))
