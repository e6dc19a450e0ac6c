"""The samples of the ops whose modules have no room for them (``math_ops``, ``array_ops``).

Each op is registered with ``runtime.ops.op_info`` as in its own module's last block:
the inputs its tests run on and a reference computed another way than its kernel
(Python's operators or ``math`` on each element, index arithmetic, hand-written
numpy formulas).

>>> from runtime.ops.op_info import OP_INFOS
>>> OP_INFOS["rt.add"].fn is add
True
"""

from __future__ import annotations

import builtins
import math
import operator

import numpy as np

from runtime.ops.array_ops import (
    concat,
    expand_dims,
    identity,
    ones_like,
    reshape,
    squeeze,
    stack,
    stop_gradient,
    transpose,
    unstack,
    zeros_like,
)
from runtime.ops.math_ops import (
    abs,
    add,
    add_n,
    cos,
    divide,
    equal,
    exp,
    floordiv,
    greater,
    greater_equal,
    less,
    less_equal,
    log,
    logical_and,
    logical_not,
    logical_or,
    logical_xor,
    matmul,
    maximum,
    minimum,
    mod,
    multiply,
    negative,
    not_equal,
    pow,
    sigmoid,
    sign,
    sin,
    sqrt,
    square,
    subtract,
    tanh,
)
from runtime.ops.op_info import (
    PAIRS,
    SHAPES,
    Sample,
    bools,
    by_element,
    floats,
    integers,
    joined,
    listed,
    op_info,
)

# --- elementwise -------------------------------------------------------------------------------


def _reals(low, high, arity=1):
    """float32 on the largest shape (of ``SHAPES`` or ``PAIRS``), float64 on the others: those
    the gradient is checked on, scalars and broadcasting among them."""
    shapes = SHAPES if arity == 1 else PAIRS
    return joined(
        floats(low, high, shapes=shapes[-1:] if arity == 1 else shapes[:1], dtypes=["float32"], arity=arity),
        floats(low, high, shapes=shapes[:-1] if arity == 1 else shapes[1:], dtypes=["float64"], arity=arity),
    )  # fmt: skip


_REALS = _reals(-3.0, 3.0)
_POSITIVE = _reals(0.1, 4.0)
_SIGNED = joined(_REALS, integers(-9, 10, shapes=[(3,)]))
_PAIRS = joined(_reals(-3.0, 3.0, arity=2), integers(-5, 6, shapes=[((2, 3), (3,))], arity=2))
_BOOL_PAIRS = bools(shapes=[((2, 3), (2, 3)), ((3,), ())], arity=2)


def _sign(v):
    return (v > 0) - (v < 0)


def _sigmoid(v):
    return 0.5 * (1 + math.tanh(v / 2))  # not the kernel's 1 / (1 + exp(-v))


for _name, _op, _samples, _scalar in (
    ("rt.negative", negative, _SIGNED, operator.neg),
    ("rt.abs", abs, _SIGNED, builtins.abs),
    ("rt.sign", sign, _SIGNED, _sign),
    ("rt.sqrt", sqrt, _POSITIVE, math.sqrt),
    ("rt.square", square, _SIGNED, lambda v: v * v),
    ("rt.exp", exp, _REALS, math.exp),
    ("rt.log", log, _POSITIVE, math.log),
    ("rt.sin", sin, _REALS, math.sin),
    ("rt.cos", cos, _REALS, math.cos),
    ("rt.tanh", tanh, _REALS, math.tanh),
    ("rt.sigmoid", sigmoid, _REALS, _sigmoid),
    ("rt.logical_not", logical_not, bools(shapes=[(), (2, 3)]), operator.not_),
    ("rt.add", add, _PAIRS, operator.add),
    ("rt.subtract", subtract, _PAIRS, operator.sub),
    ("rt.multiply", multiply, _PAIRS, operator.mul),
    ("rt.maximum", maximum, _PAIRS, builtins.max),
    ("rt.minimum", minimum, _PAIRS, builtins.min),
    ("rt.less", less, _PAIRS, operator.lt),
    ("rt.less_equal", less_equal, _PAIRS, operator.le),
    ("rt.greater", greater, _PAIRS, operator.gt),
    ("rt.greater_equal", greater_equal, _PAIRS, operator.ge),
    ("rt.equal", equal, _PAIRS, operator.eq),
    ("rt.not_equal", not_equal, _PAIRS, operator.ne),
    ("rt.logical_and", logical_and, _BOOL_PAIRS, operator.and_),
    ("rt.logical_or", logical_or, _BOOL_PAIRS, operator.or_),
    ("rt.logical_xor", logical_xor, _BOOL_PAIRS, operator.xor),
):
    op_info(_name, _samples, by_element(_scalar))(_op)

# Divisors away from 0, of either sign; integers divided as float64, as TensorFlow does.
_DIVISIONS = joined(
    _reals((-3.0, 0.5), (3.0, 3.0), arity=2),
    floats((-3.0, -3.0), (3.0, -0.5), shapes=[((2, 3), (3,))], dtypes=["float64"], arity=2),
    integers((-9, -4), (10, -1), shapes=[((2, 3), (3,))], arity=2),
    integers((-9, 1), (10, 5), shapes=[((3,), ())], arity=2),
)
op_info("rt.divide", _DIVISIONS, by_element(operator.truediv, "float64"))(divide)
op_info("rt.floordiv", _DIVISIONS, by_element(operator.floordiv))(floordiv)
op_info("rt.mod", _DIVISIONS, by_element(operator.mod))(mod)
_POWERS = joined(
    _reals((0.5, -2.0), (3.0, 2.0), arity=2),
    integers((-4, 0), (5, 4), shapes=[((2, 3), (3,))], arity=2),
)
op_info("rt.pow", _POWERS, by_element(operator.pow))(pow)


# --- matmul, add_n ------------------------------------------------------------------------------


def _matmul_reference(a, b, transpose_a=False, transpose_b=False):
    """Sums of products along the inner dims, broadcasting the batch dims: not ``np.matmul``."""
    a = np.swapaxes(a, -1, -2) if transpose_a else a
    b = np.swapaxes(b, -1, -2) if transpose_b else b
    return np.sum(a[..., :, :, None] * b[..., None, :, :], axis=-2)


def _matmul_samples(rng):
    def draw(*shape, dtype="float64"):
        return rng.uniform(-2.0, 2.0, shape).astype(dtype)

    return [
        Sample((draw(2, 3, dtype="float32"), draw(3, 4, dtype="float32")), {}),
        Sample((draw(2, 3), draw(4, 3)), {"transpose_b": True}),
        Sample((draw(3, 2), draw(3, 2)), {"transpose_a": True}),
        Sample((draw(2, 1, 2, 3), draw(3, 2, 3)), {"transpose_b": True}),  # batch dims broadcast
    ]


op_info("rt.matmul", _matmul_samples, _matmul_reference)(matmul)
op_info(
    "rt.add_n",
    joined(floats(-3.0, 3.0, shapes=[((2, 3),) * 2, ((),) * 2], arity=2),
           floats(-3.0, 3.0, shapes=[((3,),) * 3], dtypes=["float64"], arity=3)),
    by_element(lambda *values: builtins.sum(values)),
    call=listed,
)(add_n)  # fmt: skip


# --- shapes and arrangements --------------------------------------------------------------------


def _nested(values, shape):
    """The flat list ``values`` as nested lists of ``shape`` (C order), with no reshape."""
    if not shape:
        return values[0]
    step = len(values) // shape[0] if shape[0] else 0
    return [_nested(values[i * step : (i + 1) * step], shape[1:]) for i in range(shape[0])]


def _reshape_reference(x, shape):
    shape = list(shape)
    if -1 in shape:
        shape[shape.index(-1)] = x.size // -math.prod(shape)
    return np.asarray(_nested(x.ravel().tolist(), shape), x.dtype)


def _transpose_reference(x, perm=None):
    perm = list(reversed(range(x.ndim))) if perm is None else perm
    out = np.empty([x.shape[d] for d in perm], x.dtype)
    for index in np.ndindex(out.shape):
        source = [0] * x.ndim
        for k, d in enumerate(perm):
            source[d] = index[k]
        out[index] = x[tuple(source)]
    return out


def _front(x, axis):
    """The slices of ``x`` along ``axis``, as a Python list."""
    return list(np.moveaxis(x, axis, 0))


def _back(slices, axis):
    """``slices`` put together along ``axis``: ``_front``'s inverse."""
    return np.moveaxis(np.asarray(slices), 0, axis)


def _one_dims_dropped(x, axis=None):
    axes = range(x.ndim) if axis is None else [a % x.ndim for a in np.atleast_1d(axis)]
    return _reshape_reference(x, [n for d, n in enumerate(x.shape) if d not in axes or n != 1])


def _one_dim_added(x, axis):
    shape = list(x.shape)
    shape.insert(axis % (x.ndim + 1), 1)
    return _reshape_reference(x, shape)


op_info(
    "rt.reshape",
    joined(
        floats(-3.0, 3.0, shapes=[(2, 3)], dtypes=["float32"], kwargs=({"shape": [3, 2]},)),
        floats(-3.0, 3.0, shapes=[(6,)], dtypes=["float64"], kwargs=({"shape": [-1, 1, 2]},)),
        integers(-9, 10, shapes=[(1, 1)], kwargs=({"shape": []},)),
    ),
    _reshape_reference,
)(reshape)
op_info(
    "rt.transpose",
    joined(floats(-3.0, 3.0, shapes=[(2, 3)]),
           floats(-3.0, 3.0, shapes=[(2, 3, 4)], dtypes=["float64"], kwargs=({"perm": [1, 2, 0]},)),
           integers(-9, 10, shapes=[(3, 2)])),
    _transpose_reference,
)(transpose)  # fmt: skip
op_info(
    "rt.concat",
    joined(floats(-3.0, 3.0, shapes=[((2, 3), (1, 3))], kwargs=({"axis": 0},), arity=2),
           floats(-3.0, 3.0, shapes=[((2, 3), (2, 2))], kwargs=({"axis": -1},), arity=2)),
    lambda x, y, axis: _back(_front(x, axis) + _front(y, axis), axis),
    call=listed,
)(concat)  # fmt: skip
op_info(
    "rt.stack",
    joined(floats(-3.0, 3.0, shapes=[((2, 3), (2, 3)), ((), ())], arity=2),
           floats(-3.0, 3.0, shapes=[((3,),) * 3], dtypes=["float64"], kwargs=({"axis": 1},), arity=3)),
    lambda *xs, axis=0: _back(list(xs), axis),
    call=listed,
)(stack)  # fmt: skip
op_info(
    "rt.unstack",
    floats(-3.0, 3.0, shapes=[(2, 3)], kwargs=({}, {"axis": 1})),
    lambda x, axis=0: _front(x, axis),
)(unstack)
op_info(
    "rt.expand_dims",
    joined(
        floats(-3.0, 3.0, shapes=[()], dtypes=["float32"], kwargs=({"axis": 0},)),
        floats(-3.0, 3.0, shapes=[(2, 3)], dtypes=["float64"], kwargs=({"axis": -1}, {"axis": 1})),
    ),
    _one_dim_added,
)(expand_dims)
op_info(
    "rt.squeeze",
    floats(-3.0, 3.0, shapes=[(1, 3, 1)], kwargs=({}, {"axis": [0]}, {"axis": -1})),
    _one_dims_dropped,
)(squeeze)

_COPIED = joined(_REALS, integers(-9, 10, shapes=[(2, 3)]), bools(shapes=[(3,)]))
op_info("rt.identity", _COPIED, lambda x: np.array(x.tolist(), x.dtype))(identity)
# Its value is its input's; its gradient None: central differences would say 1.
op_info("rt.stop_gradient", _REALS, lambda x: np.array(x.tolist(), x.dtype), differentiable=False)(
    stop_gradient
)
op_info("rt.zeros_like", _COPIED, lambda x: np.full(x.shape, x.dtype.type(0)))(zeros_like)
op_info("rt.ones_like", _COPIED, lambda x: np.full(x.shape, x.dtype.type(1)))(ones_like)
