"""Matrices: ``eye`` (identity matrices, batched) and ``einsum`` (Einstein summation, whose
gradients are einsums).

>>> import runtime as rt
>>> rt.eye(2, dtype=rt.int32).numpy()
array([[1, 0],
       [0, 1]], dtype=int32)
>>> rt.einsum("ij,j->i", [[1, 2], [3, 4]], [1, 1]).numpy()
array([3, 7], dtype=int32)
"""

from __future__ import annotations

import string

import numpy as np

from runtime import errors
from runtime.core import attr_kinds as kinds
from runtime.core import dtypes
from runtime.core.op_def import NotDifferentiable, OpDef
from runtime.core.tensor_shape import TensorShape, broadcast_shapes
from runtime.ops.array_ops import concat, reshape, shape_of, transpose
from runtime.ops.broadcast_ops import ones, sum_to_shape
from runtime.ops.constant_ops import constant_value, convert_to_tensor, static_ints
from runtime.ops.indexing_ops import gather
from runtime.ops.reduction_ops import reduce_sum
from runtime.ops.registry import NUMERIC, bind1, check_dtype
from runtime.ops.shape_ops import shape

# --- eye ---------------------------------------------------------------------------------------


def _eye_infer(inputs, attrs):
    for what, t in zip(("num_rows", "num_columns"), inputs):
        if not t.dtype.is_integer or t.shape.rank not in (0, None):
            raise TypeError(f"eye: {what} must be an integer scalar, got {t.dtype.name} {t.shape}")
    dims = []
    for t in inputs:
        value = constant_value(t)
        if value is not None and value < 0:
            raise ValueError(f"eye: the number of rows and columns must be >= 0, got {value}")
        dims.append(None if value is None else int(value))
    return [(attrs["dtype"], TensorShape([*attrs["batch_shape"], *dims]))]


def _eye(xp, num_rows, num_columns, dtype, batch_shape):
    if num_rows < 0 or num_columns < 0:  # sizes are known when XLA compiles: static operands
        raise errors.InvalidArgumentError(
            f"eye: the number of rows and columns must be >= 0, got {num_rows} and {num_columns}"
        )
    matrix = xp.eye(int(num_rows), int(num_columns), dtype=dtype.as_numpy_dtype)
    return xp.broadcast_to(matrix, (*batch_shape, *matrix.shape)).copy()


_BATCH_SHAPE = kinds.AttrKind(
    "a tuple of ints >= 0",
    lambda value: type(value) is tuple and all(kinds.is_int(d) and d >= 0 for d in value),
)
EYE = OpDef(
    "Eye",
    None,
    _eye_infer,
    attrs={"dtype": kinds.DTYPE, "batch_shape": _BATCH_SHAPE},
    # As in TensorFlow, whose eye is built of ops on its sizes alone.
    gradient=NotDifferentiable("its inputs are integer sizes"),
    implementation=_eye,
)


def eye(num_rows, num_columns=None, batch_shape=None, dtype=dtypes.float32, name=None):
    """Identity matrices: ones on the diagonal, zeros elsewhere, of shape
    ``batch_shape + [num_rows, num_columns]`` (square when ``num_columns`` is None).

    ``num_rows`` and ``num_columns`` may be tensors; ``batch_shape`` is a list of ints.

    >>> eye(2, 3).numpy()
    array([[1., 0., 0.],
           [0., 1., 0.]], dtype=float32)
    >>> eye(2, batch_shape=[3]).shape
    TensorShape([3, 2, 2])
    """
    dtype = dtypes.as_dtype(dtype)
    if dtype is dtypes.string:
        raise TypeError("eye: a matrix of strings has no identity; use a numeric dtype")
    rows = convert_to_tensor(num_rows, dtypes.int32)
    columns = rows if num_columns is None else convert_to_tensor(num_columns, dtypes.int32)
    batch = static_ints(batch_shape, "eye: batch_shape") or ()
    attrs = {"dtype": dtype, "batch_shape": batch}
    return bind1(EYE, [rows, columns], attrs, name or "eye")


# --- einsum ------------------------------------------------------------------------------------


def _parse_equation(equation, count):
    """``(input terms, output term)``: lists of labels, ``"..."`` for an ellipsis."""
    text = equation.replace(" ", "")
    lhs, arrow, rhs = text.partition("->")
    terms = [_labels(term, equation) for term in lhs.split(",")]
    if len(terms) != count:
        raise ValueError(
            f"einsum: the equation {equation!r} has {len(terms)} input terms but {count} "
            "tensors were given"
        )
    if arrow:
        output = _labels(rhs, equation)
        known = {label for term in terms for label in term}
        if "..." in known and "..." not in output:
            raise ValueError(
                f"einsum: the output of {equation!r} must keep the ellipsis of its inputs"
            )
        for label in output:
            if label not in known:
                raise ValueError(
                    f"einsum: output label {label!r} of {equation!r} is in no input term"
                )
    else:  # implicit: the labels that appear once, in alphabetical order, after the ellipsis
        counts = {}
        for term in terms:
            for label in term:
                counts[label] = counts.get(label, 0) + 1
        ellipsis = ["..."] if "..." in counts else []
        output = ellipsis + sorted(k for k, n in counts.items() if n == 1 and k != "...")
    return terms, output


def _labels(term, equation):
    labels, i = [], 0
    while i < len(term):
        if term.startswith("...", i):
            labels.append("...")
            i += 3
        elif term[i].isalpha():
            labels.append(term[i])
            i += 1
        else:
            raise ValueError(f"einsum: unexpected {term[i]!r} in the equation {equation!r}")
    if labels.count("...") > 1:
        raise ValueError(f"einsum: more than one ellipsis in a term of {equation!r}")
    return labels


def _einsum_infer(inputs, attrs):
    first = inputs[0]
    for t in inputs:
        check_dtype("einsum", t, NUMERIC)
        if t.dtype is not first.dtype:
            raise TypeError(
                f"einsum: all inputs must have one dtype, got {first.dtype.name} and {t.dtype.name}"
            )
    terms, output = _parse_equation(attrs["equation"], len(inputs))
    sizes, ellipsis = {}, TensorShape([])
    for term, t in zip(terms, inputs):
        named = [label for label in term if label != "..."]
        if t.shape.rank is None:
            if "..." in term:
                ellipsis = None
            dims = [None] * len(named)
        else:
            rank = t.shape.rank
            if rank < len(named) or ("..." not in term and rank != len(named)):
                raise ValueError(
                    f"einsum: the term {''.join(term)!r} does not fit an input of shape {t.shape}"
                )
            dims = t.shape.as_list()
            if "..." in term:
                at = term.index("...")
                extra = rank - len(named)
                if ellipsis is not None:
                    ellipsis = broadcast_shapes(ellipsis, TensorShape(dims[at : at + extra]))
                dims = dims[:at] + dims[at + extra :]
        for label, d in zip(named, dims):
            known = sizes.get(label)
            if known is not None and d is not None and known != d:
                raise ValueError(
                    f"einsum: label {label!r} of {attrs['equation']!r} has sizes {known} and {d}"
                )
            sizes[label] = known if d is None else d
    if "..." in output and ellipsis is None:
        return [(first.dtype, TensorShape(None))]
    dims = []
    for label in output:
        dims += ellipsis.as_list() if label == "..." else [sizes.get(label)]
    return [(first.dtype, TensorShape(dims))]


def _einsum(xp, *operands, equation):
    return xp.einsum(equation, *operands).astype(operands[0].dtype, copy=False)


def _einsum_gradient(op, grad):
    """Each operand's gradient is an einsum too, as in TensorFlow: of the output's gradient
    and the other operands, onto the operand's labels."""
    terms, output = _parse_equation(op.attrs["equation"], len(op.inputs))
    return tuple(
        _operand_gradient(op.inputs, terms, output, k, grad) if t.dtype.is_floating else None
        for k, t in enumerate(op.inputs)
    )


def _operand_gradient(inputs, terms, output, k, grad):
    """The gradient of operand ``k``. A label repeated in its term (a diagonal) takes an
    identity matrix with a fresh label; one only in its term (summed over) a vector of ones;
    an ellipsis that broadcasting stretched is summed back."""
    x, term = inputs[k], terms[k]
    others = [(terms[j], inputs[j]) for j in range(len(inputs)) if j != k]
    elsewhere = set(output).union(*(t for t, _ in others))
    taken = elsewhere.union(term)
    fresh = (c for c in string.ascii_letters if c not in taken)
    operands, target, seen = [(output, grad), *others], [], set()
    for position, label in enumerate(term):
        if label in seen:
            label_copy = next(fresh)
            n = _dim(x, term, position)
            operands.append(([label, label_copy], eye(n, n, dtype=x.dtype)))
            label = label_copy
        elif label != "..." and label not in elsewhere and term.count(label) == 1:
            operands.append(([label], ones([_dim(x, term, position)], x.dtype)))
        seen.add(label)
        target.append(label)
    if "..." not in output:
        return _einsum_of(operands, target)
    # The ellipsis first, so that summing it back to x's is summing leading and size-1 dims.
    result = _einsum_of(operands, ["...", *(label for label in target if label != "...")])
    x_shape = shape_of(x)
    if "..." not in term:  # x had no part in the ellipsis: it is summed over
        flat = [-1, *x_shape] if isinstance(x_shape, list) else concat([[-1], x_shape], 0)
        return reduce_sum(reshape(result, flat), axis=0)
    axes = None  # the axes of x in the order of result's, where they differ
    if term[0] != "...":
        if x.shape.rank is None:
            raise ValueError(
                "The gradient of einsum needs the rank of an operand whose ellipsis is not first"
            )
        at, count = term.index("..."), x.shape.rank - (len(term) - 1)
        axes = [
            *range(at, at + count),
            *(a for a in range(x.shape.rank) if not at <= a < at + count),
        ]
        x_shape = [x_shape[a] for a in axes] if isinstance(x_shape, list) else gather(x_shape, axes)
    # Broadcasting may have stretched x's ellipsis: summed back to x's dims.
    if not isinstance(x_shape, list) or result.shape.as_tuple() != tuple(x_shape):
        result = sum_to_shape(result, x_shape)
    return result if axes is None else transpose(result, [axes.index(a) for a in range(len(axes))])


def _einsum_of(operands, target):
    """The einsum of ``operands`` (``(labels, tensor)`` pairs) onto the labels ``target``."""
    equation = ",".join("".join(labels) for labels, _ in operands) + "->" + "".join(target)
    return bind1(EINSUM, [t for _, t in operands], {"equation": equation}, "einsum")


def _dim(x, term, position):
    """The size of the dim of ``x`` that ``term[position]`` labels: an int, or a tensor."""
    axis = position if "..." not in term[:position] else position - len(term)
    rank = x.shape.rank
    if rank is not None and x.shape.as_list()[axis] is not None:
        return x.shape.as_list()[axis]
    return shape(x)[axis]


EINSUM = OpDef(
    "Einsum",
    None,
    _einsum_infer,
    attrs={"equation": kinds.STR},
    gradient=_einsum_gradient,
    implementation=_einsum,
)


def einsum(equation, *inputs, name=None):
    """Sums of products of ``inputs`` named by ``equation``, as numpy's and TensorFlow's ``einsum``.

    ``"ij,jk->ik"`` is a matrix product, ``"ii->i"`` a diagonal, ``"ij->ji"``
    a transpose, ``"...ij,...jk->...ik"`` a batched product; without ``->``,
    the labels that appear once form the output, in alphabetical order.

    >>> einsum("i,i->", [1, 2, 3], [4, 5, 6]).numpy()
    np.int32(32)
    >>> einsum("ij->ji", [[1, 2, 3]]).shape
    TensorShape([3, 1])
    """
    if not isinstance(equation, str):
        raise TypeError(f"einsum: the equation must be a string, got {equation!r}")
    if not inputs:
        raise ValueError("einsum needs at least one input tensor")
    tensors = [convert_to_tensor(x) for x in inputs]
    return bind1(EINSUM, tensors, {"equation": equation}, name or "einsum")


# --- samples: what the op's tests run it on (runtime.ops.op_info) ---
import itertools  # noqa: E402

from runtime.ops.op_info import Sample, op_info  # noqa: E402


def _einsum_reference(*operands, equation):
    """Every assignment of values to the labels, its operands' elements multiplied and added
    into the output's element: the definition, without numpy's einsum."""
    inputs, output = equation.split("->")
    terms = inputs.split(",")
    sizes = {label: n for t, x in zip(terms, operands) for label, n in zip(t, np.shape(x))}
    floating = any(np.asarray(x).dtype.kind == "f" for x in operands)
    out = np.zeros([sizes[label] for label in output], np.float64 if floating else np.int32)
    for values in itertools.product(*[range(n) for n in sizes.values()]):
        at = dict(zip(sizes, values))
        product = 1
        for term, x in zip(terms, operands):
            product = product * x[tuple(at[label] for label in term)]
        out[tuple(at[label] for label in output)] += product
    return out


def _einsum_samples(rng):
    def draw(*shape, dtype="float64"):
        return rng.uniform(-2.0, 2.0, shape).astype(dtype)

    return [
        Sample((draw(2, 3, dtype="float32"), draw(3, 4, dtype="float32")), {"equation": "ij,jk->ik"}),
        Sample((draw(2, 2, 3), draw(2, 3, 2)), {"equation": "bij,bjk->bik"}),
        Sample((draw(3, 3),), {"equation": "ii->i"}),
        Sample((draw(2, 3), draw(3, 2), draw(2)), {"equation": "ij,jk,k->i"}),
        Sample((np.arange(3, dtype=np.int32), np.array([2, -1, 4], np.int32)), {"equation": "i,i->"}),
    ]  # fmt: skip


op_info(
    "rt.einsum",
    _einsum_samples,
    _einsum_reference,
    call=lambda fn, *operands, equation: fn(equation, *operands),
)(einsum)
