"""Saving objects' functions and variables to a directory, and loading them without their code.

The format is the project's own: ``saved_model.json`` (versioned) describes
every saved function's graph (ops, attributes, the sub-graphs of cond and
while ops, input and output signatures) and names its variables;
``arrays.npz`` holds the variables' values and numeric constants. Loading
parses JSON and reads ``.npz`` with ``allow_pickle=False``: nothing in a saved
directory is executed or unpickled, and any damage raises ``SavedModelError``.

>>> import tempfile, runtime as rt, autograph as ag
>>> class Counter(rt.Module):
...     def __init__(self):
...         super().__init__()
...         with self.name_scope:
...             self.total = rt.Variable(1.0)
...     @ag.function(input_signature=[rt.TensorSpec([], rt.float32)])
...     def add(self, a):
...         self.total.assign_add(a)
...         return self.total
>>> path = tempfile.mkdtemp()
>>> counter = Counter()
>>> _ = counter.add(rt.constant(5.0))
>>> rt.saved_model.save(counter, path, signatures={"serving_default": counter.add})
>>> loaded = rt.saved_model.load(path)
>>> loaded.add(rt.constant(10.0))
<rt.Tensor: shape=(), dtype=float32, numpy=16.0>
>>> loaded.total
<rt.Variable 'counter/Variable:0' shape=() dtype=float32, numpy=16.0>
"""

from __future__ import annotations

import base64
import json
import math
import os
import shutil
import tempfile

import numpy as np

from runtime import dtypes, nest
from runtime.compile import compile_function
from runtime.graph import FuncGraph, Graph, Operation
from runtime.ops.random_ops import RandomState
from runtime.ops.registry import OPS
from runtime.tensor import EagerTensor, Tensor
from runtime.tensor_shape import TensorShape
from runtime.tensor_spec import TensorSpec
from runtime.variables import Variable

FORMAT = "autograph-saved-model"
VERSION = 1
_DESCRIPTION = "saved_model.json"
_ARRAYS = "arrays.npz"
_MAX_ELEMENTS = 1 << 28  # a constant or variable claiming more than this is damage, not data


class SavedModelError(ValueError):
    """A saved directory that cannot be written, or that is damaged, truncated or foreign."""


# --- saving ---------------------------------------------------------------------------------


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
        with open(os.path.join(staging, _DESCRIPTION), "w", encoding="utf-8") as f:
            json.dump(description, f, indent=1, allow_nan=True)
        np.savez(os.path.join(staging, _ARRAYS), **arrays)
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
            "outputs": _encode_structure(graph.structured_outputs, iter(range(len(graph.outputs)))),
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
            "outputs": [{"dtype": t.dtype.name, "shape": _shape_json(t.shape)} for t in op.outputs],
        }

    def attr(self, value):
        if isinstance(value, dtypes.DType):
            return {"dtype": value.name}
        if isinstance(value, TensorShape):
            return {"shape": _shape_json(value)}
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


def _shape_json(shape):
    return None if shape.rank is None else shape.as_list()


def _encode_structure(value, indices):
    if value is None or isinstance(value, Operation):
        return None
    if isinstance(value, (list, tuple)):
        return {
            "tuple" if isinstance(value, tuple) else "list": [
                _encode_structure(v, indices) for v in value
            ]
        }
    if isinstance(value, dict):
        return {
            "dict": [
                [str(k), _encode_structure(value[k], indices)] for k in sorted(value, key=repr)
            ]
        }
    return {"output": next(indices)}


# --- loading --------------------------------------------------------------------------------


def load(path):
    """The object saved in ``path``: its functions callable, its variables live.

    Nothing in the directory is executed or unpickled. A missing, damaged,
    truncated or foreign directory raises SavedModelError.
    """
    try:
        return _Reader(path).load()
    except SavedModelError:
        raise
    except (
        ValueError,
        TypeError,
        KeyError,
        IndexError,
        AttributeError,
        OverflowError,
        MemoryError,
        OSError,
        UnicodeDecodeError,
        RecursionError,
        EOFError,
    ) as e:
        raise SavedModelError(
            f"{path} is not a readable saved model: {type(e).__name__}: {e}"
        ) from e


def show(path):
    """A description of what ``path`` holds: signatures, functions, inputs, outputs, variables."""
    try:
        description = _Reader(path).description()
    except SavedModelError:
        raise
    except Exception as e:
        raise SavedModelError(f"{path} is not a readable saved model: {e}") from e
    lines = [
        f"saved model {path} (format {description['format']} version {description['version']})"
    ]
    for name, fn in sorted(description["functions"].items()):
        kind = "signature" if name in description["signatures"] else "function"
        lines.append(f"{kind} {name!r}:")
        lines.append("  inputs:")
        inputs = {op["name"]: op for op in fn["graph"]["ops"] if op["type"] == "Placeholder"}
        for arg in fn["arguments"]:
            spec = inputs[arg]["outputs"][0]
            lines.append(f"    {arg}: {spec['dtype']} shape {_shape_text(spec['shape'])}")
        lines.append("  outputs:")
        outputs = _output_specs(fn["graph"])
        for i, spec in enumerate(outputs):
            lines.append(f"    output_{i}: {spec['dtype']} shape {_shape_text(spec['shape'])}")
    lines.append("variables:")
    for v in description["variables"]:
        lines.append(
            f"  {v['name']}: {v['dtype']} shape {_shape_text(v['shape'])}"
            + ("" if v["trainable"] else " (not trainable)")
        )
    return "\n".join(lines)


def _output_specs(graph):
    producers = {}
    for op in graph["ops"]:
        for i, spec in enumerate(op["outputs"]):
            producers[f"{op['name']}:{i}"] = spec
    return [producers[name] for name in graph["outputs"]]


def _shape_text(shape):
    if shape is None:
        return "unknown"
    return (
        "("
        + ", ".join("None" if d is None else str(d) for d in shape)
        + ("," if len(shape) == 1 else "")
        + ")"
    )


class _Reader:
    def __init__(self, path):
        self.path = path
        if not os.path.isdir(path):
            raise SavedModelError(f"{path} is not a directory holding a saved model")
        for name in (_DESCRIPTION, _ARRAYS):
            if not os.path.isfile(os.path.join(path, name)):
                raise SavedModelError(
                    f"{path} is not a saved model of this project: {name} is missing"
                )

    def description(self):
        try:
            with open(os.path.join(self.path, _DESCRIPTION), encoding="utf-8") as f:
                description = json.load(f)
        except (json.JSONDecodeError, UnicodeDecodeError) as e:
            raise SavedModelError(f"{self.path}/{_DESCRIPTION} is damaged: {e}") from None
        _expect(isinstance(description, dict), "the description is not a JSON object")
        _expect(description.get("format") == FORMAT, f"this is not a {FORMAT} directory")
        _expect(
            description.get("version") == VERSION,
            f"format version {description.get('version')!r} is not supported (this is {VERSION})",
        )
        for key, kind in (
            ("functions", dict),
            ("signatures", list),
            ("attributes", dict),
            ("variables", list),
        ):
            _expect(
                isinstance(description.get(key), kind), f"'{key}' is missing or of the wrong type"
            )
        return description

    def load(self):
        description = self.description()
        with np.load(os.path.join(self.path, _ARRAYS), allow_pickle=False) as archive:
            self.arrays = {key: archive[key] for key in archive.files}
        self.variables = {v["key"]: self._variable(v) for v in description["variables"]}
        functions = {
            name: self._function(name, fn) for name, fn in description["functions"].items()
        }
        loaded = LoadedObject()
        for name, entry in description["attributes"].items():
            _expect(isinstance(entry, dict), f"attribute {name!r} is damaged")
            if "variable" in entry:
                setattr(loaded, name, self._lookup(self.variables, entry["variable"], "variable"))
            elif "function" in entry:
                setattr(loaded, name, self._lookup(functions, entry["function"], "function"))
        for name in description["signatures"]:
            loaded.signatures[name] = self._lookup(functions, name, "signature")
        loaded.variables = tuple(self.variables.values())
        loaded.trainable_variables = tuple(v for v in loaded.variables if v.trainable)
        return loaded

    def _lookup(self, table, key, what):
        _expect(isinstance(key, str) and key in table, f"{what} {key!r} is not in the saved model")
        return table[key]

    def _variable(self, entry):
        _expect(isinstance(entry, dict), "a variable entry is damaged")
        key = entry.get("key")
        value = self._lookup(self.arrays, key, "array")
        dtype = _dtype(entry.get("dtype"))
        shape = _shape(entry.get("shape"))
        _expect(
            TensorShape(value.shape) == shape and value.dtype == dtype.as_numpy_dtype,
            f"variable {entry.get('name')!r}: its array does not have the shape and dtype described",
        )
        name = entry.get("name")
        _expect(isinstance(name, str) and name.endswith(":0"), "a variable name is damaged")
        variable = Variable(value.copy(), dtype=dtype, trainable=bool(entry.get("trainable", True)))
        variable.name = name
        variable._base_name = name[:-2]
        return variable

    def _function(self, name, entry):
        _expect(isinstance(entry, dict), f"function {name!r} is damaged")
        graph = self._graph(entry.get("graph"), entry.get("name", name))
        arguments = entry.get("arguments")
        _expect(
            isinstance(arguments, list) and len(arguments) == len(graph.inputs),
            f"function {name!r}: its arguments do not match its graph",
        )
        structure = _decode_structure(entry.get("outputs"), len(graph.outputs))
        graph.structured_outputs = structure
        return LoadedFunction(name, graph, [str(a) for a in arguments])

    def _graph(self, data, name, depth=0):
        _expect(depth < 64, "sub-graphs are nested too deeply")
        _expect(
            isinstance(data, dict) and isinstance(data.get("ops"), list),
            f"graph {name!r} is damaged",
        )
        graph = FuncGraph(str(name))
        tensors = {}
        ops = {}
        for op_data in data["ops"]:
            op = self._op(graph, op_data, tensors, ops, depth)
            ops[op.name] = op
            for t in op.outputs:
                tensors[t.name] = t
        graph.inputs = [self._lookup(tensors, t, "tensor") for t in data.get("inputs", [])]
        graph.outputs = [self._lookup(tensors, t, "tensor") for t in data.get("outputs", [])]
        for t in graph.inputs:
            _expect(t.op.type == "Placeholder", f"graph {name!r}: an input is not a placeholder")
        return graph

    def _op(self, graph, data, tensors, ops, depth):
        _expect(isinstance(data, dict), "an op is damaged")
        op_type = data.get("type")
        _expect(isinstance(op_type, str) and op_type in OPS, f"unknown op type {op_type!r}")
        opdef = OPS[op_type]
        name = data.get("name")
        _expect(isinstance(name, str) and name, "an op has no name")
        inputs = [self._lookup(tensors, t, "tensor") for t in _list(data.get("inputs"))]
        attrs = {str(k): self._attr(v, depth) for k, v in _dict(data.get("attrs")).items()}
        specs = [
            (_dtype(s.get("dtype")), _shape(s.get("shape")))
            for s in _list(data.get("outputs"))
            if isinstance(s, dict)
        ]
        if op_type not in ("If", "While"):
            inferred = opdef.infer(inputs, attrs)  # the graph must make sense, not just parse
            _expect(
                len(inferred) == len(specs)
                and all(
                    d is sd and TensorShape(s).is_compatible_with(ss)
                    for (d, s), (sd, ss) in zip(inferred, specs)
                ),
                f"op {name!r} ({op_type}): its outputs do not match its inputs",
            )
        controls = [self._lookup(ops, c, "op") for c in _list(data.get("control_inputs"))]
        saved = graph._control_stack
        graph._control_stack = [controls]
        try:
            op = graph.create_op(opdef, inputs, attrs, name, specs)
        finally:
            graph._control_stack = saved
        _expect(op.name == name, f"op name {name!r} is used twice")
        return op

    def _attr(self, value, depth):
        _expect(isinstance(value, dict) and len(value) in (1, 2), "an attribute is damaged")
        (tag, content), *rest = value.items()
        if tag == "value":
            _expect(content is None or isinstance(content, (bool, int, float, str)), "bad value")
            return content
        if tag == "dtype":
            return _dtype(content)
        if tag == "shape":
            return _shape(content)
        if tag == "graph":
            return self._graph(content, "sub-graph", depth + 1)
        if tag == "variable":
            return self._lookup(self.variables, content, "variable")
        if tag == "random":
            _expect(content is None or isinstance(content, int), "bad random seed")
            return RandomState(content)
        if tag == "array":
            arr = self._lookup(self.arrays, content, "array")
            _expect(arr.dtype != object, "an array holds objects")
            return arr[()] if arr.ndim == 0 else arr
        if tag == "strings":
            shape = _shape(dict(value).get("shape"))
            _expect(
                shape.is_fully_defined() and shape.num_elements() == len(_list(content)),
                "string constant: its data does not match its shape",
            )
            items = [base64.b64decode(s, validate=True) for s in content]
            arr = np.empty(len(items), dtype=object)
            arr[:] = items
            return arr.reshape(shape.as_list())
        if tag == "bytes":
            return base64.b64decode(content, validate=True)
        if tag == "slice":
            parts = [self._attr(v, depth) for v in _list(content)]
            _expect(len(parts) == 3, "bad slice")
            return slice(*parts)
        if tag == "ellipsis":
            return Ellipsis
        if tag in ("tuple", "list"):
            items = [self._attr(v, depth) for v in _list(content)]
            return tuple(items) if tag == "tuple" else items
        raise SavedModelError(f"unknown attribute kind {tag!r}")


def _expect(condition, message):
    if not condition:
        raise SavedModelError(f"saved model is damaged: {message}")


def _list(value):
    _expect(isinstance(value, list), f"expected a list, found {type(value).__name__}")
    return value


def _dict(value):
    _expect(isinstance(value, dict), f"expected an object, found {type(value).__name__}")
    return value


def _dtype(name):
    _expect(isinstance(name, str), "a dtype is damaged")
    try:
        return dtypes.as_dtype(name)
    except TypeError:
        raise SavedModelError(f"saved model is damaged: unknown dtype {name!r}") from None


def _shape(dims):
    if dims is None:
        return TensorShape(None)
    _expect(
        isinstance(dims, list)
        and all(
            d is None or (isinstance(d, int) and not isinstance(d, bool) and d >= 0) for d in dims
        ),
        "a shape is damaged",
    )
    known = [d for d in dims if d is not None]
    _expect(math.prod(known) <= _MAX_ELEMENTS if known else True, "a shape is implausibly large")
    return TensorShape(dims)


def _decode_structure(data, n_outputs):
    seen = []

    def decode(node):
        if node is None:
            return None
        _expect(isinstance(node, dict) and len(node) == 1, "the output structure is damaged")
        ((tag, content),) = node.items()
        if tag == "output":
            _expect(isinstance(content, int) and 0 <= content < n_outputs, "bad output index")
            seen.append(content)
            return content
        if tag in ("tuple", "list"):
            items = [decode(v) for v in _list(content)]
            return tuple(items) if tag == "tuple" else items
        if tag == "dict":
            return {str(k): decode(v) for k, v in _list(content)}
        raise SavedModelError(f"saved model is damaged: unknown structure kind {tag!r}")

    structure = decode(data)
    _expect(
        sorted(seen) == list(range(n_outputs)), "the output structure does not cover the outputs"
    )
    return structure


class LoadedObject:
    """What ``load`` returns: saved functions and variables as attributes, and ``signatures``.

    Calling it calls the saved ``__call__``, when the saved object had one.
    """

    def __init__(self):
        self.signatures = {}
        self.variables = ()
        self.trainable_variables = ()

    def __call__(self, *args, **kwargs):
        call = self.__dict__.get("__call__")
        if call is None:
            raise TypeError("The saved object had no __call__ function with an input_signature")
        return call(*args, **kwargs)


class LoadedFunction:
    """A saved function, rebuilt from its graph: called with tensors, checked against its inputs."""

    def __init__(self, name, graph, arguments):
        self.name = name
        self.graph = graph
        self.arguments = arguments
        self.input_signature = tuple(
            TensorSpec(t.shape, t.dtype, a) for t, a in zip(graph.inputs, arguments)
        )
        self._program = compile_function(graph)

    def __call__(self, *args, **kwargs):
        if len(args) > len(self.arguments):
            raise TypeError(f"{self.name} takes {len(self.arguments)} arguments, got {len(args)}")
        values = dict(zip(self.arguments, args))
        for key, value in kwargs.items():
            if key not in self.arguments or key in values:
                raise TypeError(f"{self.name}: unexpected or repeated argument {key!r}")
            values[key] = value
        missing = [a for a in self.arguments if a not in values]
        if missing:
            raise TypeError(f"{self.name}: missing argument {missing[0]!r}")
        flat = [
            self._check(a, spec, values[a]) for a, spec in zip(self.arguments, self.input_signature)
        ]
        results = self._program(*flat)
        tensors = [EagerTensor(v, t.dtype) for v, t in zip(results, self.graph.outputs)]
        return nest.map_structure(
            lambda i: None if i is None else tensors[i], self.graph.structured_outputs
        )

    def _check(self, name, spec, value):
        if not isinstance(value, Tensor):
            try:
                from runtime.ops.array_ops import convert_to_tensor

                value = convert_to_tensor(value, dtype=spec.dtype)
            except (TypeError, ValueError) as e:
                raise TypeError(
                    f"{self.name}: argument {name!r} does not fit {spec}: {e}"
                ) from None
        spec.check_argument(self.name, name, value, source="the saved function")
        return value._value

    def __repr__(self):
        return f"<rt.saved_model.LoadedFunction {self.name}>"
