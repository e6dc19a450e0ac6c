"""Indexing tensors: ``gather``, ``one_hot``, and ``x[...]`` with ints, slices, ``None``, ``...``
and tensors.

Their gradients are dense: a gather's scatters the gradient back with
``UnsortedSegmentSum`` (repeated indices add up), a slice's writes it into
zeros of the input's shape with ``StridedSliceGrad``.
"""

from __future__ import annotations

import builtins

import numpy as np

from runtime import errors
from runtime.core import attr_kinds as kinds
from runtime.core import dtypes
from runtime.core.forms import Form, Input, Subscript
from runtime.core.op_def import OpDef
from runtime.core.tensor import Tensor
from runtime.core.tensor_shape import TensorShape, check_rank
from runtime.ops.array_ops import (
    normalize_axis,
    shape_of,
    shape_operand,
    transpose,
    zeros_like,
)
from runtime.ops.broadcast_ops import where
from runtime.ops.constant_ops import (
    constant_value,
    convert_to_tensor,
    folded_value,
    static_int,
)
from runtime.ops.reduction_ops import reduce_sum
from runtime.ops.registry import NUMERIC, bind1, check_dtype
from runtime.ops.shape_ops import shape, shape_from_tensor


def _gather_infer(inputs, attrs):
    params, indices = inputs
    if not indices.dtype.is_integer:
        raise TypeError(f"gather: indices must be integers, got {indices.dtype.name}")
    if params.shape.rank is None or indices.shape.rank is None:
        return [(params.dtype, TensorShape(None))]
    dims = params.shape.as_list()
    axis = normalize_axis(attrs["axis"], len(dims), "gather")
    return [(params.dtype, TensorShape(dims[:axis] + indices.shape.as_list() + dims[axis + 1 :]))]


def _gather(xp, params, indices, axis):
    n = xp.shape(params)[axis]
    if indices.size:  # checked: XLA would clamp an index out of range, numpy wrap a negative
        bad = (indices < 0) | (indices >= n)
        xp.check(
            bad,
            f"gather: index {{0}} is not in [0, {n})",
            detail=lambda: xp.ravel(indices)[xp.argmax(xp.ravel(bad))],  # the first bad one
        )
    # In range now: "clip" spares XLA the gather that fills what falls outside.
    return xp.take(params, indices, axis=axis, mode="clip")


def _gather_gradient(op, grad):
    """The gradient scattered back to the rows gathered (added up where indices repeat)."""
    params, indices = op.inputs
    p_rank, i_rank = params.shape.rank, indices.shape.rank
    if p_rank is None or i_rank is None:
        raise ValueError(
            f"The gradient of gather needs the ranks of params and indices, got {params.shape} "
            f"and {indices.shape}"
        )
    axis = op.attrs["axis"] % p_rank
    rows = params.shape[axis]
    if rows is None:
        rows = shape(params)[axis]
    if axis == 0:
        return unsorted_segment_sum(grad, indices, rows), None
    # Gathered dims first, scatter them, then put the params axis back in its place.
    g_rank = p_rank - 1 + i_rank
    perm = [*range(axis, axis + i_rank), *range(axis), *range(axis + i_rank, g_rank)]
    summed = unsorted_segment_sum(transpose(grad, perm), indices, rows)
    return transpose(summed, [*range(1, axis + 1), 0, *range(axis + 1, p_rank)]), None


GATHER = OpDef(
    "GatherV2",
    None,
    infer=_gather_infer,
    default_name="GatherV2",
    attrs={"axis": kinds.INT},
    gradient=_gather_gradient,
    implementation=_gather,
)


def gather(params, indices, axis=0, name=None):
    """Slices of ``params`` along ``axis`` picked by ``indices``.

    >>> gather([10, 20, 30], [2, 0]).numpy()
    array([30, 10], dtype=int32)
    """
    return bind1(
        GATHER,
        [convert_to_tensor(params), convert_to_tensor(indices)],
        {"axis": static_int(axis, "axis")},
        name or "GatherV2",
    )


# --- scatter-add: the adjoint of gather ---------------------------------------------------------


def _segment_sum_kernel(data, segment_ids, num_segments):
    n = int(num_segments)
    ids = np.reshape(segment_ids, -1)
    out = np.zeros((n, *np.shape(data)[np.ndim(segment_ids) :]), dtype=data.dtype)
    rows = np.reshape(data, (ids.size, *out.shape[1:]))
    kept = (ids >= 0) & (ids < n)  # as in TensorFlow, ids out of range are dropped
    np.add.at(out, ids[kept], rows[kept])
    return out


def _segment_sum_infer(inputs, attrs):
    data, ids, num = inputs
    check_dtype("UnsortedSegmentSum", data, NUMERIC)
    if not ids.dtype.is_integer:
        raise TypeError(f"unsorted_segment_sum: segment_ids must be integers, got {ids.dtype.name}")
    known = constant_value(num)
    rows = None if known is None else int(known)
    if data.shape.rank is None or ids.shape.rank is None:
        return [(data.dtype, TensorShape(None))]
    return [(data.dtype, TensorShape([rows, *data.shape.as_list()[ids.shape.rank :]]))]


UNSORTED_SEGMENT_SUM = OpDef(
    "UnsortedSegmentSum",
    _segment_sum_kernel,
    infer=_segment_sum_infer,
    gradient=lambda op, grad: (gather(grad, op.inputs[1]), None, None),
)


def unsorted_segment_sum(data, segment_ids, num_segments, name=None):
    """Rows of ``data`` added up by ``segment_ids`` into ``num_segments`` rows.

    >>> unsorted_segment_sum(convert_to_tensor([1, 2, 3]), convert_to_tensor([0, 2, 0]), 3).numpy()
    array([4, 0, 2], dtype=int32)
    """
    inputs = [convert_to_tensor(data), convert_to_tensor(segment_ids)]
    inputs.append(convert_to_tensor(num_segments, dtypes.int32))
    return bind1(UNSORTED_SEGMENT_SUM, inputs, name=name or "UnsortedSegmentSum")


# --- indexing --------------------------------------------------------------------------------
# An index is stored as a spec: a tuple of ints, slices, None and Ellipsis, where
# ("t", k) stands for the k-th extra input tensor (a dynamic index or bound).


def _one_hot_infer(inputs, attrs):
    indices, depth, on, off = inputs
    if indices.dtype not in (dtypes.uint8, dtypes.int32, dtypes.int64):
        raise TypeError(f"one_hot: indices must be uint8, int32 or int64, got {indices.dtype.name}")
    if not depth.dtype.is_integer or depth.shape.rank not in (0, None):
        raise TypeError(f"one_hot: depth must be an integer scalar, got {depth.dtype.name}")
    if on.dtype is not off.dtype:
        raise TypeError(f"one_hot: on_value is {on.dtype.name} but off_value is {off.dtype.name}")
    for what, t in (("on_value", on), ("off_value", off)):
        if t.shape.rank not in (0, None):
            raise ValueError(f"one_hot: {what} must be a scalar, got shape {t.shape}")
    known = constant_value(depth)
    if known is not None and known < 0:
        raise ValueError(f"one_hot: depth must be >= 0, got {known}")
    if indices.shape.rank is None:
        return [(on.dtype, TensorShape(None))]
    dims = indices.shape.as_list()
    axis = attrs["axis"]
    if not -1 <= axis <= len(dims):
        raise ValueError(f"one_hot: axis must be in [-1, {len(dims)}], got {axis}")
    dims.insert(len(dims) if axis == -1 else axis, None if known is None else int(known))
    return [(on.dtype, TensorShape(dims))]


def _one_hot(xp, indices, depth, on, off, axis):
    if depth < 0:  # depth is known when XLA compiles (a static operand)
        raise errors.InvalidArgumentError(f"one_hot: depth must be >= 0, got {depth}")
    hot = xp.expand_dims(indices, -1) == xp.arange(int(depth))  # out of range: no hot entry
    out = xp.where(hot, on, off).astype(xp.asarray(on).dtype)
    return out if axis == -1 else xp.moveaxis(out, -1, axis)


def _one_hot_gradient(op, grad):
    """None for the indices and depth (integers); ``on_value`` gets the gradient summed where
    the output is on, ``off_value`` where it is off."""
    indices, depth, _, _ = op.inputs
    on = bind1(
        ONE_HOT, [indices, depth, convert_to_tensor(True), convert_to_tensor(False)], op.attrs
    )
    zeros = zeros_like(grad)
    return None, None, reduce_sum(where(on, grad, zeros)), reduce_sum(where(on, zeros, grad))


ONE_HOT = OpDef(
    "OneHot",
    None,
    infer=_one_hot_infer,
    attrs={"axis": kinds.INT},
    gradient=_one_hot_gradient,
    implementation=_one_hot,
)


def one_hot(indices, depth, on_value=None, off_value=None, axis=None, dtype=None, name=None):
    """Each index as a vector of ``depth`` values: ``on_value`` at the index, ``off_value``
    elsewhere (an index out of ``[0, depth)`` gives only ``off_value``).

    The new dim goes at ``axis`` (last by default). The dtype is that of
    ``on_value``/``off_value`` when given, else ``dtype`` (float32 by default).

    >>> one_hot([0, 2, 5], 3).numpy()
    array([[1., 0., 0.],
           [0., 0., 1.],
           [0., 0., 0.]], dtype=float32)
    >>> one_hot([1, 0], 2, on_value=5, off_value=-1, axis=0).numpy()
    array([[-1,  5],
           [ 5, -1]], dtype=int32)
    """
    indices = convert_to_tensor(indices)
    given = [v for v in (on_value, off_value) if v is not None]
    if dtype is not None:
        dtype = dtypes.as_dtype(dtype)
    elif given:  # a tensor's dtype first, else a Python value's default one
        tensors = [v for v in given if isinstance(v, Tensor)]
        dtype = (tensors[0] if tensors else convert_to_tensor(given[0])).dtype
    else:
        dtype = dtypes.float32
    on = convert_to_tensor(_one_or_zero(dtype, 1) if on_value is None else on_value, dtype)
    off = convert_to_tensor(_one_or_zero(dtype, 0) if off_value is None else off_value, dtype)
    depth = convert_to_tensor(depth, dtypes.int32)
    attrs = {"axis": -1 if axis is None else static_int(axis, "one_hot: axis")}
    return bind1(ONE_HOT, [indices, depth, on, off], attrs, name or "one_hot")


def _one_or_zero(dtype, value):
    return bool(value) if dtype is dtypes.bool_ else value


def _index_spec(key):
    if not isinstance(key, tuple):
        key = (key,)
    spec, tensors = [], []

    def part(v):
        if v is None or isinstance(v, int):
            return v
        if isinstance(v, Tensor) or hasattr(v, "_as_tensor"):
            t = convert_to_tensor(v)
            if not t.dtype.is_integer or t.shape.rank not in (0, None):
                raise TypeError(
                    f"Tensor indices must be integer scalars, got {t.dtype.name} {t.shape}"
                )
            tensors.append(t)
            return ("t", len(tensors) - 1)
        if hasattr(v, "__index__"):
            return v.__index__()
        raise TypeError(
            f"Only integers, slices, None, Ellipsis and integer tensors are valid indices, got {v!r}"
        )

    for k in key:
        if k is Ellipsis or k is None:
            spec.append(k)
        elif isinstance(k, slice):
            spec.append(slice(part(k.start), part(k.stop), part(k.step)))
        else:
            spec.append(part(k))
    if spec.count(Ellipsis) > 1:
        raise IndexError("An index can only have a single ellipsis ('...')")
    return tuple(spec), tensors


def _is_bound(v, n_dynamic):
    """A slice bound or an index of a spec: an int, or ("t", k) for the k-th extra input."""
    if type(v) is tuple:
        return len(v) == 2 and v[0] == "t" and kinds.is_int(v[1]) and 0 <= v[1] < n_dynamic
    return type(v) is int


def _is_spec(spec, n_dynamic=1 << 16):
    """What ``_index_spec`` makes: a tuple of ints, slices, None, ``...`` and tensor indices."""
    return type(spec) is tuple and all(
        k is None
        or k is Ellipsis
        or _is_bound(k, n_dynamic)
        or (
            type(k) is slice
            and all(b is None or _is_bound(b, n_dynamic) for b in (k.start, k.stop, k.step))
        )
        for k in spec
    )


INDEX_SPEC = kinds.AttrKind("an index spec", _is_spec)


def _resolve(v, dynamic):
    if isinstance(v, tuple):
        return int(dynamic[v[1]])
    return v


def _key(spec, dynamic):
    return tuple(
        slice(_resolve(k.start, dynamic), _resolve(k.stop, dynamic), _resolve(k.step, dynamic))
        if isinstance(k, slice)
        else _resolve(k, dynamic)
        for k in spec
    )


def _slice_kernel(x, *dynamic, spec):
    out = x[_key(spec, dynamic)]
    if x.dtype == object and not isinstance(out, np.ndarray):
        return np.asarray(out, dtype=object)  # numpy gives one string element as bare bytes
    return out


def _slice_form(op):
    """numpy's indexing, written out; strings keep the kernel (which keeps an element an array)."""
    if op.inputs[0].dtype is dtypes.string:
        return None
    return Form(Subscript(Input(0), op.attrs["spec"]))


def _slice_infer(inputs, attrs):
    x, spec = inputs[0], attrs["spec"]
    if not _is_spec(spec, len(inputs) - 1):
        raise IndexError(f"the index refers to tensors beyond the op's {len(inputs) - 1}")
    if spec.count(Ellipsis) > 1:
        raise IndexError("An index can only have a single ellipsis ('...')")
    for t in inputs[1:]:
        if not t.dtype.is_integer or t.shape.rank not in (0, None):
            raise TypeError(f"Tensor indices must be integer scalars, got {t.dtype.name} {t.shape}")
    new_axes = spec.count(None)
    check_rank(new_axes, "the index's result")  # each None adds a dimension
    if x.shape.rank is None:
        return [(x.dtype, TensorShape(None))]
    dims = x.shape.as_list()
    consumed = len(spec) - new_axes - spec.count(Ellipsis)
    if consumed > len(dims):
        raise IndexError(f"Too many indices for a tensor of rank {len(dims)}")
    check_rank(len(dims) - consumed + new_axes, "the index's result")
    out, d = [], 0
    for k in spec:
        if k is Ellipsis:
            n = len(dims) - consumed
            out.extend(dims[d : d + n])
            d += n
        elif k is None:
            out.append(1)
        elif isinstance(k, slice):
            dim = dims[d]
            d += 1
            if dim is None or any(isinstance(b, tuple) for b in (k.start, k.stop, k.step)):
                out.append(None)
            else:
                if k.step == 0:
                    raise ValueError("slice step cannot be zero")
                out.append(len(builtins.range(*k.indices(dim))))
        else:
            dim = dims[d]
            d += 1
            if isinstance(k, int) and dim is not None and not -dim <= k < dim:
                raise IndexError(
                    f"index {k} is out of bounds for dimension {d - 1} with size {dim}"
                )
    out.extend(dims[d:])
    return [(x.dtype, TensorShape(out))]


def _slice_gradient(op, grad):
    x, *dynamic = op.inputs
    inputs = [shape_operand(shape_of(x)), grad, *dynamic]
    return (bind1(STRIDED_SLICE_GRAD, inputs, {"spec": op.attrs["spec"]}, "StridedSliceGrad"),) + (
        None,
    ) * len(dynamic)


STRIDED_SLICE = OpDef(
    "StridedSlice",
    _slice_kernel,
    infer=_slice_infer,
    default_name="strided_slice",
    attrs={"spec": INDEX_SPEC},
    gradient=_slice_gradient,
    python_form=_slice_form,
    static_value=folded_value,
)


def _slice_grad_kernel(shape, grad, *dynamic, spec):
    out = np.zeros(tuple(int(d) for d in shape), dtype=np.asarray(grad).dtype)
    out[_key(spec, dynamic)] = grad
    return out


def _slice_grad_infer(inputs, attrs):
    shape, grad, *dynamic = inputs
    if not _is_spec(attrs["spec"], len(dynamic)):
        raise IndexError(f"the index refers to tensors beyond the op's {len(dynamic)}")
    return [(grad.dtype, shape_from_tensor(shape))]


def _slice_of_gradient(op, grad):
    _, _, *dynamic = op.inputs
    sliced = bind1(STRIDED_SLICE, [grad, *dynamic], {"spec": op.attrs["spec"]}, "strided_slice")
    return (None, sliced) + (None,) * len(dynamic)


# ``x[key]``'s gradient: ``grad`` written at ``key`` into zeros of x's shape.
STRIDED_SLICE_GRAD = OpDef(
    "StridedSliceGrad",
    _slice_grad_kernel,
    infer=_slice_grad_infer,
    attrs={"spec": INDEX_SPEC},
    gradient=_slice_of_gradient,
)


def slice_tensor(tensor, key):
    """``tensor[key]``: ints, slices, ``None``, ``...`` and integer scalar tensors."""
    spec, dynamic = _index_spec(key)
    return bind1(STRIDED_SLICE, [tensor, *dynamic], {"spec": spec}, "strided_slice")


Tensor.__getitem__ = slice_tensor


# --- samples: what the op's tests run it on (runtime.ops.op_info) ---
from runtime.ops.op_info import Sample, op_info  # noqa: E402


def _gather_reference(params, indices, axis=0):
    """numpy's advanced indexing at ``axis``, not ``take``."""
    return params[(builtins.slice(None),) * (axis % params.ndim) + (indices,)]


def _gather_samples(rng):
    def draw(*shape, dtype="float64"):
        return rng.uniform(-3.0, 3.0, shape).astype(dtype)

    return [
        Sample((draw(4, 3, dtype="float32"), np.array([2, 0, 2], np.int32)), {}),
        Sample((draw(2, 4), np.array([[3, 0], [1, 1]], np.int32)), {"axis": 1}),
        Sample((draw(3, 2), np.array(1, np.int64)), {"axis": -2}),
        Sample((np.arange(5, dtype=np.int32), np.array([4, 0], np.int64)), {}),
        Sample((draw(2, 3), np.array([2, 0], np.int16)), {"axis": -1}),  # ONNX takes int32, int64
    ]


def _one_hot_with_values(fn, indices, *values, **kwargs):
    """``one_hot`` called on a sample's tensors: the indices, then ``on_value`` and
    ``off_value`` where the sample has them (tensors: their gradients are checked)."""
    return fn(indices, **dict(zip(("on_value", "off_value"), values)), **kwargs)


def _one_hot_reference(indices, *values, depth, axis=-1, dtype=None):
    """``on_value`` where an index equals the position, ``off_value`` elsewhere, per element;
    in the values' dtype, else ``dtype``, else float32."""
    on_value = values[0] if values else 1
    off_value = values[1] if len(values) > 1 else 0
    rows = [[on_value if i == k else off_value for k in range(depth)] for i in indices.flat]
    kind = values[0].dtype if values else np.float32 if dtype is None else dtype.as_numpy_dtype
    return np.moveaxis(np.asarray(rows, kind).reshape(indices.shape + (depth,)), -1, axis)


def _one_hot_samples(rng):
    on, off = rng.uniform(1.0, 3.0), rng.uniform(-3.0, 0.0)
    return [
        Sample((rng.integers(-1, 5, 3).astype(np.int32),), {"depth": 4}),
        Sample((rng.integers(0, 3, (2, 2)), np.float64(on), np.float64(off)), {"depth": 3}),
        Sample((np.array([1, 0], np.int32),), {"depth": 2, "axis": 0, "dtype": dtypes.float64}),
        Sample((np.array([2, 0, 2], np.int32), np.float32(on)), {"depth": 3, "axis": 0}),
    ]


op_info("rt.gather", _gather_samples, _gather_reference)(gather)
op_info("rt.one_hot", _one_hot_samples, _one_hot_reference, call=_one_hot_with_values)(one_hot)
