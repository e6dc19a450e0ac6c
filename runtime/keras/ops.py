"""``rt.keras.ops``: the Keras 3 ops a model or a custom loop most often reaches for.

Each takes tensors, arrays, lists or numbers and gives a tensor, with Keras' names and
arguments (``mean(x, axis=None, keepdims=False)``, ``concatenate(xs, axis=0)``,
``transpose(x, axes=None)``...), mapped onto ``rt``'s ops: they run eagerly, inside
an ``ag.function`` and under a ``GradientTape``. Keras' wider set (``keras.ops.nn``,
``keras.ops.image``, the rest of ``keras.ops.numpy``) is not here.

>>> import runtime as rt
>>> ops = rt.keras.ops
>>> ops.convert_to_numpy(ops.mean(ops.square(ops.arange(4)), axis=0))   # (0 + 1 + 4 + 9) / 4
np.float32(3.5)
>>> ops.argmax([[1, 5], [7, 2]])                                      # over the flattened values
<rt.Tensor: shape=(), dtype=int32, numpy=2>
"""

from __future__ import annotations

import builtins

import numpy as np

from runtime.core import dtypes
from runtime.core.tensor import Tensor
from runtime.keras import backend
from runtime.ops import activation_ops, array_ops, broadcast_ops, math_ops, nn_ops, reduction_ops
from runtime.ops.clip_ops import clip_by_value
from runtime.ops.constant_ops import cast as _cast
from runtime.ops.constant_ops import convert_to_tensor as _convert
from runtime.ops.constant_ops import range as _range
from runtime.ops.indexing_ops import gather
from runtime.ops.indexing_ops import one_hot as _one_hot
from runtime.ops.linalg_ops import einsum
from runtime.ops.linalg_ops import eye as _eye
from runtime.ops.padding_ops import tile
from runtime.ops.scan_ops import cumsum as _cumsum
from runtime.ops.sequence_ops import linspace as sequence_linspace

# --- conversion ----------------------------------------------------------------------------


def convert_to_tensor(x, dtype=None, sparse=None):
    """``x`` as a tensor (of ``dtype`` when given)."""
    x = _convert(x)
    return x if dtype is None else cast(x, dtype)


def convert_to_numpy(x):
    """``x`` as a numpy array (or numpy scalar)."""
    return x.numpy() if isinstance(x, Tensor) or hasattr(x, "numpy") else np.asarray(x)


def cast(x, dtype):
    """``x`` as ``dtype``."""
    x = _convert(x)
    dtype = dtypes.as_dtype(dtype)
    return x if x.dtype is dtype else _cast(x, dtype)


def is_tensor(x):
    """Whether ``x`` is a tensor."""
    return isinstance(x, Tensor)


def shape(x):
    """The shape of ``x`` as a tuple (None where unknown)."""
    return tuple(_convert(x).shape.as_list())


def _float(x):
    """``x`` as a tensor, integers and bools as ``floatx`` (Keras' mean of ints is a float)."""
    x = _convert(x)
    return x if x.dtype.is_floating else _cast(x, backend.floatx())


# --- creation --------------------------------------------------------------------------------


def zeros(shape, dtype=None):
    return broadcast_ops.zeros(shape, dtype or backend.floatx())


def ones(shape, dtype=None):
    return broadcast_ops.ones(shape, dtype or backend.floatx())


def full(shape, fill_value, dtype=None):
    return cast(broadcast_ops.fill(shape, fill_value), dtype or backend.floatx())


def zeros_like(x, dtype=None):
    return array_ops.zeros_like(_convert(x), dtype=dtype)


def ones_like(x, dtype=None):
    return array_ops.ones_like(_convert(x), dtype=dtype)


def arange(start, stop=None, step=1, dtype=None):
    """``start, start + step, ...`` below ``stop`` (``arange(n)``: ``0 .. n - 1``)."""
    return _range(start, stop, step, dtype=dtype)


def eye(N, M=None, dtype=None):
    return _eye(N, M, dtype=dtype or backend.floatx())


# --- arithmetic and math ----------------------------------------------------------------------

add, subtract, multiply, divide = (
    math_ops.add,
    math_ops.subtract,
    math_ops.multiply,
    math_ops.divide,
)
maximum, minimum, power = math_ops.maximum, math_ops.minimum, math_ops.pow
matmul, floor_divide, mod = math_ops.matmul, math_ops.floordiv, math_ops.mod
exp, log, sqrt, square, abs = (
    math_ops.exp,
    math_ops.log,
    math_ops.sqrt,
    math_ops.square,
    math_ops.abs,
)
negative, sign, sin, cos, tanh = (
    math_ops.negative,
    math_ops.sign,
    math_ops.sin,
    math_ops.cos,
    math_ops.tanh,
)
equal, not_equal, greater, less = (
    math_ops.equal,
    math_ops.not_equal,
    math_ops.greater,
    math_ops.less,
)
greater_equal, less_equal = math_ops.greater_equal, math_ops.less_equal
logical_and, logical_or, logical_not = (
    math_ops.logical_and,
    math_ops.logical_or,
    math_ops.logical_not,
)
stop_gradient, where = array_ops.stop_gradient, broadcast_ops.where


def clip(x, x_min, x_max):
    return clip_by_value(_convert(x), x_min, x_max)


# --- reductions ------------------------------------------------------------------------------


def sum(x, axis=None, keepdims=False):
    return reduction_ops.reduce_sum(_convert(x), axis=axis, keepdims=keepdims)


def mean(x, axis=None, keepdims=False):
    return reduction_ops.reduce_mean(_float(x), axis=axis, keepdims=keepdims)


def max(x, axis=None, keepdims=False):
    return reduction_ops.reduce_max(_convert(x), axis=axis, keepdims=keepdims)


def min(x, axis=None, keepdims=False):
    return reduction_ops.reduce_min(_convert(x), axis=axis, keepdims=keepdims)


def prod(x, axis=None, keepdims=False):
    return reduction_ops.reduce_prod(_convert(x), axis=axis, keepdims=keepdims)


def _arg(reduce, x, axis, keepdims):
    x = _convert(x)
    if axis is None:  # over the flattened values, as numpy
        x, axis = array_ops.reshape(x, [-1]), 0
    index = _cast(reduce(x, axis=axis), dtypes.int32)
    return array_ops.expand_dims(index, axis) if keepdims else index


def argmax(x, axis=None, keepdims=False):
    """The index of the largest value along ``axis`` (of the flattened values for None)."""
    return _arg(reduction_ops.argmax, x, axis, keepdims)


def argmin(x, axis=None, keepdims=False):
    """The index of the smallest value along ``axis`` (of the flattened values for None)."""
    return _arg(reduction_ops.argmin, x, axis, keepdims)


def cumsum(x, axis=None):
    x = _convert(x)
    if axis is None:
        x, axis = array_ops.reshape(x, [-1]), 0
    return _cumsum(x, axis=axis)


# --- shapes ------------------------------------------------------------------------------------


def reshape(x, newshape):
    return array_ops.reshape(_convert(x), newshape)


def transpose(x, axes=None):
    return array_ops.transpose(_convert(x), axes)


def expand_dims(x, axis):
    return array_ops.expand_dims(_convert(x), axis)


def squeeze(x, axis=None):
    return array_ops.squeeze(_convert(x), axis)


def concatenate(xs, axis=0):
    return array_ops.concat([_convert(x) for x in xs], axis)


def stack(x, axis=0):
    return array_ops.stack([_convert(item) for item in x], axis)


def take(x, indices, axis=None):
    """The elements of ``x`` at ``indices`` along ``axis`` (of the flattened ``x`` for None)."""
    x = _convert(x)
    if axis is None:
        x, axis = array_ops.reshape(x, [-1]), 0
    return gather(x, indices, axis=axis)


# --- neural-network functions ----------------------------------------------------------------

relu, sigmoid = nn_ops.relu, math_ops.sigmoid


def softmax(x, axis=-1):
    return nn_ops.softmax(_convert(x), axis=axis)


def log_softmax(x, axis=-1):
    return activation_ops.log_softmax(_convert(x), axis=axis)


def softplus(x):
    """``log(1 + exp(x))``, finite for large ``x``, exact for large ``-x``."""
    return activation_ops.softplus(_convert(x))


def one_hot(x, num_classes, axis=-1, dtype=None):
    """Each index of ``x`` as a one-hot vector of ``num_classes`` along ``axis``."""
    return _one_hot(_convert(x), num_classes, axis=axis, dtype=dtype or backend.floatx())


# --- statistics, norms, splitting and repeating (composed of the ops above) --------------------


def logsumexp(x, axis=None, keepdims=False):
    """``log(sum(exp(x), axis))``, computed from ``x - max(x)`` so that it does not overflow."""
    x = _float(x)
    peak = stop_gradient(reduction_ops.reduce_max(x, axis=axis, keepdims=True))
    peak = where(math_ops.equal(math_ops.abs(peak), np.inf), array_ops.zeros_like(peak), peak)
    total = reduction_ops.reduce_sum(math_ops.exp(x - peak), axis=axis, keepdims=True)
    result = math_ops.log(total) + peak
    return result if keepdims else _drop_axes(result, axis)


def _drop_axes(x, axis):
    if axis is None:
        return array_ops.reshape(x, [])
    return array_ops.squeeze(x, axis=list(axis) if isinstance(axis, (list, tuple)) else [axis])


def var(x, axis=None, keepdims=False):
    """The variance along ``axis``: ``mean(square(x - mean(x)))`` (numpy's, ``ddof=0``)."""
    x = _float(x)
    centred = x - reduction_ops.reduce_mean(x, axis=axis, keepdims=True)
    return reduction_ops.reduce_mean(math_ops.square(centred), axis=axis, keepdims=keepdims)


def std(x, axis=None, keepdims=False):
    """The standard deviation along ``axis``: ``sqrt(var(x))``."""
    return math_ops.sqrt(var(x, axis=axis, keepdims=keepdims))


def moments(x, axes, keepdims=False, synchronized=False):
    """``(mean, variance)`` along ``axes``.

    >>> [float(t) for t in moments([1.0, 2.0, 3.0, 4.0], axes=[0])]
    [2.5, 1.25]
    """
    del synchronized  # one device
    x = _float(x)
    return mean(x, axis=axes, keepdims=keepdims), var(x, axis=axes, keepdims=keepdims)


def norm(x, ord=None, axis=None, keepdims=False):
    """numpy's ``linalg.norm``: of the flattened values (2-norm) for ``axis=None``, a vector
    norm (``ord`` None or 2, 1, ``inf``, ``-inf``, 0 or any p) along one axis, the Frobenius
    norm (``ord`` None or ``"fro"``) over two axes.

    >>> float(norm([[3.0, 0.0], [0.0, 4.0]]))
    5.0
    """
    x = _float(x)
    if axis is None:
        if ord not in (None, 2, "fro") and x.shape.rank != 1:
            raise NotImplementedError(f"norm of ord={ord!r} without an axis: give `axis`")
        axis = list(range(x.shape.rank))
        ord = None if ord == "fro" else ord
    if isinstance(axis, (list, tuple)) and len(axis) == 2:
        if ord not in (None, "fro"):
            raise NotImplementedError(f"matrix norm of ord={ord!r}: only 'fro' is here")
        ord = None
    if ord is None or ord == 2:
        return math_ops.sqrt(reduction_ops.reduce_sum(math_ops.square(x), axis, keepdims))
    magnitude = math_ops.abs(x)
    if ord == np.inf:
        return reduction_ops.reduce_max(magnitude, axis, keepdims)
    if ord == -np.inf:
        return reduction_ops.reduce_min(magnitude, axis, keepdims)
    if ord == 0:
        nonzero = _cast(math_ops.not_equal(x, 0.0), x.dtype)
        return reduction_ops.reduce_sum(nonzero, axis, keepdims)
    total = reduction_ops.reduce_sum(math_ops.pow(magnitude, float(ord)), axis, keepdims)
    return math_ops.pow(total, 1.0 / float(ord))


def split(x, indices_or_sections, axis=0):
    """numpy's ``split``: into ``indices_or_sections`` equal parts (ValueError unless the axis
    divides), or at the given indices.

    >>> [t.numpy().tolist() for t in split([1, 2, 3, 4, 5], [1, 3])]
    [[1], [2, 3], [4, 5]]
    """
    x = _convert(x)
    length = x.shape[axis]
    if length is None:
        raise ValueError(f"split needs the length of axis {axis}; got shape {x.shape}")
    if isinstance(indices_or_sections, (int, np.integer)):
        if length % indices_or_sections:
            raise ValueError("array split does not result in an equal division")
        sizes = [length // indices_or_sections] * int(indices_or_sections)
    else:
        bounds = [0, *(builtins.min(builtins.max(int(i), 0), length) for i in indices_or_sections)]
        bounds.append(length)
        if bounds != sorted(bounds):  # parts that overlap or are empty, as numpy slices them
            return [
                gather(
                    x,
                    _convert(np.arange(start, builtins.max(start, end), dtype=np.int32)),
                    axis=axis,
                )
                for start, end in zip(bounds, bounds[1:])
            ]
        sizes = [end - start for start, end in zip(bounds, bounds[1:])]
    return array_ops.split(x, sizes, axis=axis)


def repeat(x, repeats, axis=None):
    """numpy's ``repeat``: each element ``repeats`` times (an int, or one count per element)
    along ``axis`` (of the flattened values for None).

    >>> repeat([[1, 2]], 2, axis=1).numpy().tolist()
    [[1, 1, 2, 2]]
    """
    x = _convert(x)
    if axis is None:
        x, axis = array_ops.reshape(x, [-1]), 0
    length = x.shape[axis]
    if length is None:
        raise ValueError(f"repeat needs the length of axis {axis}; got shape {x.shape}")
    picks = np.repeat(np.arange(length), np.asarray(repeats))
    return gather(x, _convert(picks.astype(np.int32)), axis=axis)


def linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0):
    """``num`` evenly spaced values from ``start`` to ``stop`` (left out with
    ``endpoint=False``); with ``retstep``, ``(values, step)``.

    >>> linspace(0.0, 1.0, 4, endpoint=False).numpy().tolist()
    [0.0, 0.25, 0.5, 0.75]
    """
    divisions = num - 1 if endpoint else num
    step = (stop - start) / divisions if divisions > 0 else np.nan
    last = stop if endpoint else start + step * (num - 1)
    values = sequence_linspace(_float(start), _float(last) if num > 1 else _float(start), num,
                               axis=axis)  # fmt: skip
    values = values if dtype is None else cast(values, dtype)
    return (values, step) if retstep else values


__all__ = [
    "abs",
    "add",
    "arange",
    "argmax",
    "argmin",
    "cast",
    "clip",
    "concatenate",
    "convert_to_numpy",
    "convert_to_tensor",
    "cos",
    "cumsum",
    "divide",
    "einsum",
    "equal",
    "exp",
    "expand_dims",
    "eye",
    "floor_divide",
    "full",
    "greater",
    "greater_equal",
    "is_tensor",
    "less",
    "less_equal",
    "linspace",
    "log",
    "log_softmax",
    "logsumexp",
    "logical_and",
    "logical_not",
    "logical_or",
    "matmul",
    "max",
    "maximum",
    "mean",
    "min",
    "minimum",
    "mod",
    "moments",
    "multiply",
    "negative",
    "norm",
    "not_equal",
    "one_hot",
    "ones",
    "ones_like",
    "power",
    "prod",
    "relu",
    "repeat",
    "reshape",
    "shape",
    "sigmoid",
    "sign",
    "sin",
    "softmax",
    "softplus",
    "sqrt",
    "square",
    "split",
    "squeeze",
    "stack",
    "std",
    "stop_gradient",
    "subtract",
    "sum",
    "take",
    "tanh",
    "tile",
    "transpose",
    "var",
    "where",
    "zeros",
    "zeros_like",
]
