"""Merging layers: one tensor from a list of tensors (``Add``, ``Concatenate``, ``Dot``...).

The elementwise ones (``Add``, ``Subtract``, ``Multiply``, ``Average``, ``Maximum``,
``Minimum``) broadcast as Keras does: sizes equal, or one of them 1; an input of lower rank
gets size-1 dimensions after the batch dimension. Each has a function form
(``rt.keras.layers.add([a, b])``).

>>> import numpy as np, runtime as rt
>>> rt.keras.backend.clear_session()
>>> a, b = np.array([[1.0, 2.0]]), np.array([[3.0, 5.0]])
>>> rt.keras.layers.Add()([a, b]).numpy(), rt.keras.layers.average([a, b]).numpy()
(array([[4., 7.]], dtype=float32), array([[2. , 3.5]], dtype=float32))
>>> rt.keras.layers.Concatenate()([a, b]).shape, rt.keras.layers.Dot(axes=1)([a, b]).numpy()
(TensorShape([1, 4]), array([[13.]], dtype=float32))
"""

from __future__ import annotations

from runtime.core.tensor_shape import TensorShape
from runtime.keras.layers.base import Layer
from runtime.ops import math_ops
from runtime.ops.array_ops import concat, expand_dims, shape_of
from runtime.ops.broadcast_ops import broadcast_to, where
from runtime.ops.constant_ops import cast, constant, convert_to_tensor
from runtime.ops.linalg_ops import einsum
from runtime.ops.reduction_ops import reduce_any, reduce_sum


class Merge(Layer):
    """The elementwise merging layers' base: checks the shapes, broadcasts, masks."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.supports_masking = True
        self._reshape_required = False

    def _merge_function(self, inputs):
        raise NotImplementedError

    def build(self, input_shape):
        if not input_shape or not isinstance(input_shape[0], (tuple, list)):
            raise ValueError(
                "A merge layer should be called on a list of inputs. "
                f"Received: input_shape={input_shape} (not a list of shapes)"
            )
        if len({s[0] for s in input_shape if s} - {None}) > 1:
            raise ValueError(
                "Cannot merge tensors with different batch sizes. "
                f"Received tensors with shapes {input_shape}"
            )
        self.compute_output_shape(input_shape)  # refuses incompatible shapes
        self._reshape_required = len({len(s) for s in input_shape}) != 1

    def call(self, inputs):
        if not isinstance(inputs, (list, tuple)):
            raise ValueError(
                "A merge layer should be called on a list of inputs. "
                f"Received: inputs={inputs} (not a list of tensors)"
            )
        if self._reshape_required:
            rank = max(x.shape.rank for x in inputs)
            inputs = [_expanded_after_batch(x, rank) for x in inputs]
        return self._merge_function(list(inputs))

    def compute_output_shape(self, input_shape):
        shapes = [tuple(TensorShape(s).as_list()) for s in input_shape]
        output = shapes[0][1:]
        for shape in shapes[1:]:
            output = _broadcast_shape(output, shape[1:])
        batch_sizes = {s[0] for s in shapes if s} - {None}
        batch = batch_sizes.pop() if len(batch_sizes) == 1 else None
        return (batch, *output)

    def compute_mask(self, inputs, mask=None):
        """The inputs' masks or-ed together; None when any input has none."""
        if mask is None:
            return None
        _check_masks(inputs, mask)
        if any(m is None for m in mask):
            return None
        merged = mask[0]
        for m in mask[1:]:
            merged = math_ops.logical_or(merged, m)
        return merged

    def get_config(self):
        return super().get_config()


def _expanded_after_batch(x, rank):
    for _ in range(rank - x.shape.rank):
        x = expand_dims(x, axis=1)
    return x


def _broadcast_shape(shape1, shape2):
    """Keras' elementwise result shape of two shapes without their batch dimension."""
    if len(shape1) < len(shape2):
        shape1, shape2 = shape2, shape1
    if not shape2:
        return tuple(shape1)
    output = list(shape1[: len(shape1) - len(shape2)])
    for i, j in zip(shape1[len(shape1) - len(shape2) :], shape2):
        if i is None or j is None:
            output.append(None)
        elif i == 1 or j == 1:
            output.append(j if i == 1 else i)
        elif i != j:
            raise ValueError(
                f"Inputs have incompatible shapes. Received shapes {shape1} and {shape2}"
            )
        else:
            output.append(i)
    return tuple(output)


def _check_masks(inputs, mask):
    if not isinstance(mask, (tuple, list)):
        raise ValueError(f"`mask` should be a list. Received: mask={mask}")
    if not isinstance(inputs, (tuple, list)):
        raise ValueError(f"`inputs` should be a list. Received: inputs={inputs}")
    if len(mask) != len(inputs):
        raise ValueError(
            "The lists `inputs` and `mask` should have the same length. Received: "
            f"inputs={inputs} of length {len(inputs)}, and mask={mask} of length {len(mask)}"
        )


class Add(Merge):
    """The sum of its inputs."""

    def _merge_function(self, inputs):
        output = inputs[0]
        for x in inputs[1:]:
            output = output + x
        return output


class Subtract(Merge):
    """``inputs[0] - inputs[1]``: exactly two inputs."""

    def build(self, input_shape):
        super().build(input_shape)
        if len(input_shape) != 2:
            raise ValueError(
                "A `Subtract` layer should be called on exactly 2 inputs. "
                f"Received: input_shape={input_shape}"
            )

    def _merge_function(self, inputs):
        if len(inputs) != 2:
            raise ValueError(
                f"A `Subtract` layer should be called on exactly 2 inputs. Received: inputs={inputs}"
            )
        return inputs[0] - inputs[1]


class Multiply(Merge):
    """The product of its inputs; a masked entry counts as 1 (and the output is 0 where every
    input is masked, when all have masks)."""

    def _merge_function(self, inputs):
        masks = [_spread_mask(x) for x in inputs]
        all_masked = all(m is not None for m in masks)
        output = output_mask = None
        for x, mask in zip(inputs, masks):
            if mask is not None:
                x = where(mask, x, cast(1, x.dtype))
                if all_masked:
                    output_mask = (
                        mask if output_mask is None else math_ops.logical_or(output_mask, mask)
                    )
            output = x if output is None else output * x
        if output_mask is not None:
            output = where(output_mask, output, cast(0, output.dtype))
            output._keras_mask = reduce_any(output_mask, axis=-1)
        return output


class Average(Merge):
    """The mean of its inputs."""

    def _merge_function(self, inputs):
        return Add._merge_function(self, inputs) / len(inputs)


class Maximum(Merge):
    """The elementwise maximum of its inputs (of those not masked there)."""

    def _merge_function(self, inputs):
        return _merged_unmasked(math_ops.maximum, inputs)


class Minimum(Merge):
    """The elementwise minimum of its inputs (of those not masked there)."""

    def _merge_function(self, inputs):
        return _merged_unmasked(math_ops.minimum, inputs)


def _spread_mask(x):
    """``x``'s Keras mask spread over its last axis, or None."""
    mask = getattr(x, "_keras_mask", None)
    if mask is None:
        return None
    return broadcast_to(expand_dims(convert_to_tensor(mask), axis=-1), shape_of(x))


def _merged_unmasked(op, inputs):
    """``op`` folded over the inputs, a masked entry taking the other operand's value (as
    Keras 3, for an op with no identity element); masked where every input is, when all
    inputs have masks."""
    output = output_mask = None
    for x in inputs:
        mask = _spread_mask(x)
        if output is None:
            output, output_mask = x, mask
            continue
        if mask is not None:
            x = where(mask, x, output)
        if output_mask is not None:
            output = where(output_mask, output, x)
        both = mask is not None and output_mask is not None
        output_mask = math_ops.logical_or(output_mask, mask) if both else None
        output = op(output, x)
    if output_mask is not None:
        output._keras_mask = reduce_any(output_mask, axis=-1)
    return output


class Concatenate(Merge):
    """Its inputs joined along ``axis``; their other dimensions must match."""

    def __init__(self, axis=-1, **kwargs):
        super().__init__(**kwargs)
        self.axis = axis

    def build(self, input_shape):
        if not input_shape or not isinstance(input_shape[0], (tuple, list)):
            raise ValueError(
                "A `Concatenate` layer should be called on a list of at least 1 input. "
                f"Received: input_shape={input_shape}"
            )
        shapes = [list(s) for s in input_shape]
        ranks = {len(s) for s in shapes}
        mismatch = len(ranks) != 1
        if not mismatch:
            (rank,) = ranks
            axis = self.axis % rank
            for dim in range(rank):
                sizes = {s[dim] for s in shapes} - {None}
                mismatch |= dim != axis and len(sizes) > 1
        if mismatch:
            raise ValueError(
                "A `Concatenate` layer requires inputs with matching shapes except for the "
                f"concatenation axis. Received: input_shape={input_shape}"
            )

    def _merge_function(self, inputs):
        return concat(inputs, axis=self.axis)

    def compute_output_shape(self, input_shape):
        if not isinstance(input_shape, (tuple, list)) or not isinstance(
            input_shape[0], (tuple, list, TensorShape)
        ):
            raise ValueError(
                "A `Concatenate` layer should be called on a list of inputs. "
                f"Received: input_shape={input_shape}"
            )
        shapes = [list(TensorShape(s).as_list()) for s in input_shape]
        output = shapes[0]
        for shape in shapes[1:]:
            if output[self.axis] is None or shape[self.axis] is None:
                output[self.axis] = None
                break
            output[self.axis] += shape[self.axis]
        return tuple(output)

    def compute_mask(self, inputs, mask=None):
        if mask is None:
            return None
        _check_masks(inputs, mask)
        if all(m is None for m in mask):
            return None
        masks = [_full_mask(x, m) for x, m in zip(inputs, mask)]
        return reduce_any(concat(masks, axis=self.axis), axis=-1)

    def get_config(self):
        return {**super().get_config(), "axis": self.axis}


def _full_mask(x, mask):
    """``mask`` spread over all of ``x``'s dimensions (all True when None)."""
    x = convert_to_tensor(x)
    if mask is None:
        return broadcast_to(constant(True), shape_of(x))
    mask = convert_to_tensor(mask)
    if mask.shape.rank < x.shape.rank:
        mask = broadcast_to(expand_dims(mask, axis=-1), shape_of(x))
    return mask


class Dot(Merge):
    """The dot product of two inputs' samples along ``axes`` (an int, or one axis for each
    input; never the batch axis); with ``normalize``, of their L2-normalized samples
    (the cosine similarity)."""

    def __init__(self, axes, normalize=False, **kwargs):
        super().__init__(**kwargs)
        if not isinstance(axes, int):
            if not isinstance(axes, (list, tuple)):
                raise TypeError(
                    "Invalid type for argument `axes`: it should be a list or an int. "
                    f"Received: axes={axes}"
                )
            if len(axes) != 2:
                raise ValueError(
                    "Invalid format for argument `axes`: it should contain two elements. "
                    f"Received: axes={axes}"
                )
            if not all(isinstance(a, int) for a in axes):
                raise ValueError(
                    "Invalid format for argument `axes`: list elements should be integers. "
                    f"Received: axes={axes}"
                )
        self.axes = axes
        self.normalize = normalize

    def _axes(self, rank1, rank2):
        axes = [self.axes, self.axes] if isinstance(self.axes, int) else list(self.axes)
        return [axis % rank for axis, rank in zip(axes, (rank1, rank2))]

    def build(self, input_shape):
        if not isinstance(input_shape[0], (tuple, list)) or len(input_shape) != 2:
            raise ValueError(
                f"A `Dot` layer should be called on a list of 2 inputs. Received: "
                f"input_shape={input_shape}"
            )
        shape1, shape2 = input_shape
        axis1, axis2 = self._axes(len(shape1), len(shape2))
        if shape1[axis1] != shape2[axis2]:
            raise ValueError(
                f"Incompatible input shapes: axis values {shape1[axis1]} (at axis {axis1}) != "
                f"{shape2[axis2]} (at axis {axis2}). Full input shapes: {shape1}, {shape2}"
            )

    def _merge_function(self, inputs):
        if len(inputs) != 2:
            raise ValueError(
                f"A `Dot` layer should be called on exactly 2 inputs. Received: inputs={inputs}"
            )
        x1, x2 = inputs
        axis1, axis2 = self._axes(x1.shape.rank, x2.shape.rank)
        if 0 in (axis1, axis2):
            raise ValueError(
                "Cannot perform batch_dot over axis 0. If your inputs are not batched, add a "
                "dummy batch dimension to your inputs using keras.ops.expand_dims(x, 0)"
            )
        if self.normalize:
            x1, x2 = _l2_normalized(x1, axis1), _l2_normalized(x2, axis2)
        return _batch_dot(x1, x2, axis1, axis2)

    def compute_output_shape(self, input_shape):
        if not isinstance(input_shape, (tuple, list)) or len(input_shape) != 2:
            raise ValueError(
                f"A `Dot` layer should be called on a list of 2 inputs. Received: "
                f"input_shape={input_shape}"
            )
        shape1, shape2 = (list(TensorShape(s).as_list()) for s in input_shape)
        axis1, axis2 = self._axes(len(shape1), len(shape2))
        shape1.pop(axis1)
        shape2.pop(axis2)
        output = shape1 + shape2[1:]
        return tuple(output + [1] if len(output) == 1 else output)

    def compute_mask(self, inputs, mask=None):
        return None

    def get_config(self):
        return {**super().get_config(), "axes": self.axes, "normalize": self.normalize}


def _l2_normalized(x, axis):
    """``x / max(||x||, epsilon)`` along ``axis``, as Keras 3's ``normalize``."""
    norm = math_ops.sqrt(reduce_sum(x * x, axis=axis, keepdims=True))
    return x / math_ops.maximum(norm, 1e-7)


def _batch_dot(x1, x2, axis1, axis2):
    """Per sample, ``x1``'s ``axis1`` contracted with ``x2``'s ``axis2``; the result's
    dimensions: the batch, ``x1``'s others, then ``x2``'s others (at least two)."""
    letters = iter("bcdefghijklmnopqrstuvwxyz")
    batch, shared = next(letters), "a"
    sub1 = [batch] + [shared if i == axis1 else next(letters) for i in range(1, x1.shape.rank)]
    sub2 = [batch] + [shared if i == axis2 else next(letters) for i in range(1, x2.shape.rank)]
    out = [batch] + [s for s in sub1[1:] + sub2[1:] if s != shared]
    result = einsum(f"{''.join(sub1)},{''.join(sub2)}->{''.join(out)}", x1, x2)
    return expand_dims(result, axis=1) if len(out) == 1 else result


def add(inputs, **kwargs):
    """``Add(**kwargs)(inputs)``."""
    return Add(**kwargs)(inputs)


def subtract(inputs, **kwargs):
    """``Subtract(**kwargs)(inputs)``."""
    return Subtract(**kwargs)(inputs)


def multiply(inputs, **kwargs):
    """``Multiply(**kwargs)(inputs)``."""
    return Multiply(**kwargs)(inputs)


def average(inputs, **kwargs):
    """``Average(**kwargs)(inputs)``."""
    return Average(**kwargs)(inputs)


def maximum(inputs, **kwargs):
    """``Maximum(**kwargs)(inputs)``."""
    return Maximum(**kwargs)(inputs)


def minimum(inputs, **kwargs):
    """``Minimum(**kwargs)(inputs)``."""
    return Minimum(**kwargs)(inputs)


def concatenate(inputs, axis=-1, **kwargs):
    """``Concatenate(axis, **kwargs)(inputs)``."""
    return Concatenate(axis=axis, **kwargs)(inputs)


def dot(inputs, axes=-1, **kwargs):
    """``Dot(axes, **kwargs)(inputs)``."""
    return Dot(axes=axes, **kwargs)(inputs)
