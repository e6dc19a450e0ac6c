"""``rt.linalg``: the functions of TensorFlow's ``tf.linalg`` that the project provides.

>>> import runtime as rt
>>> rt.linalg.global_norm([[3.0], [4.0]]).numpy()
np.float32(5.0)
"""

from __future__ import annotations

from runtime.ops.clip_ops import global_norm
from runtime.ops.linalg_ops import einsum, eye
from runtime.ops.math_ops import matmul

__all__ = ["einsum", "eye", "global_norm", "matmul"]
