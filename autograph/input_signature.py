"""``input_signature``: checked when a Function is made, and a call's arguments against it;
and what decides whether a call's arguments depend on the function's defaults.

>>> import runtime as rt
>>> apply_signature("f", [("x", 3.0)], [rt.TensorSpec([], rt.float32)], False)
[('x', <rt.Tensor: shape=(), dtype=float32, numpy=3.0>)]
>>> apply_signature("f", [("x", 3.0), ("training", None)], [rt.TensorSpec([])], False, {"x"})
[('x', <rt.Tensor: shape=(), dtype=float32, numpy=3.0>)]
>>> apply_signature("f", [("x", [1, 2])], [rt.TensorSpec([3], rt.int32)], False)
Traceback (most recent call last):
...
ValueError: f: argument 'x' has shape (2,), which does not fit the input_signature's (3,)
>>> validated(print, [3])
Traceback (most recent call last):
    ...
TypeError: print: input_signature must be a list or tuple of rt.TensorSpec (nested lists and tuples allowed), but input_signature[0] is 3; describe that argument with rt.TensorSpec(shape, dtype)
"""

from __future__ import annotations

import inspect

import runtime as rt


def validated(fn, input_signature):
    """``input_signature`` as a tuple, or TypeError when it is not a (nested) sequence of specs."""
    if input_signature is None:
        return None

    def check(entry, where):
        if isinstance(entry, (list, tuple)):
            for i, inner in enumerate(entry):
                check(inner, f"{where}[{i}]")
        elif not isinstance(entry, rt.TensorSpec):
            raise TypeError(
                f"{getattr(fn, '__name__', fn)!s}: input_signature must be a list or tuple of "
                f"rt.TensorSpec (nested lists and tuples allowed), but input_signature{where} is "
                f"{entry!r}; describe that argument with rt.TensorSpec(shape, dtype)"
            )

    if not isinstance(input_signature, (list, tuple)):
        raise TypeError(
            f"{getattr(fn, '__name__', fn)!s}: input_signature must be a list or tuple of "
            f"rt.TensorSpec, one per argument, not {input_signature!r}"
        )
    check(input_signature, "")
    return tuple(input_signature)


def apply_signature(fn_name, arguments, signature, specs_allowed, given=None):
    """The arguments ``[(name, value)]`` as tensors fitting ``signature``, in order; TypeError or
    ValueError naming the argument that does not fit.

    Arguments after those the signature covers must not be ``given`` (the names the caller
    passed; None: all): the others keep their defaults, as in TensorFlow, so a Keras layer's
    ``training=None`` or a model's ``*args`` need no spec.
    """
    if len(arguments) < len(signature):
        raise TypeError(
            f"{fn_name}: input_signature has {len(signature)} entries but the function "
            f"takes {len(arguments)} arguments"
        )
    checked = []
    for (name, value), spec in zip(arguments, signature):
        checked.append((name, fit(fn_name, name, value, spec, specs_allowed)))
    extra = [a for a in arguments[len(signature) :] if given is None or a[0] in given]
    if extra:
        raise TypeError(
            f"{fn_name}: argument '{extra[0][0]}' is not covered by the input_signature"
        )
    return checked


def fit(fn_name, name, value, spec, specs_allowed):
    """``value`` as a tensor matching ``spec``, or TypeError/ValueError naming the argument."""
    if isinstance(spec, (list, tuple)):
        if not isinstance(value, (list, tuple)) or len(value) != len(spec):
            raise TypeError(
                f"{fn_name}: argument '{name}' must be a sequence of {len(spec)} "
                f"matching {spec}, got {value!r}"
            )
        return type(value)(fit(fn_name, name, v, s, specs_allowed) for v, s in zip(value, spec))
    if isinstance(value, rt.TensorSpec) and specs_allowed or isinstance(value, rt.Tensor):
        tensor_like = value
    else:
        try:
            tensor_like = rt.convert_to_tensor(value, dtype=spec.dtype)
        except (TypeError, ValueError) as e:
            raise TypeError(
                f"{fn_name}: argument '{name}' ({value!r}) does not fit the "
                f"input_signature {spec}: {e}"
            ) from None
    spec.check_argument(fn_name, name, tensor_like)
    return tensor_like


def defaults_of(fn):
    """The objects holding ``fn``'s defaults: assigning new ones replaces them, and a Function
    then reads them again, as Python reads defaults at each call."""
    return getattr(fn, "__defaults__", None), getattr(fn, "__kwdefaults__", None)


def positional_count(signature) -> int:
    """How many positional arguments a call gives when it fills in no default; one more than
    possible for a function with keyword-only parameters (those are given by keyword)."""
    kinds = [p.kind for p in signature.parameters.values()]
    positional = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    return sum(k in positional for k in kinds) + (inspect.Parameter.KEYWORD_ONLY in kinds)
