"""How a ConcreteFunction is called and described, as TensorFlow's concrete functions are.

A call binds first as the Python function binds its arguments (the structured signature:
nested values, Python values as traced); when that fails, by TensorFlow's flat signature: the
graph's tensor inputs one by one, by position or by their placeholders' names.

>>> import autograph as ag
>>> import runtime as rt
>>> @ag.function
... def area(size):
...     return size["w"] * size["h"]
>>> cf = area.get_concrete_function({"w": rt.TensorSpec([]), "h": rt.TensorSpec([])})
>>> float(cf({"w": rt.constant(2.0), "h": rt.constant(3.0)}))     # structured
6.0
>>> float(cf(rt.constant(3.0), rt.constant(2.0)))                # flat: h, then w
6.0
>>> print(cf.pretty_printed_signature())
Input Parameters:
  size (POSITIONAL_OR_KEYWORD): Dict[['h', TensorSpec(shape=(), dtype=rt.float32, name=None)], ['w', TensorSpec(shape=(), dtype=rt.float32, name=None)]]
Output Type:
  TensorSpec(shape=(), dtype=rt.float32, name=None)
Captures:
  None
"""

from __future__ import annotations

import inspect

import runtime as rt
from autograph import signatures
from autograph.input_signature import check_varargs_count, var_positional
from runtime.saving.function_text import type_text

_P = inspect.Parameter


def tensors_for(cf, args, kwargs):
    """The tensors to feed ``cf``'s inputs for this call; TypeError saying how neither the
    structured nor the flat signature binds them (in TensorFlow's words)."""
    try:
        return _structured(cf, args, kwargs)
    except TypeError as structured_error:
        try:
            return _flat(cf, args, kwargs)
        except (TypeError, ValueError) as flat_error:
            raise type(structured_error)(
                f"{structured_error}\nFallback to flat signature also failed due to: {flat_error}"
            ) from None


def _structured(cf, args, kwargs):
    try:
        bound = cf._signature.bind_partial(*args, **kwargs)
        kinds = {p.name: p.kind for p in cf._signature.parameters.values()}
        tensors = []
        for name, traced in cf._traced:
            if name in bound.arguments:
                _check_variadic(name, kinds.get(name), traced, bound.arguments[name])
                _collect(cf.name, name, traced, bound.arguments[name], tensors)
            elif signatures.tensor_leaves([(name, traced)]):
                raise TypeError(f"missing argument '{name}'")
            # an omitted Python argument is the one traced
        return tensors
    except TypeError as e:
        raise type(e)(
            f"Binding inputs to ag.function failed due to `{e}` for signature: "
            f"{cf.name}{pretty_signature(cf, verbose=False)}"
        ) from None


def _check_variadic(name, kind, traced, given):
    """``*args`` and ``**kwargs`` as traced are that many positional and keyword parameters:
    Python's words for a call with more or fewer, as TensorFlow's function type says them."""
    if kind is _P.VAR_POSITIONAL:
        check_varargs_count(name, given, traced)
    elif kind is _P.VAR_KEYWORD:
        unexpected, missing = sorted(set(given) - set(traced)), sorted(set(traced) - set(given))
        if unexpected:
            raise TypeError(f"got an unexpected keyword argument '{unexpected[0]}'")
        if missing:
            raise TypeError(f"missing a required argument: '{missing[0]}'")


def _collect(fn_name, name, traced, given, values):
    if isinstance(traced, signatures.VariableSpec):
        if not traced.fits(given):
            raise TypeError(
                f"argument '{name}' must be a variable of {traced!r}, as traced, not {given!r}"
            )
        values.append(given)
    elif isinstance(traced, rt.TensorSpec):
        if not isinstance(given, rt.Tensor):
            given = rt.convert_to_tensor(given, dtype=traced.dtype)
        traced.check_argument(fn_name, name, given, source="the concrete function")
        values.append(given)
    elif isinstance(traced, (list, tuple)):
        if not isinstance(given, (list, tuple)) or len(given) != len(traced):
            raise TypeError(
                f"argument '{name}' must be a sequence of {len(traced)} items, as traced"
            )
        for t, g in zip(traced, given):
            _collect(fn_name, name, t, g, values)
    elif isinstance(traced, dict):
        if not isinstance(given, dict) or set(given) != set(traced):
            raise TypeError(
                f"argument '{name}' must be a dict with the keys traced, {sorted(traced, key=repr)}"
            )
        for k in sorted(traced, key=repr):
            _collect(fn_name, name, traced[k], given[k], values)
    elif signatures.encode(given) != signatures.encode(traced):
        raise TypeError(
            f"argument '{name}' was traced as {traced!r}, not {given!r}; a Python value is "
            "part of the graph (call the Function instead)"
        )


def _flat(cf, args, kwargs):
    """TensorFlow's flat signature: each tensor input, by position or by its placeholder's name."""
    names = cf._flat_names
    summary = f"{cf.name}({', '.join(names)})"
    if len(args) > len(names):
        raise TypeError(f"{summary} takes {len(names)} positional arguments, got {len(args)}.")
    rest = names[len(args) :]
    missing = [n for n in rest if n not in kwargs]
    if missing:
        raise TypeError(f"{summary} missing required arguments: {', '.join(missing)}.")
    unexpected = sorted(set(kwargs) - set(rest))
    if unexpected:
        raise TypeError(f"{summary} got unexpected keyword arguments: {', '.join(unexpected)}.")
    given = list(args) + [kwargs[n] for n in rest]
    traced = signatures.tensor_leaves(cf._traced)
    tensors = []
    for i, (value, name, placeholder) in enumerate(zip(given, names, cf.inputs)):
        if placeholder.dtype is rt.resource:  # a variable argument: the graph takes its handle
            spec = traced[i]
            if not (isinstance(spec, signatures.VariableSpec) and spec.fits(value)):
                raise TypeError(
                    f"{summary}: argument #{i}(zero-based) must be a variable of {spec!r}, "
                    f"as traced, not {value!r}"
                )
            tensors.append(value)
            continue
        if isinstance(value, rt.Variable):
            value = rt.convert_to_tensor(value)
        if not isinstance(value, rt.Tensor):
            raise TypeError(
                f"{summary}: expected argument #{i}(zero-based) to be a Tensor; "
                f"got {type(value).__name__} ({value!r})."
            )
        spec = rt.TensorSpec(placeholder.shape, placeholder.dtype)
        spec.check_argument(cf.name, name, value, source="the concrete function")
        tensors.append(value)
    return tensors


# --- describing ------------------------------------------------------------------------------


def structured_input_signature(cf):
    """``(args, kwargs)`` as traced, as TensorFlow gives it: keyword-only parameters and the
    keys of ``**kwargs`` in the dict, ``*args`` one by one in the tuple."""
    kinds = {p.name: p.kind for p in cf._signature.parameters.values()}
    args, kwargs = [], {}
    for name, value in cf._traced:
        specs = signatures.to_specs(value)
        kind = kinds.get(name)
        if kind is _P.VAR_POSITIONAL:
            args.extend(specs)
        elif kind is _P.VAR_KEYWORD:
            kwargs.update(specs)
        elif kind is _P.KEYWORD_ONLY:
            kwargs[name] = specs
        else:
            args.append(specs)
    return tuple(args), kwargs


def pretty_signature(cf, verbose=True):
    """TensorFlow's ``pretty_printed_signature``: each parameter with its kind and type, the
    output's type and the captures (``verbose``), or ``(x: ..., y: ...) -> ...``."""
    parameters = list(_parameters(cf))
    output = "None" if cf.structured_outputs is None else type_text(cf.structured_outputs)
    if not verbose:
        inner = ", ".join(f"{name}: {text}" for name, _, text in parameters)
        return f"({inner}) -> {output}"
    captures = [
        f"  {id(outer)}: {rt.TensorSpec(inner.shape, inner.dtype)!r}"
        for outer, inner in cf.graph.captures
    ]
    lines = ["Input Parameters:"]
    lines += [f"  {name} ({kind}): {text}" for name, kind, text in parameters]
    lines += ["Output Type:", f"  {output}", "Captures:"] + (captures or ["  None"])
    return "\n".join(lines)


def _parameters(cf):
    """(name, kind, type) of each parameter as traced; ``*args`` one by one (positional-only),
    ``**kwargs`` key by key (keyword-only), as TensorFlow's function type lists them."""
    traced = dict(cf._traced)
    has_varargs = var_positional(cf._signature) is not None
    for name, parameter in cf._signature.parameters.items():
        kind = parameter.kind
        if name not in traced:  # left to its default by an input_signature
            if parameter.default is not _P.empty:
                yield name, kind.name, type_text(parameter.default)
            continue
        value = traced[name]
        if kind is _P.VAR_POSITIONAL:
            for i, item in enumerate(value):
                yield f"{name}_{i}", _P.POSITIONAL_ONLY.name, type_text(item)
        elif kind is _P.VAR_KEYWORD:
            for key in sorted(value):
                yield key, _P.KEYWORD_ONLY.name, type_text(value[key])
        else:
            if has_varargs and kind is _P.POSITIONAL_OR_KEYWORD:
                kind = _P.POSITIONAL_ONLY
            yield name, kind.name, type_text(value)
