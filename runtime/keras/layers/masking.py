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

from runtime.core.tensor_shape import TensorShape
from runtime.keras.layers.base import Layer
from runtime.ops.broadcast_ops import where
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
        return reduce_any(not_equal(inputs, self.mask_value), axis=-1)

    def call(self, inputs):
        kept = reduce_any(not_equal(inputs, self.mask_value), axis=-1, keepdims=True)
        outputs = where(kept, inputs, inputs * 0)
        outputs._keras_mask = kept[..., 0]  # computed once, with the outputs
        return outputs

    def compute_output_shape(self, input_shape):
        return TensorShape(input_shape)

    def get_config(self):
        return {**super().get_config(), "mask_value": self.mask_value}
