"""Small tensors kept in the description itself: a function's tensor defaults
(``def f(x=rt.constant(5.0))``, or a numpy array), which TensorFlow saves with the function.

A constant is ``{"dtype": name, "shape": [dims], "values": [numbers, flattened]}``: numeric
or bool dtypes, at most ``MAX_CONSTANT_ELEMENTS`` finite values. Loading checks the dtype, the
shape, that the values are numbers (bools for bool) and that there are as many as the shape
says.

>>> import runtime as rt
>>> encoded = encode_constant(rt.constant([1.5, 2.0]))
>>> encoded
{'dtype': 'float32', 'shape': [2], 'values': [1.5, 2.0]}
>>> decode_constant(encoded)
<rt.Tensor: shape=(2,), dtype=float32, numpy=array([1.5, 2. ], dtype=float32)>
"""

from __future__ import annotations

import inspect
import math

import numpy as np

from runtime.core.tensor import EagerTensor, Tensor
from runtime.core.tensor_shape import TensorShape
from runtime.core.tensor_spec import TensorSpec
from runtime.saving.format import expect, read_dtype
from runtime.state.variables import Variable

MAX_CONSTANT_ELEMENTS = 4096


def is_constant(value):
    """A tensor or numpy value (not a variable): what ``encode_constant`` may keep."""
    return isinstance(value, (Tensor, np.ndarray, np.generic)) and not isinstance(value, Variable)


def encode_constant(value):
    """The JSON form of a small numeric tensor or array, or None where it has no value here
    (a symbolic tensor), is too large, not numeric, or not finite."""
    if isinstance(value, Tensor):
        if not isinstance(value, EagerTensor):
            return None
        dtype, array = value.dtype, np.asarray(value._value)
    else:
        array = np.asarray(value)
        try:
            dtype = read_dtype(array.dtype.name)
        except Exception:
            return None
    if not (dtype.is_numeric or dtype.is_bool) or array.size > MAX_CONSTANT_ELEMENTS:
        return None
    values = array.reshape(-1).tolist()
    if not all(isinstance(v, (bool, int)) or math.isfinite(v) for v in values):
        return None
    return {"dtype": dtype.name, "shape": list(array.shape), "values": values}


def decode_constant(data, as_array=False):
    """The tensor ``encode_constant`` described, checked (a numpy array with ``as_array``)."""
    expect(
        type(data) is dict and data.keys() == {"dtype", "shape", "values"},
        "a constant must be {dtype, shape, values}",
    )
    dtype = read_dtype(data["dtype"], "a constant's dtype")
    shape, values = data["shape"], data["values"]
    expect(
        type(shape) is list and all(type(d) is int and d >= 0 for d in shape) and len(shape) < 33,
        "a constant's shape is damaged",
    )
    expect(
        type(values) is list
        and len(values) <= MAX_CONSTANT_ELEMENTS
        and math.prod(shape) == len(values),
        "a constant's values do not fit its shape",
    )
    kinds = (bool,) if dtype.is_bool else (int, float)
    expect(
        (dtype.is_numeric or dtype.is_bool)
        and all(type(v) in kinds and (type(v) is int or math.isfinite(v)) for v in values),
        f"a constant's values must be {'bools' if dtype.is_bool else 'finite numbers'}",
    )
    array = np.array(values, dtype=dtype.as_numpy_dtype).reshape(shape)
    return array if as_array else EagerTensor(array, dtype)


def flat_defaults(traced, signature, input_specs):
    """``[[input index, constant]]``: the defaults of a concrete function's tensor inputs, from
    the Python function's parameters (``signature``) flattened as its traced arguments are
    (``runtime.saving.arguments``: items in order, dict entries by key), where each fits its
    input's spec."""
    if not isinstance(signature, inspect.Signature):
        return []
    found, start = [], 0
    for name, value in traced:
        count = len(_leaves(value, TensorSpec))
        parameter = signature.parameters.get(name)
        if parameter is not None and parameter.default is not inspect.Parameter.empty:
            leaves = _leaves(parameter.default, object)
            if len(leaves) == count:
                for offset, leaf in enumerate(leaves):
                    encoded = _fitting(leaf, input_specs[start + offset])
                    if encoded is not None:
                        found.append([start + offset, encoded])
        start += count
    return found


def read_defaults(data, input_specs):
    """``{input name: tensor}`` from ``[[input index, constant]]``, each checked to fit its
    input's spec."""
    expect(type(data) is list, "its defaults must be a list")
    defaults = {}
    for entry in data:
        expect(
            type(entry) is list
            and len(entry) == 2
            and type(entry[0]) is int
            and 0 <= entry[0] < len(input_specs),
            "a default must be [input index, constant]",
        )
        spec = input_specs[entry[0]]
        expect(spec.name not in defaults, f"input {spec.name!r:.100} has two defaults")
        tensor = decode_constant(entry[1])
        expect(
            tensor.dtype is spec.dtype and tensor.shape.is_subtype_of(spec.shape),
            f"the default of input {spec.name!r:.100} does not fit it",
        )
        defaults[spec.name] = tensor
    return defaults


def _fitting(value, spec):
    """``value`` encoded as a constant of ``spec``'s dtype, or None where it does not fit."""
    if isinstance(value, Tensor):
        encoded = encode_constant(value)
    elif isinstance(value, (bool, int, float, np.ndarray, np.generic)):
        try:
            encoded = encode_constant(np.asarray(value, dtype=spec.dtype.as_numpy_dtype))
        except (TypeError, ValueError, AttributeError):
            return None
    else:
        return None
    if encoded is None or encoded["dtype"] != spec.dtype.name:
        return None
    return encoded if TensorShape(encoded["shape"]).is_subtype_of(spec.shape) else None


def _leaves(value, kind):
    """The leaves of nested lists, tuples and dicts (dict entries by ``repr`` of the key, as
    arguments are numbered), those of ``kind``."""
    if isinstance(value, dict):
        keys = sorted(value, key=repr)
        return [leaf for k in keys for leaf in _leaves(value[k], kind)]
    if isinstance(value, (list, tuple)):
        return [leaf for item in value for leaf in _leaves(item, kind)]
    return [value] if isinstance(value, kind) else []
