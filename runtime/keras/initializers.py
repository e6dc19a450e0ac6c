"""Initializers: how a layer's weights start. ``"glorot_uniform"`` is the default of kernels.

Keras 3's classes, string names (``"he_normal"``, ``"HeNormal"``, ``"uniform"``...) and
configs: ``get``, ``serialize`` and ``deserialize`` read and write Keras 3's serialized form.
Random initializers draw with ``rt.random``, so ``rt.random.set_seed`` makes a
model's initial weights the same on every run.

>>> import runtime as rt
>>> init = rt.keras.initializers.get("glorot_uniform")
>>> rt.random.set_seed(1); a = init((4, 2))
>>> rt.random.set_seed(1); b = init((4, 2))
>>> bool(rt.reduce_all(a == b)), bool(rt.reduce_max(rt.abs(a)) <= (6 / (4 + 2)) ** 0.5)
(True, True)
>>> serialize(GlorotUniform())["config"]
{'seed': None, 'input_axes': None, 'output_axes': None}
>>> type(get("he_normal")).__name__
'HeNormal'
"""

from __future__ import annotations

import math

import numpy as np

from runtime.core import context, dtypes
from runtime.keras import backend
from runtime.keras._config import deserialize_object, serialize_object
from runtime.keras._construct import construct
from runtime.ops.constant_ops import convert_to_tensor
from runtime.ops.random_ops import normal, uniform


class Initializer:
    """``initializer(shape, dtype)`` -> a tensor of that shape, computed eagerly."""

    def __call__(self, shape, dtype=None):
        dtype = dtypes.as_dtype(dtype or backend.floatx())
        with context.eager_mode():  # a weight's value is known when it is made, even in a graph
            return self.draw(tuple(int(d) for d in shape), dtype)

    def draw(self, shape, dtype):
        raise NotImplementedError

    def get_config(self):
        return {}

    @classmethod
    def from_config(cls, config):
        """The initializer ``get_config()`` describes (Keras's too: unused options dropped)."""
        return construct(cls, config)

    def clone(self):
        return type(self).from_config(self.get_config())

    def __repr__(self):
        arguments = ", ".join(f"{k}={v!r}" for k, v in self.get_config().items())
        return f"{type(self).__name__}({arguments})"


def _filled(shape, value, dtype):
    return convert_to_tensor(np.broadcast_to(np.asarray(value, dtype.as_numpy_dtype), shape))


class Zeros(Initializer):
    """All zeros."""

    def draw(self, shape, dtype):
        return _filled(shape, 0, dtype)


class Ones(Initializer):
    """All ones."""

    def draw(self, shape, dtype):
        return _filled(shape, 1, dtype)


class Constant(Initializer):
    """``value`` everywhere: a number, or an array broadcast to the weight's shape.

    >>> Constant([1.0, 2.0])((2, 2)).numpy()
    array([[1., 2.],
           [1., 2.]], dtype=float32)
    """

    def __init__(self, value=0.0):
        self.value = value

    def draw(self, shape, dtype):
        return _filled(shape, _numpy_value(self.value), dtype)

    def get_config(self):
        value = _numpy_value(self.value)
        if isinstance(value, np.ndarray) and value.ndim > 0:  # Keras' form of an array
            config = {"value": value.tolist(), "dtype": str(value.dtype)}
            return {"value": {"class_name": "__numpy__", "config": config}}
        return {"value": value.item() if isinstance(value, np.generic) else value}

    @classmethod
    def from_config(cls, config):
        value = config["value"]
        if isinstance(value, dict) and value.get("class_name") in ("__numpy__", "__tensor__"):
            value = np.asarray(value["config"]["value"], value["config"].get("dtype"))
        return cls(value)


def _numpy_value(value):
    if hasattr(value, "numpy"):
        return value.numpy()
    return np.asarray(value) if isinstance(value, (list, tuple)) else value


class Identity(Initializer):
    """``gain`` times the identity matrix (2-D weights only)."""

    def __init__(self, gain=1.0):
        self.gain = gain

    def draw(self, shape, dtype):
        if len(shape) != 2:
            raise ValueError(
                "Identity matrix initializer can only be used for 2D matrices. "
                f"Received: shape={shape} of rank {len(shape)}."
            )
        return _filled(shape, self.gain * np.eye(*shape), dtype)

    def get_config(self):
        return {"gain": self.gain}


class _Seeded(Initializer):
    """A random initializer: with an int ``seed`` it draws the same values at every call, as
    in Keras 3; without, from ``rt.random`` (``rt.random.set_seed`` makes it repeatable)."""

    def __init__(self, seed=None):
        self.seed = seed

    def get_config(self):
        return {"seed": self.seed}


class RandomUniform(_Seeded):
    """Uniform in ``[minval, maxval)``."""

    def __init__(self, minval=-0.05, maxval=0.05, seed=None):
        super().__init__(seed)
        self.minval, self.maxval = minval, maxval

    def draw(self, shape, dtype):
        return _uniform(shape, self.minval, self.maxval, dtype, self.seed)

    def get_config(self):
        return {"minval": self.minval, "maxval": self.maxval, **super().get_config()}


class RandomNormal(_Seeded):
    """Normal with mean ``mean`` and standard deviation ``stddev``."""

    def __init__(self, mean=0.0, stddev=0.05, seed=None):
        super().__init__(seed)
        self.mean, self.stddev = mean, stddev

    def draw(self, shape, dtype):
        return _normal(shape, self.mean, self.stddev, dtype, self.seed)

    def get_config(self):
        return {"mean": self.mean, "stddev": self.stddev, **super().get_config()}


def _uniform(shape, low, high, dtype, seed):
    if seed is None:  # the global seed and rt.random's sequence decide
        return uniform(shape, low, high, dtype=dtype)
    return _as(np.random.default_rng(seed).uniform(low, high, shape), dtype)


def _standard_normal(shape, seed, rng=None):
    if seed is None:
        return normal(shape, 0.0, 1.0, dtype=dtypes.float64).numpy()
    return rng.standard_normal(shape)


def _normal(shape, mean, stddev, dtype, seed):
    if seed is None:
        return normal(shape, mean, stddev, dtype=dtype)
    return _as(np.random.default_rng(seed).normal(mean, stddev, shape), dtype)


def _truncated_normal(shape, mean, stddev, dtype, seed):
    """Normal draws, those further than two ``stddev`` from ``mean`` drawn again."""
    rng = None if seed is None else np.random.default_rng(seed)
    values = np.asarray(_standard_normal(shape, seed, rng))
    outside = np.abs(values) > 2
    while outside.any():
        values[outside] = _standard_normal([int(outside.sum())], seed, rng)
        outside = np.abs(values) > 2
    return _as(values * stddev + mean, dtype)


def _as(values, dtype):
    return convert_to_tensor(np.asarray(values).astype(dtype.as_numpy_dtype))


class TruncatedNormal(RandomNormal):
    """Normal, redrawn where further than two ``stddev`` from ``mean``."""

    def draw(self, shape, dtype):
        return _truncated_normal(shape, self.mean, self.stddev, dtype, self.seed)


def _fans(shape):
    """Keras' fan-in and fan-out: a kernel's input and output sizes (times the receptive field)."""
    if len(shape) < 1:
        return 1, 1
    if len(shape) == 1:
        return shape[0], shape[0]
    receptive_field = math.prod(shape[:-2])
    return shape[-2] * receptive_field, shape[-1] * receptive_field


_DISTRIBUTIONS = ("uniform", "truncated_normal", "untruncated_normal")


class VarianceScaling(_Seeded):
    """Draws of variance ``scale / n``, ``n`` the fan-in (``mode="fan_in"``), the fan-out or
    their mean (``"fan_avg"``): uniform in ``[-sqrt(3 * scale / n), ...]``, normal, or
    truncated normal (Keras' default)."""

    def __init__(self, scale=1.0, mode="fan_in", distribution="truncated_normal", seed=None):
        if scale <= 0.0:
            raise ValueError(f"Argument `scale` must be positive float. Received: scale={scale}")
        if mode not in ("fan_in", "fan_out", "fan_avg"):
            raise ValueError(
                f"Invalid `mode` argument: {mode}. Please use one of "
                "{'fan_in', 'fan_out', 'fan_avg'}"
            )
        distribution = "truncated_normal" if distribution == "normal" else distribution.lower()
        if distribution not in _DISTRIBUTIONS:
            raise ValueError(
                f"Invalid `distribution` argument: {distribution}."
                f"Please use one of {set(_DISTRIBUTIONS)}"
            )
        super().__init__(seed)
        self.scale, self.mode, self.distribution = scale, mode, distribution

    def draw(self, shape, dtype):
        fan_in, fan_out = _fans(shape)
        n = {"fan_in": fan_in, "fan_out": fan_out, "fan_avg": (fan_in + fan_out) / 2}[self.mode]
        variance = self.scale / max(1.0, n)
        if self.distribution == "uniform":
            limit = math.sqrt(3.0 * variance)
            return _uniform(shape, -limit, limit, dtype, self.seed)
        if self.distribution == "untruncated_normal":
            return _normal(shape, 0.0, math.sqrt(variance), dtype, self.seed)
        # The standard deviation of a unit normal truncated at two: the variance comes out right.
        stddev = math.sqrt(variance) / 0.87962566103423978
        return _truncated_normal(shape, 0.0, stddev, dtype, self.seed)

    def get_config(self):
        config = {"scale": self.scale, "mode": self.mode, "distribution": self.distribution}
        return {**config, **super().get_config(), "input_axes": None, "output_axes": None}


def _preset(name, scale, mode, distribution, doc):
    """A VarianceScaling of fixed settings whose config is its seed (and Keras 3's axes,
    always None here), as in Keras."""

    def __init__(self, seed=None):
        VarianceScaling.__init__(self, scale, mode, distribution, seed)

    def get_config(self):
        return {"seed": self.seed, "input_axes": None, "output_axes": None}

    namespace = {"__init__": __init__, "get_config": get_config, "__doc__": doc}
    namespace["__module__"] = __name__
    return type(name, (VarianceScaling,), namespace)


GlorotUniform = _preset(
    "GlorotUniform", 1.0, "fan_avg", "uniform", "Uniform, limit ``sqrt(6 / (fan_in + fan_out))``."
)
GlorotNormal = _preset(
    "GlorotNormal",
    1.0,
    "fan_avg",
    "truncated_normal",
    "Truncated normal, stddev ``sqrt(2 / (fan_in + fan_out))``.",
)
HeUniform = _preset("HeUniform", 2.0, "fan_in", "uniform", "Uniform, limit ``sqrt(6 / fan_in)``.")
HeNormal = _preset(
    "HeNormal", 2.0, "fan_in", "truncated_normal", "Truncated normal, stddev ``sqrt(2 / fan_in)``."
)
LecunUniform = _preset(
    "LecunUniform", 1.0, "fan_in", "uniform", "Uniform, limit ``sqrt(3 / fan_in)``."
)
LecunNormal = _preset(
    "LecunNormal",
    1.0,
    "fan_in",
    "truncated_normal",
    "Truncated normal, stddev ``sqrt(1 / fan_in)``.",
)


class Orthogonal(_Seeded):
    """``gain`` times a random orthogonal matrix (the Q of a normal matrix's QR), shaped as
    ``(prod(shape[:-1]), shape[-1])``."""

    def __init__(self, gain=1.0, seed=None):
        super().__init__(seed)
        self.gain = gain

    def draw(self, shape, dtype):
        if len(shape) < 2:
            raise ValueError(
                "The tensor to initialize must be at least two-dimensional. Received: "
                f"shape={shape} of rank {len(shape)}."
            )
        rows, cols = math.prod(shape[:-1]), shape[-1]
        flat = (max(rows, cols), min(rows, cols))
        a = _standard_normal(flat, self.seed, np.random.default_rng(self.seed))
        q, r = np.linalg.qr(a)
        q = q * np.sign(np.diag(r))  # makes Q uniformly distributed
        if rows < cols:
            q = q.T
        return _filled(shape, self.gain * q.reshape(shape), dtype)

    def get_config(self):
        return {"gain": self.gain, **super().get_config()}


_CLASSES = (
    Constant,
    Identity,
    Ones,
    Zeros,
    GlorotNormal,
    GlorotUniform,
    HeNormal,
    HeUniform,
    LecunNormal,
    LecunUniform,
    Orthogonal,
    RandomNormal,
    RandomUniform,
    TruncatedNormal,
    VarianceScaling,
)
_BY_NAME = {cls.__name__: cls for cls in _CLASSES}
_BY_NAME.update({backend.to_snake_case(cls.__name__): cls for cls in _CLASSES})
_BY_NAME.update(
    IdentityInitializer=Identity,
    OrthogonalInitializer=Orthogonal,
    normal=RandomNormal,
    one=Ones,
    uniform=RandomUniform,
    zero=Zeros,
)

# Keras 3's lower-case aliases of the classes (``keras.initializers.he_normal``...).
zeros, ones, constant, identity, orthogonal = Zeros, Ones, Constant, Identity, Orthogonal
glorot_uniform, glorot_normal, he_uniform, he_normal = (
    GlorotUniform,
    GlorotNormal,
    HeUniform,
    HeNormal,
)
lecun_uniform, lecun_normal, variance_scaling = LecunUniform, LecunNormal, VarianceScaling
random_uniform, random_normal, truncated_normal = RandomUniform, RandomNormal, TruncatedNormal


def serialize(initializer):
    """Keras 3's serialized form: ``{"module": "keras.initializers", "class_name": ...,
    "config": ..., "registered_name": None}``."""
    return serialize_object(initializer)


def deserialize(config, custom_objects=None):
    """The initializer a serialized form or a name describes."""
    try:
        return deserialize_object(config, {**_BY_NAME, **(custom_objects or {})}, "initializer")
    except ValueError as error:
        raise ValueError(f"Unknown initializer: {config!r}. {error}") from None


def get(identifier):
    """The initializer ``identifier`` names (``"zeros"``, ``"GlorotUniform"``, a serialized
    dict), an instance of a class, a callable as it is, or None for None. An array gives
    exactly its value (the weight must have its shape)."""
    if identifier is None:
        return None
    if isinstance(identifier, (str, dict)):
        return deserialize(identifier)
    if isinstance(identifier, type):
        return identifier()
    if isinstance(identifier, np.ndarray) or hasattr(identifier, "numpy"):
        return _exact(np.asarray(_numpy_value(identifier)))
    if callable(identifier):
        return identifier
    raise ValueError(f"Could not interpret initializer identifier: {identifier}")


def _exact(value):
    def initialize(shape, dtype=None):
        if tuple(shape) != value.shape:
            raise ValueError(
                f"Expected `shape` to be {value.shape} for direct tensor as initializer. "
                f"Received shape={tuple(shape)}"
            )
        dtype = dtypes.as_dtype(dtype or backend.floatx())
        return convert_to_tensor(value.astype(dtype.as_numpy_dtype))

    return initialize
