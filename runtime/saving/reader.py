"""Reading a saved-model directory back: functions callable without their code, variables live."""

from __future__ import annotations

import base64
import json
import os

import numpy as np

from runtime.core import nest
from runtime.core.graph import FuncGraph
from runtime.core.op_def import OPS
from runtime.core.tensor import EagerTensor, Tensor
from runtime.core.tensor_shape import TensorShape
from runtime.core.tensor_spec import TensorSpec
from runtime.execution.compile import compile_function
from runtime.ops.constant_ops import convert_to_tensor
from runtime.ops.random_ops import RandomState
from runtime.saving.format import (
    ARRAYS_FILE,
    DESCRIPTION_FILE,
    FORMAT,
    VERSION,
    SavedModelError,
    decode_structure,
    expect,
    expect_dict,
    expect_list,
    read_dtype,
    read_shape,
    shape_text,
)
from runtime.state.variables import Variable


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
            lines.append(f"    {arg}: {spec['dtype']} shape {shape_text(spec['shape'])}")
        lines.append("  outputs:")
        outputs = _output_specs(fn["graph"])
        for i, spec in enumerate(outputs):
            lines.append(f"    output_{i}: {spec['dtype']} shape {shape_text(spec['shape'])}")
    lines.append("variables:")
    for v in description["variables"]:
        lines.append(
            f"  {v['name']}: {v['dtype']} shape {shape_text(v['shape'])}"
            + ("" if v["trainable"] else " (not trainable)")
        )
    return "\n".join(lines)


def _output_specs(graph):
    producers = {}
    for op in graph["ops"]:
        for i, spec in enumerate(op["outputs"]):
            producers[f"{op['name']}:{i}"] = spec
    return [producers[name] for name in graph["outputs"]]


class _Reader:
    def __init__(self, path):
        self.path = path
        if not os.path.isdir(path):
            raise SavedModelError(f"{path} is not a directory holding a saved model")
        for name in (DESCRIPTION_FILE, ARRAYS_FILE):
            if not os.path.isfile(os.path.join(path, name)):
                raise SavedModelError(
                    f"{path} is not a saved model of this project: {name} is missing"
                )

    def description(self):
        try:
            with open(os.path.join(self.path, DESCRIPTION_FILE), encoding="utf-8") as f:
                description = json.load(f)
        except (json.JSONDecodeError, UnicodeDecodeError) as e:
            raise SavedModelError(f"{self.path}/{DESCRIPTION_FILE} is damaged: {e}") from None
        expect(isinstance(description, dict), "the description is not a JSON object")
        expect(description.get("format") == FORMAT, f"this is not a {FORMAT} directory")
        expect(
            description.get("version") == VERSION,
            f"format version {description.get('version')!r} is not supported (this is {VERSION})",
        )
        for key, kind in (
            ("functions", dict),
            ("signatures", list),
            ("attributes", dict),
            ("variables", list),
        ):
            expect(
                isinstance(description.get(key), kind), f"'{key}' is missing or of the wrong type"
            )
        return description

    def load(self):
        description = self.description()
        with np.load(os.path.join(self.path, ARRAYS_FILE), allow_pickle=False) as archive:
            self.arrays = {key: archive[key] for key in archive.files}
        self.variables = {v["key"]: self._variable(v) for v in description["variables"]}
        functions = {
            name: self._function(name, fn) for name, fn in description["functions"].items()
        }
        loaded = LoadedObject()
        for name, entry in description["attributes"].items():
            expect(isinstance(entry, dict), f"attribute {name!r} is damaged")
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
        expect(isinstance(key, str) and key in table, f"{what} {key!r} is not in the saved model")
        return table[key]

    def _variable(self, entry):
        expect(isinstance(entry, dict), "a variable entry is damaged")
        key = entry.get("key")
        value = self._lookup(self.arrays, key, "array")
        dtype = read_dtype(entry.get("dtype"))
        shape = read_shape(entry.get("shape"))
        expect(
            TensorShape(value.shape) == shape and value.dtype == dtype.as_numpy_dtype,
            f"variable {entry.get('name')!r}: its array does not have the shape and dtype described",
        )
        name = entry.get("name")
        expect(isinstance(name, str) and name.endswith(":0"), "a variable name is damaged")
        variable = Variable(value.copy(), dtype=dtype, trainable=bool(entry.get("trainable", True)))
        variable.name = name
        variable._base_name = name[:-2]
        return variable

    def _function(self, name, entry):
        expect(isinstance(entry, dict), f"function {name!r} is damaged")
        graph = self._graph(entry.get("graph"), entry.get("name", name))
        arguments = entry.get("arguments")
        expect(
            isinstance(arguments, list) and len(arguments) == len(graph.inputs),
            f"function {name!r}: its arguments do not match its graph",
        )
        structure = decode_structure(entry.get("outputs"), len(graph.outputs))
        graph.structured_outputs = structure
        return LoadedFunction(name, graph, [str(a) for a in arguments])

    def _graph(self, data, name, depth=0):
        expect(depth < 64, "sub-graphs are nested too deeply")
        expect(
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
            expect(t.op.type == "Placeholder", f"graph {name!r}: an input is not a placeholder")
        return graph

    def _op(self, graph, data, tensors, ops, depth):
        expect(isinstance(data, dict), "an op is damaged")
        op_type = data.get("type")
        expect(isinstance(op_type, str) and op_type in OPS, f"unknown op type {op_type!r}")
        opdef = OPS[op_type]
        name = data.get("name")
        expect(isinstance(name, str) and name, "an op has no name")
        inputs = [self._lookup(tensors, t, "tensor") for t in expect_list(data.get("inputs"))]
        attrs = {str(k): self._attr(v, depth) for k, v in expect_dict(data.get("attrs")).items()}
        specs = [
            (read_dtype(s.get("dtype")), read_shape(s.get("shape")))
            for s in expect_list(data.get("outputs"))
            if isinstance(s, dict)
        ]
        if op_type not in ("If", "While"):
            inferred = opdef.infer(inputs, attrs)  # the graph must make sense, not just parse
            expect(
                len(inferred) == len(specs)
                and all(
                    d is sd and TensorShape(s).is_compatible_with(ss)
                    for (d, s), (sd, ss) in zip(inferred, specs)
                ),
                f"op {name!r} ({op_type}): its outputs do not match its inputs",
            )
        controls = [self._lookup(ops, c, "op") for c in expect_list(data.get("control_inputs"))]
        op = graph.create_op(opdef, inputs, attrs, name, specs, control_inputs=controls)
        expect(op.name == name, f"op name {name!r} is used twice")
        return op

    def _attr(self, value, depth):
        expect(isinstance(value, dict) and len(value) in (1, 2), "an attribute is damaged")
        (tag, content), *rest = value.items()
        if tag == "value":
            expect(content is None or isinstance(content, (bool, int, float, str)), "bad value")
            return content
        if tag == "dtype":
            return read_dtype(content)
        if tag == "shape":
            return read_shape(content)
        if tag == "graph":
            return self._graph(content, "sub-graph", depth + 1)
        if tag == "variable":
            return self._lookup(self.variables, content, "variable")
        if tag == "random":
            expect(content is None or isinstance(content, int), "bad random seed")
            return RandomState(content)
        if tag == "array":
            arr = self._lookup(self.arrays, content, "array")
            expect(arr.dtype != object, "an array holds objects")
            return arr[()] if arr.ndim == 0 else arr
        if tag == "strings":
            shape = read_shape(dict(value).get("shape"))
            expect(
                shape.is_fully_defined() and shape.num_elements() == len(expect_list(content)),
                "string constant: its data does not match its shape",
            )
            items = [base64.b64decode(s, validate=True) for s in content]
            arr = np.empty(len(items), dtype=object)
            arr[:] = items
            return arr.reshape(shape.as_list())
        if tag == "bytes":
            return base64.b64decode(content, validate=True)
        if tag == "slice":
            parts = [self._attr(v, depth) for v in expect_list(content)]
            expect(len(parts) == 3, "bad slice")
            return slice(*parts)
        if tag == "ellipsis":
            return Ellipsis
        if tag in ("tuple", "list"):
            items = [self._attr(v, depth) for v in expect_list(content)]
            return tuple(items) if tag == "tuple" else items
        raise SavedModelError(f"unknown attribute kind {tag!r}")


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
                value = convert_to_tensor(value, dtype=spec.dtype)
            except (TypeError, ValueError) as e:
                raise TypeError(
                    f"{self.name}: argument {name!r} does not fit {spec}: {e}"
                ) from None
        spec.check_argument(self.name, name, value, source="the saved function")
        return value._value

    def __repr__(self):
        return f"<rt.saved_model.LoadedFunction {self.name}>"
