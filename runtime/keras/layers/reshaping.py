"""The reshaping layers: ``Reshape``, ``Permute``, ``RepeatVector``. Each keeps the batch axis
and reshapes the rest of an example.

>>> import numpy as np, runtime as rt
>>> rt.keras.layers.Reshape((-1, 2))(np.zeros((3, 2, 4))).shape
TensorShape([3, 4, 2])
>>> rt.keras.layers.Permute((2, 1))(np.zeros((3, 2, 4))).shape
TensorShape([3, 4, 2])
>>> rt.keras.layers.RepeatVector(5)(np.zeros((3, 2))).shape
TensorShape([3, 5, 2])
"""

from __future__ import annotations

import math
import numbers

from runtime.core.tensor_shape import TensorShape
from runtime.keras.layers.base import Layer
from runtime.ops.array_ops import expand_dims, reshape, shape_of, stack, transpose
from runtime.ops.padding_ops import tile


def _checked_target_shape(target_shape):
    """Keras' rule: sizes are non-negative integers, with at most one -1 (to be inferred)."""
    target_shape = tuple(target_shape)
    for size in target_shape:
        if not isinstance(size, numbers.Integral) or size < -1:
            raise ValueError(
                "Each dimension in `target_shape` must be a non-negative integer, or `-1` for "
                f"a single unknown dimension. Received: target_shape={target_shape}."
            )
    if target_shape.count(-1) > 1:
        raise ValueError(
            "There must be at most one unknown dimension (-1) in `target_shape`. Received: "
            f"target_shape={target_shape}."
        )
    return tuple(int(size) for size in target_shape)


def _resolved(example_shape, target_shape):
    """``target_shape`` with its -1 worked out from an example's shape (None if unknown)."""
    if -1 not in target_shape:
        known = all(d is not None for d in example_shape)
        if known and math.prod(example_shape) != math.prod(target_shape):
            raise ValueError(
                "The total size of the tensor must be unchanged. Received: "
                f"input_shape={tuple(example_shape)}, target_shape={target_shape}"
            )
        return target_shape
    if any(d is None for d in example_shape):
        return tuple(None if d == -1 else d for d in target_shape)
    size, rest = math.prod(example_shape), -math.prod(target_shape)
    if rest == 0 or size % rest:
        raise ValueError(
            "The total size of the tensor must be unchanged, however, the input size cannot "
            "by divided by the specified dimensions in target_shape. Received: "
            f"input_shape={tuple(example_shape)}, target_shape={target_shape}"
        )
    return tuple(size // rest if d == -1 else d for d in target_shape)


class Reshape(Layer):
    """Reshapes each example to ``target_shape`` (one size may be -1: inferred)."""

    _built_at_init = True  # as Keras 3: its config in a .keras file has no build config

    def __init__(self, target_shape, **kwargs):
        super().__init__(**kwargs)
        self.target_shape = _checked_target_shape(target_shape)

    def call(self, inputs):
        shape = inputs.shape.as_list()
        target = _resolved(shape[1:], self.target_shape)
        if None in target:  # sizes known only when the graph runs
            return reshape(inputs, stack([shape_of(inputs)[0], *self.target_shape]))
        batch = shape[0] if shape[0] is not None else -1
        return reshape(inputs, [batch, *target])

    def compute_output_shape(self, input_shape):
        dims = list(tuple(input_shape))
        return TensorShape([dims[0], *_resolved(dims[1:], self.target_shape)])

    def get_config(self):
        return {**super().get_config(), "target_shape": self.target_shape}


class Permute(Layer):
    """Permutes the axes of each example: ``dims`` numbers them from 1 (the batch is 0)."""

    def __init__(self, dims, **kwargs):
        super().__init__(**kwargs)
        self.dims = tuple(dims)
        if sorted(self.dims) != list(range(1, len(self.dims) + 1)):
            raise ValueError(
                "Invalid permutation argument `dims` for Permute Layer. The set of indices in "
                f"`dims` must be consecutive and start from 1. Received dims={dims}"
            )

    def call(self, inputs):
        if inputs.shape.rank is not None and inputs.shape.rank != len(self.dims) + 1:
            raise ValueError(
                f'Input 0 of layer "{self.name}" is incompatible with the layer: expected '
                f"ndim={len(self.dims) + 1}, found ndim={inputs.shape.rank}. Full shape "
                f"received: {tuple(inputs.shape.as_list())}"
            )
        return transpose(inputs, [0, *self.dims])

    def compute_output_shape(self, input_shape):
        dims = list(tuple(input_shape))
        return TensorShape([dims[0], *(dims[d] for d in self.dims)])

    def get_config(self):
        return {**super().get_config(), "dims": self.dims}


class RepeatVector(Layer):
    """Repeats each example (a vector) ``n`` times: ``(batch, features)`` ->
    ``(batch, n, features)``."""

    def __init__(self, n, **kwargs):
        super().__init__(**kwargs)
        if not isinstance(n, numbers.Integral) or isinstance(n, bool):
            raise TypeError(f"Expected an integer value for `n`, got {type(n)}.")
        if n <= 0:
            raise ValueError(f"Argument `n` should be a positive integer. Received: n={n}")
        self.n = int(n)

    def call(self, inputs):
        if inputs.shape.rank is not None and inputs.shape.rank != 2:
            raise ValueError(
                f'Input 0 of layer "{self.name}" is incompatible with the layer: expected '
                f"ndim=2, found ndim={inputs.shape.rank}. Full shape received: "
                f"{tuple(inputs.shape.as_list())}"
            )
        return tile(expand_dims(inputs, 1), [1, self.n, 1])

    def compute_output_shape(self, input_shape):
        batch, features = tuple(input_shape)
        return TensorShape([batch, self.n, features])

    def get_config(self):
        return {**super().get_config(), "n": self.n}
