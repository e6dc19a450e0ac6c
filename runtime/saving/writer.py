"""Writing a module's functions and variables to a saved-model directory."""

from __future__ import annotations

import hashlib

import numpy as np

from runtime.saving import files
from runtime.saving.arrays import ArraysWriter
from runtime.saving.attributes import encode_attr
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
from runtime.state.variables import Variable

# Names a loaded object uses itself: no saved attribute may take them.
RESERVED_ATTRIBUTES = frozenset({"signatures", "variables", "trainable_variables"})


def save(obj, path, signatures=None):
    """Writes ``obj``'s functions and variables to the directory ``path``.

    Saved are the functions in ``signatures`` (a function traced with
    ``input_signature``, a concrete function, or a dict name -> function) and
    every ``ag.function`` attribute of ``obj`` that has an input_signature,
    with the variables they use and those of ``obj``. Without ``signatures``,
    a single such attribute is also the ``serving_default`` signature, as in
    TensorFlow.

    Everything is checked before the directory is touched: a value that
    cannot be saved raises SavedModelError and changes nothing. The save then
    commits atomically (``runtime.saving.files``): ``path`` holds the previous
    model, complete, until the new one is complete. Files in ``path`` that are
    not the model's are kept.

    Raises:
        SavedModelError: nothing to save, a value that cannot be saved, or a
            directory that cannot be written.
    """
    offered = _offered_functions(obj)
    if signatures is None and offered is not None and "serving_default" in offered:
        signatures = {"serving_default": offered.pop("serving_default")}
    elif signatures is None and offered is None:
        signatures = _default_signature(obj)
    functions = _functions_to_save(obj, signatures, offered)
    if not functions:
        raise SavedModelError(
            "Nothing to save: give signatures=, or functions with an input_signature as attributes"
        )
    writer = _Writer()
    described = {name: writer.function(cf) for name, cf in functions.items()}
    attributes = {}
    for name, value in _attributes(obj):
        if isinstance(value, Variable) and name != "__call__":  # calls look at the class only
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
    text = describe(description)
    _check_loadable_size(text.encode(), path)  # before anything is touched
    files.save_files(path, arrays_name, arrays, text)


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


def _saveable_attributes(obj):
    for name, value in _attributes(obj):
        if (
            hasattr(value, "get_concrete_function")
            and getattr(value, "input_signature", None) is not None
        ):
            yield name, value


def _default_signature(obj):
    """TensorFlow's rule: with no ``signatures``, the one function that could serve does."""
    candidates = [value for _, value in _saveable_attributes(obj)]
    return candidates[0] if len(candidates) == 1 else None


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
        return _traced(fn, name)
    raise SavedModelError(f"Cannot save {name!r}: {fn!r} is not a traced function")


def _traced(fn, name):
    """``fn``'s concrete function; tracing it compiles its graph, which may fail."""
    try:
        return fn.get_concrete_function()
    except SyntaxError as e:  # only compiling makes Python source while tracing
        raise SavedModelError(
            f"Cannot save {name!r}: its graph does not compile to Python: {e}"
        ) from e


def _offered_functions(obj):
    """The functions an object chooses to save (name -> concrete function), or None for those
    found in its attributes. A Keras model offers its ``__call__`` and, unless other
    signatures are given, ``serving_default``, as TensorFlow saves one, and the functions
    its class defines, not the training steps it keeps."""
    offer = getattr(obj, "_saved_model_functions", None)
    return dict(offer()) if callable(offer) else None


def _functions_to_save(obj, signatures, offered):
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
    if offered is not None:
        for name, fn in offered.items():
            functions.setdefault(name, fn)
        return functions
    for name, value in _saveable_attributes(obj):
        functions.setdefault(name, _traced(value, name))
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
            "outputs": [{"dtype": t.dtype.name, "shape": shape_json(t.shape)} for t in op.outputs],
        }

    def attr(self, value):
        return encode_attr(value, self)

    def array(self, value):
        return self.arrays.add(value, what="a constant")
