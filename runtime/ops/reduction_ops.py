"""Reductions (sum, mean, max, min, prod, all, any, argmax, argmin) and their gradients.

>>> import runtime as rt
>>> rt.reduce_sum([[1, 2], [3, 4]], axis=1).numpy()
array([3, 7], dtype=int32)
"""

from __future__ import annotations

import builtins

import numpy as np

from runtime import errors
from runtime.core import attr_kinds as kinds
from runtime.core import dtypes
from runtime.core.op_def import BOOL_OUTPUT, INTEGER_OUTPUT, OpDef
from runtime.core.tensor_shape import TensorShape
from runtime.ops.array_ops import expand_dims, shape_of, zeros_like
from runtime.ops.broadcast_ops import broadcast_to, where
from runtime.ops.constant_ops import cast, convert_to_tensor, static_int, static_ints
from runtime.ops.math_ops import divide, equal, logical_and, multiply
from runtime.ops.registry import BOOL, NUMERIC, bind1, check_dtype
from runtime.ops.shape_ops import size

# --- reductions --------------------------------------------------------------------------------


def _axes(axis):
    return static_ints(axis, "axis")


def _reduce_infer(op_type, allowed, out_dtype=None):
    def infer(inputs, attrs):
        x, axis, keepdims = inputs[0], attrs["axis"], attrs["keepdims"]
        check_dtype(op_type, x, allowed)
        dtype = out_dtype or x.dtype
        if x.shape.rank is None:
            return [(dtype, TensorShape(None) if axis is not None or keepdims else TensorShape([]))]
        rank = x.shape.rank
        axes = builtins.range(rank) if axis is None else axis
        norm = set()
        for a in axes:
            if not -rank <= a < max(rank, 1):
                raise ValueError(f"{op_type}: axis {a} is out of range for a tensor of rank {rank}")
            norm.add(a % rank if rank else 0)
        dims = x.shape.as_list()
        if keepdims:
            out = [1 if i in norm else d for i, d in enumerate(dims)]
        else:
            out = [d for i, d in enumerate(dims) if i not in norm]
        return [(dtype, TensorShape(out))]

    return infer


# Each reduction's implementation is written once against an array namespace ``xp``
# (``runtime.core.array_namespace``): numpy for the kernel, jax.numpy for XLA.


def _typed(name):
    """Sum or product, in the input's dtype (numpy would widen small ints)."""

    def implementation(xp, x, axis, keepdims):
        return getattr(xp, name)(x, axis=axis, keepdims=keepdims, dtype=x.dtype)

    return implementation


def _mean(xp, x, axis, keepdims):
    if x.dtype.kind in "iu":
        # Summed as wide as the backend allows (XLA without 64-bit types: int32).
        total = xp.sum(x, axis=axis, keepdims=keepdims, dtype=xp.canonical_dtype(np.int64))
        count = x.size // builtins.max(total.size, 1)
        if count == 0:
            raise errors.InvalidArgumentError("reduce_mean of an empty integer tensor")
        # Integer mean truncates toward zero, like TensorFlow's.
        return (xp.sign(total) * (xp.abs(total) // count)).astype(x.dtype)
    if x.size == 0:  # the mean of nothing is nan, without numpy's warning
        empty_sum = xp.sum(x, axis=axis, keepdims=keepdims)
        return xp.full(xp.shape(empty_sum), xp.nan, dtype=x.dtype)[()]
    # Half floats are summed in float32, so a mean of many large values does not overflow;
    # the sum divided by the count are np.mean's own steps, without its overhead.
    if x.dtype.itemsize >= 4:
        total = xp.add.reduce(x, axis=axis, keepdims=keepdims)
        return total / (x.size // builtins.max(total.size, 1))
    total = xp.add.reduce(x, axis=axis, keepdims=keepdims, dtype=np.float32)
    return (total / (x.size // builtins.max(total.size, 1))).astype(x.dtype)


def _extreme(name, largest):
    """Max or min; over nothing it is the identity (-inf for a float max), as in TensorFlow."""

    def implementation(xp, x, axis, keepdims):
        reducer = getattr(xp, name)
        if x.size:
            return reducer(x, axis=axis, keepdims=keepdims)
        if x.dtype.kind == "f":
            initial = -np.inf if largest else np.inf
        else:
            info = np.iinfo(x.dtype)
            initial = info.min if largest else info.max
        return reducer(x, axis=axis, keepdims=keepdims, initial=initial)

    return implementation


def _bool_reduce(name):
    def implementation(xp, x, axis, keepdims):
        return getattr(xp, name)(x, axis=axis, keepdims=keepdims)

    return implementation


# --- their gradients ---------------------------------------------------------------------------


def _with_reduced_dims(op, t):
    """``t`` (shaped like the reduction's output) with the reduced axes back, of size 1."""
    x, axis = op.inputs[0], op.attrs["axis"]
    if op.attrs["keepdims"] or axis is None:
        return t  # keeps the dims, or a scalar, which broadcasts to any shape
    rank = x.shape.rank
    if rank is None and axis and builtins.min(axis) < 0:
        raise ValueError(
            f"The gradient of {op.type} over negative axes {list(axis)} needs the input's rank"
        )
    for a in sorted({a % rank if rank else a for a in axis}):
        t = expand_dims(t, a)
    return t


def _sum_gradient(op, grad):
    return (broadcast_to(_with_reduced_dims(op, grad), shape_of(op.inputs[0])),)


def _mean_gradient(op, grad):
    x, y = op.inputs[0], op.outputs[0]
    n_in, n_out = x.shape.num_elements(), y.shape.num_elements()
    if n_in is not None and n_out is not None:
        count = convert_to_tensor(n_in // builtins.max(n_out, 1), x.dtype)
    else:
        count = divide(cast(size(x), x.dtype), cast(size(y), x.dtype))
    return (broadcast_to(_with_reduced_dims(op, divide(grad, count)), shape_of(x)),)


def _extreme_gradient(op, grad):
    """Shared equally by the elements that equal the max (min), as in TensorFlow."""
    x = op.inputs[0]
    chosen = cast(equal(x, _with_reduced_dims(op, op.outputs[0])), x.dtype)
    count = reduce_sum(chosen, op.attrs["axis"], keepdims=True)
    return (multiply(chosen, divide(_with_reduced_dims(op, grad), count)),)


def _prod_gradient(op, grad):
    """The product of the other elements; exact with zeros (no division by them)."""
    x = op.inputs[0]
    axis = op.attrs["axis"]
    is_zero = equal(x, 0)
    zeros = reduce_sum(cast(is_zero, x.dtype), axis, keepdims=True)
    nonzero = where(is_zero, broadcast_to(convert_to_tensor(1, x.dtype), shape_of(x)), x)
    others_if_none_zero = divide(_with_reduced_dims(op, op.outputs[0]), nonzero)
    product_of_nonzero = reduce_prod(nonzero, axis, keepdims=True)
    only_zero = logical_and(is_zero, equal(zeros, 1))
    at_the_only_zero = where(only_zero, product_of_nonzero, zeros_like(x))
    others = where(equal(zeros, 0), others_if_none_zero, at_the_only_zero)
    return (multiply(_with_reduced_dims(op, grad), others),)


def _reduction(op_type, implementation, allowed, default_name, doc, gradient):
    op = OpDef(
        op_type,
        None,
        _reduce_infer(op_type, allowed),
        default_name=default_name,
        attrs={"axis": kinds.AXES, "keepdims": kinds.BOOL},
        gradient=gradient,
        implementation=implementation,
    )

    def fn(input_tensor, axis=None, keepdims=False, name=None):
        attrs = {"axis": _axes(axis), "keepdims": bool(keepdims)}
        return bind1(op, [convert_to_tensor(input_tensor)], attrs, name or default_name)

    fn.__doc__ = doc
    fn.__name__ = default_name
    return op, fn


SUM, reduce_sum = _reduction(
    "Sum",
    _typed("sum"),
    NUMERIC,
    "Sum",
    "Sum over ``axis`` (all axes by default).\n\n>>> reduce_sum([[1, 2], [3, 4]], axis=0).numpy()\narray([4, 6], dtype=int32)",
    _sum_gradient,
)
MEAN, reduce_mean = _reduction(
    "Mean",
    _mean,
    NUMERIC,
    "Mean",
    "Mean over ``axis``; integer means truncate, as in TensorFlow.\n\n>>> reduce_mean([1, 2]).numpy()\nnp.int32(1)",
    _mean_gradient,
)
MAX, reduce_max = _reduction(
    "Max",
    _extreme("max", largest=True),
    NUMERIC,
    "Max",
    "Largest element over ``axis``.",
    _extreme_gradient,
)
MIN, reduce_min = _reduction(
    "Min",
    _extreme("min", largest=False),
    NUMERIC,
    "Min",
    "Smallest element over ``axis``.",
    _extreme_gradient,
)
PROD, reduce_prod = _reduction(
    "Prod", _typed("prod"), NUMERIC, "Prod", "Product over ``axis``.", _prod_gradient
)
ALL, reduce_all = _reduction(
    "All", _bool_reduce("all"), BOOL, "All", "Logical and over ``axis``.", BOOL_OUTPUT
)
ANY, reduce_any = _reduction(
    "Any", _bool_reduce("any"), BOOL, "Any", "Logical or over ``axis``.", BOOL_OUTPUT
)


# --- argmax, argmin ------------------------------------------------------------------------------


_NUMERIC_OR_BOOL = lambda d: d.is_numeric or d.is_bool  # noqa: E731 (as registry's NUMERIC)


def _arg_infer(op_type):
    def infer(inputs, attrs):
        x = inputs[0]
        check_dtype(op_type, x, _NUMERIC_OR_BOOL)  # as TensorFlow's: False < True
        if not attrs["output_type"].is_integer:
            raise TypeError(f"{op_type}: output_type must be an integer dtype")
        if x.shape.rank is None:
            return [(attrs["output_type"], TensorShape(None))]
        dims = x.shape.as_list()
        if not -len(dims) <= attrs["axis"] < len(dims):
            raise ValueError(
                f"{op_type}: axis {attrs['axis']} is out of range for rank {len(dims)}"
            )
        del dims[attrs["axis"] % len(dims)]
        return [(attrs["output_type"], TensorShape(dims))]

    return infer


def _arg(name):
    def implementation(xp, x, axis, output_type):
        if xp.shape(x)[axis] == 0:
            raise errors.InvalidArgumentError("argmax/argmin over an empty dimension")
        return getattr(xp, name)(x, axis=axis).astype(output_type.as_numpy_dtype)

    return implementation


_ARG_ATTRS = {"axis": kinds.INT, "output_type": kinds.DTYPE}
ARG_MAX = OpDef(
    "ArgMax",
    None,
    _arg_infer("ArgMax"),
    attrs=_ARG_ATTRS,
    gradient=INTEGER_OUTPUT,
    implementation=_arg("argmax"),
)
ARG_MIN = OpDef(
    "ArgMin",
    None,
    _arg_infer("ArgMin"),
    attrs=_ARG_ATTRS,
    gradient=INTEGER_OUTPUT,
    implementation=_arg("argmin"),
)


def _arg_attrs(axis, output_type):
    return {
        "axis": 0 if axis is None else static_int(axis, "axis"),
        "output_type": dtypes.as_dtype(output_type),
    }


def argmax(input, axis=None, output_type=dtypes.int64, name=None):
    """Index of the largest value along ``axis`` (0 by default), as int64.

    >>> argmax([3, 9, 2]).numpy()
    np.int64(1)
    """
    attrs = _arg_attrs(axis, output_type)
    return bind1(ARG_MAX, [convert_to_tensor(input)], attrs, name or "ArgMax")


def argmin(input, axis=None, output_type=dtypes.int64, name=None):
    """Index of the smallest value along ``axis`` (0 by default), as int64."""
    attrs = _arg_attrs(axis, output_type)
    return bind1(ARG_MIN, [convert_to_tensor(input)], attrs, name or "ArgMin")


# --- samples: what the op's tests run it on (runtime.ops.op_info) ---
import math  # noqa: E402

from runtime.ops.op_info import (  # noqa: E402
    Sample,
    bools,
    by_reduction,
    floats,
    integers,
    joined,
    op_info,
)


def _truncated_mean(row):
    mean = builtins.sum(row) / len(row)
    return int(mean) if isinstance(row[0], int) else mean  # integer means truncate toward 0


def _index_of(pick):
    return lambda row: row.index(pick(row))  # the first, on ties


_AXES = ({}, {"axis": 1}, {"axis": 0, "keepdims": True}, {"axis": [0, 1]})
_NUMBERS = joined(
    floats(-3.0, 3.0, shapes=[(2, 3)], dtypes=["float32"], kwargs=_AXES[:2]),
    floats(-3.0, 3.0, shapes=[(2, 3)], dtypes=["float64"], kwargs=_AXES[2:]),
    integers(-9, 10, shapes=[(2, 3)], kwargs=({"axis": -1},)),
    floats(-3.0, 3.0, shapes=[(4, 3)], dtypes=["float16"], kwargs=({"axis": 0},)),
)
for _name, _fn, _row in (
    ("rt.reduce_sum", reduce_sum, builtins.sum),
    ("rt.reduce_mean", reduce_mean, _truncated_mean),
    ("rt.reduce_max", reduce_max, builtins.max),
    ("rt.reduce_min", reduce_min, builtins.min),
):
    op_info(_name, _NUMBERS, by_reduction(_row))(_fn)
_ZEROS = np.array([[0.0, 2.0, -1.5], [0.0, 0.0, 3.0], [1.0, 2.0, 0.5]])  # its gradient's cases
_PRODUCTS = joined(_NUMBERS, lambda rng: [Sample((_ZEROS,), {"axis": 1})])
op_info("rt.reduce_prod", _PRODUCTS, by_reduction(math.prod))(reduce_prod)
op_info("rt.reduce_all", bools(shapes=[(2, 3)], kwargs=_AXES[:3]), by_reduction(builtins.all))(
    reduce_all
)
op_info("rt.reduce_any", bools(shapes=[(2, 3)], kwargs=_AXES[:3]), by_reduction(builtins.any))(
    reduce_any
)
_ARGS = joined(
    floats(-3.0, 3.0, shapes=[(2, 3)], kwargs=({}, {"axis": 1})),
    integers(-2, 3, shapes=[(4,)], kwargs=({"output_type": dtypes.int32},)),
    bools(shapes=[(2, 3)], kwargs=({"axis": 1},)),  # as TensorFlow's; refused here: a finding
)
for _name, _fn, _pick in (("rt.argmax", argmax, builtins.max), ("rt.argmin", argmin, builtins.min)):
    op_info(
        _name,
        _ARGS,
        lambda x, axis=0, output_type=dtypes.int64, pick=_pick: by_reduction(
            _index_of(pick), output_type.as_numpy_dtype
        )(x, axis),
        differentiable=False,
    )(_fn)
