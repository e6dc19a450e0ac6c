"""``input_signature``: checked when a Function is made, and each call fitted to it.

>>> import runtime as rt
>>> validated(print, [rt.TensorSpec([], rt.float32)])
(TensorSpec(shape=(), dtype=rt.float32, name=None),)
>>> validated(print, [3])
Traceback (most recent call last):
    ...
TypeError: print: input_signature must be a list or tuple of rt.TensorSpec (nested lists and tuples allowed), but input_signature[0] is 3; describe that argument with rt.TensorSpec(shape, dtype)
"""

from __future__ import annotations

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


def fit_arguments(fn_name, arguments, signature, specs_allowed):
    """The call's ``[(name, value)]`` with each value fitted to its spec (see ``fit``)."""
    if len(arguments) < len(signature):
        raise TypeError(
            f"{fn_name}: input_signature has {len(signature)} entries but the function "
            f"takes {len(arguments)} arguments"
        )
    fitted = [
        (name, fit(fn_name, name, value, spec, specs_allowed))
        for (name, value), spec in zip(arguments, signature)
    ]
    extra = arguments[len(signature) :]
    if extra:
        raise TypeError(
            f"{fn_name}: argument '{extra[0][0]}' is not covered by the input_signature"
        )
    return fitted


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
