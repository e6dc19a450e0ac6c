"""``rt.keras.random``: Keras 3's random functions and ``SeedGenerator``.

``seed`` is what Keras takes: an int draws the same numbers at every call (eagerly;
in a traced function each run of the graph draws anew, as a TensorFlow op does), a
``SeedGenerator`` draws new numbers at every call and the same sequence from the same
seed, None draws from ``rt.random``'s sequence (which ``set_random_seed`` and
``rt.random.set_seed`` make reproducible).

>>> import runtime as rt
>>> a = rt.keras.random.uniform((2,), seed=7)
>>> b = rt.keras.random.uniform((2,), seed=7)
>>> bool((a.numpy() == b.numpy()).all())
True
>>> gen = rt.keras.random.SeedGenerator(7)
>>> bool((rt.keras.random.normal((2,), seed=gen).numpy() == rt.keras.random.normal((2,), seed=gen).numpy()).all())
False
"""

from __future__ import annotations

import itertools

import numpy as np

from runtime.core import dtypes
from runtime.keras import backend
from runtime.ops import math_ops, random_ops
from runtime.ops.array_ops import expand_dims, shape_operand
from runtime.ops.broadcast_ops import where
from runtime.ops.clip_ops import clip_by_value
from runtime.ops.constant_ops import cast, convert_to_tensor
from runtime.ops.indexing_ops import gather
from runtime.ops.reduction_ops import argmax
from runtime.ops.registry import bind1
from runtime.ops.script_ops import py_function
from runtime.ops.shape_ops import shape as shape_op

_KERAS_STREAM = 3  # keeps Keras' seeded draws apart from rt.random's, seeded alike


class SeedGenerator:
    """A source of seeds: each draw that takes it gets new numbers; two generators made
    with the same seed give the same sequence.

    >>> import runtime as rt
    >>> first = rt.keras.random.uniform((3,), seed=rt.keras.random.SeedGenerator(1))
    >>> again = rt.keras.random.uniform((3,), seed=rt.keras.random.SeedGenerator(1))
    >>> bool((first.numpy() == again.numpy()).all())
    True
    """

    def __init__(self, seed=None, name=None, **kwargs):
        if seed is None:
            seed = int(np.random.randint(0, 2**31 - 1))
        if not isinstance(seed, int | np.integer):
            raise ValueError(
                f"Argument `seed` must be an integer. Received: seed={seed} of type {type(seed)}"
            )
        self.seed = int(seed)
        self.name = name or backend.unique_object_name("seed_generator")
        self._draws = itertools.count()

    def next(self):
        """The entropy of the next draw."""
        return [_KERAS_STREAM, self.seed, next(self._draws)]

    def get_config(self):
        return {"seed": self.seed}

    @classmethod
    def from_config(cls, config):
        return cls(**config)


def _state(seed):
    """The generator one random op draws from, for a Keras ``seed``."""
    if isinstance(seed, SeedGenerator):
        return random_ops.RandomState(seed.seed, entropy=seed.next())
    if seed is None:
        return random_ops._state(None)
    if not isinstance(seed, int | np.integer):
        raise ValueError(
            "Argument `seed` must be either an integer or an instance of `SeedGenerator`. "
            f"Received: seed={seed} (of type {type(seed)})"
        )
    return random_ops.RandomState(int(seed), entropy=[_KERAS_STREAM, int(seed)])


def _float_dtype(dtype, function):
    dtype = dtypes.as_dtype(dtype or backend.floatx())
    if not dtype.is_floating:
        raise ValueError(
            f"`keras.random.{function}` requires a floating point `dtype`. Received: "
            f"dtype={dtype.name} "
        )
    return dtype


def normal(shape, mean=0.0, stddev=1.0, dtype=None, seed=None):
    """Samples of a normal distribution of ``mean`` and ``stddev``."""
    dtype = _float_dtype(dtype, "normal")
    attrs = {"mean": float(mean), "stddev": float(stddev), "dtype": dtype, "state": _state(seed)}
    return bind1(random_ops.RANDOM_NORMAL, [shape_operand(shape)], attrs, "random_normal")


def uniform(shape, minval=0.0, maxval=1.0, dtype=None, seed=None):
    """Samples of a uniform distribution over ``[minval, maxval)``."""
    dtype = _float_dtype(dtype, "uniform")
    attrs = {"minval": float(minval), "maxval": float(maxval), "dtype": dtype}
    attrs["state"] = _state(seed)
    return bind1(random_ops.RANDOM_UNIFORM, [shape_operand(shape)], attrs, "random_uniform")


def randint(shape, minval, maxval, dtype="int32", seed=None):
    """Integers drawn uniformly from ``[minval, maxval)``."""
    dtype = dtypes.as_dtype(dtype)
    if not dtype.is_integer:
        raise ValueError(
            f"`keras.random.randint` requires an integer `dtype`. Received: dtype={dtype.name} "
        )
    attrs = {"minval": int(minval), "maxval": int(maxval), "dtype": dtype, "state": _state(seed)}
    return bind1(random_ops.RANDOM_UNIFORM, [shape_operand(shape)], attrs, "random_uniform")


def truncated_normal(shape, mean=0.0, stddev=1.0, dtype=None, seed=None):
    """Samples of a normal distribution, those beyond two standard deviations drawn again
    (each draw that falls outside is replaced, up to eight times: 1 in 10^10 are then
    left outside, and clipped to the bound)."""
    dtype = _float_dtype(dtype, "truncated_normal")
    # One source for every draw: reproducible for an int seed, each redraw new.
    source = SeedGenerator(int(seed)) if isinstance(seed, int | np.integer) else seed
    standard = normal(shape, dtype=dtype, seed=source)
    for _ in range(8):
        redraw = normal(shape, dtype=dtype, seed=source)
        standard = where(math_ops.abs(standard) > 2.0, redraw, standard)
    return clip_by_value(standard, -2.0, 2.0) * stddev + mean


def dropout(inputs, rate, noise_shape=None, seed=None):
    """``inputs`` with each element zeroed with probability ``rate``, the others scaled by
    ``1 / (1 - rate)``; elements share their draw along the axes where ``noise_shape`` is
    1 (None in it: the input's size)."""
    inputs = convert_to_tensor(inputs)
    if rate == 0:
        return inputs
    noise = _noise_shape(inputs, noise_shape)
    kept = uniform(noise, dtype=inputs.dtype, seed=seed) >= rate
    scale = 0.0 if rate >= 1 else 1.0 / (1.0 - rate)
    return where(kept, inputs * scale, inputs * 0.0)


def _noise_shape(inputs, noise_shape):
    if noise_shape is None:
        return shape_op(inputs)
    known = inputs.shape.as_list() if inputs.shape.rank is not None else None
    if known is not None and all(d is not None for d in known):
        return [known[i] if size is None else size for i, size in enumerate(noise_shape)]
    dynamic = shape_op(inputs)
    return [dynamic[i] if size is None else size for i, size in enumerate(noise_shape)]


def shuffle(x, axis=0, seed=None):
    """``x`` with its slices along ``axis`` in a random order. The order is drawn by a
    ``py_function`` (there is no sort op to rank random keys with), so a graph holding a
    shuffle cannot be saved or compiled with XLA."""
    x = convert_to_tensor(x)
    state = _state(seed)
    length = shape_op(x, out_type=dtypes.int64)[axis]

    def permutation(n):
        return state.generator.permutation(int(n.numpy())).astype(np.int64)

    order = py_function(permutation, [length], dtypes.int64)
    return gather(x, order, axis=axis)


def categorical(logits, num_samples, dtype="int32", seed=None):
    """``num_samples`` class indices for each row of ``logits`` (batch, classes), each drawn
    with probability ``softmax(logits)`` (the largest of the logits plus Gumbel noise)."""
    logits = convert_to_tensor(logits)
    if logits.shape.rank != 2:
        raise ValueError(
            "`logits` should be a 2-D tensor with shape [batch_size, num_classes]. "
            f"Received: logits={logits}"
        )
    batch, classes = shape_op(logits)[0], shape_op(logits)[1]
    unit = uniform(
        [batch, num_samples, classes], minval=1e-20, maxval=1.0, dtype=logits.dtype, seed=seed
    )
    gumbel = -math_ops.log(-math_ops.log(unit))
    noisy = expand_dims(logits, 1) + gumbel
    return cast(argmax(noisy, axis=-1), dtypes.as_dtype(dtype))


__all__ = [
    "SeedGenerator",
    "categorical",
    "dropout",
    "normal",
    "randint",
    "shuffle",
    "truncated_normal",
    "uniform",
]
