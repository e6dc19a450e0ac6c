"""How a saved function's arguments are written and read: what each concrete function was traced
for, and the Python parameters (names, kinds, defaults) a loaded function binds a call with.

A concrete function's arguments are ``[[name, structure]]``, one per parameter, as traced: a
structure is ``{"tensor": i}`` (the graph's i-th input: tensors are numbered in the order the
trace walked them), ``{"variable": key}`` (that saved variable itself), ``{"value": v}`` (a
Python None, bool, int, float or str, part of the graph), ``{"dtype": name}`` (a DType),
``{"namedtuple": [class name, [[field, structure]]]}``, or a ``list``, ``tuple`` or ``dict``
of structures (a dict's entries in the order the trace walked them: by ``repr`` of the key).

>>> import runtime as rt
>>> encode_arguments([("x", rt.TensorSpec([2])), ("training", True)], None, "f")
[['x', {'tensor': 0}], ['training', {'value': True}]]
"""

from __future__ import annotations

import inspect

from runtime.core.dtypes import DType
from runtime.core.tensor import Tensor
from runtime.core.tensor_spec import TensorSpec
from runtime.saving.constants import decode_constant, encode_constant, is_constant
from runtime.saving.format import (
    MAX_GRAPH_DEPTH,
    Damage,
    SavedModelError,
    decode_named_tuple,
    expect,
    expect_list,
    read_dtype,
)
from runtime.saving.named_tuples import describe as describe_named_tuple
from runtime.saving.named_tuples import is_named_tuple
from runtime.state.variables import Variable

PLAIN_VALUES = (type(None), bool, int, float, str)
PARAMETER_KINDS = {kind.value: kind for kind in inspect._ParameterKind}


# --- writing ------------------------------------------------------------------------------------


def encode_arguments(traced, writer, name):
    """``[[name, structure]]`` for a concrete function's traced arguments (``[(name, value)]``:
    TensorSpecs for tensors, Python values as they were)."""
    counter = iter(range(1 << 62))
    return [
        [arg, _encode(value, writer, counter, f"{name}: argument {arg!r}")] for arg, value in traced
    ]


def _encode(value, writer, counter, what):
    if type(value).__name__ == "WeakArgument" and callable(value):  # how a trace holds objects
        value = value()
    if isinstance(value, _Encoded):
        return value.structure
    if isinstance(value, TensorSpec):
        return {"tensor": next(counter)}
    if isinstance(value, Variable) and writer is not None:
        return {"variable": writer.variable(value)}
    if type(value) in PLAIN_VALUES:
        return {"value": value}
    if isinstance(value, DType):  # a dtype argument (``dtype=rt.int32``) picks a trace
        return {"dtype": value.name}
    if is_named_tuple(value):
        name, fields = describe_named_tuple(value)
        items = [[f, _encode(v, writer, counter, what)] for f, v in zip(fields, value)]
        return {"namedtuple": [name, items]}
    if isinstance(value, (list, tuple)):
        kind = "list" if isinstance(value, list) else "tuple"
        return {kind: [_encode(v, writer, counter, what) for v in value]}
    if isinstance(value, dict) and all(type(k) is str for k in value):
        keys = sorted(value, key=repr)  # the trace's order (autograph.signatures.walk)
        return {"dict": [[k, _encode(value[k], writer, counter, what)] for k in keys]}
    raise SavedModelError(
        f"Cannot save {what}: it was traced with {type(value).__name__} {value!r:.60}, and a "
        "saved model stores only tensors, variables, dtypes and Python None, bool, int, float "
        "and str values (in lists, tuples, named tuples and dicts with str keys)"
    )


def encode_value(value):
    """A default's structure, or None where it cannot be saved: plain Python values, dtypes,
    and small tensors (``{"constant": ...}``, see ``runtime.saving.constants``)."""
    try:
        encoded = _encode(_constants_encoded(value), None, iter(()), "a default")
    except (SavedModelError, StopIteration, _Unsaved):
        return None
    return encoded


class _Unsaved(Exception):
    pass


class _Encoded:
    """A structure already encoded (a constant), kept as it is by ``_encode``."""

    def __init__(self, structure):
        self.structure = structure


def _constants_encoded(value):
    """``value`` with its tensors and arrays as encoded constants (_Unsaved if one cannot be)."""
    if is_constant(value):
        encoded = encode_constant(value)
        if encoded is None:
            raise _Unsaved()
        kind = "constant" if isinstance(value, Tensor) else "array"
        return _Encoded({kind: encoded})
    if is_named_tuple(value):
        return type(value)(*(_constants_encoded(v) for v in value))
    if isinstance(value, (list, tuple)):
        return type(value)(_constants_encoded(v) for v in value)
    if isinstance(value, dict):
        return {k: _constants_encoded(v) for k, v in value.items()}
    return value


def encode_parameters(signature):
    """``[{"name", "kind"[, "default"]}]`` for an ``inspect.Signature``; a default that is not a
    plain Python value is left out (the call then gives that argument)."""
    out = []
    for p in signature.parameters.values():
        entry = {"name": p.name, "kind": int(p.kind.value)}
        if p.default is not inspect.Parameter.empty:
            encoded = encode_value(p.default)
            if encoded is not None:
                entry["default"] = encoded
        out.append(entry)
    return out


# --- reading ------------------------------------------------------------------------------------


def decode_arguments(data, n_inputs, input_specs, variables):
    """``[(name, value)]`` as traced (TensorSpecs from ``input_specs``, the graph's own), checked:
    each tensor index once, in order, covering the ``n_inputs`` inputs."""
    pairs = expect_list(data, "its arguments as traced")
    counter = [0]
    traced = []
    for pair in pairs:
        expect(
            type(pair) is list
            and len(pair) == 2
            and type(pair[0]) is str
            and pair[0].isidentifier(),
            "an argument as traced must be [name, structure]",
        )
        traced.append((pair[0], _decode(pair[1], counter, input_specs, variables, 0)))
    expect(
        counter[0] == n_inputs,
        f"its arguments as traced hold {counter[0]} tensors, but its graph has {n_inputs} inputs",
    )
    names = [name for name, _ in traced]
    expect(len(set(names)) == len(names), "an argument is named twice")
    return traced


def _decode(node, counter, specs, variables, depth, constants=False):
    expect(depth < MAX_GRAPH_DEPTH, "an argument is nested too deeply")
    expect(type(node) is dict and len(node) == 1, "an argument's structure is damaged")
    ((tag, content),) = node.items()
    if tag == "tensor":
        expect(
            type(content) is int and content == counter[0] and content < len(specs),
            f"tensor {content!r:.40} is not the next input of the graph",
        )
        counter[0] += 1
        return specs[content]
    if tag == "variable":
        expect(type(content) is str and content in variables, f"no variable {content!r:.40}")
        return variables[content]
    if tag == "value":
        expect(
            type(content) in PLAIN_VALUES, "a Python value must be null, a bool, a number or text"
        )
        return content
    if tag == "dtype":
        return read_dtype(content, "a dtype argument")
    if tag in ("constant", "array") and constants:  # only a default holds values of its own
        return decode_constant(content, as_array=tag == "array")
    if tag in ("list", "tuple"):
        items = [
            _decode(v, counter, specs, variables, depth + 1, constants)
            for v in expect_list(content, tag)
        ]
        return items if tag == "list" else tuple(items)
    if tag == "namedtuple":
        expect(type(content) is list and len(content) == 2, "a named tuple is damaged")
        return decode_named_tuple(
            content,
            lambda v: _decode(v, counter, specs, variables, depth + 1, constants),
            "an argument",
        )
    expect(tag == "dict", f"unknown kind of argument {tag!r:.40}")
    out = {}
    for entry in expect_list(content, "a dict"):
        expect(
            type(entry) is list and len(entry) == 2 and type(entry[0]) is str,
            "a dict entry is damaged",
        )
        expect(entry[0] not in out, f"the key {entry[0]!r:.40} is given twice")
        out[entry[0]] = _decode(entry[1], counter, specs, variables, depth + 1, constants)
    return out


def decode_parameters(data):
    """The ``inspect.Signature`` a loaded function binds its calls with."""
    parameters = []
    for entry in expect_list(data, "its parameters"):
        expect(
            type(entry) is dict
            and entry.keys() in ({"name", "kind"}, {"name", "kind", "default"})
            and type(entry["name"]) is str
            and entry["name"].isidentifier()
            and type(entry["kind"]) is int
            and entry["kind"] in PARAMETER_KINDS,
            "a parameter must be {name, kind[, default]}",
        )
        default = inspect.Parameter.empty
        if "default" in entry:
            default = _decode(entry["default"], [0], (), {}, 0, constants=True)
        try:
            parameters.append(
                inspect.Parameter(entry["name"], PARAMETER_KINDS[entry["kind"]], default=default)
            )
        except (ValueError, TypeError) as e:
            raise Damage(f"a parameter is damaged: {e}") from None
    try:
        return inspect.Signature(parameters)
    except (ValueError, TypeError) as e:
        raise Damage(f"its parameters are damaged: {e}") from None
