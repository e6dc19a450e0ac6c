"""Writing a module's functions and variables to a saved-model directory."""

from __future__ import annotations

import base64
import json
import os
import shutil
import tempfile

import numpy as np

from runtime.core import dtypes
from runtime.core.graph import Graph
from runtime.core.tensor_shape import TensorShape
from runtime.ops.random_ops import RandomState
from runtime.saving.format import (
    ARRAYS_FILE,
    DESCRIPTION_FILE,
    FORMAT,
    VERSION,
    SavedModelError,
    encode_structure,
    shape_json,
)
from runtime.state.variables import Variable


def save(obj, path, signatures=None):
    """Writes ``obj``'s functions and variables to the directory ``path``.

    Saved are the functions in ``signatures`` (a function traced with
    ``input_signature``, a concrete function, or a dict name -> function) and
    every ``ag.function`` attribute of ``obj`` that has an input_signature.
    The directory is written completely or not at all.
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
            attributes[name] = {"variable": writer.variable(value)}
        elif name in functions:
            attributes[name] = {"function": name}
    for variable in getattr(obj, "variables", ()):
        writer.variable(variable)
    description = {
        "format": FORMAT,
        "version": VERSION,
        "functions": described,
        "signatures": sorted(_signature_names(signatures)),
        "attributes": attributes,
        "variables": writer.variables,
    }
    _write(path, description, writer.arrays)


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
            functions[name] = _concrete(fn, name)
    for name, value in _attributes(obj):
        if hasattr(value, "get_concrete_function") and getattr(value, "input_signature", None):
            functions.setdefault(name, value.get_concrete_function())
    return functions


def _write(path, description, arrays):
    parent = os.path.dirname(os.path.abspath(path)) or "."
    os.makedirs(parent, exist_ok=True)
    staging = tempfile.mkdtemp(prefix=".saving_", dir=parent)
    try:
        with open(os.path.join(staging, DESCRIPTION_FILE), "w", encoding="utf-8") as f:
            json.dump(description, f, indent=1, allow_nan=True)
        np.savez(os.path.join(staging, ARRAYS_FILE), **arrays)
        if os.path.exists(path):
            shutil.rmtree(path)
        os.replace(staging, path)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise


class _Writer:
    """Turns graphs into JSON, collecting arrays and variables as it goes."""

    def __init__(self):
        self.arrays = {}
        self.variables = []
        self._variable_ids = {}

    def variable(self, variable):
        key = self._variable_ids.get(id(variable))
        if key is None:
            key = self._variable_ids[id(variable)] = f"v{len(self.variables)}"
            self.arrays[key] = np.asarray(variable._value)
            self.variables.append(
                {
                    "key": key,
                    "name": variable.name,
                    "dtype": variable.dtype.name,
                    "shape": list(np.shape(variable._value)),
                    "trainable": variable.trainable,
                }
            )
        return key

    def function(self, cf):
        graph = cf.graph
        n_args = len(graph.inputs) - len(getattr(graph, "captures", ()))
        return {
            "name": getattr(cf, "name", graph.graph_name),
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
        return {
            "name": op.name,
            "type": op.type,
            "inputs": [t.name for t in op.inputs],
            "control_inputs": [c.name for c in op.control_inputs],
            "attrs": {k: self.attr(v) for k, v in op.attrs.items()},
            "outputs": [{"dtype": t.dtype.name, "shape": shape_json(t.shape)} for t in op.outputs],
        }

    def attr(self, value):
        if isinstance(value, dtypes.DType):
            return {"dtype": value.name}
        if isinstance(value, TensorShape):
            return {"shape": shape_json(value)}
        if isinstance(value, Graph):
            return {"graph": self.graph(value)}
        if isinstance(value, Variable):
            return {"variable": self.variable(value)}
        if isinstance(value, RandomState):
            return {"random": value.seed}
        if isinstance(value, (np.ndarray, np.generic)):
            return self.array(np.asarray(value))
        if isinstance(value, bytes):
            return {"bytes": base64.b64encode(value).decode("ascii")}
        if isinstance(value, slice):
            return {"slice": [self.attr(value.start), self.attr(value.stop), self.attr(value.step)]}
        if value is Ellipsis:
            return {"ellipsis": True}
        if isinstance(value, (tuple, list)):
            return {"tuple" if isinstance(value, tuple) else "list": [self.attr(v) for v in value]}
        if value is None or isinstance(value, (bool, int, float, str)):
            return {"value": value}
        if hasattr(value, "write"):  # an output stream of rt.print: standard output once loaded
            return {"value": None}
        raise SavedModelError(f"Cannot save an attribute of type {type(value).__name__}")

    def array(self, arr):
        if arr.dtype == object:
            items = [base64.b64encode(b).decode("ascii") for b in arr.reshape(-1)]
            return {"strings": items, "shape": list(arr.shape)}
        key = f"c{len(self.arrays)}"
        self.arrays[key] = arr
        return {"array": key}
