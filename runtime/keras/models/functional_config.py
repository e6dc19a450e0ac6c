"""A functional model's config in Keras 3's format, and the model made back from one.

``{"name", "trainable", "layers": [entry, ...], "input_layers", "output_layers"}``: each
layer entry is the layer's own serialization (``module``, ``class_name``, ``config``,
``registered_name``, ``build_config``) with its ``name`` and ``inbound_nodes``: for each of
its calls in the model, the call's ``args`` and ``kwargs`` with every KerasTensor written as
``{"class_name": "__keras_tensor__", "config": {"shape", "dtype", "keras_history": [layer
name, node index, tensor index]}}``. ``input_layers``/``output_layers`` have the structure
of the model's inputs/outputs, each tensor a ``[layer name, node index, tensor index]``.

Classes are looked up by name among ``rt.keras.layers``, the models and ``custom_objects``
only: a module named in a config is never imported.

>>> import runtime as rt
>>> rt.keras.backend.clear_session()
>>> a, b = rt.keras.Input(shape=(2,), name="a"), rt.keras.Input(shape=(2,), name="b")
>>> model = rt.keras.Model([a, b], rt.keras.layers.Add()([a, b]))
>>> config = model.get_config()
>>> config["input_layers"], config["output_layers"]
([['a', 0, 0], ['b', 0, 0]], ['add', 0, 0])
>>> config["layers"][2]["inbound_nodes"][0]["args"][0][1]["config"]["keras_history"]
['b', 0, 0]
>>> rt.keras.Model.from_config(config).output_shape
(None, 2)
"""

from __future__ import annotations

from runtime.core import nest
from runtime.keras import layers
from runtime.keras.keras_tensor import KerasTensor, inbound_nodes
from runtime.keras.layers.base import Layer
from runtime.keras.layers.tensor_operation import KERAS_OPS_MODULE, OPERATIONS, TensorOperation
from runtime.keras.models.model import Model
from runtime.keras.models.sequential import Sequential

_FUNCTIONAL_KEYS = ("layers", "input_layers", "output_layers")


class _NotYetMade(Exception):
    """A node's input comes from a layer call not yet remade: try again later."""


# --- one layer ----------------------------------------------------------------------------------


def serialize_layer(layer):
    """``{"module", "class_name", "config", "registered_name"}`` (and ``build_config`` once
    built), as Keras 3's ``serialize_keras_object`` writes a layer."""
    get_config = getattr(layer, "get_config", None)
    if get_config is None:
        raise NotImplementedError(
            f"Layer {layer.name!r} of type {type(layer).__name__} has no get_config(): it "
            "cannot be serialized. Define get_config() returning its constructor arguments."
        )
    module, class_name, registered_name = _public_name(layer)
    entry = {
        "module": module,
        "class_name": class_name,
        "config": get_config(),
        "registered_name": registered_name,
    }
    shape = getattr(layer, "_build_input_shape", None)
    if layer.built and shape is not None and type(layer).__name__ != "InputLayer":
        entry["build_config"] = {"input_shape": _plain_shape(shape)}
    return entry


def deserialize_layer(config, custom_objects=None):
    """The layer a ``serialize_layer`` entry describes (built, when it says how)."""
    inner = dict(config.get("config") or {})
    if config.get("module") == KERAS_OPS_MODULE and config.get("class_name") in OPERATIONS:
        return TensorOperation(config["class_name"], **inner)  # x + y..., round(x, 2)
    cls = _find_class(config, custom_objects or {})
    if is_functional_config(inner):  # a functional model inside: its layers need them too
        layer = cls.from_config(inner, custom_objects)
    elif hasattr(cls, "from_config"):
        layer = cls.from_config(inner)
    else:
        layer = cls(**inner)
    shape = (config.get("build_config") or {}).get("input_shape")
    if shape is not None and not layer.built:
        layer.build(shape)
    return layer


def _public_name(layer):
    """``(module, class name, registered name)`` as Keras 3 writes them: ``keras.layers`` for
    its layers, its op's module and class for arithmetic, the class's own module (and its
    name as the registered name) for the others."""
    cls = type(layer)
    own = cls.__module__
    if isinstance(layer, TensorOperation):
        return KERAS_OPS_MODULE, layer.kind, layer.kind
    if own.startswith("runtime.keras.layers."):
        return "keras.layers", cls.__name__, None
    if cls.__name__ == "Functional" and own.startswith("runtime.keras.models."):
        return "keras.src.models.functional", "Functional", "Functional"
    if own.startswith("runtime.keras.models."):
        return "keras", cls.__name__, None
    return own, cls.__name__, cls.__name__


def _find_class(config, custom_objects):
    class_name = config.get("class_name")
    for key in (config.get("registered_name"), class_name):
        if key in custom_objects:
            return custom_objects[key]
    models = {"Model": Model, "Functional": Model, "Sequential": Sequential}
    found = models.get(class_name, getattr(layers, str(class_name), None))
    if isinstance(found, type) and issubclass(found, Layer):
        return found
    raise TypeError(
        f"Could not locate class '{class_name}'. Make sure custom classes and functions are "
        "decorated with `@keras.saving.register_keras_serializable()`. If they are already "
        "decorated, make sure they are all imported so that the decorator is run before "
        f"trying to load them. Full object config: {config}"
    )


def _plain_shape(shape):
    if hasattr(shape, "as_list"):
        return tuple(shape.as_list()) if shape.rank is not None else None
    if isinstance(shape, (list, tuple)) and all(d is None or isinstance(d, int) for d in shape):
        return tuple(shape)
    return [_plain_shape(s) for s in shape]  # several inputs' shapes


def is_functional_config(config):
    return all(key in config for key in _FUNCTIONAL_KEYS)


# --- a model ------------------------------------------------------------------------------------


def get_config(model):
    owned = model._graph.node_keys
    entries = []
    for operation in model.operations:
        entry = serialize_layer(operation)
        entry["name"] = operation.name
        entry["inbound_nodes"] = [
            _serialize_node(node, owned)
            for node in inbound_nodes(operation)
            if not node.is_input and (id(operation), inbound_nodes(operation).index(node)) in owned
        ]
        entries.append(entry)

    def reference(tensor):
        operation, node_index, tensor_index = tensor._keras_history
        index = _kept_index(operation, node_index, owned) + _premade_nodes(operation)
        return [operation.name, index, tensor_index]

    return {
        "name": model.name,
        "trainable": model.trainable,
        "layers": entries,
        "input_layers": nest.map_structure(reference, model._inputs_struct),
        "output_layers": nest.map_structure(reference, model._outputs_struct),
    }


def _kept_index(operation, node_index, owned):
    """A node's index among its layer's nodes that belong to the model."""
    return sum(1 for i in range(node_index) if (id(operation), i) in owned)


def _premade_nodes(operation):
    # Keras 3 counts one node a functional model is made with, before any call of it.
    return 1 if type(operation).__name__ == "Functional" else 0


def _serialize_node(node, owned):
    def one(x):
        if not isinstance(x, KerasTensor):
            return x
        operation, node_index, tensor_index = x._keras_history
        history = [operation.name, _kept_index(operation, node_index, owned), tensor_index]
        config = {"shape": x.shape, "dtype": x.dtype, "keras_history": history}
        return {"class_name": "__keras_tensor__", "config": config}

    return {
        "args": nest.map_structure(one, node.args),
        "kwargs": nest.map_structure(one, node.kwargs),
    }


def from_config(cls, config, custom_objects=None):
    """``cls(inputs, outputs, name=, trainable=)`` remade from a functional config: each
    layer made from its entry, then called as its inbound nodes say, in an order where every
    call's inputs exist (shared layers may need several rounds)."""
    config = dict(config)
    made, pending = {}, {}
    for entry in config["layers"]:
        made[entry["name"]] = deserialize_layer(entry, custom_objects)
        if entry.get("inbound_nodes"):
            pending[entry["name"]] = list(entry["inbound_nodes"])
    while pending:
        progressed = False
        for name in list(pending):
            queue = pending[name]
            while queue:
                try:
                    args, kwargs = _deserialize_node(queue[0], made)
                except _NotYetMade:
                    break
                made[name](*args, **kwargs)
                queue.pop(0)
                progressed = True
            if not queue:
                del pending[name]
        if not progressed:
            raise ValueError(
                "Invalid Functional model configuration. The graph of the Functional model "
                "either has loops or disconnected nodes. The following nodes failed to be "
                f"resolved: {pending}"
            )

    def tensor(reference):
        name, node_index, tensor_index = reference
        if name not in made:
            raise ValueError(f"Unknown layer: {name}")
        layer = made[name]
        return inbound_nodes(layer)[node_index - _premade_nodes(layer)].outputs[tensor_index]

    inputs = _map_references(tensor, config.pop("input_layers"))
    outputs = _map_references(tensor, config.pop("output_layers"))
    config.pop("layers")
    return cls(inputs=inputs, outputs=outputs, **config)


def _map_references(fn, references):
    if isinstance(references, list) and len(references) == 3 and isinstance(references[0], str):
        return fn(references)
    if isinstance(references, dict):
        return {key: _map_references(fn, value) for key, value in references.items()}
    if isinstance(references, tuple):
        return tuple(_map_references(fn, value) for value in references)
    return [_map_references(fn, value) for value in references]


def _deserialize_node(node_data, made):
    """``(args, kwargs)`` of a layer call, its tensors taken from the calls already remade."""
    if isinstance(node_data, list):  # Keras 2's form: [[layer name, node, tensor, kwargs]...]
        return _deserialize_legacy_node(node_data, made)

    def one(x):
        if isinstance(x, dict) and x.get("class_name") == "__keras_tensor__":
            name, node_index, tensor_index = x["config"]["keras_history"]
            if name not in made:
                raise ValueError(f"Unknown layer: {name}")
            return _output_of(made[name], node_index, tensor_index)
        return x

    args = _map_values(one, node_data.get("args", ()))
    kwargs = _map_values(one, node_data.get("kwargs", {}))
    return list(args), dict(kwargs)


def _map_values(fn, value):
    """``fn`` over a config's values, a tensor's config dict counted as one value."""
    if isinstance(value, dict) and value.get("class_name") != "__keras_tensor__":
        return {key: _map_values(fn, v) for key, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_map_values(fn, v) for v in value)
    return fn(value)


def _deserialize_legacy_node(node_data, made):
    tensors, kwargs = [], {}
    for item in node_data:
        if len(item) not in (3, 4):
            raise ValueError("Cannot deserialize the model (invalid config data?)")
        name, node_index, tensor_index = item[:3]
        kwargs = item[3] if len(item) == 4 else {}
        if name not in made:
            raise ValueError(f"Invalid Functional model configuration. Missing node: {name}")
        tensors.append(_output_of(made[name], node_index, tensor_index))
    return [tensors[0] if len(tensors) == 1 else tensors], kwargs


def _output_of(layer, node_index, tensor_index):
    nodes = inbound_nodes(layer)
    if len(nodes) <= node_index:
        raise _NotYetMade
    return nodes[node_index].outputs[tensor_index]
