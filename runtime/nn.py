"""Neural networks: ``rt.nn.relu``, ``softmax``, ``gelu``, ``leaky_relu``, ``softplus``, ...;
convolution (``conv1d``, ``conv2d``, ``conv2d_transpose``, ``convolution``) and pooling (``max_pool1d``,
``max_pool2d``, ``avg_pool1d``, ``avg_pool2d``, ``max_pool``, ``avg_pool``).

``gelu`` and ``leaky_relu`` are *composites*: functions over other ops, with no row and no
backend rule of their own (``runtime.ops.op_info``); their gradients, XLA and ONNX forms are
those of the ops they are made of.

>>> import runtime as rt
>>> rt.nn.leaky_relu([-1.0, 2.0]).numpy()
array([-0.2,  2. ], dtype=float32)
"""

from __future__ import annotations

import math

import numpy as np

from runtime.core import dtypes
from runtime.core.graph import name_scope
from runtime.math import softplus
from runtime.ops import activation_ops
from runtime.ops.constant_ops import cast, convert_to_tensor
from runtime.ops.conv_ops import conv1d, conv2d, conv2d_transpose, convolution
from runtime.ops.math_ops import sigmoid, tanh
from runtime.ops.nn_ops import relu, softmax, sparse_softmax_cross_entropy_with_logits
from runtime.ops.normalization_ops import batch_normalization, moments
from runtime.ops.op_info import floats, op_info
from runtime.ops.pooling_ops import (
    avg_pool,
    avg_pool1d,
    avg_pool2d,
    max_pool,
    max_pool1d,
    max_pool2d,
)

__all__ = [
    "avg_pool",
    "avg_pool1d",
    "avg_pool2d",
    "conv1d",
    "conv2d",
    "conv2d_transpose",
    "convolution",
    "gelu",
    "leaky_relu",
    "max_pool",
    "max_pool1d",
    "max_pool2d",
    "relu",
    "sigmoid",
    "softmax",
    "softplus",
    "sparse_softmax_cross_entropy_with_logits",
    "tanh",
    "moments",
    "batch_normalization",
]

_SQRT_2_OVER_PI = math.sqrt(2 / math.pi)


def _gelu_reference(x, approximate=False):
    x = np.asarray(x, np.float64)
    if approximate:
        return 0.5 * x * (1 + np.tanh(_SQRT_2_OVER_PI * (x + 0.044715 * x**3)))
    return 0.5 * x * (1 + np.vectorize(math.erf)(x / math.sqrt(2)))


_GELU_SAMPLES = floats(-4.0, 4.0, kwargs=({}, {"approximate": True}))


@op_info("rt.nn.gelu", _GELU_SAMPLES, _gelu_reference, cancels=True)
def gelu(features, approximate=False, name=None):
    """The Gaussian error linear unit, ``x * P(X <= x)`` for a standard normal ``X``:
    ``0.5 * x * (1 + erf(x / sqrt(2)))``, or with ``approximate=True`` TensorFlow's tanh form
    ``0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x**3)))``.

    >>> gelu([-1.0, 0.0, 1.0]).numpy()
    array([-0.15865526,  0.        ,  0.8413447 ], dtype=float32)
    """
    with name_scope(name or "Gelu"):
        x = convert_to_tensor(features)
        if not x.dtype.is_floating:
            raise ValueError(
                "`features.dtype` must be a floating point tensor."
                f"Received:features.dtype={x.dtype.name}"
            )
        return activation_ops.gelu(x, approximate)


def _leaky_relu_reference(x, alpha=0.2):
    x = np.asarray(x, np.float64)
    return np.where(x > 0, x, np.float32(alpha).item() * x)


_LEAKY_SAMPLES = floats(-3.0, 3.0, kwargs=({}, {"alpha": 0.1}))


@op_info("rt.nn.leaky_relu", _LEAKY_SAMPLES, _leaky_relu_reference)
def leaky_relu(features, alpha=0.2, name=None):
    """``x`` where ``x > 0``, else ``alpha * x``. Integer features are taken as float32, and
    ``alpha`` is a float32 number, as in TensorFlow (where it is the op's attribute).

    >>> leaky_relu([-2.0, 3.0], alpha=0.5).numpy()
    array([-1.,  3.], dtype=float32)
    """
    with name_scope(name or "LeakyRelu"):
        x = convert_to_tensor(features)
        if x.dtype.is_integer:
            x = cast(x, dtypes.float32)
        return activation_ops.leaky_relu(x, float(np.float32(alpha)))
