"""Creating, converting, reshaping and indexing tensors."""

from __future__ import annotations

import builtins

import numpy as np

from runtime import context, dtypes, errors
from runtime.dtypes import DType
from runtime.ops.registry import (
    OpDef,
    bind,
    bind1,
    unary_spec,
)
from runtime.tensor import EagerTensor, SymbolicTensor, Tensor, to_numpy
from runtime.tensor_shape import TensorShape, as_shape, broadcast_shapes

# --- constants and conversion -------------------------------------------------------------


def _const_kernel(value, dtype):
    return value


CONST = OpDef(
    "Const", _const_kernel, infer=lambda i, a: [(a["dtype"], TensorShape(np.shape(a["value"])))]
)


def constant_in_graph(graph, value, dtype: DType, name="Const"):
    """A Const op in ``graph`` holding ``value`` (already numpy, of ``dtype``)."""
    specs = [(dtype, TensorShape(np.shape(value)))]
    return graph.create_op(CONST, [], {"value": value, "dtype": dtype}, name, specs).outputs[0]


def _make_constant(value, dtype, name):
    if isinstance(value, np.ndarray):
        value = value.copy()  # a tensor never changes, even if the caller's array does
    graph = context.building_graph()
    if graph is None:
        return EagerTensor(value, dtype)
    return constant_in_graph(graph, value, dtype, name or "Const")


def constant(value, dtype=None, shape=None, name=None) -> Tensor:
    """A tensor holding ``value``: ``int`` -> int32, ``float`` -> float32, ``str`` -> string.

    >>> constant([[1, 2], [3, 4]]).shape
    TensorShape([2, 2])
    >>> constant(0.5, shape=[2])
    <rt.Tensor: shape=(2,), dtype=float32, numpy=array([0.5, 0.5], dtype=float32)>
    """
    if isinstance(value, Tensor):
        value = value.numpy()
    dtype = dtypes.as_dtype(dtype) if dtype is not None else None
    arr = to_numpy(value, dtype)
    if dtype is None:
        dtype = dtypes.as_dtype(arr.dtype)
    if shape is not None:
        shape = tuple(as_shape(shape).as_list())
        if int(np.prod(shape)) == np.size(arr):
            arr = np.reshape(arr, shape)
        elif np.size(arr) == 1:
            arr = np.full(shape, np.reshape(arr, ()), dtype=arr.dtype)
        else:
            raise TypeError(
                f"Expected a value with {int(np.prod(shape))} elements for shape {list(shape)}, "
                f"got {np.size(arr)}"
            )
        arr = arr[()] if arr.ndim == 0 else arr
    return _make_constant(arr, dtype, name)


def convert_to_tensor(value, dtype=None, name=None, dtype_hint=None) -> Tensor:
    """``value`` as a tensor: tensors pass through, variables are read, the rest becomes a constant.

    A requested ``dtype`` is never silently changed: a tensor or array of
    another dtype raises TypeError naming both.

    >>> convert_to_tensor(3, dtype=dtypes.float32)
    <rt.Tensor: shape=(), dtype=float32, numpy=3.0>
    """
    if isinstance(value, Tensor):
        if dtype is not None and value.dtype is not dtypes.as_dtype(dtype):
            raise TypeError(
                f"Tensor conversion requested dtype {dtypes.as_dtype(dtype).name} for a tensor "
                f"of dtype {value.dtype.name}"
            )
        return value
    to_tensor = getattr(value, "_as_tensor", None)
    if to_tensor is not None:
        return convert_to_tensor(to_tensor(), dtype, name)
    if dtype is None and dtype_hint is not None:
        try:
            return convert_to_tensor(value, dtype_hint, name)
        except (TypeError, ValueError):
            pass
    dtype = dtypes.as_dtype(dtype) if dtype is not None else None
    arr = to_numpy(value, dtype, cast_numpy=False)
    return _make_constant(arr, dtype or dtypes.as_dtype(arr.dtype), name)


def constant_value(t):
    """The value of ``t`` if it is known without running a graph, else None."""
    if isinstance(t, EagerTensor):
        return t._value
    if not isinstance(t, SymbolicTensor):
        return None
    op = t.op
    if op.type == "Const":
        return op.attrs["value"]
    if op.type == "Shape" and op.inputs[0].shape.is_fully_defined():
        return np.array(op.inputs[0].shape.as_list(), dtype=op.attrs["out_type"].as_numpy_dtype)
    if op.type == "Pack":
        values = [constant_value(x) for x in op.inputs]
        if all(v is not None for v in values):
            return np.stack(values, axis=op.attrs["axis"])
    if op.type == "Cast":
        v = constant_value(op.inputs[0])
        return None if v is None else np.asarray(v).astype(op.attrs["dtype"].as_numpy_dtype)
    return None


def static_int(value, what):
    """An int argument (an axis, a count) that may be given as a tensor of known value."""
    if isinstance(value, Tensor):
        known = constant_value(value)
        if known is None or np.ndim(known) != 0:
            raise TypeError(
                f"{what} must be an integer known when the graph is built, got {value!r}"
            )
        value = known
    return int(value)


def static_ints(values, what):
    """A tuple of ints (axes, a permutation): a list, an int, or a tensor of known value."""
    if values is None:
        return None
    if isinstance(values, Tensor):
        known = constant_value(values)
        if known is None:
            raise TypeError(f"{what} must be known when the graph is built, got {values!r}")
        values = known
    if np.ndim(values) == 0:
        return (static_int(values, what),)
    return tuple(static_int(v, what) for v in np.reshape(values, -1).tolist())


def _list_operands(values, op_name):
    """A list of tensors; Python values take the dtype of the first tensor among them."""
    values = list(values)
    if not values:
        raise ValueError(f"{op_name} needs at least one input tensor")
    first = next((v for v in values if _is_tensor_like(v)), None)
    if first is None:
        return [convert_to_tensor(v) for v in values]
    dtype = convert_to_tensor(first).dtype
    return [
        convert_to_tensor(v) if _is_tensor_like(v) else convert_to_tensor(v, dtype) for v in values
    ]


def _is_tensor_like(v):
    return isinstance(v, Tensor) or hasattr(v, "_as_tensor")


def shape_from_tensor(t) -> TensorShape:
    """The shape a 1-D shape tensor stands for, as far as it is known statically."""
    value = constant_value(t)
    if value is not None:
        return TensorShape([None if d < 0 else int(d) for d in np.reshape(value, -1)])
    if t.shape.rank == 1 and t.shape[0] is not None:
        return TensorShape([None] * t.shape[0])
    return TensorShape(None)


def _shape_operand(shape, name="shape"):
    """A shape argument (list, TensorShape or tensor) as an int32 1-D tensor."""
    if isinstance(shape, TensorShape):
        shape = shape.as_list()
    if isinstance(shape, Tensor):
        return shape
    if isinstance(shape, (list, tuple)) and any(isinstance(d, Tensor) for d in shape):
        return stack([convert_to_tensor(d, dtypes.int32) for d in shape])
    return convert_to_tensor(np.asarray(shape, dtype=np.int32).reshape(-1), name=name)


# --- placeholders ---------------------------------------------------------------------------


def _placeholder_kernel(dtype, shape):
    raise errors.InvalidArgumentError("A placeholder must be fed a value")


PLACEHOLDER = OpDef(
    "Placeholder", _placeholder_kernel, infer=lambda i, a: [(a["dtype"], a["shape"])], pure=False
)


def placeholder_in_graph(graph, dtype, shape, name="Placeholder"):
    attrs = {"dtype": dtype, "shape": as_shape(shape)}
    return graph.create_op(PLACEHOLDER, [], attrs, name, [(dtype, attrs["shape"])]).outputs[0]


def placeholder(dtype, shape=None, name=None):
    """A graph input whose value is given at run time (``Session.run(feed_dict=...)``).

    >>> import runtime as rt
    >>> with rt.Graph().as_default():
    ...     x = rt.placeholder(rt.float32, shape=[None, 3], name="x")
    >>> x
    <rt.Tensor 'x:0' shape=(None, 3) dtype=float32>
    """
    graph = context.building_graph()
    if graph is None:
        raise RuntimeError(
            "rt.placeholder() is not compatible with eager execution: create it inside "
            "`with rt.Graph().as_default():`."
        )
    return placeholder_in_graph(graph, dtypes.as_dtype(dtype), shape, name or "Placeholder")


# --- filling ---------------------------------------------------------------------------------


def _fill_infer(inputs, attrs):
    dims, value = inputs
    if value.shape.rank not in (0, None):
        raise ValueError(f"Fill's value must be a scalar, got shape {value.shape}")
    return [(value.dtype, shape_from_tensor(dims))]


FILL = OpDef("Fill", lambda dims, value: np.full(tuple(dims), value), infer=_fill_infer)


def fill(dims, value, name=None):
    """A tensor of shape ``dims`` filled with ``value``.

    >>> fill([2], 7).numpy()
    array([7, 7], dtype=int32)
    """
    value = convert_to_tensor(value)
    return bind1(FILL, [_shape_operand(dims), value], name=name or "Fill")


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


def _like_kernel(fill_value):
    def kernel(x, dtype):
        value = b"" if dtype is dtypes.string else fill_value
        return np.full(np.shape(x), value, dtype=dtype.as_numpy_dtype)

    return kernel


def _like_infer(op_type):
    def infer(inputs, attrs):
        if op_type == "OnesLike" and attrs["dtype"] is dtypes.string:
            raise TypeError("ones_like() has no meaning for strings")
        return [(attrs["dtype"], inputs[0].shape)]

    return infer


ZEROS_LIKE = OpDef("ZerosLike", _like_kernel(0), infer=_like_infer("ZerosLike"))
ONES_LIKE = OpDef("OnesLike", _like_kernel(1), infer=_like_infer("OnesLike"))


def zeros_like(input, dtype=None, name=None):
    """Zeros with the shape (and by default the dtype) of ``input``."""
    input = convert_to_tensor(input)
    dtype = dtypes.as_dtype(dtype) if dtype is not None else input.dtype
    return bind1(ZEROS_LIKE, [input], {"dtype": dtype}, name or "zeros_like")


def ones_like(input, dtype=None, name=None):
    """Ones with the shape (and by default the dtype) of ``input``."""
    input = convert_to_tensor(input)
    dtype = dtypes.as_dtype(dtype) if dtype is not None else input.dtype
    return bind1(ONES_LIKE, [input], {"dtype": dtype}, name or "ones_like")


_RANGE_ORDER = [dtypes.int32, dtypes.int64, dtypes.float32, dtypes.float64]


def _range_infer(inputs, attrs):
    start, limit, delta = (constant_value(t) for t in inputs)
    for t in inputs:
        if t.shape.rank not in (0, None):
            raise ValueError(f"range() takes scalars, got a tensor of shape {t.shape}")
    if start is not None and limit is not None and delta is not None:
        if delta == 0:
            raise ValueError("range(): delta must not be 0")
        n = int(np.ceil((limit - start) / delta))
        return [(inputs[0].dtype, TensorShape([max(n, 0)]))]
    return [(inputs[0].dtype, TensorShape([None]))]


def _range_kernel(start, limit, delta):
    if delta == 0:
        raise errors.InvalidArgumentError("range(): delta must not be 0")
    return np.arange(start, limit, delta, dtype=np.result_type(start))


RANGE = OpDef("Range", _range_kernel, infer=_range_infer)


def range(start, limit=None, delta=1, dtype=None, name=None):
    """Numbers from ``start`` up to (not including) ``limit``, by ``delta``.

    >>> range(5).numpy()
    array([0, 1, 2, 3, 4], dtype=int32)
    >>> range(1.0, 2.0, 0.5).numpy()
    array([1. , 1.5], dtype=float32)
    """
    if limit is None:
        start, limit = 0, start
    args = [start, limit, delta]
    if dtype is None:
        found = [a.dtype if isinstance(a, Tensor) else convert_to_tensor(a).dtype for a in args]
        dtype = max(found, key=lambda d: _RANGE_ORDER.index(d) if d in _RANGE_ORDER else 0)
    dtype = dtypes.as_dtype(dtype)
    tensors = [a if isinstance(a, Tensor) and a.dtype is dtype else cast(a, dtype) for a in args]
    return bind1(RANGE, tensors, name=name or "range")


# --- dtype and shape -------------------------------------------------------------------------


def _cast_infer(inputs, attrs):
    x, target = inputs[0], attrs["dtype"]
    if (x.dtype is dtypes.string) != (target is dtypes.string):
        raise TypeError(f"Cannot cast a {x.dtype.name} tensor to {target.name}")
    return [(target, x.shape)]


def _cast_kernel(x, dtype):
    return x.astype(dtype.as_numpy_dtype)


CAST = OpDef("Cast", _cast_kernel, infer=_cast_infer)


def cast(x, dtype, name=None):
    """``x`` converted to ``dtype`` (floats to ints truncate toward zero).

    >>> cast(constant([1.7, -1.7]), dtypes.int32).numpy()
    array([ 1, -1], dtype=int32)
    """
    dtype = dtypes.as_dtype(dtype)
    if not isinstance(x, Tensor) and not hasattr(x, "_as_tensor"):
        x = constant(x)
    x = convert_to_tensor(x)
    if x.dtype is dtype:
        return x
    return bind1(CAST, [x], {"dtype": dtype}, name or "Cast")


SHAPE = OpDef(
    "Shape",
    lambda x, out_type: np.array(np.shape(x), dtype=out_type.as_numpy_dtype),
    infer=lambda i, a: [(a["out_type"], TensorShape([i[0].shape.rank]))],
)


def shape(input, out_type=dtypes.int32, name=None):
    """The shape of ``input`` as a 1-D tensor (known dims are folded in graphs).

    >>> shape(zeros([2, 3])).numpy()
    array([2, 3], dtype=int32)
    """
    input = convert_to_tensor(input)
    return bind1(SHAPE, [input], {"out_type": dtypes.as_dtype(out_type)}, name or "Shape")


SIZE = OpDef(
    "Size",
    lambda x, out_type: out_type.as_numpy_dtype(np.size(x)),
    infer=lambda i, a: [(a["out_type"], TensorShape([]))],
)
RANK = OpDef(
    "Rank", lambda x: np.int32(np.ndim(x)), infer=lambda i, a: [(dtypes.int32, TensorShape([]))]
)


def size(input, out_type=dtypes.int32, name=None):
    """The number of elements of ``input``."""
    return bind1(
        SIZE, [convert_to_tensor(input)], {"out_type": dtypes.as_dtype(out_type)}, name or "Size"
    )


def rank(input, name=None):
    """The number of dimensions of ``input``."""
    return bind1(RANK, [convert_to_tensor(input)], name=name or "Rank")


def _reshape_infer(inputs, attrs):
    x, target = inputs[0], shape_from_tensor(inputs[1])
    if target.rank is None:
        return [(x.dtype, target)]
    dims = target.as_list()
    known_in = x.shape.num_elements()
    if dims.count(None) == 1 and known_in is not None:
        rest = int(np.prod([d for d in dims if d is not None]))
        if rest == 0 or known_in % rest:
            raise ValueError(f"Cannot reshape a tensor with {known_in} elements to shape {dims}")
        dims[dims.index(None)] = known_in // rest
    elif None not in dims and known_in is not None and int(np.prod(dims)) != known_in:
        raise ValueError(
            f"Cannot reshape a tensor with {known_in} elements to shape {dims} "
            f"({int(np.prod(dims))} elements)"
        )
    return [(x.dtype, TensorShape(dims))]


RESHAPE = OpDef("Reshape", lambda x, shape: np.reshape(x, tuple(shape)), infer=_reshape_infer)


def reshape(tensor, shape, name=None):
    """``tensor`` with a new shape of the same size; one dim may be ``-1``.

    >>> reshape(range(6), [2, -1]).shape
    TensorShape([2, 3])
    """
    return bind1(
        RESHAPE, [convert_to_tensor(tensor), _shape_operand(shape)], name=name or "Reshape"
    )


def _transpose_infer(inputs, attrs):
    x, perm = inputs[0], attrs["perm"]
    if x.shape.rank is None:
        return [(x.dtype, TensorShape(None) if perm is None else TensorShape([None] * len(perm)))]
    dims = x.shape.as_list()
    if perm is None:
        return [(x.dtype, TensorShape(dims[::-1]))]
    if sorted(perm) != list(builtins.range(len(dims))):
        raise ValueError(f"transpose: perm {list(perm)} is not a permutation of {len(dims)} dims")
    return [(x.dtype, TensorShape([dims[p] for p in perm]))]


TRANSPOSE = OpDef("Transpose", lambda x, perm: np.transpose(x, perm), infer=_transpose_infer)


def transpose(a, perm=None, name=None):
    """``a`` with its dims permuted (reversed by default)."""
    perm = static_ints(perm, "transpose: perm")
    return bind1(TRANSPOSE, [convert_to_tensor(a)], {"perm": perm}, name or "transpose")


def _same_dtype(op_type, tensors):
    first = tensors[0].dtype
    for i, t in enumerate(tensors[1:], 1):
        if t.dtype is not first:
            raise TypeError(
                f"{op_type}: input {i} has dtype {t.dtype.name}, input 0 has {first.name}"
            )


def _normalize_axis(axis, rank, what):
    if rank is None:
        return axis
    if not -rank <= axis < rank:
        raise ValueError(f"{what}: axis {axis} is out of range for rank {rank}")
    return axis % rank


def _concat_infer(inputs, attrs):
    _same_dtype("concat", inputs)
    ranks = {t.shape.rank for t in inputs} - {None}
    if len(ranks) > 1:
        raise ValueError(f"concat: inputs have different ranks {sorted(ranks)}")
    if not ranks:
        return [(inputs[0].dtype, TensorShape(None))]
    rank = ranks.pop()
    if rank == 0:
        raise ValueError("concat: cannot concatenate scalars; use stack")
    axis = _normalize_axis(attrs["axis"], rank, "concat")
    dims = [None] * rank
    total = 0
    for t in inputs:
        if t.shape.rank is None:
            total = None
            continue
        for i, d in enumerate(t.shape):
            if i == axis:
                total = None if (total is None or d is None) else total + d
            elif d is not None:
                if dims[i] is not None and dims[i] != d:
                    raise ValueError(
                        f"concat: dimension {i} differs between inputs ({dims[i]} vs {d})"
                    )
                dims[i] = d
    dims[axis] = total
    return [(inputs[0].dtype, TensorShape(dims))]


CONCAT = OpDef(
    "ConcatV2",
    lambda *xs, axis: np.concatenate(xs, axis=axis),
    infer=_concat_infer,
    default_name="concat",
)


def concat(values, axis, name=None):
    """Joins tensors along an existing axis.

    >>> concat([[1, 2], [3]], 0).numpy()
    array([1, 2, 3], dtype=int32)
    """
    values = _list_operands(values, "concat")
    return bind1(CONCAT, values, {"axis": static_int(axis, "concat: axis")}, name or "concat")


def _pack_infer(inputs, attrs):
    _same_dtype("stack", inputs)
    shape = TensorShape(None)
    for t in inputs:
        if not shape.is_compatible_with(t.shape):
            raise ValueError(f"stack: shapes {shape} and {t.shape} of the inputs differ")
        shape = shape.merge_with(t.shape)
    if shape.rank is None:
        return [(inputs[0].dtype, TensorShape(None))]
    axis = _normalize_axis(attrs["axis"], shape.rank + 1, "stack")
    dims = shape.as_list()
    dims.insert(axis, len(inputs))
    return [(inputs[0].dtype, TensorShape(dims))]


PACK = OpDef(
    "Pack", lambda *xs, axis: np.stack(xs, axis=axis), infer=_pack_infer, default_name="stack"
)


def stack(values, axis=0, name=None):
    """Stacks same-shaped tensors along a new axis.

    >>> stack([1, 2, 3]).numpy()
    array([1, 2, 3], dtype=int32)

    A TensorArray (what AutoGraph makes of a list appended to in a graph
    loop) is stacked as with ``TensorArray.stack()``.
    """
    if hasattr(values, "stack") and hasattr(values, "flow"):
        return values.stack(name=name)
    values = _list_operands(values, "stack")
    return bind1(PACK, values, {"axis": static_int(axis, "stack: axis")}, name or "stack")


def _unpack_infer(inputs, attrs):
    x = inputs[0]
    dims = x.shape.as_list()
    axis = _normalize_axis(attrs["axis"], len(dims), "unstack")
    del dims[axis]
    return [(x.dtype, TensorShape(dims))] * attrs["num"]


def _unpack_kernel(x, num, axis):
    if np.shape(x)[axis] != num:
        raise errors.InvalidArgumentError(
            f"unstack: expected {num} along axis {axis}, got {np.shape(x)[axis]}"
        )
    return tuple(np.moveaxis(x, axis, 0))


UNPACK = OpDef("Unpack", _unpack_kernel, infer=_unpack_infer, default_name="unstack")


def unstack(value, num=None, axis=0, name=None):
    """Splits a tensor along ``axis`` into a list of tensors.

    >>> [t.numpy() for t in unstack([[1, 2], [3, 4]])]
    [array([1, 2], dtype=int32), array([3, 4], dtype=int32)]
    """
    value = convert_to_tensor(value)
    axis = static_int(axis, "unstack: axis")
    if value.shape.rank is None:
        raise ValueError("unstack: the input's rank must be known")
    if num is None:
        num = value.shape[_normalize_axis(axis, value.shape.rank, "unstack")]
        if num is None:
            raise ValueError(f"unstack: cannot infer num from shape {value.shape}; pass num=")
    return list(bind(UNPACK, [value], {"num": int(num), "axis": int(axis)}, name or "unstack"))


def _expand_dims_infer(inputs, attrs):
    x = inputs[0]
    if x.shape.rank is None:
        return [(x.dtype, TensorShape(None))]
    dims = x.shape.as_list()
    axis = _normalize_axis(attrs["axis"], len(dims) + 1, "expand_dims")
    dims.insert(axis, 1)
    return [(x.dtype, TensorShape(dims))]


EXPAND_DIMS = OpDef("ExpandDims", lambda x, axis: np.expand_dims(x, axis), infer=_expand_dims_infer)


def expand_dims(input, axis, name=None):
    """``input`` with a new dimension of size 1 inserted at ``axis``."""
    return bind1(
        EXPAND_DIMS,
        [convert_to_tensor(input)],
        {"axis": static_int(axis, "axis")},
        name or "ExpandDims",
    )


def _squeeze_infer(inputs, attrs):
    x, axis = inputs[0], attrs["axis"]
    if x.shape.rank is None:
        return [(x.dtype, TensorShape(None))]
    dims = x.shape.as_list()
    if axis is None:
        if None in dims:
            return [(x.dtype, TensorShape(None))]
        return [(x.dtype, TensorShape([d for d in dims if d != 1]))]
    axes = {_normalize_axis(a, len(dims), "squeeze") for a in axis}
    for a in axes:
        if dims[a] not in (1, None):
            raise ValueError(f"squeeze: cannot squeeze dimension {a} of size {dims[a]}")
    return [(x.dtype, TensorShape([d for i, d in enumerate(dims) if i not in axes]))]


SQUEEZE = OpDef("Squeeze", lambda x, axis: np.squeeze(x, axis), infer=_squeeze_infer)


def squeeze(input, axis=None, name=None):
    """``input`` without its size-1 dimensions (or just those in ``axis``)."""
    axis = static_ints(axis, "squeeze: axis")
    return bind1(SQUEEZE, [convert_to_tensor(input)], {"axis": axis}, name or "Squeeze")


IDENTITY = OpDef("Identity", lambda x: x, infer=unary_spec)


def identity(input, name=None):
    """The same value as a new tensor (in a graph: a new op, handy for naming and control deps)."""
    return bind1(IDENTITY, [convert_to_tensor(input)], name=name or "Identity")


def _select_infer(inputs, attrs):
    c, x, y = inputs
    if c.dtype is not dtypes.bool_:
        raise TypeError(f"where: condition must be bool, got {c.dtype.name}")
    if x.dtype is not y.dtype:
        raise TypeError(f"where: x is {x.dtype.name} but y is {y.dtype.name}")
    return [(x.dtype, broadcast_shapes(broadcast_shapes(c.shape, x.shape), y.shape))]


SELECT = OpDef(
    "SelectV2", lambda c, x, y: np.where(c, x, y), infer=_select_infer, default_name="where"
)


def _where_indices_infer(inputs, attrs):
    c = inputs[0]
    return [(dtypes.int64, TensorShape([None, c.shape.rank]))]


WHERE = OpDef("Where", lambda c: np.argwhere(c).astype(np.int64), infer=_where_indices_infer)


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
    x, y = _pair(x, y)
    return bind1(SELECT, [condition, x, y], name=name or "where")


def _pair(x, y):
    """Two operands as tensors, a Python value taking the other's dtype.

    Two tensors are returned as they are: the op's own check reports a dtype
    mismatch, naming the op and both dtypes.
    """
    x_is = isinstance(x, Tensor) or hasattr(x, "_as_tensor")
    y_is = isinstance(y, Tensor) or hasattr(y, "_as_tensor")
    if x_is and y_is:
        return convert_to_tensor(x), convert_to_tensor(y)
    if x_is:
        x = convert_to_tensor(x)
        return x, convert_to_tensor(y, dtype=x.dtype)
    if y_is:
        y = convert_to_tensor(y)
        return convert_to_tensor(x, dtype=y.dtype), y
    return convert_to_tensor(x), convert_to_tensor(y)


def _gather_infer(inputs, attrs):
    params, indices = inputs
    if not indices.dtype.is_integer:
        raise TypeError(f"gather: indices must be integers, got {indices.dtype.name}")
    if params.shape.rank is None or indices.shape.rank is None:
        return [(params.dtype, TensorShape(None))]
    dims = params.shape.as_list()
    axis = _normalize_axis(attrs["axis"], len(dims), "gather")
    return [(params.dtype, TensorShape(dims[:axis] + indices.shape.as_list() + dims[axis + 1 :]))]


def _gather_kernel(params, indices, axis):
    n = np.shape(params)[axis]
    if np.size(indices) and (np.min(indices) < 0 or np.max(indices) >= n):
        bad = np.asarray(indices)[(np.asarray(indices) < 0) | (np.asarray(indices) >= n)].flat[0]
        raise errors.InvalidArgumentError(f"gather: index {bad} is not in [0, {n})")
    return np.take(params, indices, axis=axis)


GATHER = OpDef("GatherV2", _gather_kernel, infer=_gather_infer, default_name="GatherV2")


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


# --- indexing --------------------------------------------------------------------------------
# An index is stored as a spec: a tuple of ints, slices, None and Ellipsis, where
# ("t", k) stands for the k-th extra input tensor (a dynamic index or bound).


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


def _resolve(v, dynamic):
    if isinstance(v, tuple):
        return int(dynamic[v[1]])
    return v


def _slice_kernel(x, *dynamic, spec):
    key = tuple(
        slice(_resolve(k.start, dynamic), _resolve(k.stop, dynamic), _resolve(k.step, dynamic))
        if isinstance(k, slice)
        else _resolve(k, dynamic)
        for k in spec
    )
    return x[key]


def _slice_infer(inputs, attrs):
    x, spec = inputs[0], attrs["spec"]
    if x.shape.rank is None:
        return [(x.dtype, TensorShape(None))]
    dims = x.shape.as_list()
    consumed = sum(1 for k in spec if k is not None and k is not Ellipsis)
    if consumed > len(dims):
        raise IndexError(f"Too many indices for a tensor of rank {len(dims)}")
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


STRIDED_SLICE = OpDef(
    "StridedSlice", _slice_kernel, infer=_slice_infer, default_name="strided_slice"
)


def slice_tensor(tensor, key):
    """``tensor[key]``: ints, slices, ``None``, ``...`` and integer scalar tensors."""
    spec, dynamic = _index_spec(key)
    return bind1(STRIDED_SLICE, [tensor, *dynamic], {"spec": spec}, "strided_slice")


Tensor.__getitem__ = slice_tensor
