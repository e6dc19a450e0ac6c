"""A restored concrete function described as TensorFlow prints one
(``pretty_printed_signature``): each parameter with its kind and type, the output's type, the
captures.

>>> import inspect, runtime as rt
>>> signature = inspect.signature(lambda x, training=False: None)
>>> print(pretty_signature([("x", rt.TensorSpec([2], rt.int32, "x")), ("training", True)],
...                        signature, None, verbose=True))
Input Parameters:
  x (POSITIONAL_OR_KEYWORD): TensorSpec(shape=(2,), dtype=rt.int32, name='x')
  training (POSITIONAL_OR_KEYWORD): Literal[True]
Output Type:
  None
Captures:
  None
"""

from __future__ import annotations

import inspect

from runtime.core.tensor import Tensor
from runtime.core.tensor_spec import TensorSpec

_P = inspect.Parameter


def pretty_signature(traced, signature, outputs, verbose=True):
    """``traced``: ``[(name, value)]`` as traced; ``outputs``: the structured outputs (tensors,
    or None)."""
    parameters = list(_parameters(traced, signature))
    output = "None" if outputs is None else type_text(outputs)
    if not verbose:
        inner = ", ".join(f"{name}: {text}" for name, _, text in parameters)
        return f"({inner}) -> {output}"
    lines = ["Input Parameters:"]
    lines += [f"  {name} ({kind}): {text}" for name, kind, text in parameters]
    return "\n".join(lines + ["Output Type:", f"  {output}", "Captures:", "  None"])


def output_specs(graph):
    """A loaded graph's structured outputs as TensorSpecs named by their path, as TensorFlow
    names a restored function's outputs: ``tensor_0_b`` for field ``b`` of the first item."""

    def spec(value, path):
        if value is None:
            return None
        if isinstance(value, dict):
            return {k: spec(v, path + [str(k)]) for k, v in value.items()}
        if isinstance(value, tuple) and hasattr(type(value), "_fields"):
            return type(value)(*(spec(v, path + [f]) for f, v in zip(value._fields, value)))
        if isinstance(value, (list, tuple)):
            return type(value)(spec(v, path + [str(i)]) for i, v in enumerate(value))
        tensor = graph.outputs[value]
        return TensorSpec(tensor.shape, tensor.dtype, "_".join(["tensor", *path]))

    return spec(graph.structured_outputs, [])


def _parameters(traced, signature):
    """(name, kind, type) of each parameter; ``*args`` one by one (positional-only), ``**kwargs``
    key by key (keyword-only), as TensorFlow's function type lists them."""
    kinds = {p.name: p.kind for p in signature.parameters.values()}
    for name, value in traced:
        kind = kinds.get(name, _P.POSITIONAL_OR_KEYWORD)
        if kind is _P.VAR_POSITIONAL:
            for i, item in enumerate(value):
                yield f"{name}_{i}", _P.POSITIONAL_ONLY.name, type_text(item)
        elif kind is _P.VAR_KEYWORD:
            for key in sorted(value):
                yield key, _P.KEYWORD_ONLY.name, type_text(value[key])
        else:
            yield name, kind.name, type_text(value)


def type_text(value):
    """A value as TensorFlow's trace types print: ``TensorSpec(...)``, ``Literal[7]``,
    ``Tuple[...]``, ``List[...]``, ``Dict[['key', ...]]``, ``Name[['field', ...]]`` for a
    named tuple."""
    if isinstance(value, TensorSpec):
        return repr(value)
    if isinstance(value, Tensor):
        return repr(TensorSpec(value.shape, value.dtype))
    if isinstance(value, tuple) and hasattr(type(value), "_fields"):
        items = ", ".join(f"[{k!r}, {type_text(v)}]" for k, v in zip(value._fields, value))
        return f"{type(value).__name__}[{items}]"
    if isinstance(value, (list, tuple)):
        inner = ", ".join(type_text(v) for v in value)
        return f"List[{inner}]" if isinstance(value, list) else f"Tuple[{inner}]"
    if isinstance(value, dict):
        items = ", ".join(f"[{k!r}, {type_text(value[k])}]" for k in sorted(value, key=repr))
        return f"Dict[{items}]"
    if value is None or isinstance(value, (bool, int, float, str, bytes)):
        return f"Literal[{value!r}]"
    return repr(value)
