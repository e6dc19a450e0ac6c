"""``Embedding``: turns integer indices into dense vectors, rows of a learned matrix.

>>> import numpy as np, runtime as rt
>>> layer = rt.keras.layers.Embedding(3, 2, embeddings_initializer="ones")
>>> layer(np.array([[0, 2]])).shape
TensorShape([1, 2, 2])
>>> layer.embeddings.name
'embedding/embeddings:0'
"""

from __future__ import annotations

import numbers

from runtime.core.tensor_shape import TensorShape
from runtime.keras import constraints, initializers, regularizers
from runtime.keras.layers.base import Layer
from runtime.ops.constant_ops import cast
from runtime.ops.indexing_ops import gather
from runtime.ops.math_ops import not_equal


def _positive_int(value, name):
    if not isinstance(value, numbers.Integral) or isinstance(value, bool) or value <= 0:
        raise ValueError(
            f"`{name}` must be a positive integer. Received: {name}={value} "
            f"(of type {type(value).__name__})."
        )
    return int(value)


class Embedding(Layer):
    """``embeddings[inputs]``: each index in ``[0, input_dim)`` becomes its row, of
    ``output_dim`` values. With ``mask_zero``, index 0 is padding (``compute_mask``)."""

    def __init__(
        self,
        input_dim,
        output_dim,
        embeddings_initializer="uniform",
        embeddings_regularizer=None,
        embeddings_constraint=None,
        mask_zero=False,
        weights=None,
        **kwargs,
    ):
        kwargs.pop("input_length", None)  # Keras 2's argument, ignored by Keras 3
        kwargs.pop("quantization_config", None)  # in Keras 3's config; none is used here
        super().__init__(**kwargs)
        self.input_dim = _positive_int(input_dim, "input_dim")
        self.output_dim = _positive_int(output_dim, "output_dim")
        self.embeddings_initializer = initializers.get(embeddings_initializer)
        self.embeddings_regularizer = regularizers.get(embeddings_regularizer)
        self.embeddings_constraint = constraints.get(embeddings_constraint)
        self.mask_zero = mask_zero
        self.supports_masking = mask_zero
        if weights is not None:
            self.build()
            self.set_weights(weights if isinstance(weights, (list, tuple)) else [weights])

    def build(self, input_shape=None):
        self.embeddings = self.add_weight(
            name="embeddings",
            shape=(self.input_dim, self.output_dim),
            initializer=self.embeddings_initializer,
            regularizer=self.embeddings_regularizer,
            constraint=self.embeddings_constraint,
        )

    def call(self, inputs):
        if not inputs.dtype.is_integer:
            inputs = cast(inputs, "int32")
        return gather(self.embeddings, inputs)

    def compute_mask(self, inputs, mask=None):
        return not_equal(inputs, 0) if self.mask_zero else None

    def compute_output_shape(self, input_shape):
        return TensorShape([*tuple(input_shape), self.output_dim])

    def get_config(self):
        return {
            **super().get_config(),
            "input_dim": self.input_dim,
            "output_dim": self.output_dim,
            "embeddings_initializer": initializers.serialize(self.embeddings_initializer),
            "embeddings_regularizer": regularizers.serialize(self.embeddings_regularizer),
            "activity_regularizer": regularizers.serialize(self.activity_regularizer),
            "embeddings_constraint": constraints.serialize(self.embeddings_constraint),
            "mask_zero": self.mask_zero,
            "quantization_config": None,
        }
