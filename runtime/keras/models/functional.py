"""The functional API: ``rt.keras.Model(inputs, outputs)`` runs the layer calls that lead
from ``inputs`` (``rt.keras.Input`` KerasTensors) to ``outputs``.

>>> import numpy as np, runtime as rt
>>> rt.keras.backend.clear_session()
>>> inputs = rt.keras.Input(shape=(3,))
>>> hidden = rt.keras.layers.Dense(4, kernel_initializer="ones")(inputs)
>>> outputs = rt.keras.layers.Dense(1, kernel_initializer="ones")(hidden)
>>> model = rt.keras.Model(inputs, outputs, name="mlp")
>>> model(np.array([[1.0, 2.0, 3.0]])).numpy()      # 4 * (1 + 2 + 3)
array([[24.]], dtype=float32)
>>> [layer.name for layer in model.layers], model.output_shape
(['input_layer', 'dense', 'dense_1'], (None, 1))
"""

from __future__ import annotations

import functools
import inspect
import warnings

from runtime.core import dtypes, nest
from runtime.core.tensor_shape import TensorShape
from runtime.keras import keras_tensor
from runtime.keras.backend import set_keras_mask
from runtime.keras.keras_tensor import KerasTensor, inbound_nodes, node_of
from runtime.keras.layers.input_layer import InputLayer
from runtime.keras.layers.tensor_operation import TensorOperation
from runtime.keras.models import functional_config
from runtime.keras.models import model as model_module
from runtime.keras.models.functional_graph import (
    LayerGraph,
    from_inner_inputs,
    paths,
    reachable,
    run,
)
from runtime.keras.models.model import Model
from runtime.ops.array_ops import expand_dims, squeeze
from runtime.ops.constant_ops import cast


class Functional(Model):
    """A model defined by the graph of layer calls from ``inputs`` to ``outputs`` (each a
    KerasTensor, or a list, tuple or dict of them); called on the same structure of tensors
    (a dict by input names also serves), it returns the same structure as ``outputs``."""

    _saves_layers_first = True  # a .keras file's weights: its layers under layers/, as Keras
    _keras_internal_module = "keras.src.models.functional"  # where Keras's configs name it

    def __init__(self, inputs, outputs, name=None, trainable=None, **kwargs):
        _warn_on_misnamed_keys(inputs)
        _check_keras_tensors("inputs", inputs)
        _check_keras_tensors("outputs", outputs)
        super().__init__(name=name, **kwargs)
        if not all(node_of(x).is_input for x in nest.flatten(inputs)):
            inputs, outputs = from_inner_inputs(inputs, outputs)
        self._inputs_struct = _copied(inputs)
        self._outputs_struct = _copied(outputs)
        self.inputs, self.outputs = nest.flatten(inputs), nest.flatten(outputs)
        self._graph = LayerGraph(self.inputs, self.outputs)
        self._check_outputs_connected()
        self._operations = self._graph.operations  # attribute-tracked: weights, checkpoints
        if trainable is not None:
            self.trainable = trainable
        self.output_names = [x._keras_history.operation.name for x in self.outputs]
        if len(self.inputs) == 1:
            self._build_input_shape = TensorShape(self.inputs[0].shape)
        self.built = True

    @staticmethod
    def become_functional(model, *args, **kwargs):
        """Makes ``model``, of a Model subclass whose ``__init__`` gave inputs and outputs,
        a functional model of its class (Keras 3 lets a subclass do so)."""
        object.__setattr__(model, "__class__", _functional_subclass(type(model)))
        Functional.__init__(model, *args, **kwargs)

    @staticmethod
    def revive(cls, config, custom_objects=None):
        """The ``cls`` a functional config describes, or None when it is not one or ``cls``
        cannot be made from inputs and outputs."""
        if functional_config.is_functional_config(config) and _revives_as(cls):
            return functional_config.from_config(cls, config, custom_objects)
        return None

    def _check_outputs_connected(self):
        reached = reachable(self._graph, self.inputs)
        for path, output in zip(paths(self._outputs_struct), self.outputs):
            if id(output) not in reached:
                raise ValueError(f"Output with path `{path}` is not connected to `inputs`")

    # --- what the graph holds --------------------------------------------------------------

    @property
    def layers(self):
        """The layers (InputLayers included) in Keras' order; not the arithmetic on
        KerasTensors."""
        return [op for op in self._operations if not isinstance(op, TensorOperation)]

    @layers.setter
    def layers(self, _):
        raise AttributeError(
            "`Model.layers` attribute is reserved and should not be used. Please use another name."
        )

    @property
    def operations(self):
        return list(self._operations)

    @property
    def input(self):
        return self._inputs_struct

    @property
    def output(self):
        return self._outputs_struct

    @property
    def input_shape(self):
        return _unpack_singleton(nest.map_structure(lambda x: x.shape, self._inputs_struct))

    @property
    def output_shape(self):
        return _unpack_singleton(nest.map_structure(lambda x: x.shape, self._outputs_struct))

    # --- running ---------------------------------------------------------------------------

    def build(self, input_shape=None):
        self.built = True  # built when made

    def _maybe_build(self, input_shape):
        self.built = True

    def call(self, inputs, training=None, mask=None):
        flat = self._standardize_inputs(inputs)
        if mask is not None:  # the inputs' masks reach the layers through the inputs
            for x, input_mask in zip(flat, nest.flatten(mask)):
                if input_mask is not None:
                    set_keras_mask(x, input_mask)
        values = run(
            self._graph,
            {id(x): value for x, value in zip(self.inputs, flat)},
            lambda operation, args, kwargs: operation(*args, **kwargs),
        )
        outputs = [values[id(x)] for x in self.outputs]
        return _unpack_singleton(nest.pack_sequence_as(self._outputs_struct, outputs))

    def _standardize_inputs(self, inputs):
        """The given inputs as a flat list in the order of ``self.inputs``, each converted to
        its input's dtype and rank. A structure unlike the model's is warned about (Keras 3),
        or refused where it cannot be read (a dict without the inputs' names, a list for a
        dict whose keys are not in sorted order)."""
        self._check_input_specs(inputs)
        inputs, mismatch_is_error = self._restructured(inputs)
        struct = self._inputs_struct
        if isinstance(struct, dict) and isinstance(inputs, dict) and set(struct) < set(inputs):
            self._inputs_mismatch(inputs, raises=False)  # the other entries are left out
            inputs = {key: inputs[key] for key in struct}
        elif not _same_structure(inputs, struct):
            self._inputs_mismatch(inputs, raises=mismatch_is_error)
        flat = nest.flatten(inputs)
        return [self._conform(i, x) for i, x in enumerate(flat[: len(self.inputs)])]

    def _restructured(self, inputs):
        """``inputs`` in the model's structure where Keras reads them so (one tensor for a
        one-input list, a dict by the inputs' names), and whether a structure that still
        differs is an error."""
        struct = self._inputs_struct
        if isinstance(struct, list) and len(struct) == 1 and not nest.is_nested(inputs):
            return [inputs], False
        if isinstance(inputs, dict) and not isinstance(struct, dict):
            names = [x.name for x in nest.flatten(struct)]
            if not set(names) <= set(inputs):
                return inputs, True
            picked = [inputs[name] for name in names]
            return (picked if nest.is_nested(struct) else picked[0]), False
        if isinstance(struct, dict) and not isinstance(inputs, dict):
            return inputs, list(struct) != sorted(struct)  # flat order is the sorted keys'
        return inputs, False

    def _input_specs(self):
        """``(name, shape)`` expected of each input, as Keras' input_spec: named by the dict's
        keys, or by the input layers; None for deeper dicts (not checked)."""
        struct = self._inputs_struct
        if isinstance(struct, dict):
            if not all(isinstance(x, KerasTensor) for x in struct.values()):
                return None
            named = sorted(struct.items())
        else:
            named = [(x._keras_history.operation.name, x) for x in self.inputs]
        return [(name, (None, *x.shape[1:]) if x.shape else ()) for name, x in named]

    def _check_input_specs(self, inputs):
        specs = self._input_specs()
        if specs is None:
            return
        names = [name for name, _ in specs]
        if isinstance(inputs, dict):
            for name in names:
                if name not in inputs:
                    raise ValueError(
                        f'Missing data for input "{name}". You passed a data dictionary with '
                        f"keys {list(inputs)}. Expected the following keys: {names}"
                    )
            inputs = [inputs[name] for name in names]
        flat = nest.flatten(inputs)
        if len(flat) != len(specs):
            keys = ", ".join(f"'{name}': ..." for name in names)
            raise ValueError(
                f'Layer "{self.name}" expects {len(specs)} named input(s) with keys {names}, but '
                f"it received {len(flat)} input tensors. Pass inputs as a dict, e.g. "
                f"`layer({{{keys}}})`."
            )
        for index, (x, (name, expected)) in enumerate(zip(flat, specs)):
            shape = _shape_of(x) or ()
            found, wanted = shape, expected
            if found and found[-1] == 1:  # a trailing 1 may be squeezed or added
                found = found[:-1]
            if wanted and wanted[-1] == 1:
                wanted = wanted[:-1]
            if any(w is not None and f is not None and w != f for w, f in zip(wanted, found)):
                raise ValueError(
                    f"Input {index} with name '{name}' of layer '{self.name}' is incompatible "
                    f"with the layer: expected shape={expected}, found shape={shape}"
                )

    def _inputs_mismatch(self, inputs, raises):
        expected = nest.map_structure(lambda x: x.name, self._inputs_struct)
        received = nest.map_structure(lambda x: f"Tensor(shape={_shape_of(x)})", inputs)
        message = (
            "The structure of `inputs` doesn't match the expected structure.\n"
            f"Expected: {expected}\nReceived: inputs={received}"
        )
        if raises:
            raise ValueError(message)
        if not keras_tensor.tracing_symbolically():  # Keras warns on calls with values only
            warnings.warn(message, stacklevel=5)

    def _cast_inputs(self, inputs):
        # None stands for an optional input left out: each other value is cast as a layer does.
        if nest.is_nested(inputs) and any(x is None for x in nest.flatten(inputs)):
            cast_one = super()._cast_inputs
            return nest.map_structure(lambda x: None if x is None else cast_one(x), inputs)
        return super()._cast_inputs(inputs)

    def _conform(self, index, x):
        """``x`` in the dtype of the model's input ``index``, and of its rank: a trailing
        dimension of size 1 is dropped or added, as Keras does; other ranks are refused.
        None only for an optional input."""
        reference = self.inputs[index]
        if x is None:
            layer = reference._keras_history.operation
            if isinstance(layer, InputLayer) and not layer.optional:
                raise ValueError(
                    f"The input '{reference.name}' is not optional, but None was passed. "
                    "Please provide a valid tensor."
                )
            return None
        dtype = dtypes.as_dtype(reference.dtype)
        if x.dtype is not dtype:
            x = cast(x, dtype)
        rank, expected = x.shape.rank, len(reference.shape)
        if rank is None or rank == expected:
            return x
        if rank == expected + 1 and x.shape[-1] == 1:
            return squeeze(x, axis=-1)
        if rank == expected - 1 and reference.shape[-1] == 1:
            return expand_dims(x, axis=-1)
        raise ValueError(
            f"Invalid input shape for input {x} with name '{reference.name}' and path "
            f"'{paths(self._inputs_struct)[index]}'. Expected shape {reference.shape}, but "
            f"input has incompatible shape {_shape_of(x)}"
        )

    # --- configs ---------------------------------------------------------------------------

    def get_build_config(self):
        """``{"input_shape": None}``: its graph builds it, as Keras 3 writes for every
        functional model."""
        return {"input_shape": None}

    def get_config(self):
        """Keras 3's config of a functional model: its layers (each with the calls that made
        its nodes: ``inbound_nodes``), ``input_layers`` and ``output_layers``."""
        return functional_config.get_config(self)

    @classmethod
    def from_config(cls, config, custom_objects=None):
        """The model a ``get_config()`` describes, with new weights."""
        return functional_config.from_config(cls, config, custom_objects)

    def _summary_output_shapes(self):
        return [_layer_output_shape(self, layer) for layer in self.layers]

    def _summary_connections(self):
        """For each layer, the tensors its calls in this model took (``dense[0][0]``), when
        some layer takes several; None for a chain, printed without the column."""
        nodes = [n for n in self._graph.nodes if self._owns(n)]
        if all(len(n.input_tensors) <= 1 for n in nodes) and _is_chain(self._graph, nodes):
            return None
        return [
            [_connection(x) for node in self._nodes_of(layer) for x in node.input_tensors]
            for layer in self.layers
        ]

    def _owns(self, node):
        return (id(node.operation), inbound_nodes(node.operation).index(node)) in (
            self._graph.node_keys
        )

    def _nodes_of(self, layer):
        return [n for n in inbound_nodes(layer) if self._owns(n)]


def _revives_as(cls):
    """Whether a functional config makes a ``cls``: a Model, a functional model, or a subclass
    whose ``__init__`` takes ``(inputs, outputs, name)`` or ``*args, **kwargs`` (Keras' rule)."""
    if cls is Model or issubclass(cls, Functional):
        return True
    parameters = list(inspect.signature(cls.__init__).parameters.values())[1:]
    kinds = {p.kind for p in parameters}
    if {inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD} <= kinds:
        return True
    named = [p.name for p in parameters if p.kind is p.POSITIONAL_OR_KEYWORD]
    return named == ["inputs", "outputs", "name"]


@functools.cache
def _functional_subclass(cls):
    """``cls`` with a functional model's graph: its own methods first, then Functional's."""
    return type(
        cls.__name__,
        (cls, Functional),
        {"__qualname__": cls.__qualname__, "__module__": cls.__module__},
    )


def _is_chain(graph, nodes):
    """Whether each depth has one node, and no layer has two nodes: Keras' sequential-like."""
    depths = [graph.node_depths[n] for n in nodes]
    operations = [id(n.operation) for n in nodes]
    return len(set(depths)) == len(depths) and len(set(operations)) == len(operations)


def _connection(tensor):
    history = tensor._keras_history
    return f"{history.operation.name}[{history.node_index}][{history.tensor_index}]"


def _layer_output_shape(model, layer):
    if isinstance(layer, InputLayer):
        return str(layer.batch_shape)
    shapes = [
        nest.map_structure(lambda x: x.shape, node.outputs_structure)
        for node in model._nodes_of(layer)
    ]
    return str(shapes[0]) if all(s == shapes[0] for s in shapes) else "multiple"


def _check_keras_tensors(what, structure):
    for x in nest.flatten(structure):
        if not isinstance(x, KerasTensor):
            raise ValueError(
                f"All `{what}` values must be KerasTensors. Received: {what}={structure} "
                f"including invalid value {x} of type {type(x)}"
            )


def _warn_on_misnamed_keys(inputs):
    if isinstance(inputs, dict):
        for key, x in inputs.items():
            if isinstance(x, KerasTensor) and key != x.name:
                warnings.warn(
                    "When providing `inputs` as a dict, all keys in the dict must match the "
                    f"names of the corresponding tensors. Received key '{key}' mapping to value "
                    f"{x} which has name '{x.name}'. Change the tensor name to '{key}' (via "
                    f"`Input(..., name='{key}')`)",
                    stacklevel=3,
                )


def _same_structure(a, b):
    """Whether ``a`` and ``b`` nest alike, lists and tuples counted alike."""
    if isinstance(a, dict) or isinstance(b, dict):
        return (
            isinstance(a, dict)
            and isinstance(b, dict)
            and set(a) == set(b)
            and all(_same_structure(a[k], b[k]) for k in a)
        )
    if isinstance(a, (list, tuple)) or isinstance(b, (list, tuple)):
        return (
            isinstance(a, (list, tuple))
            and isinstance(b, (list, tuple))
            and len(a) == len(b)
            and all(map(_same_structure, a, b))
        )
    return True


def _shape_of(x):
    shape = getattr(x, "shape", None)
    if shape is None:
        return None
    return tuple(shape.as_list()) if hasattr(shape, "as_list") else tuple(shape)


def _copied(structure):
    """A copy of the lists, tuples and dicts of ``structure`` (dicts in their own order)."""
    if isinstance(structure, dict):
        return {key: _copied(value) for key, value in structure.items()}
    if isinstance(structure, (list, tuple)):
        return type(structure)(_copied(value) for value in structure)
    return structure


def _unpack_singleton(x):
    return x[0] if isinstance(x, (list, tuple)) and len(x) == 1 else x


model_module.FUNCTIONAL["class"] = Functional
