"""Seed 001 ("跟踪和性能", "使用 run_functions_eagerly"): Python side effects show when tracing happens.

``print("Tracing!")`` is plain Python, so it runs only while
``a_function_with_python_side_effect`` is traced: once for int32 scalar
tensors (the second tensor call reuses the graph), and once per new Python
value, since Python arguments are part of the signature.

With ``ag.run_functions_eagerly(True)`` every call runs the Python function
itself, so every call prints ``Tracing!``. The switch is global: turn it off
afterwards.

    python examples/python_side_effect.py
"""

import autograph as ag
import runtime as rt


@ag.function
def a_function_with_python_side_effect(x):
    print("Tracing!")  # a Python side effect: only while tracing
    return x * x + rt.constant(2)


def four_calls():
    # The first time through, the function is traced.
    print(a_function_with_python_side_effect(rt.constant(2)))
    # The second time through, you won't see the side effect.
    print(a_function_with_python_side_effect(rt.constant(3)))
    # This retraces each time the Python argument changes,
    # as a Python argument could be an epoch count or other hyperparameter.
    print(a_function_with_python_side_effect(2))
    print(a_function_with_python_side_effect(3))


four_calls()

ag.run_functions_eagerly(True)
print("Run all functions eagerly.")
try:
    four_calls()  # no graphs: the Python function runs on every call
finally:
    ag.run_functions_eagerly(False)  # don't forget to turn it off again
print("Functions run eagerly:", ag.functions_run_eagerly())
