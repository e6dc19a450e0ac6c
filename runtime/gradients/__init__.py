"""Automatic differentiation: ``GradientTape``, ``gradients``, and the backward pass they share.

Each op row's ``gradient`` rule (``runtime.core.op_def``) builds its inputs'
gradients with ops; ``backprop.backward`` applies them in reverse order; the
tape (``tape``) and ``rt.gradients`` (``graph``) choose which ops to walk;
``control_flow`` holds the rules of ``If`` and ``While``.
"""
