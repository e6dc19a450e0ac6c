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

import math

import numpy as np

from runtime.core.tensor import EagerTensor, Tensor
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
