"""What each public op accepts, beside its definition: the inputs its tests are run on.

PyTorch's OpInfo is the model. A public op function is registered with
``@op_info(name, samples, reference=...)`` where it is defined, and
``tests/runtime/ops/test_op_infos.py`` runs every registered op on each of its
samples, in every way the project runs ops: eagerly, in a graph, compiled,
with XLA, exported to ONNX, saved and loaded, and differentiated (against
central differences). So a new op's tests are the one decorator on it.

``samples(rng)`` returns the op's ``Sample``s: positional arguments (numpy
arrays; those of float dtypes are the ones differentiated) and keyword
arguments (Python values, fixed when a graph is traced). ``reference``, when
given, computes the expected result from numpy values by another path than
the op's kernel (plain Python, the C library, a documented formula).

An op built from other ops (a *composite*: ``rt.nn.gelu``) is a plain function
over them, with no row in the op table and no rule in any backend: its
gradient, its XLA and its ONNX forms are those of the ops it is made of. It is
registered the same way, so it is tested the same way.

>>> import numpy as np
>>> s = floats(-1.0, 1.0, shapes=[(2,)], dtypes=["float64"])(np.random.default_rng(0))
>>> len(s), s[0].args[0].dtype, s[0].kwargs
(1, dtype('float64'), {})
"""

from __future__ import annotations

import decimal
from collections.abc import Callable
from typing import NamedTuple

import numpy as np


class Sample(NamedTuple):
    """One call of an op: ``fn(*args, **kwargs)``."""

    args: tuple
    kwargs: dict


class OpInfo(NamedTuple):
    """A public op and what tests it: ``name`` (as users spell it, ``"rt.math.erf"``), the
    function, its ``samples(rng)``, an optional ``reference`` on numpy values, and whether a
    gradient flows through it."""

    name: str
    fn: Callable
    samples: Callable
    reference: Callable | None
    differentiable: bool


OP_INFOS: dict[str, OpInfo] = {}
"""Every registered op by its public name."""


def op_info(name, samples, reference=None, differentiable=True):
    """Registers the decorated public op function under ``name`` with its samples.

    >>> @op_info("demo.double", floats(0.0, 1.0), reference=lambda x: 2 * x)
    ... def double(x, name=None):
    ...     return x * 2
    >>> OP_INFOS.pop("demo.double").fn is double
    True
    """

    def register(fn):
        if name in OP_INFOS:
            raise ValueError(f"op {name!r} is registered twice")
        OP_INFOS[name] = OpInfo(name, fn, samples, reference, differentiable)
        return fn

    return register


def floats(low, high, shapes=((), (3,), (2, 4)), dtypes=("float32", "float64"), kwargs=({},)):
    """Samples of one float tensor drawn uniformly from ``[low, high)``: each shape in each
    dtype, with each of the keyword argument sets ``kwargs``."""

    def samples(rng):
        return [
            Sample((np.asarray(rng.uniform(low, high, shape), dtype)[()],), dict(extra))
            for extra in kwargs
            for dtype in dtypes
            for shape in shapes
        ]

    return samples


def values(*numbers, dtypes=("float32", "float64")):
    """One sample of the given values, in each dtype: the inputs a random draw misses (tiny
    ones where a formula cancels, overflowing ones, 0, -1, infinities)."""

    def samples(rng):
        return [Sample((np.asarray(numbers, dtype),), {}) for dtype in dtypes]

    return samples


def combined(*makers):
    """The samples of each maker, one after another."""
    return lambda rng: [sample for make in makers for sample in make(rng)]


def by_decimal(fn, digits=40):
    """A reference computed with Python's ``decimal`` to ``digits`` digits, element by element:
    ``fn`` takes and returns a ``Decimal``; the result is float64. Finite inputs only.

    >>> import decimal
    >>> float(by_decimal(lambda d: (1 + d).ln())(np.float64(1e-20)))  # log1p
    1e-20
    """

    def reference(x):
        def one(value):
            if not np.isfinite(value):
                raise ValueError(f"by_decimal takes finite inputs, not {value}")
            with decimal.localcontext() as context:
                context.prec = digits
                return float(fn(decimal.Decimal(float(value))))

        return np.vectorize(one, otypes=[np.float64])(np.asarray(x, np.float64))

    return reference
