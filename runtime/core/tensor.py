"""Tensors: eager ones hold a numpy value, symbolic ones are an op's output in a graph.

>>> import runtime as rt
>>> rt.constant([1, 2]) * 3
<rt.Tensor: shape=(2,), dtype=int32, numpy=array([3, 6], dtype=int32)>

Operators (``+``, ``[]``, ``<`` ...) are installed on ``Tensor`` by the op
modules, so that both kinds of tensor share them.
"""

from __future__ import annotations

import numpy as np

from runtime import errors
from runtime.core import dtypes
from runtime.core.dtypes import DType
from runtime.core.tensor_shape import TensorShape


class Tensor:
    """A multi-dimensional array of one dtype: eager (a value) or symbolic (a graph edge)."""

    __slots__ = ()
    # Makes numpy defer to our reflected operators: ``np.float32(2) * t`` gives a Tensor.
    __array_priority__ = 100

    @property
    def ndim(self):
        return self.shape.rank

    def get_shape(self) -> TensorShape:
        return self.shape

    def ref(self):
        """A hashable reference to this tensor, for use as a dict key or set member."""
        return TensorRef(self)


class TensorRef:
    """Wraps a tensor or variable so it can be hashed by identity (``tensor.ref()``,
    ``variable.ref()``): two references are equal when they wrap the same object."""

    __slots__ = ("_tensor",)

    def __init__(self, tensor):
        self._tensor = tensor

    def deref(self):
        return self._tensor

    def __hash__(self):
        return id(self._tensor)

    def __eq__(self, other):
        return isinstance(other, TensorRef) and other._tensor is self._tensor

    def __repr__(self):
        return f"<Reference wrapping {self._tensor!r}>"


_SCALAR = TensorShape(())


class EagerTensor(Tensor):
    """A tensor with a value, produced by running an op at once."""

    # _keras_mask: the Keras mask a layer attached (rt.keras.backend.get_keras_mask). Set to
    # None when made: reading it is then as cheap as any attribute (an unset slot raises).
    __slots__ = ("_value", "dtype", "_shape", "_keras_mask")

    def __init__(self, value, dtype: DType):
        self._value = value  # np.ndarray or np.generic, never mutated
        self.dtype = dtype
        self._shape = None
        self._keras_mask = None

    @property
    def shape(self) -> TensorShape:
        if self._shape is None:
            value = self._value
            if type(value) is np.ndarray:
                self._shape = TensorShape.of_array(value.shape)
            elif isinstance(value, np.generic) or self.dtype.is_opaque:
                self._shape = _SCALAR  # most eager values in scalar code: one shared shape
            else:
                self._shape = TensorShape.of_array(np.shape(value))
        return self._shape

    def numpy(self):
        """The value as numpy: a scalar (``bytes`` for strings) or a copy of the array."""
        value = self._value
        if isinstance(value, np.ndarray):
            return value[()] if value.ndim == 0 else value.copy()
        return value

    @property
    def name(self):
        raise AttributeError("Tensor.name is undefined when executing eagerly.")

    @property
    def graph(self):
        raise AttributeError("Tensor.graph is undefined when executing eagerly.")

    @property
    def op(self):
        raise AttributeError("Tensor.op is undefined when executing eagerly.")

    def __array__(self, dtype=None, copy=None):
        value = np.asarray(self._value)
        return value if dtype is None else value.astype(dtype)

    def __bool__(self):
        return bool(self._value)

    def __index__(self):
        if not self.dtype.is_integer:
            raise TypeError(f"Only integer tensors can be used as an index, not {self.dtype.name}")
        return int(self._value)

    def __int__(self):
        return int(self._value)

    def __float__(self):
        return float(self._value)

    def __len__(self):
        if self.shape.rank == 0:
            raise TypeError("Scalar tensor has no `len()`")
        return len(self._value)

    def __iter__(self):
        if self.shape.rank == 0:
            raise TypeError("Cannot iterate over a scalar tensor.")
        dtype = self.dtype
        return (EagerTensor(v, dtype) for v in self._value)

    def __hash__(self):
        raise TypeError("Tensor is unhashable. Instead, use tensor.ref() as the key.")

    def __format__(self, format_spec):
        """As TensorFlow formats an eager tensor: as its numpy value (``f"{t:.2f}"``)."""
        return format(self.numpy(), format_spec)

    def __repr__(self):
        return f"<rt.Tensor: shape={self.shape}, dtype={self.dtype.name}, numpy={_numpy_text(self, True)}>"

    def __str__(self):
        return f"rt.Tensor({_numpy_text(self, False)}, shape={self.shape}, dtype={self.dtype.name})"


def _numpy_text(t: EagerTensor, is_repr: bool) -> str:
    value = t.numpy()
    if isinstance(value, np.ndarray):
        text = repr(value) if is_repr else str(value)
        return "\n" + text if "\n" in text else text  # TensorFlow's, in repr and str alike
    if isinstance(value, bytes):
        return repr(value)
    return str(value)


class SymbolicTensor(Tensor):
    """An output of an op in a graph: it has a dtype and a (maybe partial) shape, no value."""

    __slots__ = ("op", "value_index", "dtype", "_shape", "_keras_mask")  # see EagerTensor

    def __init__(self, op, value_index: int, dtype: DType, shape: TensorShape):
        self.op = op
        self.value_index = value_index
        self.dtype = dtype
        self._shape = shape
        self._keras_mask = None

    @property
    def shape(self) -> TensorShape:
        return self._shape

    def set_shape(self, shape):
        """Refines the static shape; ValueError if it contradicts what is known."""
        self._shape = self._shape.merge_with(shape)

    @property
    def name(self) -> str:
        return f"{self.op.name}:{self.value_index}"

    @property
    def graph(self):
        return self.op.graph

    @property
    def numpy(self):
        """Missing, as TensorFlow's symbolic tensors have no ``numpy``: ``hasattr(t, "numpy")``
        is False, and ``t.numpy()`` raises ``rt.errors.SymbolicValueError`` (an
        ``AttributeError`` and a ``NotImplementedError``)."""
        # TensorFlow's message, which the guide prints; why and what to do instead is a note,
        # which a traceback shows under it.
        error = errors.SymbolicValueError("'SymbolicTensor' object has no attribute 'numpy'")
        error.__notes__ = [
            f"numpy() is only available on eager tensors. {self.name!r} is symbolic: its value "
            "exists only when the graph runs (Session.run, or calling the traced function). "
            "Inside an ag.function, return the tensor and call .numpy() on the result, or print "
            "it with rt.print."
        ]
        raise error

    def __array__(self, dtype=None, copy=None):
        raise NotImplementedError(
            f"Cannot convert the symbolic tensor {self.name!r} to a numpy array: "
            "its value exists only when the graph runs."
        )

    def __bool__(self):
        raise errors.OperatorNotAllowedInGraphError(
            f"Using the symbolic tensor {self.name!r} as a Python bool is not allowed: its value "
            "is only known when the graph runs. Use rt.cond(pred, true_fn, false_fn) for a branch "
            "or rt.while_loop(...) for a loop, or decorate the function with @ag.function so that "
            "AutoGraph converts `if` and `while` on tensors. (Inside @ag.function, this comes from "
            "a construct AutoGraph does not convert, such as `assert`, a comprehension's `if`, or "
            "an unconverted helper: use rt ops such as rt.cond or rt.debugging.assert_equal there.)"
        )

    def __index__(self):
        raise TypeError(f"The symbolic tensor {self.name!r} cannot be used as a Python index.")

    def __len__(self):
        first = self._shape[0] if self._shape.rank else None
        if first is None:
            raise TypeError(
                f"len of the symbolic tensor {self.name!r} is unknown: its first dimension "
                f"is not known statically (shape {self._shape}). Use rt.shape(t)[0]."
            )
        return first

    def __iter__(self):
        if self._shape.rank == 0:
            raise TypeError("Cannot iterate over a scalar tensor.")
        first = self._shape[0] if self._shape.rank else None
        if first is None:
            raise errors.OperatorNotAllowedInGraphError(
                f"Iterating over the symbolic tensor {self.name!r} is not allowed: its first "
                "dimension is unknown. Use rt.while_loop, or @ag.function, which converts `for` loops."
            )
        return (self[i] for i in range(first))

    __hash__ = object.__hash__

    def __format__(self, format_spec):
        if not format_spec:
            return str(self)
        raise TypeError(
            f"Cannot format the symbolic tensor {self.name!r} with {format_spec!r}: its value is "
            "only known when the graph runs. Format it there: rt.strings.as_string(t) or rt.print(t)."
        )

    def __repr__(self):
        return f"<rt.Tensor '{self.name}' shape={self._shape} dtype={self.dtype.name}>"

    def __str__(self):
        """As TensorFlow's: ``Tensor("a:0", shape=(), dtype=int32)``, what ``print`` shows of
        an argument while tracing (no shape when even its rank is unknown)."""
        shape = "" if self._shape.rank is None else f", shape={self._shape}"
        device = getattr(self.op, "device", "")
        return f'Tensor("{self.name}"{shape}, dtype={self.dtype.name}' + (
            f", device={device})" if device else ")"
        )


# --- Python values to numpy values ----------------------------------------------------------

_INT32 = np.iinfo(np.int32)
_INT_BOUNDS = {
    d.name: (int(np.iinfo(d.as_numpy_dtype).min), int(np.iinfo(d.as_numpy_dtype).max))
    for d in (dtypes.int8, dtypes.int16, dtypes.int32, dtypes.int64, dtypes.uint8)
}


def _default_numpy(value):
    """A Python or numpy value as numpy, with TensorFlow's default dtypes."""
    if isinstance(value, (np.ndarray, np.generic)):
        if value.dtype.kind in "SUO":  # object arrays too: their str elements become UTF-8
            return _to_bytes_array(value)
        return value
    if isinstance(value, bool):
        return np.bool_(value)
    if isinstance(value, int):
        if _INT32.min <= value <= _INT32.max:
            return np.int32(value)
        return np.int64(value)
    if isinstance(value, float):
        return np.float32(value)
    if isinstance(value, (str, bytes)):
        return _to_bytes_array(value)
    if isinstance(value, (list, tuple)):
        return _sequence_to_numpy(value)
    if value is None:
        raise TypeError("Attempt to convert None to a tensor: None is not a value.")
    raise TypeError(f"Cannot convert {value!r} (of type {type(value).__name__}) to a tensor.")


def _sequence_to_numpy(value):
    flat = [_leaf_value(v) for v in value]
    try:
        arr = np.array(flat)
    except ValueError:
        arr = None
    if arr is None or (arr.dtype == object and not _all_text(flat)):
        raise ValueError(f"Can't convert non-rectangular Python sequence to a tensor: {value!r}")
    kind = arr.dtype.kind
    if kind in "SU" or arr.dtype == object:
        return _to_bytes_array(arr)
    if kind == "i" and arr.dtype.itemsize == 8 and _fits_int32(arr) and not _has_numpy_int64(flat):
        return arr.astype(np.int32)
    if kind == "f" and arr.dtype == np.float64 and not _has_numpy_float64(flat):
        return arr.astype(np.float32)
    return arr


def _leaf_value(v):
    if isinstance(v, EagerTensor):
        return v._value
    if isinstance(v, SymbolicTensor):
        raise TypeError(
            f"Cannot make one constant of a sequence holding the symbolic tensor {v.name!r}: "
            "use rt.stack([...]) to combine tensors into one."
        )
    if isinstance(v, (list, tuple)):
        return [_leaf_value(x) for x in v]
    if isinstance(v, str):
        return v.encode()
    return v


def _all_text(flat):
    return all(isinstance(x, bytes) or (isinstance(x, list) and _all_text(x)) for x in flat)


def _fits_int32(arr):
    return arr.size == 0 or (arr.min() >= _INT32.min and arr.max() <= _INT32.max)


def _has_numpy_int64(flat):
    return any(isinstance(x, np.ndarray | np.generic) and x.dtype == np.int64 for x in flat)


def _has_numpy_float64(flat):
    return any(isinstance(x, np.ndarray | np.generic) and x.dtype == np.float64 for x in flat)


def _to_bytes_array(value):
    """``value`` as an object array of ``bytes``: text is encoded as UTF-8, as TensorFlow does."""
    arr = np.array(value, dtype=object)
    flat = arr.reshape(-1)  # a view: writing to it writes to arr
    for i, item in enumerate(flat):
        if type(item) is bytes:
            continue
        if isinstance(item, str):  # np.str_ too
            flat[i] = item.encode()
        elif isinstance(item, bytes):  # np.bytes_
            flat[i] = bytes(item)
        else:
            raise TypeError(f"Cannot convert {item!r} to a string tensor element.")
    return arr


def to_numpy(value, dtype: DType | None = None, cast_numpy: bool = True):
    """Converts a Python or numpy value to a numpy value of ``dtype`` (or the default dtype).

    Python scalars only take a dtype of a compatible kind (an ``int`` may become
    float32, a ``float`` may not become int32). numpy values are cast when
    ``cast_numpy``; else, as TensorFlow's conversion, only to a dtype of a compatible kind
    (a float64 array becomes float32, a float array never int32).
    """
    if dtype is None:
        return _default_numpy(value)
    kind = type(value)
    if kind is int and dtype.is_integer:  # the common case (x + 1): no arrays on the way
        low, high = _INT_BOUNDS[dtype.name]
        if low <= value <= high:
            return dtype.as_numpy_dtype(value)
    elif kind is float and dtype.is_floating or kind is bool and dtype is dtypes.bool_:
        return dtype.as_numpy_dtype(value)
    if dtype is dtypes.string:
        return _to_bytes_array(value)
    is_numpy = isinstance(value, (np.ndarray, np.generic))
    if is_numpy and value.dtype == dtype._np:
        return value
    if not is_numpy or not cast_numpy:
        _check_kinds(value, dtype)
    target = dtype._np
    arr = np.asarray(_leaf_value(value) if isinstance(value, list | tuple) else value)
    if arr.dtype.kind == "i" and dtype.is_integer and arr.size:
        info = np.iinfo(target)
        if arr.min() < info.min or arr.max() > info.max:
            raise ValueError(f"Value {value!r} is out of range for dtype {dtype.name}")
    out = arr.astype(target)
    return out[()] if out.ndim == 0 else out


def _check_kinds(value, dtype):
    if isinstance(value, np.ndarray) and value.dtype != object:
        if not dtypes.compatible_kind(value.dtype.type(), dtype):  # by the array's kind, empty too
            raise TypeError(
                f"Cannot convert a numpy array of dtype {value.dtype} to a tensor of dtype "
                f"{dtype.name}: a {value.dtype} does not silently become {dtype.name}."
            )
        return
    for leaf in _python_leaves(value):
        if not dtypes.compatible_kind(leaf, dtype):
            raise TypeError(
                f"Cannot convert {leaf!r} to a tensor of dtype {dtype.name}: "
                f"a {type(leaf).__name__} does not silently become {dtype.name}."
            )


def _python_leaves(value):
    if isinstance(value, (list, tuple)):
        for v in value:
            yield from _python_leaves(v)
    elif isinstance(value, np.ndarray):
        if value.size:
            yield value.flat[0]
    elif isinstance(value, EagerTensor):
        yield from _python_leaves(value._value)
    else:
        yield value
