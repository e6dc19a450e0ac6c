"""``Masking``: marks the timesteps whose features all equal ``mask_value`` as padding.

The layers after it that take a mask (``LSTM``, ``GRU``, ``GlobalAveragePooling1D``...) skip
those timesteps; the masked steps' values become 0.

>>> import numpy as np, runtime as rt
>>> x = np.array([[[1.0, 2.0], [0.0, 0.0], [3.0, 0.0]]])
>>> y = rt.keras.layers.Masking(mask_value=0.0)(x)
>>> rt.keras.backend.get_keras_mask(y).numpy()
array([[ True, False,  True]])
"""

from __future__ import annotations

from runtime.core import dtypes
from runtime.core.tensor_shape import TensorShape
from runtime.keras.layers.base import Layer
from runtime.ops.array_ops import zeros_like
from runtime.ops.broadcast_ops import where
from runtime.ops.constant_ops import cast, convert_to_tensor
from runtime.ops.math_ops import not_equal
from runtime.ops.reduction_ops import reduce_any


class Masking(Layer):
    """A timestep (axis 1) is masked where all its features equal ``mask_value``: its
    outputs are 0 and ``compute_mask`` marks it False."""

    _built_at_init = True
    _supports_masking = True

    def __init__(self, mask_value=0.0, **kwargs):
        super().__init__(**kwargs)
        if isinstance(mask_value, dict) and mask_value.get("class_name") == "__numpy__":
            mask_value = mask_value["config"]["value"]  # as Keras serializes an array
        self.mask_value = mask_value
        self.built = True

    def compute_mask(self, inputs, mask=None):
        return self._kept(convert_to_tensor(inputs), keepdims=False)

    def call(self, inputs):
        kept = self._kept(inputs, keepdims=True)
        outputs = where(kept, inputs, zeros_like(inputs))
        outputs._keras_mask = kept[..., 0]  # computed once, with the outputs
        return outputs

    def _kept(self, inputs, keepdims):
        """Whether each timestep has a feature other than ``mask_value`` (integer inputs are
        compared as numbers, as Keras' type promotion does)."""
        values = inputs if inputs.dtype.is_floating else cast(inputs, dtypes.float64)
        differs = not_equal(values, cast(self.mask_value, values.dtype))
        return reduce_any(differs, axis=-1, keepdims=keepdims)

    def compute_output_shape(self, input_shape):
        return TensorShape(input_shape)

    def get_config(self):
        return {**super().get_config(), "mask_value": self.mask_value}
