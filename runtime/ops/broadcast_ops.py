"""Broadcasting: filling a shape, ``broadcast_to`` and its adjoint, and ``where``.

``unbroadcast`` is how gradients undo broadcasting: it sums the gradient of a
broadcasting op's output back to the shape of one operand, at no cost when
the static shapes show nothing was broadcast, else with one ``SumToShape``
op, which finds the axes when it runs (so unknown dims work).

>>> import runtime as rt
>>> unbroadcast(rt.ones([2, 3]), rt.zeros([3])).numpy()
array([2., 2., 2.], dtype=float32)
"""

from __future__ import annotations

import builtins
import math

import numpy as np

from runtime.core import attr_kinds as kinds
from runtime.core import dtypes
from runtime.core.array_namespace import elementwise
from runtime.core.op_def import INTEGER_OUTPUT, OpDef
from runtime.core.tensor_shape import TensorShape, broadcast_shapes
from runtime.ops.array_ops import shape_of, shape_operand, zeros_like
from runtime.ops.constant_ops import constant, convert_pair, convert_to_tensor
from runtime.ops.registry import NUMERIC, bind1, check_dtype
from runtime.ops.shape_ops import shape_from_tensor

# --- filling ---------------------------------------------------------------------------------


def _fill_infer(inputs, attrs):
    dims, value = inputs
    if value.shape.rank not in (0, None):
        raise ValueError(f"Fill's value must be a scalar, got shape {value.shape}")
    return [(value.dtype, shape_from_tensor(dims))]


FILL = OpDef(
    "Fill",
    None,
    infer=_fill_infer,
    gradient=lambda op, g: (None, sum_to_shape(g, [])),
    # dims are known when XLA compiles (a static operand)
    implementation=lambda xp, dims, value: xp.full(tuple(dims), value, value.dtype),
)


def fill(dims, value, name=None):
    """A tensor of shape ``dims`` filled with ``value``.

    >>> fill([2], 7).numpy()
    array([7, 7], dtype=int32)
    """
    value = convert_to_tensor(value)
    return bind1(FILL, [shape_operand(dims), value], name=name or "Fill")


def zeros(shape, dtype=dtypes.float32, name=None):
    """A tensor of zeros (empty strings for strings): ``zeros([2, 3])`` is float32 by default."""
    dtype = dtypes.as_dtype(dtype)
    zero = b"" if dtype is dtypes.string else (False if dtype is dtypes.bool_ else 0)
    return fill(shape, constant(zero, dtype), name=name or "zeros")


def ones(shape, dtype=dtypes.float32, name=None):
    """A tensor of ones: ``ones([2, 3])`` is float32 by default."""
    dtype = dtypes.as_dtype(dtype)
    if dtype is dtypes.string:
        raise TypeError("ones() has no meaning for strings")
    one = True if dtype is dtypes.bool_ else 1
    return fill(shape, constant(one, dtype), name=name or "ones")


# --- broadcast_to and its adjoint ---------------------------------------------------------------


def _broadcast_to(xp, x, shape):
    shape = tuple(shape.tolist())  # known when XLA compiles (a static operand)
    if xp.shape(x) == shape:
        return x
    if xp.ndim(x) == 0 and math.prod(shape) <= 4096:
        return xp.full(shape, x)  # a small fill is several times cheaper than a broadcast view
    return xp.broadcast_to(x, shape)


def _broadcast_to_infer(inputs, attrs):
    x, target = inputs[0], shape_from_tensor(inputs[1])
    if target.rank is None or x.shape.rank is None:
        return [(x.dtype, target)]
    if x.shape.rank > target.rank:
        raise ValueError(f"broadcast_to: cannot broadcast shape {x.shape} to {target}")
    lead = target.rank - x.shape.rank
    dims = target.as_list()
    for i, xd in enumerate(x.shape.as_list()):
        td = dims[lead + i]
        if xd is not None and td is not None and xd not in (1, td):
            raise ValueError(f"broadcast_to: cannot broadcast shape {x.shape} to {target}")
        if td is None and xd not in (None, 1):
            dims[lead + i] = xd
    return [(x.dtype, TensorShape(dims))]


BROADCAST_TO = OpDef(
    "BroadcastTo",
    None,
    infer=_broadcast_to_infer,
    gradient=lambda op, g: (sum_to_shape(g, shape_of(op.inputs[0])), None),
    implementation=_broadcast_to,
)


def broadcast_to(input, shape, name=None):
    """``input`` repeated along new leading axes and stretched size-1 axes to ``shape``.

    >>> broadcast_to(constant([1, 2]), [2, 2]).numpy()
    array([[1, 2],
           [1, 2]], dtype=int32)
    """
    input = convert_to_tensor(input)
    if isinstance(shape, list) and input.shape.as_tuple() == tuple(shape):
        return input  # nothing to broadcast: no op, which keeps gradient graphs lean
    return bind1(BROADCAST_TO, [input, shape_operand(shape)], name=name or "BroadcastTo")


def _summed_axes(dims, shape):
    """The axes of a tensor of ``dims`` that summing it to ``shape`` adds up (kept as size 1)."""
    lead = len(dims) - len(shape)
    stretched = [lead + i for i, d in enumerate(shape) if d == 1 and dims[lead + i] != 1]
    return (*builtins.range(lead), *stretched)


def _sum_to_shape(xp, grad, shape, axes):
    shape = tuple(shape.tolist())  # known when XLA compiles (a static operand)
    if xp.shape(grad) == shape:
        return grad  # nothing was broadcast: the common case when the graph could not tell
    if axes is None:  # not known when the graph was built: found from the value
        axes = _summed_axes(xp.shape(grad), shape)
    return xp.add.reduce(grad, axis=axes, keepdims=True, dtype=grad.dtype).reshape(shape)


def _sum_to_shape_infer(inputs, attrs):
    x, shape, axes = inputs[0], inputs[1], attrs["axes"]
    check_dtype("SumToShape", x, NUMERIC)
    if not shape.dtype.is_integer or shape.shape.rank not in (1, None):
        raise TypeError(f"sum_to_shape: shape must be a 1-D integer tensor, got {shape.dtype.name}")
    rank = x.shape.rank
    if axes is not None and rank is not None and not all(0 <= a < rank for a in axes):
        raise ValueError(f"sum_to_shape: axes {axes} are out of range for shape {x.shape}")
    return [(x.dtype, shape_from_tensor(shape))]


SUM_TO_SHAPE = OpDef(
    "SumToShape",
    None,
    infer=_sum_to_shape_infer,
    attrs={"axes": kinds.AXES},
    gradient=lambda op, g: (broadcast_to(g, shape_of(op.inputs[0])), None),
    implementation=_sum_to_shape,
)


def sum_to_shape(input, shape, name=None):
    """``input`` summed over the axes that broadcasting ``shape`` to ``input``'s shape adds or
    stretches: the adjoint of ``broadcast_to``. The axes are worked out when the graph is built
    if the static shapes tell them, else when it runs (for unknown dims).

    >>> sum_to_shape(constant([[1, 2], [3, 4]]), [1, 2]).numpy()
    array([[4, 6]], dtype=int32)
    """
    input = convert_to_tensor(input)
    axes = None
    if isinstance(shape, list) and input.shape.rank is not None:
        axes = _summed_axes(input.shape.as_list(), shape)
    shape = shape_operand(shape)
    return bind1(SUM_TO_SHAPE, [input, shape], {"axes": axes}, name=name or "SumToShape")


def unbroadcast(grad, x, others=()):
    """The gradient of operand ``x`` of a broadcasting op, from ``grad`` (its output's): summed
    back to x's shape. ``others`` are the op's other operands, whose static shapes can show that
    nothing was broadcast (then ``grad`` is returned as it is, and no op is added)."""
    if _not_broadcast(x.shape, grad.shape, [o.shape for o in others]):
        return grad
    return sum_to_shape(grad, shape_of(x))


def _not_broadcast(x_shape, out_shape, other_shapes):
    """Whether the static shapes show that an operand of ``x_shape`` was not broadcast."""
    x_dims, out_dims = x_shape.as_tuple(), out_shape.as_tuple()
    if x_dims is None or out_dims is None or len(x_dims) != len(out_dims):
        return False
    for axis, (xd, od) in enumerate(zip(x_dims, out_dims)):
        if xd is not None and xd == od:
            continue
        if xd is None and _others_are_one(other_shapes, len(out_dims), axis):
            continue  # the output's dim is x's own, whatever it is
        return False
    return True


def _others_are_one(other_shapes, out_rank, axis):
    """Whether every other operand lacks axis ``axis`` of the output or has size 1 there."""
    for shape in other_shapes:
        dims = shape.as_tuple()
        if dims is None:
            return False
        j = axis - (out_rank - len(dims))
        if j >= 0 and dims[j] != 1:
            return False
    return True


# --- where ---------------------------------------------------------------------------------------


def _select_infer(inputs, attrs):
    c, x, y = inputs
    if c.dtype is not dtypes.bool_:
        raise TypeError(f"where: condition must be bool, got {c.dtype.name}")
    if x.dtype is not y.dtype:
        raise TypeError(f"where: x is {x.dtype.name} but y is {y.dtype.name}")
    return [(x.dtype, broadcast_shapes(broadcast_shapes(c.shape, x.shape), y.shape))]


def _select_gradient(op, g):
    c, x, y = op.inputs
    zeros = zeros_like(g)
    return (
        None,
        unbroadcast(where(c, g, zeros), x, [c, y]),
        unbroadcast(where(c, zeros, g), y, [c, x]),
    )


SELECT = OpDef(
    "SelectV2",
    np.where,  # numpy's own, called with no wrapper
    infer=_select_infer,
    default_name="where",
    gradient=_select_gradient,
    implementation=elementwise("where"),
)


def _where_indices_infer(inputs, attrs):
    c = inputs[0]
    return [(dtypes.int64, TensorShape([None, c.shape.rank]))]


WHERE = OpDef(
    "Where",
    lambda c: np.argwhere(c).astype(np.int64),
    infer=_where_indices_infer,
    gradient=INTEGER_OUTPUT,
)


def where(condition, x=None, y=None, name=None):
    """Elementwise ``x if condition else y``; with only ``condition``, the indices where it holds.

    >>> where([True, False], 1, 2).numpy()
    array([1, 2], dtype=int32)
    """
    condition = convert_to_tensor(condition)
    if x is None and y is None:
        return bind1(WHERE, [condition], name=name or "Where")
    if x is None or y is None:
        raise ValueError("where: give both x and y, or neither")
    x, y = convert_pair(x, y)
    return bind1(SELECT, [condition, x, y], name=name or "where")


# --- samples: what the op's tests run it on (runtime.ops.op_info) ---
from runtime.ops.op_info import Sample, by_element, op_info  # noqa: E402


def _select_samples(rng):
    def draw(*shape, dtype="float64"):
        return rng.uniform(-3.0, 3.0, shape).astype(dtype)

    def condition(*shape):
        return rng.integers(0, 2, shape).astype(bool)

    return [
        Sample((condition(2, 3), draw(2, 3, dtype="float32"), draw(2, 3, dtype="float32")), {}),
        Sample((condition(3), draw(2, 3), draw()), {}),
        Sample((condition(), draw(3), draw(3)), {}),
        Sample((condition(4), np.arange(4, dtype=np.int32), np.array(-1, np.int32)), {}),
    ]


op_info("rt.where", _select_samples, by_element(lambda c, x, y: x if c else y))(where)
