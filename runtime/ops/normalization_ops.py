"""``rt.nn.moments`` and ``rt.nn.batch_normalization``: composites of reductions and arithmetic.

They have no row in the op table: their gradients, XLA and ONNX forms are those of the ops
they are made of (a mean, a square, a reciprocal square root), which is as fast as one op
would be here, since numpy runs each step as one array operation either way.

>>> import runtime as rt
>>> mean, variance = rt.nn.moments(rt.constant([[1.0, 2.0], [3.0, 6.0]]), axes=[0])
>>> mean.numpy(), variance.numpy()
(array([2., 4.], dtype=float32), array([1., 4.], dtype=float32))
"""

from __future__ import annotations

import numpy as np

from runtime.core import dtypes
from runtime.core.graph import name_scope
from runtime.ops.array_ops import squeeze, stop_gradient
from runtime.ops.constant_ops import cast, convert_to_tensor
from runtime.ops.math_ops import add, multiply, sqrt, square, subtract
from runtime.ops.op_info import Sample, op_info
from runtime.ops.reduction_ops import reduce_mean


def _moments_reference(x, axes, keepdims=False):
    x = np.asarray(x, np.float64)
    axes = tuple(axes)
    return (np.mean(x, axis=axes, keepdims=keepdims), np.var(x, axis=axes, keepdims=keepdims))


def _moments_samples(rng):
    x32 = rng.normal(size=(3, 4)).astype(np.float32)
    x64 = rng.normal(size=(2, 3, 4))
    return [
        Sample((x32,), {"axes": [0]}),
        Sample((x64,), {"axes": [0, 1]}),
        Sample((x64,), {"axes": [2], "keepdims": True}),
    ]


@op_info("rt.nn.moments", _moments_samples, _moments_reference)
def moments(x, axes, shift=None, keepdims=False, name=None):
    """The mean and the variance of ``x`` over ``axes``, as ``tf.nn.moments``: the variance is
    the mean of the squared deviation from the mean (divided by the count, not count - 1).
    ``shift`` is accepted and unused, as in TensorFlow 2. float16 inputs are reduced in float32
    and the results cast back.

    >>> m, v = moments([1.0, 2.0, 3.0, 4.0], axes=[0])
    >>> float(m), float(v)
    (2.5, 1.25)
    """
    del shift  # TensorFlow 2 ignores it too
    with name_scope(name or "moments"):
        x = convert_to_tensor(x)
        wide = x.dtype is dtypes.float16
        y = cast(x, dtypes.float32) if wide else x
        axes = list(axes)
        mean = reduce_mean(y, axes, keepdims=True)
        # The deviation's mean does not depend on the mean to first order: its gradient through
        # the mean is zero, so the mean is held constant there, as TensorFlow does.
        variance = reduce_mean(square(subtract(y, stop_gradient(mean))), axes, keepdims=True)
        if not keepdims:
            mean, variance = squeeze(mean, axes), squeeze(variance, axes)
        if wide:
            mean, variance = cast(mean, x.dtype), cast(variance, x.dtype)
        return mean, variance


def _batch_norm_reference(x, mean, variance, offset=None, scale=None, variance_epsilon=1e-3):
    x, mean, variance = (np.asarray(a, np.float64) for a in (x, mean, variance))
    scale = 1.0 if scale is None else np.asarray(scale, np.float64)
    offset = 0.0 if offset is None else np.asarray(offset, np.float64)
    return (x - mean) / np.sqrt(variance + variance_epsilon) * scale + offset


def _batch_norm_samples(rng):
    """The tensors x, mean, variance; offset and scale as fixed values (a sample has at most
    three tensors)."""

    def draw(dtype, **kwargs):
        x = rng.normal(size=(4, 3)).astype(dtype)
        mean = rng.normal(size=(3,)).astype(dtype)
        variance = rng.uniform(0.5, 2.0, size=(3,)).astype(dtype)
        return Sample((x, mean, variance), kwargs)

    return [
        draw(np.float32, offset=None, scale=None, variance_epsilon=1e-3),
        draw(np.float64, offset=[0.5, -1.0, 2.0], scale=[2.0, 0.5, -1.0], variance_epsilon=1e-5),
    ]


@op_info("rt.nn.batch_normalization", _batch_norm_samples, _batch_norm_reference)
def batch_normalization(x, mean, variance, offset, scale, variance_epsilon, name=None):
    """``(x - mean) / sqrt(variance + variance_epsilon) * scale + offset``, as
    ``tf.nn.batch_normalization``; ``offset`` or ``scale`` may be None (no shift, no scaling).
    The statistics broadcast against ``x``.

    >>> batch_normalization([1.0, 3.0], 2.0, 1.0, None, None, 0.0).numpy()
    array([-1.,  1.], dtype=float32)
    """
    with name_scope(name or "batchnorm"):
        x = convert_to_tensor(x)
        inverse = 1.0 / sqrt(add(convert_to_tensor(variance, x.dtype), variance_epsilon))
        if scale is not None:
            inverse = multiply(inverse, convert_to_tensor(scale, x.dtype))
        # x * inverse + (offset - mean * inverse): one multiply over x, as TensorFlow computes it
        shift = -multiply(convert_to_tensor(mean, x.dtype), inverse)
        if offset is not None:
            shift = add(shift, convert_to_tensor(offset, x.dtype))
        return add(multiply(x, inverse), shift)
