"""Writing a module's functions and variables to a saved-model directory."""

from __future__ import annotations

import hashlib

import numpy as np

from runtime.saving import files
from runtime.saving.arrays import ArraysWriter
from runtime.saving.attributes import encode_attr
from runtime.saving.format import (
    FORMAT,
    VERSION,
    SavedModelError,
    checksum,
    describe,
    encode_structure,
    is_saveable_name,
    shape_json,
)
from runtime.state.variables import Variable

# Names a loaded object uses itself: no saved attribute may take them.
RESERVED_ATTRIBUTES = frozenset({"signatures", "variables", "trainable_variables"})


def save(obj, path, signatures=None):
    """Writes ``obj``'s functions and variables to the directory ``path``.

    Saved are the functions in ``signatures`` (a function traced with
    ``input_signature``, a concrete function, or a dict name -> function) and
    every ``ag.function`` attribute of ``obj`` that has an input_signature,
    with the variables they use and those of ``obj``.

    Everything is checked before the directory is touched: a value that
    cannot be saved raises SavedModelError and changes nothing. The save then
    commits atomically (``runtime.saving.files``): ``path`` holds the previous
    model, complete, until the new one is complete. Files in ``path`` that are
    not the model's are kept.

    Raises:
        SavedModelError: nothing to save, a value that cannot be saved, or a
            directory that cannot be written.
    """
    functions = _functions_to_save(obj, signatures)
    if not functions:
        raise SavedModelError(
            "Nothing to save: give signatures=, or functions with an input_signature as attributes"
        )
    writer = _Writer()
    described = {name: writer.function(cf) for name, cf in functions.items()}
    attributes = {}
    for name, value in _attributes(obj):
        if isinstance(value, Variable):
            attributes[_attribute_name(name)] = {"variable": writer.variable(value)}
        elif name in functions:
            attributes[_attribute_name(name)] = {"function": name}
    for variable in getattr(obj, "variables", ()):
        writer.variable(variable)
    arrays = writer.arrays.to_bytes()
    arrays_name = files.new_arrays_name()
    description = {
        "format": FORMAT,
        "version": VERSION,
        "functions": described,
        "signatures": sorted(_signature_names(signatures)),
        "attributes": attributes,
        "variables": writer.variables,
        "arrays": {
            "file": arrays_name,
            "bytes": len(arrays),
            "sha256": hashlib.sha256(arrays).hexdigest(),
        },
    }
    description["checksum"] = checksum(description)
    files.save_files(path, arrays_name, arrays, describe(description))


def _attribute_name(name):
    if name in RESERVED_ATTRIBUTES:
        raise SavedModelError(
            f"Cannot save the attribute {name!r}: a loaded object uses that name itself"
        )
    return name


def _attributes(obj):
    names = set(vars(obj)) if hasattr(obj, "__dict__") else set()
    names |= {n for n in dir(type(obj)) if not n.startswith("_") or n == "__call__"}
    for name in sorted(n for n in names if not n.startswith("_") or n == "__call__"):
        try:
            yield name, getattr(obj, name)
        except Exception:  # a property that fails: not something to save
            continue


def _signature_names(signatures):
    if signatures is None:
        return []
    if isinstance(signatures, dict):
        return list(signatures)
    return ["serving_default"]


def _concrete(fn, name):
    if hasattr(fn, "structured_input_signature") and hasattr(fn, "graph"):
        return fn
    if hasattr(fn, "get_concrete_function"):
        if getattr(fn, "input_signature", None) is None:
            raise SavedModelError(
                f"Cannot save {name!r}: give the function an input_signature, or pass a concrete "
                "function (fn.get_concrete_function(...))"
            )
        return fn.get_concrete_function()
    raise SavedModelError(f"Cannot save {name!r}: {fn!r} is not a traced function")


def _functions_to_save(obj, signatures):
    functions = {}
    if signatures is not None:
        items = (
            signatures.items()
            if isinstance(signatures, dict)
            else [("serving_default", signatures)]
        )
        for name, fn in items:
            if not is_saveable_name(name):
                raise SavedModelError(f"Cannot save a signature named {name!r}: use printable text")
            functions[name] = _concrete(fn, name)
    for name, value in _attributes(obj):
        if hasattr(value, "get_concrete_function") and getattr(value, "input_signature", None):
            functions.setdefault(name, value.get_concrete_function())
    return functions


class _Writer:
    """Turns graphs into JSON, collecting arrays and variables as it goes."""

    def __init__(self):
        self.arrays = ArraysWriter()
        self.variables = []
        self._variable_keys = {}

    def variable(self, variable):
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
            self.variables.append(
                {"key": key, "name": variable.name, "trainable": variable.trainable, "value": value}
            )
        return key

    def function(self, cf):
        graph = cf.graph
        n_args = len(graph.inputs) - len(getattr(graph, "captures", ()))
        name = getattr(cf, "name", graph.graph_name)
        return {
            "name": name if is_saveable_name(name) else "function",
            "graph": self.graph(graph),
            "arguments": [op_input.op.name for op_input in graph.inputs[:n_args]],
            "outputs": encode_structure(graph.structured_outputs, iter(range(len(graph.outputs)))),
        }

    def graph(self, graph):
        return {
            "ops": [self.op(op) for op in graph.get_operations()],
            "inputs": [t.name for t in getattr(graph, "inputs", [])],
            "outputs": [t.name for t in getattr(graph, "outputs", [])],
        }

    def op(self, op):
        declared = op.opdef.attrs
        for key, kind in declared.items():
            if key not in op.attrs or not kind.accepts(op.attrs[key]):
                raise SavedModelError(
                    f"Cannot save op {op.name!r} ({op.type}): its attribute {key!r} must be "
                    f"{kind.description}, found {type(op.attrs.get(key)).__name__}"
                )
        return {
            "name": op.name,
            "type": op.type,
            "inputs": [t.name for t in op.inputs],
            "control_inputs": [c.name for c in op.control_inputs],
            "attrs": {key: self.attr(op.attrs[key]) for key in declared},
            "outputs": [{"dtype": t.dtype.name, "shape": shape_json(t.shape)} for t in op.outputs],
        }

    def attr(self, value):
        return encode_attr(value, self)

    def array(self, value):
        return self.arrays.add(value, what="a constant")
