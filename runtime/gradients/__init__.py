"""Automatic differentiation: ``GradientTape``, ``gradients``, and the backward pass they share.

Each op row's ``gradient`` rule (``runtime.core.op_def``) builds its inputs'
gradients with ops; ``backprop.backward`` applies them in reverse order; the
tape (``tape``) and ``rt.gradients`` (``graph``) choose which ops to walk;
``control_flow`` holds the rules of ``If`` and ``While``, ``py_function`` that of
``EagerPyFunc``.
"""

# control_flow sets the If and While rows' gradient rules as it loads, py_function the
# EagerPyFunc row's: importing any part of the package makes them so.
from runtime.gradients import (
    control_flow,  # noqa: F401
    py_function,  # noqa: F401
)
