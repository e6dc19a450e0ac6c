"""Initializers: how a layer's weights start. ``"glorot_uniform"`` is the default of kernels.

Random initializers draw with ``rt.random``, so ``rt.random.set_seed`` makes a
model's initial weights the same on every run.

>>> import runtime as rt
>>> init = rt.keras.initializers.get("glorot_uniform")
>>> rt.random.set_seed(1); a = init((4, 2))
>>> rt.random.set_seed(1); b = init((4, 2))
>>> bool(rt.reduce_all(a == b)), bool(rt.reduce_max(rt.abs(a)) <= (6 / (4 + 2)) ** 0.5)
(True, True)
"""

from __future__ import annotations

import math

import numpy as np

from runtime.core import context, dtypes
from runtime.ops.broadcast_ops import fill
from runtime.ops.constant_ops import convert_to_tensor
from runtime.ops.random_ops import normal, uniform


class Initializer:
    """``initializer(shape, dtype)`` -> a tensor of that shape, computed eagerly."""

    def __call__(self, shape, dtype=dtypes.float32):
        with context.eager_mode():  # a weight's value is known when it is made, even in a graph
            return self.draw(tuple(int(d) for d in shape), dtypes.as_dtype(dtype))

    def draw(self, shape, dtype):
        raise NotImplementedError

    def __repr__(self):
        return f"{type(self).__name__}()"


class Zeros(Initializer):
    def draw(self, shape, dtype):
        return fill(shape, np.zeros((), dtype.as_numpy_dtype))


class Ones(Initializer):
    def draw(self, shape, dtype):
        return fill(shape, np.ones((), dtype.as_numpy_dtype))


class Constant(Initializer):
    def __init__(self, value=0):
        self.value = value

    def draw(self, shape, dtype):
        return fill(shape, np.asarray(self.value, dtype.as_numpy_dtype))


class RandomUniform(Initializer):
    def __init__(self, minval=-0.05, maxval=0.05, seed=None):
        self.minval, self.maxval, self.seed = minval, maxval, seed

    def draw(self, shape, dtype):
        return uniform(shape, self.minval, self.maxval, dtype=dtype, seed=self.seed)


class RandomNormal(Initializer):
    def __init__(self, mean=0.0, stddev=0.05, seed=None):
        self.mean, self.stddev, self.seed = mean, stddev, seed

    def draw(self, shape, dtype):
        return normal(shape, self.mean, self.stddev, dtype=dtype, seed=self.seed)


def _fans(shape):
    """Keras' fan-in and fan-out: a kernel's input and output sizes (times the receptive field)."""
    if len(shape) < 1:
        return 1, 1
    if len(shape) == 1:
        return shape[0], shape[0]
    receptive_field = math.prod(shape[:-2])
    return shape[-2] * receptive_field, shape[-1] * receptive_field


class VarianceScaling(Initializer):
    """Uniform in ``[-limit, limit]``, ``limit = sqrt(3 * scale / n)``; ``n`` is the fan-in
    (``mode="fan_in"``), the fan-out, or their mean (``"fan_avg"``)."""

    def __init__(self, scale=1.0, mode="fan_in", seed=None):
        if mode not in ("fan_in", "fan_out", "fan_avg"):
            raise ValueError(f"Invalid `mode` argument: {mode!r}; use fan_in, fan_out or fan_avg")
        self.scale, self.mode, self.seed = scale, mode, seed

    def draw(self, shape, dtype):
        fan_in, fan_out = _fans(shape)
        n = {"fan_in": fan_in, "fan_out": fan_out, "fan_avg": (fan_in + fan_out) / 2}[self.mode]
        limit = math.sqrt(3.0 * self.scale / max(1.0, n))
        return uniform(shape, -limit, limit, dtype=dtype, seed=self.seed)


class GlorotUniform(VarianceScaling):
    """Uniform in ``[-limit, limit]`` with ``limit = sqrt(6 / (fan_in + fan_out))``."""

    def __init__(self, seed=None):
        super().__init__(1.0, "fan_avg", seed)


class HeUniform(VarianceScaling):
    """Uniform in ``[-limit, limit]`` with ``limit = sqrt(6 / fan_in)``."""

    def __init__(self, seed=None):
        super().__init__(2.0, "fan_in", seed)


class LecunUniform(VarianceScaling):
    """Uniform in ``[-limit, limit]`` with ``limit = sqrt(3 / fan_in)``."""

    def __init__(self, seed=None):
        super().__init__(1.0, "fan_in", seed)


class Orthogonal(Initializer):
    """A (semi-)orthogonal matrix times ``gain``: the QR decomposition of a matrix of standard
    normal draws, flattened to ``(prod(shape[:-1]), shape[-1])``; the default of recurrent
    kernels (Saxe et al., 2014).

    >>> w = Orthogonal(seed=1)((3, 3)).numpy()
    >>> bool(np.allclose(w @ w.T, np.eye(3), atol=1e-5))
    True
    """

    def __init__(self, gain=1.0, seed=None):
        self.gain, self.seed = gain, seed

    def draw(self, shape, dtype):
        if len(shape) < 2:
            raise ValueError(
                "The tensor to initialize must be at least two-dimensional. "
                f"Received: shape={shape} of rank {len(shape)}."
            )
        rows, cols = math.prod(shape[:-1]), shape[-1]
        wide = rows < cols
        draws = normal((cols, rows) if wide else (rows, cols), dtype=dtypes.float64, seed=self.seed)
        q, r = np.linalg.qr(draws.numpy())
        q = q * np.sign(np.diag(r))  # a uniform draw among orthogonal matrices, not a biased one
        if wide:
            q = q.T
        return convert_to_tensor((self.gain * q).reshape(shape).astype(dtype.as_numpy_dtype))


_BY_NAME = {
    "zeros": Zeros,
    "ones": Ones,
    "constant": Constant,
    "random_uniform": RandomUniform,
    "random_normal": RandomNormal,
    "glorot_uniform": GlorotUniform,
    "he_uniform": HeUniform,
    "lecun_uniform": LecunUniform,
    "orthogonal": Orthogonal,
}


def get(identifier):
    """The initializer ``identifier`` names (``"zeros"``, ``"glorot_uniform"``...), or it as is."""
    if isinstance(identifier, str) and identifier in _BY_NAME:
        return _BY_NAME[identifier]()
    if callable(identifier):
        return identifier
    raise ValueError(f"Unknown initializer: {identifier!r}. Use one of {sorted(_BY_NAME)}.")
