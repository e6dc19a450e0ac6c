"""``input_signature``: checked when a Function is made, matched to the function's parameters
as TensorFlow matches it, and a call's arguments checked against it; and what decides whether
a call's arguments depend on the function's defaults.

Each entry constrains one parameter in order; under ``*args`` each remaining entry is one
positional argument; a parameter left over keeps its default (``self`` and ``**kwargs`` take
none):

>>> import inspect
>>> import numpy as np

import runtime as rt
>>> def f(x, *args, training=False): ...
>>> spec = rt.TensorSpec([], rt.float32)
>>> constraints_of("f", inspect.signature(f), (spec, spec, spec))
{'x': TensorSpec(shape=(), dtype=rt.float32, name=None), 'args': (TensorSpec(shape=(), dtype=rt.float32, name=None), TensorSpec(shape=(), dtype=rt.float32, name=None))}
>>> x_only = {"x": spec}
>>> apply_signature("f", [("x", 3.0)], x_only, False)
[('x', <rt.Tensor: shape=(), dtype=float32, numpy=3.0>)]
>>> apply_signature("f", [("x", 3.0), ("training", None)], x_only, False, {"x"})
[('x', <rt.Tensor: shape=(), dtype=float32, numpy=3.0>)]
>>> apply_signature("f", [("x", [1, 2])], {"x": rt.TensorSpec([3], rt.int32)}, False)
Traceback (most recent call last):
...
runtime.errors.SignatureMismatchError: f: argument 'x' has shape (2,), which does not fit the input_signature's (3,) (Can not cast TensorSpec(shape=(2,), dtype=rt.int32, name=None) to TensorSpec(shape=(3,), dtype=rt.int32, name=None))
>>> validated(print, [3])
Traceback (most recent call last):
    ...
TypeError: print: input_signature must be a possibly nested sequence of rt.TensorSpec (lists, tuples and dicts of them), but input_signature[0] is 3; describe that argument with rt.TensorSpec(shape, dtype)
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping

import numpy as np

import runtime as rt

_P = inspect.Parameter


def validated(fn, input_signature):
    """``input_signature`` as a tuple, or TypeError when it is not a (nested) sequence of specs."""
    if input_signature is None:
        return None
    name = getattr(fn, "__name__", fn)

    def check(entry, where):
        if isinstance(entry, (list, tuple)):
            for i, inner in enumerate(entry):
                check(inner, f"{where}[{i}]")
        elif isinstance(entry, Mapping):
            for key, inner in entry.items():
                check(inner, f"{where}[{key!r}]")
        elif not isinstance(entry, rt.TensorSpec):
            raise TypeError(
                f"{name!s}: input_signature must be a possibly nested sequence of rt.TensorSpec "
                f"(lists, tuples and dicts of them), but input_signature{where} is {entry!r}; "
                "describe that argument with rt.TensorSpec(shape, dtype)"
            )

    if not isinstance(input_signature, (list, tuple)):
        raise TypeError(
            f"{name!s}: input_signature must be a list or tuple of rt.TensorSpec, one per "
            f"argument, not {input_signature!r}"
        )
    check(input_signature, "")
    _check_keyword_only_defaults(fn)
    return tuple(input_signature)


def _check_keyword_only_defaults(fn):
    """TensorFlow's TypeError for a keyword-only parameter without a default: an
    input_signature covers the positional ones, so a call could never give it a value."""
    try:
        parameters = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):  # (a builtin without a signature: nothing to check)
        return
    for p in parameters:
        if p.kind is _P.KEYWORD_ONLY and p.default is _P.empty:
            raise TypeError(
                "Since input_signature is defined, keyword-only parameter "
                f"`{p.name}` must have a default value"
            )


def constraints_of(fn_name, signature, input_signature):
    """``{parameter name: its entry}``, the entries given to the parameters in order: all those
    left go to ``*args``, one positional argument each; ``self`` and ``**kwargs`` take none.
    TypeError, in TensorFlow's words, for a parameter with neither an entry nor a default, or
    for entries left over."""
    entries = list(input_signature)
    constraints = {}
    for index, parameter in enumerate(signature.parameters.values()):
        if parameter.kind is _P.VAR_KEYWORD or (index == 0 and parameter.name == "self"):
            continue
        if parameter.kind is _P.VAR_POSITIONAL:
            constraints[parameter.name], entries = tuple(entries), []
        elif parameter.kind is _P.KEYWORD_ONLY and parameter.default is _P.empty:
            raise TypeError(
                f"{fn_name}: since input_signature is defined, keyword-only parameter "
                f"`{parameter.name}` must have a default value"
            )
        elif entries:
            constraints[parameter.name] = entries.pop(0)
        elif parameter.default is _P.empty:
            raise TypeError(
                f"{fn_name}: input_signature missing type constraint for {parameter.name}"
            )
    if entries:
        raise TypeError(
            f"{fn_name}: input_signature contains {len(entries)} extra type constraints"
        )
    return constraints


def var_positional(signature):
    """The name of the ``*args`` parameter, or None."""
    names = [p.name for p in signature.parameters.values() if p.kind is _P.VAR_POSITIONAL]
    return names[0] if names else None


def var_keyword(signature):
    """The name of the ``**kwargs`` parameter, or None."""
    names = [p.name for p in signature.parameters.values() if p.kind is _P.VAR_KEYWORD]
    return names[0] if names else None


def apply_signature(fn_name, arguments, constraints, specs_allowed, given=None, varargs=None):
    """The constrained arguments of ``[(name, value)]`` as tensors fitting their entries, in
    order; a TypeError naming the argument that does not fit (``rt.errors.SignatureMismatchError``,
    also a ValueError, for a dtype or shape).

    The arguments no entry covers must not be ``given`` (the names the caller passed; None:
    all): they keep their defaults, as in TensorFlow, so a Keras layer's ``training=None``
    needs no spec. ``varargs`` names the ``*args`` parameter, whose entries count one each.
    """
    checked = []
    for name, value in arguments:
        if name in constraints:
            if name == varargs:
                check_varargs_count(name, value, constraints[name], f"{fn_name}(): ")
            checked.append((name, fit(fn_name, name, value, constraints[name], specs_allowed)))
        elif given is None or name in given:
            raise TypeError(f"{fn_name}: argument '{name}' is not covered by the input_signature")
    return checked


def check_varargs_count(name, given, expected, prefix=""):
    """Python's words for ``*name`` given more or fewer values than ``expected`` (TensorFlow's
    function type counts each as a parameter, ``name_0``, ``name_1``...)."""
    if len(given) > len(expected):
        raise TypeError(f"{prefix}too many positional arguments")
    if len(given) < len(expected):
        raise TypeError(f"{prefix}missing a required argument: '{name}_{len(given)}'")


def fit(fn_name, name, value, spec, specs_allowed):
    """``value`` as a tensor (or nested tensors) matching ``spec``, or TypeError naming the
    argument."""
    if isinstance(spec, (list, tuple)):
        if not isinstance(value, (list, tuple)) or len(value) != len(spec):
            raise TypeError(
                f"{fn_name}: argument '{name}' must be a sequence of {len(spec)} "
                f"matching {spec}, got {value!r}"
            )
        return type(value)(fit(fn_name, name, v, s, specs_allowed) for v, s in zip(value, spec))
    if isinstance(spec, Mapping):
        if not isinstance(value, Mapping) or set(value) != set(spec):
            raise TypeError(
                f"{fn_name}: argument '{name}' must be a dict with the keys "
                f"{sorted(spec, key=repr)} matching {spec}, got {value!r}"
            )
        return type(value)((k, fit(fn_name, name, value[k], spec[k], specs_allowed)) for k in value)
    if isinstance(value, rt.TensorSpec) and specs_allowed or isinstance(value, rt.Tensor):
        tensor_like = value
    else:
        try:
            tensor_like = rt.convert_to_tensor(_numpy_cast(value, spec.dtype), dtype=spec.dtype)
        except (TypeError, ValueError) as e:
            raise TypeError(
                f"{fn_name}: argument '{name}' does not fit the input_signature (Can not cast "
                f"{value!r} to {spec!r}): {e}"
            ) from None
    spec.check_argument(fn_name, name, tensor_like)
    return tensor_like


def _numpy_cast(value, dtype):
    """A numpy value cast to ``dtype`` where numpy casts within its kind or to a wider one (int
    to float, as TensorFlow converts a numpy argument to its spec's dtype); else as it is."""
    if isinstance(value, (np.ndarray, np.generic)) and dtype.is_numeric:
        target = np.dtype(dtype.as_numpy_dtype)
        if value.dtype != target and np.can_cast(value.dtype, target, casting="same_kind"):
            return value.astype(target)
    return value


def defaults_of(fn):
    """The objects holding ``fn``'s defaults: assigning new ones replaces them, and a Function
    then reads them again, as Python reads defaults at each call."""
    return getattr(fn, "__defaults__", None), getattr(fn, "__kwdefaults__", None)


def positional_count(signature) -> int:
    """How many positional arguments a call gives when it fills in no default; one more than
    possible for a function with keyword-only parameters (those are given by keyword)."""
    kinds = [p.kind for p in signature.parameters.values()]
    positional = (_P.POSITIONAL_ONLY, _P.POSITIONAL_OR_KEYWORD)
    return sum(k in positional for k in kinds) + (_P.KEYWORD_ONLY in kinds)
