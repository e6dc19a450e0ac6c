"""``input_signature``: a call's arguments checked against the TensorSpecs a Function was given.

>>> import runtime as rt
>>> apply_signature("f", [("x", 3.0)], [rt.TensorSpec([], rt.float32)], False)
[('x', <rt.Tensor: shape=(), dtype=float32, numpy=3.0>)]
>>> apply_signature("f", [("x", 3.0), ("training", None)], [rt.TensorSpec([])], False, {"x"})
[('x', <rt.Tensor: shape=(), dtype=float32, numpy=3.0>)]
>>> apply_signature("f", [("x", [1, 2])], [rt.TensorSpec([3], rt.int32)], False)
Traceback (most recent call last):
...
ValueError: f: argument 'x' has shape (2,), which does not fit the input_signature's (3,)
"""

from __future__ import annotations

import runtime as rt


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
