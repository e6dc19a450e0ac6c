"""Shapes and layouts of tensors: filling, reshaping, joining and splitting.

Each row's gradient rule is beside it (``runtime.gradients`` runs them).
"""

from __future__ import annotations

import builtins

import numpy as np

from runtime import errors
from runtime.core import attr_kinds as kinds
from runtime.core import dtypes
from runtime.core.forms import Bound, Form, Input, Method, alias_form, constant_input
from runtime.core.op_def import NotDifferentiable, OpDef
from runtime.core.tensor import Tensor
from runtime.core.tensor_shape import TensorShape
from runtime.ops.constant_ops import (
    constant_value,
    convert_to_tensor,
    folded_value,
    list_operands,
    register_sequence_packer,
    static_int,
    static_ints,
)
from runtime.ops.registry import bind, bind1, unary_spec
from runtime.ops.shape_ops import shape, shape_from_tensor


def shape_operand(shape, name="shape"):
    """A shape argument (list, TensorShape or tensor) as an int32 1-D tensor."""
    if isinstance(shape, TensorShape):
        shape = shape.as_list()
    if isinstance(shape, Tensor):
        return shape
    if isinstance(shape, (list, tuple)) and any(isinstance(d, Tensor) for d in shape):
        return stack([convert_to_tensor(d, dtypes.int32) for d in shape])
    return convert_to_tensor(np.asarray(shape, dtype=np.int32).reshape(-1), name=name)


def shape_of(t):
    """``t``'s shape as an operand: a Python list when known statically, else ``shape(t)``.

    Gradient rules use it so that graphs with static shapes get no Shape ops.
    """
    if t.shape.is_fully_defined():
        return t.shape.as_list()
    return shape(t)


# --- like another tensor ---------------------------------------------------------------------


def _like(fill_value):
    def implementation(xp, x, dtype):
        value = b"" if dtype is dtypes.string else fill_value
        return xp.full(xp.shape(x), value, dtype=dtype.as_numpy_dtype)

    return implementation


def _like_infer(op_type, strings=True):
    def infer(inputs, attrs):
        if not strings and attrs["dtype"] is dtypes.string:
            raise TypeError("ones_like() has no meaning for strings")
        if attrs["dtype"].is_opaque:
            raise TypeError(f"{op_type} cannot make {attrs['dtype'].name} values")
        return [(attrs["dtype"], inputs[0].shape)]

    return infer


_LIKE_ATTRS = {"dtype": kinds.DTYPE}
_CONSTANT_VALUE = NotDifferentiable("its value does not depend on the input's values")
ZEROS_LIKE = OpDef(
    "ZerosLike",
    None,
    _like_infer("ZerosLike"),
    attrs=_LIKE_ATTRS,
    gradient=_CONSTANT_VALUE,
    implementation=_like(0),
)
ONES_LIKE = OpDef(
    "OnesLike",
    None,
    _like_infer("OnesLike", strings=False),
    attrs=_LIKE_ATTRS,
    gradient=_CONSTANT_VALUE,
    implementation=_like(1),
)


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


def _reshape_infer(inputs, attrs):
    x, target = inputs[0], shape_from_tensor(inputs[1])
    if target.rank is None:
        return [(x.dtype, target)]
    dims = target.as_list()
    known_in = x.shape.num_elements()
    if dims.count(None) == 1 and known_in is not None:
        rest = TensorShape([d for d in dims if d is not None]).num_elements()
        if rest == 0 or known_in % rest:
            raise ValueError(f"Cannot reshape a tensor with {known_in} elements to shape {dims}")
        dims[dims.index(None)] = known_in // rest
    elif known_in is not None and target.num_elements() not in (None, known_in):
        raise ValueError(
            f"Cannot reshape a tensor with {known_in} elements to shape {dims} "
            f"({target.num_elements()} elements)"
        )
    return [(x.dtype, TensorShape(dims))]


def _as_input_shape(op, g):
    """The gradient of an op that only rearranges its input's elements into a new shape."""
    return reshape(g, shape_of(op.inputs[0]))


def _reshape_form(op):
    """``x.reshape(shape)`` for a constant shape (numpy scalars have the method too), else None."""
    shape = constant_input(op, 1)
    if shape is not None and np.ndim(shape) == 1 and np.asarray(shape).dtype.kind in "iu":
        return Form(Method(Input(0), "reshape", Bound(tuple(int(d) for d in shape), "shape")))


RESHAPE = OpDef(
    "Reshape",
    None,
    infer=_reshape_infer,
    gradient=lambda op, g: (_as_input_shape(op, g), None),
    python_form=_reshape_form,
    implementation=lambda xp, x, shape: xp.reshape(x, tuple(shape)),
)


def reshape(tensor, shape, name=None):
    """``tensor`` with a new shape of the same size; one dim may be ``-1``.

    >>> reshape(convert_to_tensor([0, 1, 2, 3, 4, 5]), [2, -1]).shape
    TensorShape([2, 3])
    """
    return bind1(RESHAPE, [convert_to_tensor(tensor), shape_operand(shape)], name=name or "Reshape")


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


def _transpose_gradient(op, g):
    perm = op.attrs["perm"]
    return (transpose(g, None if perm is None else [int(p) for p in np.argsort(perm)]),)


def _transpose_form(op):
    """``x.transpose(perm)`` (a view; ``x.transpose()`` reverses the dims), else None."""
    perm = op.attrs["perm"]
    if perm is None or (type(perm) is tuple and all(type(p) is int for p in perm)):
        return Form(Method(Input(0), "transpose", *([] if perm is None else [Bound(perm, "perm")])))


TRANSPOSE = OpDef(
    "Transpose",
    None,
    infer=_transpose_infer,
    attrs={"perm": kinds.AXES},
    gradient=_transpose_gradient,
    python_form=_transpose_form,
    implementation=lambda xp, x, perm: xp.transpose(x, perm),
)


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


def normalize_axis(axis, rank, what):
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
    axis = normalize_axis(attrs["axis"], rank, "concat")
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


def _concat_gradient(op, g):
    axis = op.attrs["axis"]
    sizes = [x.shape[axis] if x.shape.rank is not None else None for x in op.inputs]
    if None in sizes:
        sizes = stack([shape(x)[axis] for x in op.inputs])
    return split(g, sizes, axis)


CONCAT = OpDef(
    "ConcatV2",
    None,
    infer=_concat_infer,
    default_name="concat",
    attrs={"axis": kinds.INT},
    gradient=_concat_gradient,
    implementation=lambda xp, *xs, axis: xp.concatenate(xs, axis=axis),
    static_value=folded_value,
)


def concat(values, axis, name=None):
    """Joins tensors along an existing axis.

    >>> concat([[1, 2], [3]], 0).numpy()
    array([1, 2, 3], dtype=int32)
    """
    values = list_operands(values, "concat")
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
    axis = normalize_axis(attrs["axis"], shape.rank + 1, "stack")
    dims = shape.as_list()
    dims.insert(axis, len(inputs))
    return [(inputs[0].dtype, TensorShape(dims))]


def _pack_value(op):
    """A Pack's value when all its inputs' are known: graphs fold it while tracing."""
    values = [constant_value(x) for x in op.inputs]
    if any(v is None for v in values):
        return None
    return np.stack(values, axis=op.attrs["axis"])


PACK = OpDef(
    "Pack",
    None,
    infer=_pack_infer,
    default_name="stack",
    attrs={"axis": kinds.INT},
    gradient=lambda op, g: unstack(g, num=len(op.inputs), axis=op.attrs["axis"]),
    static_value=_pack_value,
    implementation=lambda xp, *xs, axis: xp.stack(xs, axis=axis),
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
    values = list_operands(values, "stack")
    return bind1(PACK, values, {"axis": static_int(axis, "stack: axis")}, name or "stack")


def _pack_sequence(value, dtype=None, name=None):
    """A (nested) list holding tensors as one tensor: TensorFlow's autopacking.

    Python numbers in it take the dtype of its first tensor, unless ``dtype`` is given.
    """
    dtype = dtype if dtype is not None else _first_dtype(value)

    def part(item):
        if isinstance(item, (list, tuple)):
            return bind1(PACK, [part(x) for x in item], {"axis": 0}, "packed")
        return convert_to_tensor(item, dtype)

    if not value:
        raise ValueError("Cannot pack an empty list holding tensors")
    return bind1(PACK, [part(x) for x in value], {"axis": 0}, name or "packed")


def _first_dtype(value):
    for item in value:
        if isinstance(item, (list, tuple)):
            found = _first_dtype(item)
            if found is not None:
                return found
        elif isinstance(item, Tensor) or hasattr(item, "_as_tensor"):
            return convert_to_tensor(item).dtype
    return None


register_sequence_packer(_pack_sequence)


def _unpack_infer(inputs, attrs):
    x = inputs[0]
    dims = x.shape.as_list()
    axis = normalize_axis(attrs["axis"], len(dims), "unstack")
    num = attrs["num"]
    if not 0 <= num <= (_MAX_UNSTACK if dims[axis] is None else dims[axis]) or (
        dims[axis] is not None and num != dims[axis]
    ):
        raise ValueError(f"unstack: cannot split dimension {axis} of shape {x.shape} into {num}")
    del dims[axis]
    return [(x.dtype, TensorShape(dims))] * num


def _unpack(xp, x, num, axis):
    if xp.shape(x)[axis] != num:
        raise errors.InvalidArgumentError(
            f"unstack: expected {num} along axis {axis}, got {xp.shape(x)[axis]}"
        )
    return tuple(xp.moveaxis(x, axis, 0))


_MAX_UNSTACK = 1 << 16  # outputs of one op, where the dimension is not known before it runs


def _dense(grads, outputs):
    """The gradients of several outputs, zeros standing for those with none."""
    return [zeros_like(t) if g is None else g for g, t in zip(grads, outputs)]


UNPACK = OpDef(
    "Unpack",
    None,
    infer=_unpack_infer,
    default_name="unstack",
    attrs={"num": kinds.INT, "axis": kinds.INT},
    gradient=lambda op, *grads: (stack(_dense(grads, op.outputs), axis=op.attrs["axis"]),),
    implementation=_unpack,
    static_value=folded_value,
)


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
        num = value.shape[normalize_axis(axis, value.shape.rank, "unstack")]
        if num is None:
            raise ValueError(f"unstack: cannot infer num from shape {value.shape}; pass num=")
    return list(bind(UNPACK, [value], {"num": int(num), "axis": int(axis)}, name or "unstack"))


def _expand_dims_infer(inputs, attrs):
    x = inputs[0]
    if x.shape.rank is None:
        return [(x.dtype, TensorShape(None))]
    dims = x.shape.as_list()
    axis = normalize_axis(attrs["axis"], len(dims) + 1, "expand_dims")
    dims.insert(axis, 1)
    return [(x.dtype, TensorShape(dims))]


EXPAND_DIMS = OpDef(
    "ExpandDims",
    None,
    infer=_expand_dims_infer,
    attrs={"axis": kinds.INT},
    gradient=lambda op, g: (_as_input_shape(op, g),),
    implementation=lambda xp, x, axis: xp.expand_dims(x, axis),
)


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
    axes = {normalize_axis(a, len(dims), "squeeze") for a in axis}
    for a in axes:
        if dims[a] not in (1, None):
            raise ValueError(f"squeeze: cannot squeeze dimension {a} of size {dims[a]}")
    return [(x.dtype, TensorShape([d for i, d in enumerate(dims) if i not in axes]))]


SQUEEZE = OpDef(
    "Squeeze",
    None,
    infer=_squeeze_infer,
    attrs={"axis": kinds.AXES},
    gradient=lambda op, g: (_as_input_shape(op, g),),
    implementation=lambda xp, x, axis: xp.squeeze(x, axis),
)


def squeeze(input, axis=None, name=None):
    """``input`` without its size-1 dimensions (or just those in ``axis``)."""
    axis = static_ints(axis, "squeeze: axis")
    return bind1(SQUEEZE, [convert_to_tensor(input)], {"axis": axis}, name or "Squeeze")


def _same(xp, x):
    """What Identity and StopGradient compute, in every backend: their input."""
    return x


IDENTITY = OpDef("Identity", None, infer=unary_spec, gradient=lambda op, g: (g,), python_form=alias_form, implementation=_same)  # fmt: skip


def identity(input, name=None):
    """The same value as a new tensor (in a graph: a new op, handy for naming and control deps)."""
    return bind1(IDENTITY, [convert_to_tensor(input)], name=name or "Identity")


# --- stopping gradients -------------------------------------------------------------------------

STOP_GRADIENT = OpDef(
    "StopGradient",
    None,
    infer=unary_spec,
    gradient=NotDifferentiable("it stops gradients: that is what it is for"),
    python_form=alias_form,
    implementation=_same,
)


def stop_gradient(input, name=None):
    """``input``'s value, through which no gradient flows: a constant to differentiation.

    >>> import runtime as rt
    >>> x = rt.constant(3.0)
    >>> with rt.GradientTape() as tape:
    ...     tape.watch(x)
    ...     y = x * rt.stop_gradient(x)
    >>> tape.gradient(y, x).numpy()   # d(x * c)/dx with c = x held fixed
    np.float32(3.0)
    """
    return bind1(STOP_GRADIENT, [convert_to_tensor(input)], name=name or "StopGradient")


# --- splitting -------------------------------------------------------------------------------


def _split_infer(inputs, attrs):
    x, sizes = inputs
    num = attrs["num"]
    if not sizes.dtype.is_integer or sizes.shape.rank not in (1, None):
        raise TypeError(f"split: sizes must be a 1-D integer tensor, got {sizes.dtype.name}")
    if not 0 < num <= _MAX_UNSTACK or sizes.shape.as_list() not in ([num], [None], None):
        raise ValueError(f"split: {num} pieces for sizes of shape {sizes.shape}")
    values = constant_value(sizes)
    if x.shape.rank is None:
        return [(x.dtype, TensorShape(None))] * attrs["num"]
    dims = x.shape.as_list()
    axis = normalize_axis(attrs["axis"], len(dims), "split")
    specs = []
    for i in builtins.range(attrs["num"]):
        part = list(dims)
        part[axis] = None if values is None else int(np.reshape(values, -1)[i])
        specs.append((x.dtype, TensorShape(part)))
    return specs


def _split(xp, x, sizes, axis, num):
    sizes = np.reshape(sizes, -1)  # known when XLA compiles: numpy in every backend
    if len(sizes) != num or int(np.sum(sizes)) != xp.shape(x)[axis]:
        raise errors.InvalidArgumentError(
            f"split: sizes {sizes.tolist()} do not add up to dimension {axis} of size "
            f"{xp.shape(x)[axis]}"
        )
    return tuple(xp.split(x, np.cumsum(sizes)[:-1].tolist(), axis=axis))


SPLIT = OpDef(
    "SplitV",
    None,
    infer=_split_infer,
    default_name="split",
    attrs={"axis": kinds.INT, "num": kinds.INT},
    gradient=lambda op, *grads: (concat(_dense(grads, op.outputs), op.attrs["axis"]), None),
    implementation=_split,
)


def split(value, sizes, axis=0, name=None):
    """``value`` cut along ``axis`` into pieces of the given ``sizes`` (a list or a 1-D tensor).

    >>> [t.numpy() for t in split(convert_to_tensor([1, 2, 3]), [1, 2])]
    [array([1], dtype=int32), array([2, 3], dtype=int32)]
    """
    value = convert_to_tensor(value)
    sizes_t = shape_operand(sizes, name="split_sizes")
    num = sizes_t.shape[0] if sizes_t.shape.rank == 1 else None
    if num is None:
        raise ValueError(f"split: the number of pieces must be known, got sizes {sizes!r}")
    attrs = {"axis": static_int(axis, "split: axis"), "num": int(num)}
    return list(bind(SPLIT, [value, sizes_t], attrs, name or "split"))
