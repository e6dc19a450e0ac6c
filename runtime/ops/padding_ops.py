"""Growing a tensor along its dims: ``pad`` (a frame of a value, or of reflections) and ``tile``
(repeated copies), with their gradients: each copy's gradient goes back to its original.

>>> import runtime as rt
>>> rt.pad([[1, 2]], [[1, 0], [0, 1]]).numpy()
array([[0, 0, 0],
       [1, 2, 0]], dtype=int32)
>>> rt.tile([1, 2], [2]).numpy()
array([1, 2, 1, 2], dtype=int32)
"""

from __future__ import annotations

import numpy as np

from runtime import errors
from runtime.core import attr_kinds as kinds
from runtime.core import dtypes
from runtime.core.op_def import OpDef
from runtime.core.tensor_shape import TensorShape
from runtime.ops.array_ops import reshape, shape_of, stack
from runtime.ops.constant_ops import cast, constant_value, convert_to_tensor
from runtime.ops.indexing_ops import slice_tensor
from runtime.ops.reduction_ops import reduce_sum
from runtime.ops.registry import bind1
from runtime.ops.shape_ops import shape

# --- pad ---------------------------------------------------------------------------------------


def _paddings_infer(op_type, x, paddings):
    """The padded shape, and checks of ``paddings`` (an int [rank, 2] tensor) as far as known."""
    if not paddings.dtype.is_integer:
        raise TypeError(f"{op_type}: paddings must be integers, got {paddings.dtype.name}")
    rank = x.shape.rank
    if paddings.shape.rank is not None and (
        paddings.shape.rank != 2 or paddings.shape[1] not in (2, None)
    ):
        raise ValueError(f"{op_type}: paddings must have shape [rank, 2], got {paddings.shape}")
    if rank is None:
        rank = paddings.shape[0] if paddings.shape.rank is not None else None
    elif paddings.shape[0] not in (rank, None):
        raise ValueError(
            f"{op_type}: paddings must have shape [{rank}, 2] for a tensor of rank {rank}, "
            f"got {paddings.shape}"
        )
    if rank is None:
        return TensorShape(None)
    value = constant_value(paddings)
    dims = x.shape.as_list() if x.shape.rank is not None else [None] * rank
    if value is None:
        return TensorShape([None] * rank)
    if np.any(value < 0):
        raise ValueError(f"{op_type}: paddings must not be negative, got {value.tolist()}")
    return TensorShape(
        [None if d is None else d + int(b) + int(a) for d, (b, a) in zip(dims, value)]
    )


def _pad_infer(inputs, attrs):
    x, paddings, value = inputs
    if value.dtype is not x.dtype or value.shape.rank not in (0, None):
        raise TypeError(
            f"pad: constant_values must be a scalar of the tensor's dtype {x.dtype.name}, "
            f"got {value.dtype.name} {value.shape}"
        )
    return [(x.dtype, _paddings_infer("pad", x, paddings))]


def _pairs(paddings):
    """``(before, after)`` of each dim. Paddings are known when XLA compiles: numpy here."""
    paddings = np.asarray(paddings)
    if np.any(paddings < 0):
        raise errors.InvalidArgumentError("pad: paddings must not be negative")
    return [tuple(int(p) for p in pair) for pair in paddings]


def _pad(xp, x, paddings, value):
    return xp.pad(x, _pairs(paddings), mode="constant", constant_values=value)


def _mirror_pad_infer(inputs, attrs):
    return [(inputs[0].dtype, _paddings_infer("pad", *inputs))]


def _mirror_pad(xp, x, paddings, mode):
    pairs = _pairs(paddings)
    limit = 1 if mode == "REFLECT" else 0  # a reflection leaves the edge out, a symmetric copy not
    for dim, (before, after) in zip(xp.shape(x), pairs):
        if max(before, after) > dim - limit:
            raise errors.InvalidArgumentError(
                f"pad: {mode} paddings {before} and {after} must be at most {dim - limit} "
                f"for a dimension of size {dim}"
            )
    return xp.pad(x, pairs, mode=mode.lower())


# --- the gradients of padding: each padded value is a copy, its gradient goes to the original --


def _rank(what, x, operand):
    """The rank of ``x``, from its shape or from ``operand`` (its paddings or multiples)."""
    rank = x.shape.rank if x.shape.rank is not None else operand.shape.as_list()[0]
    if rank is None:
        raise ValueError(f"The gradient of {what} needs the rank of its input, got {x.shape}")
    return rank


def _padding_pairs(x, paddings, rank):
    """``(before, after)`` of each dim: Python ints when the paddings are known, else tensors."""
    known = constant_value(paddings)
    if known is not None:
        return [(int(b), int(a)) for b, a in np.reshape(known, (rank, 2))]
    paddings = cast(paddings, dtypes.int32)
    return [(paddings[d, 0], paddings[d, 1]) for d in range(rank)]


def _dims(x, rank):
    """Each dim of ``x``: a Python int when known, else an int32 scalar tensor."""
    known = x.shape.as_list() if x.shape.rank is not None else [None] * rank
    return [shape(x)[d] if n is None else n for d, n in enumerate(known)]


def _along(t, axis, rank, part):
    """``t[..., part, ...]`` with ``part`` (a slice) at ``axis``."""
    return slice_tensor(t, (slice(None),) * axis + (part,) + (slice(None),) * (rank - axis - 1))


def _pad_gradient(op, grad):
    """``x``'s gradient is the middle of ``grad``; ``constant_values``' is the rest, summed.
    (TensorFlow gives the latter none; it is the sum all the same.)"""
    x, paddings, _ = op.inputs
    rank = _rank("pad", x, paddings)
    pairs = _padding_pairs(x, paddings, rank)
    inner = slice_tensor(grad, tuple(slice(b, b + n) for (b, _), n in zip(pairs, _dims(x, rank))))
    return inner, None, reduce_sum(grad) - reduce_sum(inner)


def _mirror_pad_gradient(op, grad):
    """Dim by dim: the middle of the gradient, plus each mirrored margin reversed and added
    onto the values it copies (from the edge on, or from next to it for REFLECT)."""
    x, paddings = op.inputs
    rank = _rank("pad", x, paddings)
    edge = 1 if op.attrs["mode"] == "REFLECT" else 0
    backwards = slice(None, None, -1)
    pairs = _padding_pairs(x, paddings, rank)
    for axis, ((before, after), n) in enumerate(zip(pairs, _dims(x, rank))):
        left = _along(_along(grad, axis, rank, slice(0, before)), axis, rank, backwards)
        right = _along(_along(grad, axis, rank, slice(before + n, None)), axis, rank, backwards)
        middle = _along(grad, axis, rank, slice(before, before + n))
        left = pad(left, _one_dim(rank, axis, edge, n - edge - before))
        right = pad(right, _one_dim(rank, axis, n - edge - after, edge))
        grad = middle + left + right
    return reshape(grad, shape_of(x)), None


def _one_dim(rank, axis, before, after):
    """Paddings of ``before`` and ``after`` at ``axis`` only (ints or int32 scalar tensors)."""
    rows = [[0, 0] for _ in range(rank)]
    rows[axis] = [before, after]
    if all(isinstance(v, int) for v in (before, after)):
        return rows
    return stack([stack([convert_to_tensor(v, dtypes.int32) for v in row]) for row in rows])


PAD = OpDef(
    "PadV2", None, _pad_infer, default_name="Pad", gradient=_pad_gradient, implementation=_pad
)
MIRROR_PAD = OpDef(
    "MirrorPad",
    None,
    _mirror_pad_infer,
    attrs={"mode": kinds.one_of("REFLECT", "SYMMETRIC")},
    gradient=_mirror_pad_gradient,
    implementation=_mirror_pad,
)


def pad(tensor, paddings, mode="CONSTANT", constant_values=0, name=None):
    """``tensor`` with ``paddings[d] = [before, after]`` values added on each side of dim ``d``.

    ``mode`` (any case): ``"CONSTANT"`` pads with ``constant_values``;
    ``"REFLECT"`` mirrors the tensor without its edge (``[1, 2, 3]`` padded by
    2 before: ``[3, 2, 1, 2, 3]``); ``"SYMMETRIC"`` mirrors it with its edge
    (``[2, 1, 1, 2, 3]``).

    >>> pad([1, 2, 3], [[2, 0]], mode="reflect").numpy()
    array([3, 2, 1, 2, 3], dtype=int32)
    >>> pad([1, 2, 3], [[2, 1]], mode="SYMMETRIC").numpy()
    array([2, 1, 1, 2, 3, 3], dtype=int32)
    """
    tensor = convert_to_tensor(tensor)
    paddings = convert_to_tensor(paddings, dtype_hint=dtypes.int32)
    kind = str(mode).upper()
    if kind == "CONSTANT":
        default = type(constant_values) is int and constant_values == 0
        if default and tensor.dtype in (dtypes.string, dtypes.bool_):
            constant_values = b"" if tensor.dtype is dtypes.string else False  # their zero
        value = convert_to_tensor(constant_values, dtype_hint=tensor.dtype)
        return bind1(PAD, [tensor, paddings, value], name=name or "Pad")
    if kind not in ("REFLECT", "SYMMETRIC"):
        raise ValueError(f"pad: mode must be CONSTANT, REFLECT or SYMMETRIC, got {mode!r}")
    return bind1(MIRROR_PAD, [tensor, paddings], {"mode": kind}, name or "MirrorPad")


# --- tile --------------------------------------------------------------------------------------


def _tile_infer(inputs, attrs):
    x, multiples = inputs
    if not multiples.dtype.is_integer or multiples.shape.rank not in (1, None):
        raise TypeError(
            f"tile: multiples must be a 1-D integer tensor, got {multiples.dtype.name} "
            f"{multiples.shape}"
        )
    rank = x.shape.rank if x.shape.rank is not None else multiples.shape[0]
    if rank is not None and multiples.shape[0] not in (rank, None):
        raise ValueError(
            f"tile: multiples must have one entry per dimension of the input ({rank}), "
            f"got shape {multiples.shape}"
        )
    if rank is None:
        return [(x.dtype, TensorShape(None))]
    value = constant_value(multiples)
    dims = x.shape.as_list() if x.shape.rank is not None else [None] * rank
    if value is None:
        return [(x.dtype, TensorShape([None] * rank))]
    if np.any(value < 0):
        raise ValueError(f"tile: multiples must not be negative, got {value.tolist()}")
    return [
        (x.dtype, TensorShape([None if d is None else d * int(m) for d, m in zip(dims, value)]))
    ]


def _tile(xp, x, multiples):
    """``multiples`` are known when XLA compiles: numpy here."""
    if np.any(multiples < 0):
        raise errors.InvalidArgumentError(f"tile: multiples must not be negative: {multiples}")
    if len(multiples) != xp.ndim(x):
        raise errors.InvalidArgumentError(
            f"tile: {len(multiples)} multiples for a tensor of rank {xp.ndim(x)}"
        )
    return xp.tile(x, tuple(int(m) for m in multiples))


def _tile_gradient(op, grad):
    """The sum of the gradients of every copy: ``grad`` seen as ``[m0, d0, m1, d1, ...]``
    (multiples and dims interleaved), summed over the multiples, as in TensorFlow."""
    x, multiples = op.inputs
    rank = _rank("tile", x, multiples)
    known = constant_value(multiples)
    if known is not None and x.shape.is_fully_defined():
        split = [int(v) for pair in zip(known, x.shape.as_list()) for v in pair]
    else:
        split = reshape(stack([cast(multiples, dtypes.int32), shape(x)], axis=1), [-1])
    summed = reduce_sum(reshape(grad, split), axis=list(range(0, 2 * rank, 2)))
    return reshape(summed, shape_of(x)), None


TILE = OpDef("Tile", None, _tile_infer, gradient=_tile_gradient, implementation=_tile)


def tile(input, multiples, name=None):
    """``input`` repeated ``multiples[d]`` times along each dim ``d``.

    >>> tile([[1, 2]], [2, 2]).numpy()
    array([[1, 2, 1, 2],
           [1, 2, 1, 2]], dtype=int32)
    """
    input = convert_to_tensor(input)
    multiples = convert_to_tensor(multiples, dtype_hint=dtypes.int32)
    return bind1(TILE, [input, multiples], name=name or "Tile")


# --- samples: what the op's tests run it on (runtime.ops.op_info) ---
from runtime.ops.op_info import Sample, op_info  # noqa: E402


def _source_index(k, n, mode):
    """Where index ``k`` of a padded dim of size ``n`` reads from; None: the constant."""
    if 0 <= k < n:
        return k
    if mode == "CONSTANT":
        return None
    edge = 0 if mode == "REFLECT" else 1  # SYMMETRIC repeats the edge
    return -k - edge if k < 0 else 2 * n - 2 + edge - k


def _pad_reference(x, paddings, mode="CONSTANT", constant_values=0):
    out = np.full([n + a + b for n, (a, b) in zip(x.shape, paddings)], constant_values, x.dtype)
    for index in np.ndindex(out.shape):
        pairs = zip(index, x.shape, paddings)
        source = [_source_index(i - before, n, mode) for i, n, (before, _) in pairs]
        if None not in source:
            out[index] = x[tuple(source)]
    return out


def _pad_samples(rng):
    def draw(*shape, dtype="float64"):
        return rng.uniform(-3.0, 3.0, shape).astype(dtype)

    return [
        Sample((draw(2, 3, dtype="float32"),), {"paddings": [[1, 0], [2, 1]]}),
        Sample((draw(2, 3),), {"paddings": [[0, 1], [1, 1]], "constant_values": 1.5}),
        Sample((draw(4),), {"paddings": [[2, 3]], "mode": "REFLECT"}),
        Sample((draw(2, 3),), {"paddings": [[1, 2], [3, 0]], "mode": "symmetric"}),
        Sample((np.arange(6, dtype=np.int32).reshape(3, 2),), {"paddings": [[1, 1], [0, 1]]}),
    ]


def _tile_reference(x, multiples):
    """Index ``i`` of each dim reads ``i % n``."""
    return x[np.ix_(*[np.arange(n * m) % n for n, m in zip(x.shape, multiples)])]


def _tile_samples(rng):
    def draw(*shape, dtype="float64"):
        return rng.uniform(-3.0, 3.0, shape).astype(dtype)

    return [
        Sample((draw(2, 3, dtype="float32"),), {"multiples": [2, 1]}),
        Sample((draw(3),), {"multiples": [3]}),
        Sample((draw(2, 1, 2),), {"multiples": [1, 3, 2]}),
        Sample((np.array([4, -1], np.int32),), {"multiples": [2]}),
    ]


op_info("rt.pad", _pad_samples, _pad_reference)(pad)
op_info("rt.tile", _tile_samples, _tile_reference)(tile)
