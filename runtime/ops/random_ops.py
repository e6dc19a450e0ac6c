"""Random numbers. These ops are stateful: each run of a graph draws new numbers.

With ``set_seed``, a program's sequence of draws is reproducible.

>>> import runtime as rt
>>> rt.random.set_seed(1); a = rt.random.uniform([2])
>>> rt.random.set_seed(1); b = rt.random.uniform([2])
>>> bool(rt.reduce_all(a == b))
True
"""

from __future__ import annotations

import itertools

import numpy as np

from runtime.core import attr_kinds as kinds
from runtime.core import context, dtypes
from runtime.core.op_def import NotDifferentiable, OpDef
from runtime.core.tensor import Tensor
from runtime.ops import math_ops
from runtime.ops.array_ops import shape_operand
from runtime.ops.constant_ops import cast, constant_value, convert_to_tensor
from runtime.ops.registry import bind1
from runtime.ops.shape_ops import shape_from_tensor

_DEFAULT_GLOBAL_SEED = 87654321
_global_seed = None
_op_counter = itertools.count()


def set_seed(seed):
    """Sets the global seed: the draws that follow are the same on every run of the program."""
    global _global_seed, _op_counter
    _global_seed = None if seed is None else int(seed)
    _op_counter = itertools.count()
    _eager_stream.clear()


def _entropy(op_seed):
    """The seed material for one random op (graph) or one draw (eager); None for fresh entropy."""
    if _global_seed is None and op_seed is None:
        return None
    global_seed = _DEFAULT_GLOBAL_SEED if _global_seed is None else _global_seed
    if op_seed is None:
        return [global_seed, next(_op_counter)]
    if context.executing_eagerly():
        # Eagerly, repeated draws with one op seed continue a sequence instead of repeating it.
        return [global_seed, op_seed, next(_op_counter)]
    return [global_seed, op_seed]


class RandomState:
    """The generator a random op draws from; one per op, so re-running a graph draws anew.

    ``fresh()`` restarts the same seeded sequence: each new Session does so,
    as TensorFlow 1 sessions do.
    """

    __slots__ = ("generator", "seed", "entropy")

    def __init__(self, seed, entropy=False):
        self.seed = seed
        self.entropy = _entropy(seed) if entropy is False else entropy
        self.generator = np.random.default_rng(self.entropy)

    def fresh(self):
        return RandomState(self.seed, self.entropy)

    def __repr__(self):
        return f"RandomState(seed={self.seed})"


# Eager draws without an op seed continue one generator, made at the first of them (after
# each set_seed): reproducible as a sequence, and without seeding a generator per draw, which
# costs as much as drawing a batch of numbers.
_eager_stream = {}


def _state(seed):
    """The generator a new random op draws from."""
    if seed is not None or not context.executing_eagerly():
        return RandomState(seed)
    stream = _eager_stream.get("state")
    if stream is None:
        stream = _eager_stream["state"] = RandomState(None)
    return stream


# The kind of the attribute holding a random op's generator.
RANDOM_STATE = kinds.AttrKind("a random state", lambda value: isinstance(value, RandomState))


def _random_infer(inputs, attrs):
    return [(attrs["dtype"], shape_from_tensor(inputs[0]))]


def _normal_kernel(shape, mean, stddev, dtype, state):
    draw = state.generator.standard_normal(tuple(shape))
    return (draw * stddev + mean).astype(dtype.as_numpy_dtype)


def _uniform_kernel(shape, minval, maxval, dtype, state):
    if dtype.is_integer:
        return state.generator.integers(
            minval, maxval, size=tuple(shape), dtype=dtype.as_numpy_dtype
        )
    draw = state.generator.random(tuple(shape))
    if (minval, maxval) != (0, 1):  # [0, 1) needs no scaling: the same numbers, two passes fewer
        draw = draw * (maxval - minval) + minval
    return draw.astype(dtype.as_numpy_dtype, copy=False)


def _float_infer(op_type, integers=False):
    """``infer`` of a row drawing floats, or integers too where ``integers``."""

    def infer(inputs, attrs):
        if not (attrs["dtype"].is_floating or (integers and attrs["dtype"].is_integer)):
            raise TypeError(f"{op_type} cannot produce {attrs['dtype'].name} values")
        return _random_infer(inputs, attrs)

    return infer


_RANDOM = NotDifferentiable("it draws random numbers")
RANDOM_NORMAL = OpDef(
    "RandomStandardNormal",
    _normal_kernel,
    _float_infer("RandomStandardNormal"),
    stateful=True,
    default_name="random_normal",
    attrs={"mean": kinds.FLOAT, "stddev": kinds.FLOAT, "dtype": kinds.DTYPE, "state": RANDOM_STATE},
    gradient=_RANDOM,
)
RANDOM_UNIFORM = OpDef(
    "RandomUniform",
    _uniform_kernel,
    _float_infer("RandomUniform", integers=True),
    stateful=True,
    default_name="random_uniform",
    attrs={
        "minval": kinds.NUMBER,
        "maxval": kinds.NUMBER,
        "dtype": kinds.DTYPE,
        "state": RANDOM_STATE,
    },
    gradient=_RANDOM,
)


def normal(shape, mean=0.0, stddev=1.0, dtype=dtypes.float32, seed=None, name=None):
    """Samples from a normal distribution.

    >>> import runtime as rt
    >>> rt.random.normal([2, 3]).shape
    TensorShape([2, 3])
    """
    dtype = dtypes.as_dtype(dtype)
    attrs = {
        "mean": float(mean),
        "stddev": float(stddev),
        "dtype": dtype,
        "state": _state(seed),
    }
    return bind1(RANDOM_NORMAL, [shape_operand(shape)], attrs, name or "random_normal")


def uniform(shape, minval=0, maxval=None, dtype=dtypes.float32, seed=None, name=None):
    """Samples uniformly from ``[minval, maxval)``; ``maxval`` defaults to 1 for floats.

    >>> import runtime as rt
    >>> x = rt.random.uniform([100], minval=2, maxval=3)
    >>> bool(rt.reduce_all((x >= 2) & (x < 3)))
    True
    """
    dtype = dtypes.as_dtype(dtype)
    if maxval is None:
        if dtype.is_integer:
            raise ValueError("uniform(): maxval must be given for integer dtypes")
        maxval = 1
    bounds = [_known(minval), _known(maxval)]
    if None in bounds:
        return _uniform_between(shape, minval, maxval, dtype, seed, name)
    number = int if dtype.is_integer else float
    minval, maxval = number(bounds[0]), number(bounds[1])
    attrs = {"minval": minval, "maxval": maxval, "dtype": dtype, "state": _state(seed)}
    return bind1(RANDOM_UNIFORM, [shape_operand(shape)], attrs, name or "random_uniform")


def _known(bound):
    """A bound's value when it is known before the graph runs (a number, a constant tensor)."""
    if isinstance(bound, Tensor):
        value = constant_value(bound)
        return None if value is None or np.ndim(value) else value.item()
    return bound


def _uniform_between(shape, minval, maxval, dtype, seed, name):
    """Uniform samples between bounds known only when the graph runs (tensors in a loop, say):
    samples from [0, 1) scaled by ops, so the bounds are inputs of the graph, not attributes."""
    unit_dtype = dtypes.float64 if dtype.is_integer else dtype
    minval, maxval = convert_to_tensor(minval, dtype), convert_to_tensor(maxval, dtype)
    attrs = {"minval": 0, "maxval": 1, "dtype": unit_dtype, "state": _state(seed)}
    unit = bind1(RANDOM_UNIFORM, [shape_operand(shape)], attrs, name or "random_uniform")
    span = math_ops.subtract(maxval, minval)
    if dtype.is_integer:  # the scaled samples are >= 0: the cast rounds them down
        return math_ops.add(minval, cast(math_ops.multiply(unit, cast(span, unit_dtype)), dtype))
    return math_ops.add(math_ops.multiply(unit, span), minval)
