"""What each public op accepts, beside its definition: the inputs its tests are run on.

PyTorch's OpInfo is the model. A public op function is registered with
``@op_info(name, samples, reference=...)`` where it is defined, and
``tests/runtime/ops/test_op_infos.py`` runs every registered op on each of its
samples, in every way the project runs ops: eagerly, in a graph, compiled,
with XLA, exported to ONNX, saved and loaded, and differentiated (against
central differences). So a new op's tests are the one decorator on it.

``samples(rng)`` returns the op's ``Sample``s: positional arguments (numpy
arrays: the op's tensors; the gradient is checked for the float64 ones, while
integer and bool ones, indices, labels or conditions, are inputs only) and
keyword arguments (Python values, fixed when a graph is traced). ``floats``,
``integers`` and ``bools`` make samples of one or several tensors, ``joined``
puts makers together. ``reference``, when given, computes the expected result
from the same numpy arguments by another path than the op's kernel (plain
Python per element: ``by_element``; per reduced row: ``by_reduction``; index
arithmetic, a documented formula). A float reference may compute in float64:
the op's result is expected in the float dtype of the sample's first float
argument; any other result (bools, indices, a division of integers) in the
reference's own dtype. An op whose arguments are not its tensors one by one
says how it is called on them: ``call=listed`` for ``concat([x, y])``.

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

import math
from collections.abc import Callable
from typing import NamedTuple

import numpy as np


class Sample(NamedTuple):
    """One call of an op: ``fn(*args, **kwargs)``."""

    args: tuple
    kwargs: dict


def _positional(fn, *args, **kwargs):
    return fn(*args, **kwargs)


def listed(fn, *args, **kwargs):
    """How an op taking a list of tensors (``concat``, ``stack``, ``add_n``) is called on a
    sample's tensors: ``fn([*args], **kwargs)``."""
    return fn(list(args), **kwargs)


class OpInfo(NamedTuple):
    """A public op and what tests it: ``name`` (as users spell it, ``"rt.math.erf"``), the
    function, its ``samples(rng)``, an optional ``reference`` on numpy values, whether a
    gradient flows through it, ``call(fn, *args, **kwargs)``: how ``fn`` is called on a
    sample's tensors (``listed`` for an op taking a list), and whether its formula ``cancels``
    (``gelu``'s ``1 + erf(x)`` where erf is near -1): its float errors are then relative to
    its inputs rather than to its results."""

    name: str
    fn: Callable
    samples: Callable
    reference: Callable | None
    differentiable: bool
    call: Callable = _positional
    cancels: bool = False

    def run(self, *args, **kwargs):
        """The op on a sample's tensor arguments ``args``: ``self.call(self.fn, ...)``."""
        return self.call(self.fn, *args, **kwargs)


OP_INFOS: dict[str, OpInfo] = {}
"""Every registered op by its public name."""


def op_info(name, samples, reference=None, differentiable=True, call=_positional, cancels=False):
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
        OP_INFOS[name] = OpInfo(name, fn, samples, reference, differentiable, call, cancels)
        return fn

    return register


SHAPES = ((), (3,), (2, 4))
"""The default shapes of a one-tensor sample."""

PAIRS = (((2, 3), (2, 3)), ((3,), ()), ((2, 1), (3,)))
"""The default shapes of a two-tensor sample: equal, a scalar, both broadcast."""


def _tensors(draw, shapes, dtypes, kwargs, arity):
    """Samples of ``arity`` tensors drawn by ``draw(rng, shape, dtype, k)`` (``k``: which
    argument): each entry of
    ``shapes`` (a shape, or for ``arity > 1`` a shape per tensor) in each dtype, with each of
    the keyword argument sets ``kwargs``."""
    if shapes is None:
        shapes = SHAPES if arity == 1 else PAIRS
    if arity == 1:
        shapes = [(shape,) for shape in shapes]

    def samples(rng):
        return [
            Sample(tuple(draw(rng, shape, dtype, k) for k, shape in enumerate(entry)), dict(extra))
            for extra in kwargs
            for dtype in dtypes
            for entry in shapes
        ]

    return samples


def _bound(bound, k):
    """Argument ``k``'s bound: ``bound``, or ``bound[k]`` when it has one per argument."""
    return bound[k] if isinstance(bound, (tuple, list)) else bound


def floats(low, high, shapes=None, dtypes=("float32", "float64"), kwargs=({},), arity=1):
    """Samples of ``arity`` float tensors drawn uniformly from ``[low, high)`` (or, where those
    are tuples, from ``[low[k], high[k])`` for argument ``k``): each shape
    (``SHAPES``, or ``PAIRS`` for two tensors) in each dtype, with each of the keyword
    argument sets ``kwargs``.

    >>> [s.args[1].shape for s in floats(0, 1, dtypes=["float64"], arity=2)(np.random.default_rng())]
    [(2, 3), (), (3,)]
    """
    return _tensors(
        lambda rng, shape, dtype, k: np.asarray(rng.uniform(_bound(low, k), _bound(high, k), shape), dtype)[()],
        shapes, dtypes, kwargs, arity,
    )  # fmt: skip


def integers(low, high, shapes=None, dtypes=("int32",), kwargs=({},), arity=1):
    """Samples of integer tensors drawn uniformly from ``[low, high)``, as ``floats``. Integer
    arguments are never differentiated (only float64 ones are)."""
    return _tensors(
        lambda rng, shape, dtype, k: np.asarray(rng.integers(_bound(low, k), _bound(high, k), shape), dtype)[()],
        shapes, dtypes, kwargs, arity,
    )  # fmt: skip


def bools(shapes=None, kwargs=({},), arity=1):
    """Samples of bool tensors, each element True or False at random, as ``floats``.

    >>> bools(shapes=[(2,)])(np.random.default_rng(1))[0].args[0].dtype
    dtype('bool')
    """
    return _tensors(
        lambda rng, shape, dtype, k: np.asarray(rng.integers(0, 2, shape), dtype)[()],
        shapes, ("bool",), kwargs, arity,
    )  # fmt: skip


def joined(*makers):
    """The samples of each of ``makers`` in turn: ``joined(floats(-1, 1), integers(-5, 5))``."""
    return lambda rng: [sample for make in makers for sample in make(rng)]


def by_element(fn, dtype=None):
    """A reference on numpy values: Python's ``fn`` (``math.erf``, ``operator.add``) on each
    element of the broadcast arguments. The result is in ``dtype``; by default bools if ``fn``
    gives bools, else in the dtype of the first argument that is not bool.

    >>> import operator
    >>> by_element(operator.floordiv)(np.array([-7, 7], np.int32), np.array(2, np.int32))
    array([-4,  3], dtype=int32)
    """

    def reference(*args):
        values = np.broadcast_arrays(*[np.asarray(a) for a in args])
        result = [fn(*[v.item() for v in items]) for items in zip(*[v.flat for v in values])]
        if dtype is not None:
            kind = np.dtype(dtype)
        elif result and all(type(r) is bool for r in result):
            kind = np.dtype(bool)
        else:
            kind = next((v.dtype for v in values if v.dtype != bool), np.dtype(bool))
        return np.asarray(result, kind).reshape(values[0].shape)

    return reference


def by_reduction(fn, dtype=None):
    """A reference of a reduction on numpy values: Python's ``fn`` (``sum``, ``max``) on the
    list of the elements each result reduces, over ``axis`` (all axes by default), the reduced
    dims kept with ``keepdims``; in ``dtype``, by default bools if ``fn`` gives bools, else
    ``x``'s dtype.

    >>> by_reduction(sum)(np.array([[1, 2], [3, 4]], np.int32), axis=1, keepdims=True)
    array([[3],
           [7]], dtype=int32)
    """

    def reference(x, axis=None, keepdims=False, **unused):
        x = np.asarray(x)
        axes = range(x.ndim) if axis is None else [a % x.ndim for a in np.atleast_1d(axis)]
        kept = [d for d in range(x.ndim) if d not in axes]
        lines = [x.shape[d] for d in kept], [x.shape[d] for d in axes]
        rows = np.transpose(x, kept + list(axes)).reshape(math.prod(lines[0]), math.prod(lines[1]))
        result = np.asarray([fn(row.tolist()) for row in rows])
        if dtype is not None or result.dtype != bool:
            result = result.astype(x.dtype if dtype is None else dtype)
        shape = (
            [1 if d in axes else n for d, n in enumerate(x.shape)]
            if keepdims
            else [x.shape[d] for d in kept]
        )
        return result.reshape(shape)

    return reference


def values(*numbers, dtypes=("float32", "float64")):
    """One sample of the given values, in each dtype: the inputs a random draw misses (tiny
    ones where a formula cancels, overflowing ones, 0, -1, infinities)."""

    def samples(rng):
        return [Sample((np.asarray(numbers, dtype),), {}) for dtype in dtypes]

    return samples


def by_decimal(fn, digits=40):
    """A reference computed with Python's ``decimal`` to ``digits`` digits, element by element:
    ``fn`` takes and returns a ``Decimal``; the result is float64. Finite inputs only.

    >>> import decimal
    >>> float(by_decimal(lambda d: (1 + d).ln())(np.float64(1e-20)))  # log1p
    1e-20
    """

    import decimal  # only where a test asks for a reference: not on every import of runtime

    def reference(x):
        def one(value):
            if not np.isfinite(value):
                raise ValueError(f"by_decimal takes finite inputs, not {value}")
            with decimal.localcontext() as context:
                context.prec = digits
                return float(fn(decimal.Decimal(float(value))))

        return np.vectorize(one, otypes=[np.float64])(np.asarray(x, np.float64))

    return reference
