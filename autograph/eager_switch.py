"""``ag.run_functions_eagerly(True)``: every Function calls its Python function directly.

A debugging switch, as TensorFlow's ``tf.config.run_functions_eagerly``: with it
on, nothing is traced, Python's ``print`` and breakpoints work on every call, and
errors are raised where they happen.

>>> import autograph as ag
>>> ag.functions_run_eagerly()
False
"""

from runtime.config import _functions_run_eagerly

state = _functions_run_eagerly  # read by every call of a Function; rt.config's switch too


def run_functions_eagerly(flag):
    """When on, every Function calls its Python function directly, without tracing (for debugging)."""
    state["on"] = bool(flag)


def experimental_run_functions_eagerly(flag):
    """The older spelling of ``run_functions_eagerly``, as TensorFlow 2.0 had it."""
    run_functions_eagerly(flag)


def functions_run_eagerly() -> bool:
    """Whether Functions call their Python functions directly (``run_functions_eagerly``)."""
    return state["on"]
