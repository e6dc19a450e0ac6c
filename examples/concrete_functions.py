"""Seed 001 ("流控制和副作用", "检查多态函数"): control flow, ``ag.to_code`` and concrete functions.

``my_function`` branches on a tensor (``rt.reduce_sum(x) <= 1``). Wrapped in
``ag.function`` the ``if`` becomes a graph conditional; ``ag.to_code`` shows
the converted source. The ``Function`` is polymorphic: every new input
signature (dtype and shape) traces a new ``ConcreteFunction``, which can be
inspected with ``get_concrete_function`` and called directly.

    python examples/concrete_functions.py
"""

import autograph as ag
import runtime as rt


def my_function(x):
    if rt.reduce_sum(x) <= 1:
        return x * x
    else:
        return x - 1


a_function = ag.function(my_function)

print("First branch, with graph:", a_function(rt.constant(1.0)).numpy())
print("Second branch, with graph:", a_function(rt.constant([5.0, 5.0])).numpy())

# The converted source (mostly plumbing: the `if` became ag__.if_stmt).
print(ag.to_code(my_function))

# One Function, three signatures, three concrete functions.
print(a_function)

print("Calling a `Function`:")
print("Int:", a_function(rt.constant(2)))
print("Float:", a_function(rt.constant(2.0)))
print("Rank-1 tensor of floats", a_function(rt.constant([2.0, 2.0, 2.0])))

print("Inspecting concrete functions")
print("Concrete function for float:")
print(a_function.get_concrete_function(rt.TensorSpec(shape=[], dtype=rt.float32)))
print("Concrete function for tensor of floats:")
print(a_function.get_concrete_function(rt.constant([2.0, 2.0, 2.0])))

# A concrete function is callable (usually you call the Function instead).
cf = a_function.get_concrete_function(rt.constant(2))
print("Concrete function for int:")
print(cf)
print("Directly calling a concrete function:", cf(rt.constant(2)))
