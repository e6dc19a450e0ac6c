"""Writing an object, what it reaches, and its functions to a saved-model directory."""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Mapping

import numpy as np

from runtime.core import context
from runtime.core.graph import PLACEHOLDER
from runtime.core.tensor_spec import TensorSpec
from runtime.saving import files, input_names
from runtime.saving.arguments import encode_arguments
from runtime.saving.arrays import ArraysWriter
from runtime.saving.attributes import encode_attr
from runtime.saving.constants import encode_constant, flat_defaults
from runtime.saving.format import (
    FORMAT,
    MAX_DESCRIPTION_BYTES,
    MAX_DESCRIPTION_VALUES,
    VERSION,
    SavedModelError,
    checksum,
    describe,
    encode_structure,
    is_saveable_name,
    json_values_bound,
    shape_json,
)
from runtime.saving.loaded import SignatureMap
from runtime.saving.object_tree import (
    ObjectTree,
    offered_functions,
    traced,
    traced_arguments,
)
from runtime.saving.options import check_options
from runtime.state.variables import Variable, VariableAggregation, VariableSynchronization


def save(obj, path, signatures=None, options=None):
    """Writes ``obj`` and every object it reaches to the directory ``path``.

    Saved are the object graph from ``obj`` (``runtime.state.trackable``:
    modules, variables, lists, tuples and dicts of them, objects naming their
    own children), every ``ag.function`` attribute of those objects with all
    the concrete functions it has traced (one is traced for a function with an
    input_signature and none yet), and the functions in ``signatures`` (a
    function traced with ``input_signature``, a concrete function, or a dict
    name -> function). Without ``signatures``, the root's single function with
    an input_signature is also the ``serving_default`` signature, as in
    TensorFlow; a loaded object's own signatures are saved again.

    Everything is checked before the directory is touched: a value that
    cannot be saved raises SavedModelError and changes nothing. The save then
    commits atomically (``runtime.saving.files``): ``path`` holds the previous
    model, complete, until the new one is complete. Files in ``path`` that are
    not the model's are kept.

    Raises:
        SavedModelError: a value that cannot be saved, or a directory that
            cannot be written.
    """
    if context.building_graph() is not None:  # TensorFlow's AssertionError, in its words
        raise AssertionError(
            "rt.saved_model.save is not supported inside a traced @ag.function. Move the call "
            "to the outer eagerly-executed context."
        )
    check_options(options)
    _check_signatures_attribute(obj)
    writer = _Writer()
    tree = ObjectTree(writer)
    objects = tree.describe(obj)
    signatures = _signatures_to_save(obj, signatures, tree.root_functions)
    if not writer.functions and not writer.variables and offered_functions(obj) is not None:
        raise SavedModelError("Nothing to save: the model has no variables and no functions yet")
    signature_keys = []
    for name, fn in signatures.items():
        if not is_saveable_name(name):
            raise SavedModelError(f"Cannot save a signature named {name!r}: use printable text")
        concrete = _concrete(fn, name)
        _check_signature_outputs(concrete)
        signature_keys.append([name, writer.concrete(concrete, name)])
    _check_captures(writer, {key for _, key in signature_keys})
    arrays = writer.arrays.to_bytes()
    arrays_name = files.new_arrays_name()
    description = {
        "format": FORMAT,
        "version": VERSION,
        "functions": writer.functions,
        "objects": objects,
        "signatures": signature_keys,
        "variables": writer.variables,
        "arrays": {
            "file": arrays_name,
            "bytes": len(arrays),
            "sha256": hashlib.sha256(arrays).hexdigest(),
        },
    }
    description["checksum"] = checksum(description)
    text = describe(description)
    _check_loadable_size(text.encode(), path)  # before anything is touched
    files.save_files(path, arrays_name, arrays, text)
    _log_untraced(tree.untraced)


def _check_captures(writer, signature_keys):
    """Refuses functions that read variables the object graph does not reach (loading would
    give them a copy no one else holds): TensorFlow's AssertionError for a signature, its
    KeyError for another function."""
    for key, (function_name, variable) in writer.unreachable.items():
        if key in signature_keys:
            raise AssertionError(
                "Tried to export a function which references an 'untracked' resource. "
                "TensorFlow objects (e.g. tf.Variable) captured by functions must be 'tracked' "
                "by assigning them to an attribute of a tracked object or assigned to an "
                "attribute of the main object directly. See the information below:\n"
                f"\tFunction name = {function_name}\n"
                f"\tTrackable referencing this tensor = {variable!r}"
            )
    for key, (_, variable) in writer.unreachable.items():
        raise KeyError(
            f"Failed to add concrete function '{key}' to object-based SavedModel as it "
            f"captures tensor {variable!r} which is unsupported or not reachable from root. "
            "One reason could be that a stateful object or a variable that the function "
            "depends on is not assigned to an attribute of the serialized trackable object "
            "(see SaveTest.test_captures_unreachable_variable)."
        )


def _log_untraced(names):
    """TensorFlow's notice of functions saved without a concrete function to call."""
    if names:
        shown = ", ".join(names[:5])
        logging.getLogger("runtime.saved_model").info(
            f"Found untraced functions such as {shown} while saving (showing "
            f"{min(len(names), 5)} of {len(names)}). These functions will not be directly "
            "callable after loading."
        )


def _check_loadable_size(text, path):
    """Refuses a description that load would refuse for its size."""
    if len(text) > MAX_DESCRIPTION_BYTES:
        raise SavedModelError(
            f"Cannot save to {path}: the description would have {len(text)} bytes, "
            f"over the limit of {MAX_DESCRIPTION_BYTES} bytes that loading allows"
        )
    if json_values_bound(text) > MAX_DESCRIPTION_VALUES:
        raise SavedModelError(
            f"Cannot save to {path}: the description would hold over "
            f"{MAX_DESCRIPTION_VALUES} JSON values, the limit that loading allows"
        )


def _signatures_to_save(obj, signatures, root_functions):
    """``{name: function}``: those given, else TensorFlow's default (see ``save``)."""
    if signatures is None:
        offered = offered_functions(obj)
        if offered is not None:
            signatures = offered.get("serving_default")
        elif _loaded_signatures(obj) is not None:
            return dict(_loaded_signatures(obj))
        else:
            candidates = [fn for _, fn in root_functions if _could_serve(fn)]
            signatures = candidates[0] if len(candidates) == 1 else None
    if signatures is None:
        return {}
    if isinstance(signatures, Mapping):  # a dict, or a loaded object's signatures
        return dict(signatures)
    return {"serving_default": signatures}


def _could_serve(fn):
    """Whether ``fn`` could be the default signature: it has an input_signature and its graph
    returns something (TensorFlow: "functions without outputs don't make sense as
    signatures")."""
    if not _has_signature(fn):
        return False
    concretes = (
        fn._list_all_concrete_functions() if hasattr(fn, "_list_all_concrete_functions") else []
    )
    return not concretes or any(cf.graph.outputs for cf in concretes)


def _check_signatures_attribute(obj):
    """Refuses an attribute ``signatures`` that is not a loaded object's own: it would shadow
    the signatures of the loaded model (TensorFlow's rule and wording)."""
    own = getattr(obj, "__dict__", {}).get("signatures")
    if own is not None and not isinstance(own, SignatureMap):
        raise SavedModelError(
            f"Exporting an object {obj!r} which has an attribute named 'signatures'. This is a "
            "reserved attribute used to store SavedModel signatures in objects which come from "
            "`rt.saved_model.load`. Delete this attribute (e.g. `del obj.signatures`) before "
            "saving if this shadowing is acceptable."
        )


def _loaded_signatures(obj):
    """A loaded object's own signatures (``loaded.signatures``), saved again with it."""
    own = getattr(obj, "signatures", None)
    return own if isinstance(own, SignatureMap) else None


def _has_signature(fn):
    return getattr(fn, "input_signature", None) is not None and hasattr(fn, "get_concrete_function")


def _concrete(fn, name):
    fn = getattr(fn, "concrete_function", fn)  # a loaded signature: its concrete function
    if hasattr(fn, "structured_input_signature") and hasattr(fn, "graph"):
        return fn
    if hasattr(fn, "get_concrete_function"):
        if getattr(fn, "input_signature", None) is None:
            raise SavedModelError(
                f"Expected a TensorFlow function for which to generate a signature, but got "
                f"{fn!r} (signature {name!r}). Only `ag.function`s with an input signature "
                "(input_signature=...) or concrete functions (fn.get_concrete_function(...)) "
                "can be used as a signature."
            )
        return traced(fn, name)
    raise SavedModelError(f"Cannot save {name!r}: {fn!r} is not a traced function")


def _check_signature_outputs(cf):
    """A signature returns a tensor, a sequence of tensors or a dict of them by str keys, as
    TensorFlow requires (its ValueError, in its words)."""
    outputs = cf.graph.structured_outputs if hasattr(cf, "graph") else None
    if isinstance(outputs, dict):
        items = [(key, value) for key, value in outputs.items()]
    elif isinstance(outputs, (list, tuple)):
        items = [(f"output_{i}", value) for i, value in enumerate(outputs)]
    else:
        return
    for key, value in items:
        if isinstance(value, (list, tuple, dict)):
            raise SavedModelError(
                f"Got a non-Tensor value {value!r} for key {key!r} in the output of the function "
                f"{getattr(cf, 'name', cf)} used to generate the SavedModel signature. Outputs "
                "for functions used as signatures must be a single Tensor, a sequence of "
                "Tensors, or a dictionary from string to Tensor."
            )


class _Writer:
    """Turns graphs into JSON, collecting arrays and variables as it goes."""

    def __init__(self):
        self.arrays = ArraysWriter()
        self.variables = []
        self._variable_keys = {}
        self.functions = {}  # key -> a concrete function's description
        self._function_keys = {}  # id(concrete function) -> its key: each saved once
        self._concretes = []  # kept alive while their ids are keys
        self.reachable = None  # ids of the variables the object graph reaches, once walked
        self.unreachable = {}  # function key -> (its name, a variable it reads, not reached)
        self._writing = None  # the key of the function whose graph is being written
        self._arguments = set()  # ids of the variables that function takes as arguments

    def variable(self, variable):
        writing = self._writing is not None and self.reachable is not None
        if writing and id(variable) not in self.reachable | self._arguments:
            self.unreachable.setdefault(self._writing, (self._writing_name, variable))
        key = self._variable_keys.get(id(variable))
        if key is None:
            if not (is_saveable_name(variable.name) and variable.name.endswith(":0")):
                raise SavedModelError(
                    f"Cannot save the variable {variable.name!r}: its name must be printable text"
                )
            value = self.arrays.add(
                np.asarray(variable._value), variable.dtype, f"variable {variable.name!r}"
            )
            key = self._variable_keys[id(variable)] = f"v{len(self.variables)}"
            entry = {
                "key": key,
                "name": variable.name,
                "trainable": variable.trainable,
                "value": value,
            }
            entry.update(_distribution_modes(variable))
            self.variables.append(entry)
        return key

    def concrete(self, cf, key):
        """The key of concrete function ``cf`` in ``functions``, written under ``key`` (or
        ``key#1``, ``key#2``...) the first time."""
        if id(cf) in self._function_keys:
            return self._function_keys[id(cf)]
        key = key if is_saveable_name(key) else "function"
        unique, n = key, 0
        while unique in self.functions:
            n += 1
            unique = f"{key}#{n}"
        self.functions[unique] = self.function(cf, unique)
        self._function_keys[id(cf)] = unique
        self._concretes.append(cf)
        return unique

    def function(self, cf, key):
        graph = cf.graph
        n_args = len(graph.inputs) - len(getattr(graph, "captures", ()))
        name = getattr(cf, "name", graph.graph_name)
        name = name if is_saveable_name(name) else "function"
        arguments = [op_input.op.name for op_input in graph.inputs[:n_args]]
        inputs = encode_arguments(traced_arguments(cf), self, repr(name))
        if sum(_tensor_count(structure) for _, structure in inputs) != n_args:
            raise SavedModelError(
                f"Cannot save {name!r}: its arguments as traced do not give its {n_args} inputs"
            )
        self._writing, self._writing_name = key, name
        self._arguments = _variables_in(traced_arguments(cf))  # arguments, not captures
        try:
            written = self.graph(graph)
        finally:
            self._writing = None
        taken = {op["name"] for op in written["ops"]}
        renamed = input_names.renames(name, arguments, taken)
        if renamed:
            input_names.apply(written, renamed)
            arguments = [renamed.get(a, a) for a in arguments]
        entry = {
            "name": name,
            "graph": written,
            "arguments": arguments,
            "outputs": encode_structure(graph.structured_outputs, iter(range(len(graph.outputs)))),
            "inputs": inputs,
        }
        defaults = _defaults(cf, graph.inputs[:n_args], arguments)
        if defaults:
            entry["defaults"] = defaults
        return entry

    def graph(self, graph):
        return {
            "ops": [self.op(op) for op in graph.get_operations()],
            "inputs": [t.name for t in getattr(graph, "inputs", [])],
            "outputs": [t.name for t in getattr(graph, "outputs", [])],
        }

    def op(self, op):
        for value in list(op.attrs.values()):
            getattr(value, "before_saving", lambda op: None)(op)  # a custom gradient's trace
        declared = op.opdef.attrs
        for key, kind in declared.items():
            if key not in op.attrs or not kind.accepts(op.attrs[key]):
                raise SavedModelError(
                    f"Cannot save op {op.name!r} ({op.type}): its attribute {key!r} must be "
                    f"{kind.description}, found {type(op.attrs.get(key)).__name__}"
                )
            reason = getattr(op.attrs[key], "not_saved_because", None)  # rt.py_function's
            if reason is not None:
                where = f", made at {op.source}" if op.source else ""
                raise SavedModelError(f"Cannot save op {op.name!r} ({op.type}){where}: {reason}")
        return {
            "name": op.name,
            "type": op.type,
            "inputs": [t.name for t in op.inputs],
            "control_inputs": [c.name for c in op.control_inputs],
            "attrs": {key: self.attr(op.attrs[key]) for key in declared},
            "outputs": [
                {"dtype": dtype.name, "shape": shape_json(shape)} for dtype, shape in _specs(op)
            ],
        }

    def attr(self, value):
        return encode_attr(value, self)

    def array(self, value):
        return self.arrays.add(value, what="a constant")


def _defaults(cf, inputs, arguments):
    """``[[input index, constant]]``: the defaults of ``cf``'s tensor inputs (a loaded one's
    own, or those of the Python function's parameters)."""
    specs = [TensorSpec(t.shape, t.dtype, a) for t, a in zip(inputs, arguments)]
    loaded = getattr(cf, "defaults", None)
    if isinstance(loaded, dict):
        index = {spec.name: i for i, spec in enumerate(specs)}
        return [[index[k], encode_constant(v)] for k, v in loaded.items() if k in index]
    return flat_defaults(traced_arguments(cf), getattr(cf, "_signature", None), specs)


def _specs(op):
    """``[(dtype, shape)]`` of an op's outputs as saved: a placeholder's are those of its
    attributes (what loading infers), not a shape ``set_shape`` gave it while tracing."""
    if op.opdef is PLACEHOLDER:
        return PLACEHOLDER.infer([], op.attrs)
    return [(t.dtype, t.shape) for t in op.outputs]


def _variables_in(traced):
    """The ids of the variables among traced arguments (at any depth)."""
    found = set()
    stack = [value for _, value in traced]
    while stack:
        value = stack.pop()
        if isinstance(value, Variable):
            found.add(id(value))
        elif isinstance(value, (list, tuple)):
            stack.extend(value)
        elif isinstance(value, dict):
            stack.extend(value.values())
    return found


def _distribution_modes(variable):
    """A variable's synchronization and aggregation, by name, where not the defaults (AUTO,
    NONE): TensorFlow's save keeps them."""
    modes = {}
    synchronization = variable.synchronization
    if synchronization is not VariableSynchronization.AUTO:
        modes["synchronization"] = synchronization.name
    aggregation = variable.aggregation
    if aggregation is not VariableAggregation.NONE:
        modes["aggregation"] = aggregation.name
    return modes


def _tensor_count(structure):
    ((tag, content),) = structure.items()
    if tag == "tensor":
        return 1
    if tag in ("list", "tuple"):
        return sum(_tensor_count(item) for item in content)
    if tag == "dict":
        return sum(_tensor_count(item) for _, item in content)
    if tag == "namedtuple":
        return sum(_tensor_count(item) for _, item in content[1])
    return 0
