"""``Input`` and ``InputLayer``: where a functional model's graph starts.

``rt.keras.Input(shape=(784,))`` makes an ``InputLayer`` and returns its output, a
KerasTensor of shape ``(None, 784)`` (``None``: any batch size).

>>> import runtime as rt
>>> rt.keras.backend.clear_session()
>>> x = rt.keras.Input(shape=(28, 28), dtype="int32", name="pixels")
>>> x.shape, x.dtype, x.name
((None, 28, 28), 'int32', 'pixels')
>>> layer = x._keras_history.operation
>>> layer.name, layer.batch_shape, layer.get_config()["dtype"]
('pixels', (None, 28, 28), 'int32')
"""

from __future__ import annotations

import warnings

from runtime.core import dtypes
from runtime.keras import backend
from runtime.keras.keras_tensor import KerasTensor, Node, standardize_shape
from runtime.keras.layers.base import Layer


class InputLayer(Layer):
    """The layer of a functional model's input: no weights, one node with no inputs, whose
    output (``layer.output``) is the model's input KerasTensor."""

    def __init__(
        self,
        shape=None,
        batch_size=None,
        dtype=None,
        sparse=None,
        ragged=None,
        batch_shape=None,
        input_tensor=None,
        optional=False,
        name=None,
        **kwargs,
    ):
        if "input_shape" in kwargs:
            warnings.warn(
                "Argument `input_shape` is deprecated. Use `shape` instead.", stacklevel=2
            )
            shape = kwargs.pop("input_shape")
        if "batch_input_shape" in kwargs:
            batch_shape = kwargs.pop("batch_input_shape")
        super().__init__(name=name, **kwargs)
        if input_tensor is not None:
            _check_matches(input_tensor, shape, batch_size, batch_shape, dtype, sparse)
            batch_shape, dtype, sparse = input_tensor.shape, input_tensor.dtype, input_tensor.sparse
        else:
            batch_shape = _batch_shape(shape, batch_size, batch_shape)
        self._batch_shape = standardize_shape(batch_shape)
        self._dtype = dtypes.as_dtype(dtype or backend.floatx())
        self.sparse, self.ragged = bool(sparse), bool(ragged)
        for what, flag in (("sparse", self.sparse), ("ragged", self.ragged)):
            if flag:
                raise ValueError(f"`{what}=True` is not supported with the runtime backend")
        self.optional = optional
        if input_tensor is None:
            input_tensor = KerasTensor(self._batch_shape, self.dtype, name=name)
        self._input_tensor = input_tensor
        self._batch_input_shape = self._batch_shape  # a Sequential starting with it is built
        Node(self, (), {}, input_tensor)
        self.built = True

    def call(self):
        return None

    @property
    def batch_shape(self):
        return self._batch_shape

    @property
    def dtype(self):
        return self._dtype.name

    def compute_output_shape(self, input_shape):
        return input_shape

    def get_config(self):
        return {
            "batch_shape": self.batch_shape,
            "dtype": self.dtype,
            "sparse": self.sparse,
            "ragged": self.ragged,
            "name": self.name,
            "optional": self.optional,
        }

    @classmethod
    def from_config(cls, config):
        return cls(**config)


def _batch_shape(shape, batch_size, batch_shape):
    if shape is not None and batch_shape is not None:
        raise ValueError("You cannot pass both `shape` and `batch_shape` at the same time.")
    if batch_size is not None and batch_shape is not None:
        raise ValueError("You cannot pass both `batch_size` and `batch_shape` at the same time.")
    if shape is None and batch_shape is None:
        raise ValueError("You must pass a `shape` argument.")
    if shape is not None:
        return (batch_size, *standardize_shape(shape))
    return batch_shape


def _check_matches(tensor, shape, batch_size, batch_shape, dtype, sparse):
    """A given ``input_tensor`` fixes the shape and dtype: other arguments must agree."""
    if not isinstance(tensor, KerasTensor):
        raise ValueError(
            "Argument `input_tensor` must be a KerasTensor. Received invalid type: "
            f"input_tensor={tensor} (of type {type(tensor)})"
        )
    disagreeing = [
        ("batch_size", batch_size is not None and tensor.shape[:1] != (batch_size,)),
        ("shape", shape is not None and standardize_shape(shape) != tensor.shape[1:]),
        (
            "batch_shape",
            batch_shape is not None and standardize_shape(batch_shape) != tensor.shape,
        ),
        ("dtype", dtype is not None and dtypes.as_dtype(dtype).name != tensor.dtype),
        ("sparse", sparse is not None and bool(sparse) != tensor.sparse),
    ]
    for name, disagrees in disagreeing:
        if disagrees:
            raise ValueError(
                "When providing the `input_tensor` argument, you cannot provide an "
                f"incompatible `{name}` argument."
            )


def Input(  # noqa: N802 (Keras' name)
    shape=None,
    batch_size=None,
    dtype=None,
    sparse=None,
    ragged=None,
    batch_shape=None,
    name=None,
    tensor=None,
    optional=False,
):
    """A symbolic input (a KerasTensor) for a functional model: ``shape`` without the batch
    dimension, or ``batch_shape`` with it.

    >>> import runtime as rt
    >>> rt.keras.Input(shape=(3,), batch_size=2).shape
    (2, 3)
    """
    layer = InputLayer(
        shape=shape,
        batch_size=batch_size,
        dtype=dtype,
        sparse=sparse,
        ragged=ragged,
        batch_shape=batch_shape,
        name=name,
        input_tensor=tensor,
        optional=optional,
    )
    return layer.output
