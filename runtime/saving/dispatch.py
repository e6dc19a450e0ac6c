"""Which saved concrete function a call of a loaded function runs: the first whose traced
arguments the call's match, as TensorFlow's restored functions choose.

A tensor (or a TensorSpec, asking for a concrete function) matches a traced TensorSpec of its
dtype whose shape it fits; a Python value matches
an equal value (as Python compares them); lists, tuples and dicts match item by item; a traced variable
matches itself. A second pass lets Python values (numbers, lists) stand for tensors, converted
to the spec's dtype.

>>> import runtime as rt
>>> traced = [("x", rt.TensorSpec([None], rt.float32)), ("training", True)]
>>> [t.numpy() for t in match(traced, {"x": rt.constant([1.0]), "training": True}, False)]
[array([1.], dtype=float32)]
>>> match(traced, {"x": rt.constant([1.0]), "training": False}, False) is None
True
>>> match(traced, {"x": [2.0], "training": True}, False), match(traced, {"x": [2.0], "training": True}, True)[0].numpy()
(None, array([2.], dtype=float32))
"""

from __future__ import annotations

import math
import pprint

import numpy as np

from runtime.core.dtypes import DType
from runtime.core.tensor import Tensor
from runtime.core.tensor_spec import TensorSpec
from runtime.ops.constant_ops import convert_to_tensor
from runtime.saving.named_tuples import is_named_tuple, same_kind
from runtime.state.variables import Variable


class _NoMatch(Exception):
    pass


def match(traced, arguments, convert):
    """The input tensors of a concrete function traced as ``traced`` (``[(name, value)]``) for
    the bound ``arguments`` (name -> value), or None when they do not match."""
    if len(arguments) != len(traced):
        return None
    tensors = []
    try:
        for name, value in traced:
            if name not in arguments:
                return None
            _match(value, arguments[name], convert, tensors)
    except _NoMatch:
        return None
    return tensors


def _match(traced, given, convert, tensors):
    if isinstance(traced, TensorSpec):
        tensors.append(_tensor_for(traced, given, convert))
    elif isinstance(traced, Variable):
        _expect(given is traced)
    elif is_named_tuple(traced):  # a loaded one is of a class made anew: by name and fields
        _expect(same_kind(given, traced))
        for t, g in zip(traced, given):
            _match(t, g, convert, tensors)
    elif isinstance(traced, (list, tuple)):
        _expect(type(given) is type(traced) and len(given) == len(traced))
        for t, g in zip(traced, given):
            _match(t, g, convert, tensors)
    elif isinstance(traced, dict):
        _expect(isinstance(given, dict) and given.keys() == traced.keys())
        for key in traced:  # the trace's order, as saved
            _match(traced[key], given[key], convert, tensors)
    else:  # by value, as TensorFlow's literals compare (1 matches True, 2 matches 2.0)
        _expect(isinstance(given, _PLAIN) and _same_value(given, traced))


_PLAIN = (type(None), bool, int, float, str, DType)


def _same_value(a, b):
    if isinstance(a, float) and math.isnan(a):
        return isinstance(b, float) and math.isnan(b)
    return a == b


def _tensor_for(spec, given, convert):
    if isinstance(given, TensorSpec):  # get_concrete_function's question: the spec fits
        _expect(given.dtype is spec.dtype and given.shape.is_subtype_of(spec.shape))
        return given
    if isinstance(given, (Tensor, Variable)) or (
        isinstance(given, (np.ndarray, np.generic)) and not convert
    ):
        tensor = convert_to_tensor(given)
    elif convert:  # Python values and numpy arrays, to the spec's dtype where they fit it
        try:
            tensor = convert_to_tensor(given, dtype=spec.dtype)
        except (TypeError, ValueError):
            raise _NoMatch() from None
    else:
        raise _NoMatch()
    _expect(tensor.dtype is spec.dtype and tensor.shape.is_subtype_of(spec.shape))
    return tensor


def _expect(condition):
    if not condition:
        raise _NoMatch()


def positional_text(positional):
    return "Positional arguments ({} total):\n    * {}".format(
        len(positional), "\n    * ".join(pprint.pformat(a) for a in positional)
    )


def no_match_error(args, kwargs, concrete_functions):
    """TensorFlow's ValueError for a call that no saved concrete function matches."""
    options = []
    for index, concrete in enumerate(concrete_functions):
        positional, keyword = concrete.structured_input_signature
        options.append(
            f"Option {index + 1}:\n  {positional_text(positional)}\n  Keyword arguments: {keyword}"
        )
    joined = "\n\n".join(options)
    return ValueError(
        "Could not find matching concrete function to call loaded from the SavedModel. Got:\n"
        f"  {positional_text(args)}\n  Keyword arguments: {kwargs}\n\n Expected these arguments "
        f"to match one of the following {len(concrete_functions)} option(s):\n\n{joined}"
    )
