"""``Layer``: a Module that builds its weights on its first call, then computes ``call``.

>>> import runtime as rt
>>> class Scale(rt.keras.layers.Layer):
...     def build(self, input_shape):
...         self.w = self.add_weight(name="w", shape=(input_shape[-1],), initializer="ones")
...     def call(self, inputs):
...         return inputs * self.w
>>> rt.keras.backend.clear_session()
>>> layer = Scale()
>>> layer.built
False
>>> layer(rt.constant([[1.0, 2.0]])).numpy()      # the first call builds it
array([[1., 2.]], dtype=float32)
>>> [v.name for v in layer.weights], layer.built
(['scale/w:0'], True)
>>> layer.trainable = False                        # frozen: its weights are not trained
>>> layer.trainable_variables, len(layer.non_trainable_variables)
([], 1)

``training`` given to a layer reaches every layer called inside its ``call``,
whether or not that ``call`` names ``training`` (a Dropout deep in a model).
"""

from __future__ import annotations

import inspect

import numpy as np

from runtime.core import context, dtypes, nest
from runtime.core.graph import name_scope
from runtime.core.tensor import Tensor
from runtime.core.tensor_shape import TensorShape
from runtime.core.tensor_spec import TensorSpec
from runtime.execution import staging
from runtime.execution.tracing import trace
from runtime.keras import backend, constraints, initializers, keras_tensor, regularizers
from runtime.keras.layers import layer_config, masks
from runtime.keras.layers.build_scope import LayerNameScope, call_context, marking_built
from runtime.keras.saving.archive import reserve_weight
from runtime.ops.array_ops import shape_of
from runtime.ops.constant_ops import cast, convert_to_tensor
from runtime.state import deferred
from runtime.state.module import Module
from runtime.state.variables import Variable

_LAYER_KEYWORDS = {
    "input_shape",
    "input_dim",
    "batch_input_shape",
    "batch_size",
    "dtype",
    "name",
    "trainable",
    "activity_regularizer",
}


_accepts_training = {}  # a Layer subclass -> what _call_parameters says of its call

# Bumped whenever a layer's attributes, weights or trainable setting change: what a layer
# finds through its attributes (its weights, its layers) is cached until then, so a training
# step asking for model.trainable_variables does not walk the model every time.
_structure = {"version": 0}


def structure_changed():
    """Forgets what layers found through their attributes (a list of layers was changed)."""
    _structure["version"] += 1


class _Found:
    """What a layer found through its attributes, at one version of the structure. Not a
    container: the object graph a checkpoint or saved model walks does not go through it."""

    __slots__ = ("version", "found")

    def __init__(self, version):
        self.version, self.found = version, {}


class Layer(Module):
    """The base of Keras layers and models (``tf.keras.layers.Layer``).

    Subclasses create their weights in ``build(input_shape)`` with
    ``add_weight``, and compute in ``call(inputs, training=None)``; calling the
    layer builds it the first time (in the layer's name scope: ``dense/kernel:0``).
    """

    _base_class_name = "Layer"  # what a subclass that forgot super().__init__() is told
    # Keras builds some layers (Dropout, Activation...) when made: their configs in a .keras
    # file have no build config. Such a class says so.
    _built_at_init = False
    _supports_masking = None  # None: whether the class defines compute_mask

    def __init__(self, trainable=True, name=None, dtype=None, **kwargs):
        unknown = set(kwargs) - _LAYER_KEYWORDS
        if unknown:
            raise TypeError(f"Keyword argument not understood: {sorted(unknown)[0]!r}")
        name = name or backend.unique_object_name(backend.to_snake_case(type(self).__name__))
        super().__init__(name=name)
        self._trainable = bool(trainable)
        self.built = False
        self._own_weights = []  # made by add_weight, in order
        self._dtype = dtypes.as_dtype(layer_config.dtype_name(dtype) or backend.floatx())
        self._build_input_shape = None
        self._losses = []  # added by add_loss during the last call
        self.activity_regularizer = regularizers.get(kwargs.get("activity_regularizer"))
        input_shape = kwargs.get("batch_input_shape")
        if input_shape is None and kwargs.get("input_dim") is not None:
            kwargs["input_shape"] = (kwargs["input_dim"],)
        if input_shape is None and kwargs.get("input_shape") is not None:
            input_shape = (kwargs.get("batch_size"), *kwargs["input_shape"])
        self._batch_input_shape = None if input_shape is None else tuple(input_shape)

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        build = cls.__dict__.get("build")
        if build is not None and not getattr(build, "_marks_built", False):
            cls.build = marking_built(build)

    @property
    def name_scope(self):
        """``with layer.name_scope:`` as for any Module; ``layer.name_scope()`` is the name,
        as TensorFlow 2.0's Keras layers gave it (seed 003)."""
        return LayerNameScope(self._scope_name, self.name)

    def __setattr__(self, name, value):
        if "_own_weights" not in self.__dict__ and isinstance(value, (Layer, Variable)):
            raise RuntimeError(
                f"It looks like you are subclassing `{self._base_class_name}` and you forgot to call "
                "`super().__init__()`. Always start with this line."
            )
        structure_changed()
        super().__setattr__(name, value)  # the next class's, as Keras (Module's hook, if any)

    def _cached(self, key, compute):
        """``compute()``, remembered until the structure of layers changes."""
        cache = self.__dict__.get("_tracking")
        if cache is None or cache.version != _structure["version"]:
            cache = _Found(_structure["version"])
            object.__setattr__(self, "_tracking", cache)
        if key not in cache.found:
            cache.found[key] = compute()
        return list(cache.found[key])

    # --- weights ----------------------------------------------------------------------------

    def add_weight(
        self,
        name=None,
        shape=None,
        dtype=None,
        initializer=None,
        trainable=True,
        regularizer=None,
        constraint=None,
    ):
        """Creates a weight of this layer, ``<layer name>/<name>:0``, with ``initializer``
        (default ``"glorot_uniform"``). Made eagerly even while a graph is traced, as
        TensorFlow's ``init_scope`` does: the weight outlives the trace. Its ``regularizer``
        adds to ``layer.losses``; its ``constraint`` projects it after each optimizer step."""
        dtype = dtypes.as_dtype(dtype or self._dtype)
        initializer = initializers.get(initializer or "glorot_uniform")
        shape = () if shape is None else tuple(shape)
        reserve_weight(self.name, name, shape, dtype)  # a .keras file's load bounds its weights
        with context.eager_mode(), name_scope(self.name + "/"):
            variable = Variable(
                lambda: initializer(shape, dtype=dtype),
                dtype=dtype,
                trainable=trainable,
                name=name or "Variable",
            )
        variable.regularizer = regularizers.get(regularizer)
        variable.constraint = constraints.get(constraint)
        self._own_weights.append(variable)
        deferred.attached(self, "_own_weights", self._own_weights)  # a restore may wait for it
        structure_changed()
        return variable

    @property
    def trainable(self):
        return self._trainable

    @trainable.setter
    def trainable(self, value):
        # As in Keras, the setting reaches every layer inside this one.
        for layer in self._flatten_layers():
            layer._trainable = bool(value)

    @property
    def trainable_weights(self):
        return self._cached("trainable", self._find_trainable_weights)

    @property
    def non_trainable_weights(self):
        return self._cached("non_trainable", self._find_non_trainable_weights)

    @property
    def weights(self):
        """Trainable weights first, then the others (a frozen layer's go last), as in Keras."""
        return _unique(self.trainable_weights + self.non_trainable_weights)

    def _find_trainable_weights(self):
        if not self._trainable:
            return []
        own = [v for v in self._own_variables() if v.trainable]
        return _unique(own + [v for layer in self._sublayers() for v in layer.trainable_weights])

    def _find_non_trainable_weights(self):
        if not self._trainable:
            return self._all_weights()
        own = [v for v in self._own_variables() if not v.trainable]
        children = [v for layer in self._sublayers() for v in layer.non_trainable_weights]
        return _unique(own + children)

    trainable_variables = trainable_weights
    non_trainable_variables = non_trainable_weights
    variables = weights

    @property
    def submodules(self):
        return tuple(self._flatten_layers(include_self=False))

    def count_params(self):
        """The number of scalars in this layer's weights."""
        if not self.built:
            raise ValueError(
                f"You tried to call `count_params` on layer {self.name!r}, but the layer isn't "
                "built. You can build it manually via: `layer.build(batch_input_shape)`."
            )
        return count_params(self.weights)

    def get_weights(self):
        """The weights' values, as numpy arrays."""
        return [v.numpy() for v in self.weights]

    def set_weights(self, weights):
        """Assigns values (numpy arrays of any float dtype, tensors) to the weights, in the order
        of ``weights``; each must have its weight's shape."""
        mine = self.weights
        if len(weights) != len(mine):
            raise ValueError(
                f"Layer {self.name!r} expects {len(mine)} weights, but the weight list has "
                f"{len(weights)} elements."
            )
        for variable, value in zip(mine, weights):
            value = value if isinstance(value, Tensor) else np.asarray(value)
            if tuple(variable.shape.as_list()) != tuple(value.shape):
                raise ValueError(
                    f"Layer {self.name} weight shape {tuple(variable.shape.as_list())} is not "
                    f"compatible with provided weight shape {tuple(value.shape)}."
                )
            variable.assign(cast(value, variable.dtype))  # float64 numpy too, as Keras casts

    def _own_variables(self):
        return _unique(self._own_weights + _tracked(self._attribute_values(), Variable))

    def _all_weights(self):
        return _unique(
            self._own_variables() + [v for layer in self._sublayers() for v in layer.weights]
        )

    def _sublayers(self):
        """The layers held in attributes (through lists, tuples, dicts), in assignment order."""
        return self._cached("layers", lambda: _tracked(self._attribute_values(), Layer))

    def _attribute_values(self):
        return [value for key, value in vars(self).items() if key != "_tracking"]

    def _flatten_layers(self, include_self=True):
        """This layer and every layer inside it, depth first."""
        found = [self] if include_self else []
        for layer in self._sublayers():
            for inner in layer._flatten_layers():
                if all(inner is not f for f in found):
                    found.append(inner)
        return found

    # --- losses -------------------------------------------------------------------------------

    def add_loss(self, loss):
        """Adds a scalar loss (or a list of them), computed in ``call``, to ``layer.losses``:
        the losses added during the last outermost call are kept, as in Keras."""
        for value in nest.flatten(loss):
            if not isinstance(value, Tensor):
                raise ValueError(
                    "`add_loss()` can only be called from inside `build()` or `call()`, on a "
                    f"tensor input. Received invalid value: {value}"
                )
            self._losses.append(value)

    @property
    def losses(self):
        """The losses of the last call (``add_loss``, activity regularizers) of this layer and
        the layers inside it, then the penalties of the regularized trainable weights,
        computed from their values now."""
        layers = self._flatten_layers()
        found = [loss for layer in layers for loss in layer.__dict__.get("_losses", ())]
        for variable in self.trainable_weights:
            regularizer = getattr(variable, "regularizer", None)
            if regularizer is not None:
                found.append(regularizer(variable.read_value()))
        return found

    def _clear_losses(self):
        for layer in self._cached("all_layers", self._flatten_layers):  # once per model call
            layer.__dict__.get("_losses", []).clear()

    def _regularize_activity(self, outputs):
        """The activity regularizer's penalty of each output, per example, as in Keras 3."""
        for output in nest.flatten(outputs):
            if isinstance(output, Tensor):
                loss = self.activity_regularizer(output)
                if output.shape.rank:
                    loss = loss / cast(shape_of(output)[0], loss.dtype)
                self.add_loss(loss)

    # --- building and calling ---------------------------------------------------------------

    def build(self, input_shape):
        """Creates the weights, knowing the input shape. Called once, by the first call."""
        self.built = True

    def call(self, inputs, *args, **kwargs):
        """The layer's computation; the base layer returns its inputs."""
        return inputs

    def compute_mask(self, inputs, previous_mask):
        """The mask of the outputs (only asked of a layer that ``supports_masking``): by
        default, the inputs' mask, passed on."""
        return previous_mask

    @property
    def supports_masking(self):
        """Whether the layer attaches ``compute_mask``'s mask to its outputs: by default, when
        its class defines ``compute_mask``; a layer sets it as Keras' do."""
        found = self._supports_masking  # set, or said by the class
        return type(self).compute_mask is not Layer.compute_mask if found is None else found

    @supports_masking.setter
    def supports_masking(self, value):
        object.__setattr__(self, "_supports_masking", bool(value))

    def compute_output_shape(self, input_shape):
        """The output shape for ``input_shape``: found by calling the layer on a placeholder
        in a scratch graph (layers with a simple rule override this)."""
        spec = TensorSpec(input_shape, self._dtype)
        with context.eager_mode():  # a scratch graph of its own, whatever is being built
            graph = trace(lambda x: self(x), [spec], "scratch_graph")
        return nest.map_structure(lambda t: t.shape, graph.structured_outputs)

    def __call__(self, inputs, *args, **kwargs):
        if keras_tensor.any_symbolic(inputs, args, kwargs):  # the functional API: a node
            return keras_tensor.symbolic_call(self, inputs, args, kwargs)
        outer = call_context.training
        training = kwargs.pop("training", None)
        takes_training, position, takes_mask, own_compute_mask = self._call_parameters()
        if position is not None and len(args) > position:  # training given by position
            training = args[position]
        if training is None:
            training = outer
        previous_mask = masks.fill_in(self, inputs, args, kwargs, takes_mask)
        inputs = self._cast_inputs(inputs)
        if not self.built:
            self._maybe_build(nest.map_structure(lambda t: t.shape, inputs))
        if position is not None and len(args) > position:
            args = (*args[:position], training, *args[position + 1 :])
        elif takes_training:
            kwargs["training"] = training
        call_context.training = training
        if call_context.depth == 0:
            self._clear_losses()
        call_context.depth += 1
        call_context.path.append(self)
        try:
            if context.building_graph() is None:
                outputs = self.call(inputs, *args, **kwargs)
            else:
                with name_scope(self.name):  # ops are named dense/MatMul...
                    outputs = staging.converted(self.call)(inputs, *args, **kwargs)
            if getattr(self, "activity_regularizer", None) is not None:
                self._regularize_activity(outputs)
            if previous_mask is not None or own_compute_mask:
                masks.attach_output_masks(self, inputs, outputs, previous_mask)
            return outputs
        finally:
            call_context.training = outer
            call_context.depth -= 1
            call_context.path.pop()

    @property
    def input(self):
        """The KerasTensor this layer was called on (the functional API)."""
        return keras_tensor.node_attribute(self, "input")

    @property
    def output(self):
        """The KerasTensor this layer's call on KerasTensors made (the functional API)."""
        return keras_tensor.node_attribute(self, "output")

    def _maybe_build(self, input_shape):
        self._build_input_shape = input_shape
        with context.eager_mode():
            self.build(_as_tuple_shape(input_shape))
        self.built = True

    def _cast_inputs(self, inputs):
        """Inputs as tensors, floats as the layer's dtype (Keras' autocasting)."""

        def cast_one(x):
            mask = getattr(x, "_keras_mask", None)  # kept: the cast tensor has the same mask
            if isinstance(x, Variable):
                x = x.read_value()
            elif not isinstance(x, Tensor):
                array = np.asarray(x)
                if array.dtype.kind == "f":
                    array = array.astype(self._dtype.as_numpy_dtype, copy=False)
                x = convert_to_tensor(array)
            if x.dtype.is_floating and x.dtype is not self._dtype:
                x = cast(x, self._dtype)
            if mask is not None:
                x._keras_mask = mask
            return x

        if isinstance(inputs, Tensor):
            return inputs if inputs.dtype is self._dtype else cast_one(inputs)
        if isinstance(inputs, (list, tuple)) and not _holds_arrays(inputs):
            return cast_one(inputs)  # nested lists of numbers: one tensor
        return nest.map_structure(cast_one, inputs)

    def _call_parameters(self):
        """Whether this class's ``call`` takes ``training``, its position among the arguments
        after ``inputs`` (None when it cannot be given by position), whether it takes
        ``mask``, whether the class computes masks itself."""
        cls = type(self)
        found = _accepts_training.get(cls)
        if found is None:
            parameters = inspect.signature(self.call).parameters
            takes = "training" in parameters or any(
                p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values()
            )
            positional = [
                name
                for name, p in parameters.items()
                if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
            ]
            position = positional.index("training") - 1 if "training" in positional[1:] else None
            own_compute_mask = cls.compute_mask is not Layer.compute_mask
            found = (takes, position, "mask" in parameters, own_compute_mask)
            _accepts_training[cls] = found
        return found

    def __repr__(self):
        cls = type(self)
        if cls.__module__.startswith("runtime.keras."):  # ours: where the public API has it
            where = "rt.keras." + cls.__module__.split(".")[2]
        else:  # the user's: where they defined it
            where = cls.__module__
        return f"<{where}.{cls.__qualname__} {self.name!r}>"

    # --- config ----------------------------------------------------------------------------

    def __new__(cls, *args, **kwargs):
        layer = super().__new__(cls)
        if cls.get_config is Layer.get_config:  # its config: the arguments it is made with
            arguments = layer_config.constructor_arguments(cls, args, kwargs)
            object.__setattr__(layer, "_constructor_arguments", arguments)
        return layer

    def get_config(self):
        """The layer's config: ``name``, ``trainable``, ``dtype``, its constructor's arguments
        (see ``layer_config``); ``type(layer).from_config(config)`` makes it again."""
        return layer_config.base_config(self)

    @classmethod
    def from_config(cls, config):
        """A new layer made from ``get_config()``'s dictionary."""
        return layer_config.from_config(cls, config)

    def get_build_config(self):
        """``{"input_shape": [...]}``, the shape the layer was built with (None if unbuilt)."""
        return None if self._built_at_init else layer_config.build_config(self)

    def build_from_config(self, config):
        """Builds the layer (makes its weights) from ``get_build_config()``'s dictionary."""
        shapes = {k: layer_config.as_tuple_shape(v) for k, v in (config or {}).items()}
        with context.eager_mode():
            if "input_shape" in shapes:
                self.build(shapes["input_shape"])
            elif "shapes_dict" in shapes:
                self.build(**shapes["shapes_dict"])


Layer.build = marking_built(Layer.build)


# Library code that stages itself: autograph calls the layer as it is, and converts its call.
staging.do_not_convert(Layer.__call__)


def _holds_arrays(value):
    if isinstance(value, (list, tuple)):
        return any(_holds_arrays(v) for v in value)
    return isinstance(value, (Tensor, Variable, np.ndarray))


def _as_tuple_shape(shape):
    if isinstance(shape, TensorShape):
        return tuple(shape.as_list()) if shape.rank is not None else None
    return nest.map_structure(_as_tuple_shape, shape) if nest.is_nested(shape) else shape


def _tracked(values, kind):
    """Objects of ``kind`` in ``values`` and in the lists, tuples and dicts they hold, in order,
    each once."""
    found, seen = [], set()

    def visit(value):
        if id(value) in seen:
            return
        if isinstance(value, kind):
            seen.add(id(value))
            found.append(value)
        elif isinstance(value, (list, tuple)):
            seen.add(id(value))
            for item in value:
                visit(item)
        elif isinstance(value, dict):
            seen.add(id(value))
            for item in value.values():
                visit(item)

    for value in values:
        visit(value)
    return found


def count_params(weights):
    """The number of scalars in ``weights``."""
    return int(sum(np.prod(v.shape.as_list(), dtype=np.int64) for v in weights))


def _unique(variables):
    out, seen = [], set()
    for v in variables:
        if id(v) not in seen:
            seen.add(id(v))
            out.append(v)
    return out
