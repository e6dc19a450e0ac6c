"""``Sequential``: a model that is a stack of layers, each called on the previous one's output.

>>> import runtime as rt
>>> rt.keras.backend.clear_session()
>>> model = rt.keras.Sequential()
>>> model.add(rt.keras.layers.Dense(4, input_shape=(10,)))   # an input shape: built at once
>>> model.add(rt.keras.layers.Dense(1))
>>> [layer.count_params() for layer in model.layers], model.name
([44, 5], 'sequential')
"""

from __future__ import annotations

from runtime.core.tensor_shape import TensorShape
from runtime.keras.backend import set_keras_mask
from runtime.keras.keras_tensor import KerasTensor
from runtime.keras.layers.base import Layer, structure_changed
from runtime.keras.layers.input_layer import InputLayer
from runtime.keras.models import sequential_config
from runtime.keras.models.model import Model
from runtime.state import deferred


class Sequential(Model):
    """``Sequential(layers=None, name=None)``; ``add(layer)``, ``pop()``.

    Given an ``input_shape`` on its first layer, the model is built as soon as
    that layer is added (its weights exist, ``summary()`` works); otherwise at
    its first call.
    """

    _saves_layers_first = True  # a .keras file's weights: its layers under layers/, in order

    def __init__(self, layers=None, name=None):
        super().__init__(name=name)
        self._layers = []
        for layer in layers or ():
            self.add(layer)

    @property
    def layers(self):
        """The stack, without its InputLayer (Keras 3)."""
        return [layer for layer in self._layers if not isinstance(layer, InputLayer)]

    def add(self, layer):
        """Puts ``layer`` on top of the stack (and builds it, when the model is built); an
        ``rt.keras.Input(...)`` first gives the model its input shape."""
        if isinstance(layer, KerasTensor) and isinstance(
            layer._keras_history.operation, InputLayer
        ):
            layer = layer._keras_history.operation
        if isinstance(layer, InputLayer) and self._layers:
            raise ValueError(
                f"Sequential model '{self.name}' has already been configured to use input shape "
                f"{self._build_input_shape}. You cannot add a different Input layer to it."
            )
        if not isinstance(layer, Layer):
            raise TypeError(
                "The added layer must be an instance of class Layer. "
                f"Received: layer={layer!r} of type {type(layer).__name__}."
            )
        if any(existing.name == layer.name for existing in self._layers):
            raise ValueError(
                "All layers added to a Sequential model should have unique names. Name "
                f'"{layer.name}" is already the name of a layer in this model. Update the `name` '
                "argument to pass a unique name."
            )
        self._layers.append(layer)
        deferred.attached(self, "_layers", self._layers)  # a restore may wait for the layer
        structure_changed()
        if len(self._layers) == 1 and layer._batch_input_shape is not None:
            self._batch_input_shape = layer._batch_input_shape  # a model nesting this one knows it
            self.build(layer._batch_input_shape)
        elif self.built and self._build_input_shape is not None:
            self.build(self._build_input_shape)  # builds the new layer on the last output shape

    def pop(self):
        """Removes the top layer."""
        if not self._layers:
            raise TypeError("There are no layers in the model.")
        self._layers.pop()
        if not self._layers:
            self._batch_input_shape = None
        structure_changed()

    def build(self, input_shape=None):
        """Builds every layer in turn, each on the output shape of the one before."""
        input_shape = input_shape if input_shape is not None else self._build_input_shape
        if input_shape is None:
            raise ValueError("You must provide an `input_shape` argument.")
        shape = TensorShape(input_shape)
        for layer in self._layers:
            if not layer.built:
                layer._maybe_build(shape)
            shape = TensorShape(layer.compute_output_shape(shape))
        self._build_input_shape = TensorShape(input_shape)
        self.built = True

    def _maybe_build(self, input_shape):
        # Built at its first call: each layer builds itself when called. The model is for any
        # batch size, as Keras infers it.
        if isinstance(input_shape, TensorShape) and input_shape.rank:
            input_shape = TensorShape([None, *input_shape.as_list()[1:]])
        self._build_input_shape = input_shape
        self.built = True

    def call(self, inputs, training=None, mask=None):
        if mask is not None:  # the first layer reads it from its input, as each next one
            set_keras_mask(inputs, mask)
        for layer in self.layers:
            inputs = layer(inputs)  # training reaches each layer through the call context
        return inputs

    def compute_output_shape(self, input_shape):
        shape = TensorShape(input_shape)
        return [shape, *self._layer_output_shapes(shape)][-1]  # the last layer's

    def _summary_output_shapes(self):
        return [str(shape) for shape in self._layer_output_shapes(self._build_input_shape)]

    def _layer_output_shapes(self, input_shape):
        """Each layer's output shape in turn, for inputs of ``input_shape``."""
        shape = input_shape
        for layer in self.layers:
            shape = TensorShape(layer.compute_output_shape(shape))
            yield shape

    # --- config ------------------------------------------------------------------------------

    def get_config(self):
        """Keras 3's config: ``name``, ``trainable``, ``dtype``, ``layers`` (each serialized; an
        ``InputLayer`` first when the input shape is known), ``build_input_shape``."""
        return sequential_config.get_config(self)

    @classmethod
    def from_config(cls, config, custom_objects=None):
        """The model ``get_config()`` (or Keras 3) describes, built when its shape is known."""
        return sequential_config.from_config(cls, config, custom_objects)
