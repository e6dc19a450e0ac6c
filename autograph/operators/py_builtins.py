"""Builtins that converted code calls instead of Python's, so that they also accept tensors.

Each runs Python's own builtin unless an argument is a symbolic tensor (one
that has a value only when a graph runs); then it builds the graph's version,
as TensorFlow's AutoGraph does for the same builtins. Eager tensors and
Python values get Python's behaviour exactly.

>>> import runtime as rt
>>> range_(3)
range(0, 3)
>>> len_(rt.constant([1, 2, 3]))
3
>>> max_(3, 5), abs_(-2)
(5, 2)
"""

from __future__ import annotations

import builtins

import runtime as rt
from autograph.operators import original_scope
from autograph.operators.backends import staging, staging_any
from autograph.operators.control_flow import is_symbolic

_UNSET = object()


def _staged(value) -> bool:
    """Whether ``value`` (or a list, tuple or dict inside it) holds a value only a graph has."""
    if is_symbolic(value):
        return True
    if isinstance(value, rt.Variable):
        return not rt.executing_eagerly()
    if isinstance(value, (list, tuple)):
        return any(_staged(v) for v in value)
    if isinstance(value, dict):
        return any(_staged(v) for v in value.values())
    return False


def range_(*args):
    """``range``; with a staged argument, the backend's range, so a ``for`` over it is staged."""
    backend = staging_any(args)
    if backend is not None:
        return backend.range(*args)
    return builtins.range(*(int(a) if isinstance(a, rt.Tensor) else a for a in args))


def len_(value):
    """``len``; a symbolic tensor of unknown length gives a tensor, a TensorArray its size."""
    if isinstance(value, rt.TensorArray):
        return value.size()
    if is_symbolic(value):
        first = value.shape[0] if value.shape.rank else None
        return first if first is not None else rt.shape(value)[0]
    return builtins.len(value)


def enumerate_(iterable, start=0):
    """``enumerate``; over a staged value, an iterable that a ``for`` stages."""
    backend = staging(iterable)
    if backend is not None:
        return backend.enumerate(iterable, start)
    return builtins.enumerate(iterable, start)


def zip_(*iterables, strict=False):
    """``zip``; with a staged value among the iterables, one that a ``for`` stages.

    For the runtime, the others become tensors too: a Python ``range`` an
    ``rt.range``, a list (of numbers or tensors) one tensor. The staged loop
    stops at the shortest; with ``strict=True`` the lengths must be known while
    tracing and equal (Python's ValueError otherwise), as TensorFlow, which
    iterates tensors in Python there, requires.
    """
    backend = staging_any(iterables)
    if backend is not None:
        if strict:
            _check_same_length(iterables)
        return backend.zip(*iterables)
    return builtins.zip(*iterables, strict=strict)


def _check_same_length(iterables):
    lengths = [_static_length(x) for x in iterables]
    if None in lengths:
        raise TypeError(
            "zip(strict=True) needs the length of each argument while tracing; argument "
            f"{lengths.index(None) + 1} is a tensor whose first dimension is unknown"
        )
    for i, n in enumerate(lengths[1:], start=2):
        if n != lengths[0]:
            relation = "shorter" if n < lengths[0] else "longer"
            raise ValueError(f"zip() argument {i} is {relation} than argument 1")


def _static_length(value):
    if isinstance(value, rt.Tensor):
        return value.shape[0] if value.shape.rank else None
    try:
        return len(value)
    except TypeError:
        return None


def as_tensor(iterable):
    if isinstance(iterable, builtins.range):
        return rt.range(iterable.start, iterable.stop, iterable.step)
    return rt.convert_to_tensor(iterable)


def print_(*objects, sep=" ", end="\n", file=None, flush=False):
    """``print``; with a symbolic tensor among ``objects``, ``rt.print``: it writes every time
    the graph runs (tensors formatted as ``rt.print`` does, ``[1 2 3]``), not once while tracing.
    """
    if any(_staged(o) for o in objects):
        sep = " " if sep is None else sep
        end = "\n" if end is None else end
        rt.print(*objects, sep=sep, end=end, output_stream=file)
        return None
    backend = staging_any(objects)  # another framework's staged values
    if backend is not None:
        backend.print(objects, " " if sep is None else sep, "\n" if end is None else end, file)
        return None
    return builtins.print(*objects, sep=sep, end=end, file=file, flush=flush)


def int_(x=0, base=_UNSET):
    """``int``; a symbolic tensor is cast to int32, as in TensorFlow."""
    if is_symbolic(x):
        if base not in (_UNSET, 10):
            raise NotImplementedError(f"int() of a tensor supports only base 10, not {base}")
        return rt.cast(x, rt.int32)
    return builtins.int(x) if base is _UNSET else builtins.int(x, base)


def float_(x=0.0):
    """``float``; a symbolic tensor is cast to float32, as in TensorFlow."""
    if is_symbolic(x):
        return rt.cast(x, rt.float32)
    return builtins.float(x)


def abs_(x):
    """``abs``; a symbolic tensor gives ``rt.abs``."""
    if is_symbolic(x):
        return rt.abs(x)
    return builtins.abs(x)


def max_(*args, **kwargs):
    """``max``; with a symbolic tensor: of one vector, its largest element; of scalars, the largest."""
    if any(is_symbolic(a) for a in args):
        return _extreme("max", rt.reduce_max, args, kwargs)
    return builtins.max(*args, **kwargs)


def min_(*args, **kwargs):
    """``min``; with a symbolic tensor: of one vector, its smallest element; of scalars, the smallest."""
    if any(is_symbolic(a) for a in args):
        return _extreme("min", rt.reduce_min, args, kwargs)
    return builtins.min(*args, **kwargs)


def _extreme(name, reduce, args, kwargs):
    if kwargs:
        raise ValueError(f"{name}() of tensors does not support the arguments {sorted(kwargs)}")
    if len(args) == 1:
        rank = args[0].shape.rank
        if rank == 0:
            return args[0]
        if rank == 1:
            return reduce(args[0], axis=0)
        raise ValueError(f"{name}(x) of a tensor supports rank 1 only, got shape {args[0].shape}")
    for a in args:
        if isinstance(a, rt.Tensor) and a.shape.rank != 0:
            raise ValueError(
                f"{name}(a, b, ...) of tensors supports scalars only, got shape {a.shape}"
            )
    return reduce(list(args), axis=0)  # the list of scalars is packed into one vector


OVERRIDES = {
    builtins.range: range_,
    builtins.len: len_,
    builtins.enumerate: enumerate_,
    builtins.zip: zip_,
    builtins.print: print_,
    builtins.int: int_,
    builtins.float: float_,
    builtins.abs: abs_,
    builtins.max: max_,
    builtins.min: min_,
    **original_scope.OVERRIDES,
}


def override_of(fn):
    """The ``ag__`` version of the builtin ``fn``, or None if it has none (or is no builtin)."""
    try:
        return OVERRIDES.get(fn)
    except TypeError:  # an unhashable callable
        return None
