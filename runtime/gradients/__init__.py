"""Automatic differentiation: ``GradientTape``, ``gradients``, and the backward pass they share.

Each op row's ``gradient`` rule (``runtime.core.op_def``) builds its inputs'
gradients with ops; ``backprop.backward`` applies them in reverse order; the
tape (``tape``) and ``rt.gradients`` (``graph``) choose which ops to walk;
``control_flow`` holds the rules of ``If`` and ``While``.
"""

# control_flow sets the If and While rows' gradient rules as it loads: importing any part of
# the package makes them so.
from runtime.gradients import control_flow  # noqa: F401
