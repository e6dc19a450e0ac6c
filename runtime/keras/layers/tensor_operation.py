"""``TensorOperation``: arithmetic on KerasTensors (``x + y``, ``2 * x``, ``x[:, 0]``) as a node
of the functional graph, as Keras 3's ops on KerasTensors are. It is an operation, not a layer
of the model: ``model.layers`` leaves it out, and it has no config to save.

>>> import numpy as np, runtime as rt
>>> rt.keras.backend.clear_session()
>>> a, b = rt.keras.Input(shape=(2,)), rt.keras.Input(shape=(2,))
>>> model = rt.keras.Model([a, b], 2 * a - b)
>>> model([np.ones((1, 2)), np.ones((1, 2))]).numpy()
array([[1., 1.]], dtype=float32)
>>> [layer.name for layer in model.layers]
['input_layer', 'input_layer_1']
"""

from __future__ import annotations

from runtime.core import nest
from runtime.core.tensor import Tensor
from runtime.keras import backend, keras_tensor
from runtime.keras.layers.base import Layer
from runtime.ops.constant_ops import convert_to_tensor


class TensorOperation(Layer):
    """``fn(*operands)`` as one node; its operands keep their dtypes (no autocasting)."""

    def __init__(self, name, fn):
        super().__init__(name=backend.unique_object_name(name))
        self._fn = fn

    def call(self, *operands):
        return self._fn(*operands)

    def _cast_inputs(self, inputs):
        return nest.map_structure(
            lambda x: x if isinstance(x, Tensor) or x is None else convert_to_tensor(x), inputs
        )

    def get_config(self):
        raise NotImplementedError(
            f"The operation {self.name!r} (arithmetic on KerasTensors) cannot be serialized: "
            "use a layer (rt.keras.layers.Add, ...) in a model you want to save."
        )


keras_tensor._operation_layer["class"] = TensorOperation
