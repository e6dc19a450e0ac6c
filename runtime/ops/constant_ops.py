"""Making tensors: constants and conversion, casts, placeholders and ranges."""

from __future__ import annotations

import contextlib
import contextvars

import numpy as np

from runtime import errors
from runtime.core import attr_kinds as kinds
from runtime.core import context, dtypes
from runtime.core.forms import Bound, Call, Form, Input
from runtime.core.graph import constant_in_graph, placeholder_in_graph, scalar_constant
from runtime.core.op_def import NotDifferentiable, OpDef
from runtime.core.tensor import EagerTensor, SymbolicTensor, Tensor, to_numpy
from runtime.core.tensor_shape import TensorShape, as_shape
from runtime.ops.registry import bind1

# --- constants and conversion -------------------------------------------------------------


def _make_constant(value, dtype, name):
    if isinstance(value, np.ndarray):
        value = value.copy()  # a tensor never changes, even if the caller's array does
    graph = context.building_graph()
    if graph is None:
        return EagerTensor(value, dtype)
    return constant_in_graph(graph, value, dtype, name or "Const")


def constant(value, dtype=None, shape=None, name=None) -> Tensor:
    """A tensor holding ``value``: ``int`` -> int32, ``float`` -> float32, ``str`` -> string.

    >>> constant([[1, 2], [3, 4]]).shape
    TensorShape([2, 2])
    >>> constant(0.5, shape=[2])
    <rt.Tensor: shape=(2,), dtype=float32, numpy=array([0.5, 0.5], dtype=float32)>
    """
    if isinstance(value, Tensor):
        value = value.numpy()
    if holds_tensors(value):
        if shape is not None:
            raise TypeError(
                "constant: a list holding symbolic tensors is packed into one tensor, which has "
                "its own shape; reshape it with rt.reshape instead of passing shape."
            )
        return convert_to_tensor(value, dtype, name)
    dtype = dtypes.as_dtype(dtype) if dtype is not None else None
    arr = to_numpy(value, dtype)
    if dtype is None:
        dtype = dtypes.as_dtype(arr.dtype)
    if shape is not None:
        shape = tuple(as_shape(shape).as_list())
        if int(np.prod(shape)) == np.size(arr):
            arr = np.reshape(arr, shape)
        elif np.size(arr) == 1:
            arr = np.full(shape, np.reshape(arr, ()), dtype=arr.dtype)
        else:
            raise TypeError(
                f"Expected a value with {int(np.prod(shape))} elements for shape {list(shape)}, "
                f"got {np.size(arr)}"
            )
        arr = arr[()] if arr.ndim == 0 else arr
    return _make_constant(arr, dtype, name)


def convert_to_tensor(value, dtype=None, name=None, dtype_hint=None) -> Tensor:
    """``value`` as a tensor: tensors pass through, variables are read, the rest becomes a constant.

    A tensor of another dtype than a requested ``dtype`` raises TypeError naming both. A
    Python or numpy value takes it where its kind allows, as TensorFlow converts: a float64
    array becomes float32, an int array float32, a float array never int32.

    >>> convert_to_tensor(3, dtype=dtypes.float32)
    <rt.Tensor: shape=(), dtype=float32, numpy=3.0>
    """
    if isinstance(value, Tensor):
        if dtype is not None and value.dtype is not dtypes.as_dtype(dtype):
            raise TypeError(
                f"Tensor conversion requested dtype {dtypes.as_dtype(dtype).name} for a tensor "
                f"of dtype {value.dtype.name}"
            )
        return value
    to_tensor = getattr(value, "_as_tensor", None)
    if to_tensor is not None:
        return convert_to_tensor(to_tensor(), dtype, name)
    if holds_tensors(value):
        return _sequence_packer[0](value, dtype, name)
    if dtype is None and dtype_hint is not None:
        try:
            return convert_to_tensor(value, dtype_hint, name)
        except (TypeError, ValueError):
            pass
    dtype = dtypes.as_dtype(dtype) if dtype is not None else None
    arr = to_numpy(value, dtype, cast_numpy=False)
    dtype = dtype or dtypes.as_dtype(arr.dtype)
    graph = context.building_graph()
    if graph is not None and name is None and isinstance(value, (int, float)):
        return scalar_constant(graph, arr, dtype)  # a Python number: one Const per value
    return _make_constant(arr, dtype, name)


# --- lists holding tensors -----------------------------------------------------------------
#
# A list or tuple with symbolic tensors in it, where one tensor is expected (``rt.concat((v,
# [i]), 0)``), is packed into one tensor by Pack ops, as TensorFlow's autopacking does: the
# packer is registered by ``array_ops``, where the Pack row lives.

_sequence_packer = []


def register_sequence_packer(pack):
    """``pack(value, dtype, name)`` makes one tensor of a list holding tensors; set once."""
    _sequence_packer[:] = [pack]


def holds_tensors(value) -> bool:
    """Whether ``value`` is a (nested) list or tuple with a symbolic tensor or a variable in it.

    Eager tensors alone do not count: their values make a constant directly.
    """
    if not isinstance(value, (list, tuple)):
        return False
    return any(
        isinstance(v, SymbolicTensor) or hasattr(v, "_as_tensor") or holds_tensors(v) for v in value
    )


def constant_value(t):
    """The value of ``t`` if it is known without running a graph, else None.

    Its op's row says when (``OpDef.static_value``): a Const, the shape of a
    fully known tensor, a Pack or Cast of known values. While a saved graph is
    rebuilt (``static_values_once``), each tensor's value is computed once.
    """
    if isinstance(t, EagerTensor):
        return t._value
    if not isinstance(t, SymbolicTensor):
        return None
    known = t.op.opdef.static_value
    if known is None:
        return None
    if len(t.op.outputs) > 1:  # (an Unpack's: its row gives them all)
        known = _output_of(known, t.value_index)
    once = _static_values.get()
    return known(t.op) if once is None else once.value(t, known)


def _output_of(known, index):
    def value(op):
        values = known(op)
        return None if values is None else values[index]

    return value


MAX_FOLDED_ELEMENTS = 1024
"""The most elements an input of ``folded_value`` may have: enough for shape arithmetic."""


def folded_value(op):
    """The value of ``op`` computed by its kernel while the graph is built, when its inputs'
    values are known and small (a shape's: ``shape(x)[0]``, ``concat`` of dims), as
    TensorFlow's shape inference evaluates them; else None. Its ``static_value``."""
    try:
        values = [constant_value(x) for x in op.inputs]
    except RecursionError:  # a chain of ops too long to follow: its value is not known now
        return None
    if any(v is None or np.size(v) > MAX_FOLDED_ELEMENTS for v in values):
        return None
    try:
        with np.errstate(all="ignore"):
            return op.opdef.kernel(*values, **op.attrs)
    except Exception:  # the kernel refuses them: the op fails when it runs, not now
        return None


class _StaticValues:
    """The static values of one graph being rebuilt: each computed once, within limits.

    A value of more than ``MAX_STATIC_ELEMENTS`` elements, or one past
    ``MAX_STATIC_TOTAL`` elements in all, counts as unknown (None): a chain of
    Packs, each stacking the one before twice, costs one step per op, not one
    per path through the chain, and at most the limits in memory.
    """

    def __init__(self):
        self._values = {}  # id(tensor) -> (tensor, value): kept alive, its id stays its own
        self._total = 0

    def value(self, t, known):
        entry = self._values.get(id(t))
        if entry is not None:
            return entry[1]
        size = t.shape.num_elements()
        value = None
        if (
            size is not None
            and size <= MAX_STATIC_ELEMENTS
            and self._total + size <= MAX_STATIC_TOTAL
        ):
            value = known(t.op)
            self._total += size
        self._values[id(t)] = (t, value)
        return value


MAX_STATIC_ELEMENTS = 1 << 16  # as many as one op has outputs at most (a shape has <= 254)
MAX_STATIC_TOTAL = 1 << 22
_static_values = contextvars.ContextVar("static_values", default=None)


@contextlib.contextmanager
def static_values_once():
    """Within it, ``constant_value`` computes each tensor's value once, within limits.

    For rebuilding a graph whose shapes no longer change (loading a saved
    model): a value computed once stays right only while its inputs' shapes do.
    """
    token = _static_values.set(_StaticValues())
    try:
        yield
    finally:
        _static_values.reset(token)


def static_int(value, what):
    """An int argument (an axis, a count) that may be given as a tensor of known value."""
    if isinstance(value, Tensor):
        known = constant_value(value)
        if known is None or np.ndim(known) != 0:
            raise TypeError(
                f"{what} must be an integer known when the graph is built, got {value!r}"
            )
        value = known
    return int(value)


def static_ints(values, what):
    """A tuple of ints (axes, a permutation): a list, an int, or a tensor of known value."""
    if values is None:
        return None
    if isinstance(values, Tensor):
        known = constant_value(values)
        if known is None:
            raise TypeError(f"{what} must be known when the graph is built, got {values!r}")
        values = known
    if np.ndim(values) == 0:
        return (static_int(values, what),)
    return tuple(static_int(v, what) for v in np.reshape(values, -1).tolist())


def list_operands(values, op_name):
    """A list of tensors; Python values take the dtype of the first tensor among them."""
    values = list(values)
    if not values:
        raise ValueError(f"{op_name} needs at least one input tensor")
    first = next((v for v in values if is_tensor_like(v)), None)
    if first is None:
        return [convert_to_tensor(v) for v in values]
    dtype = convert_to_tensor(first).dtype
    return [
        convert_to_tensor(v) if is_tensor_like(v) else convert_to_tensor(v, dtype) for v in values
    ]


def is_tensor_like(v):
    return isinstance(v, Tensor) or hasattr(v, "_as_tensor")


# --- placeholders ---------------------------------------------------------------------------


def placeholder(dtype, shape=None, name=None):
    """A graph input whose value is given at run time (``Session.run(feed_dict=...)``).

    >>> import runtime as rt
    >>> with rt.Graph().as_default():
    ...     x = rt.placeholder(rt.float32, shape=[None, 3], name="x")
    >>> x
    <rt.Tensor 'x:0' shape=(None, 3) dtype=float32>
    """
    graph = context.building_graph()
    if graph is None:
        raise RuntimeError(
            "rt.placeholder() is not compatible with eager execution: create it inside "
            "`with rt.Graph().as_default():`."
        )
    return placeholder_in_graph(graph, dtypes.as_dtype(dtype), shape, name or "Placeholder")


# --- dtype and shape -------------------------------------------------------------------------


def _cast_infer(inputs, attrs):
    x, target = inputs[0], attrs["dtype"]
    strings = (x.dtype is dtypes.string) != (target is dtypes.string)
    if strings or x.dtype.is_opaque or target.is_opaque:
        raise TypeError(f"Cannot cast a {x.dtype.name} tensor to {target.name}")
    return [(target, x.shape)]


def _cast_kernel(x, dtype):
    return x.astype(dtype.as_numpy_dtype)


def _cast_gradient(op, grad):
    source = op.inputs[0].dtype
    return (cast(grad, source) if source.is_floating else None,)


def _cast_form(op):
    """On a scalar, numpy's type is the cast: ``float32(x)`` is ``x.astype(float32)``."""
    source, target = op.inputs[0].dtype, op.attrs["dtype"]
    if op.inputs[0].shape.rank != 0 or not isinstance(target, dtypes.DType):
        return None
    if not (source.is_numeric or source.is_bool) or not (target.is_numeric or target.is_bool):
        return None
    cast_to = Bound(target.as_numpy_dtype, target.name, shared=True)
    return Form(Call(cast_to, Input(0)), inlinable=True)


def _cast_value(op):
    """A Cast's value when its input's is known: graphs fold it while tracing."""
    value = constant_value(op.inputs[0])
    return None if value is None else np.asarray(value).astype(op.attrs["dtype"].as_numpy_dtype)


CAST = OpDef(
    "Cast",
    _cast_kernel,
    infer=_cast_infer,
    attrs={"dtype": kinds.DTYPE},
    gradient=_cast_gradient,
    python_form=_cast_form,
    static_value=_cast_value,
)


def cast(x, dtype, name=None):
    """``x`` converted to ``dtype`` (floats to ints truncate toward zero).

    >>> cast(constant([1.7, -1.7]), dtypes.int32).numpy()
    array([ 1, -1], dtype=int32)
    """
    dtype = dtypes.as_dtype(dtype)
    if not isinstance(x, Tensor) and not hasattr(x, "_as_tensor"):
        x = constant(x)
    x = convert_to_tensor(x)
    if x.dtype is dtype:
        return x
    return bind1(CAST, [x], {"dtype": dtype}, name or "Cast")


_RANGE_ORDER = [dtypes.int32, dtypes.int64, dtypes.float32, dtypes.float64]


def _range_infer(inputs, attrs):
    start, limit, delta = (constant_value(t) for t in inputs)
    for t in inputs:
        if t.shape.rank not in (0, None):
            raise ValueError(f"range() takes scalars, got a tensor of shape {t.shape}")
    if start is not None and limit is not None and delta is not None:
        if delta == 0:
            raise ValueError("range(): delta must not be 0")
        n = int(np.ceil((limit - start) / delta))
        return [(inputs[0].dtype, TensorShape([max(n, 0)]))]
    return [(inputs[0].dtype, TensorShape([None]))]


def _range(xp, start, limit, delta):
    if delta == 0:  # its bounds are known when XLA compiles (static operands)
        raise errors.InvalidArgumentError("range(): delta must not be 0")
    return xp.arange(start, limit, delta, dtype=np.result_type(start))


RANGE = OpDef(
    "Range",
    None,
    infer=_range_infer,
    gradient=NotDifferentiable("its values are an arithmetic sequence, as in TensorFlow"),
    implementation=_range,
)


def range(start, limit=None, delta=1, dtype=None, name=None):
    """Numbers from ``start`` up to (not including) ``limit``, by ``delta``.

    >>> range(5).numpy()
    array([0, 1, 2, 3, 4], dtype=int32)
    >>> range(1.0, 2.0, 0.5).numpy()
    array([1. , 1.5], dtype=float32)
    """
    if limit is None:
        start, limit = 0, start
    args = [start, limit, delta]
    if dtype is None:
        found = [a.dtype if isinstance(a, Tensor) else convert_to_tensor(a).dtype for a in args]
        dtype = max(found, key=lambda d: _RANGE_ORDER.index(d) if d in _RANGE_ORDER else 0)
    dtype = dtypes.as_dtype(dtype)
    tensors = [a if isinstance(a, Tensor) and a.dtype is dtype else cast(a, dtype) for a in args]
    return bind1(RANGE, tensors, name=name or "range")


def convert_pair(x, y):
    """Two operands as tensors, a Python value taking the other's dtype (the first's, for two
    Python values).

    >>> [t.dtype.name for t in convert_pair(1.0, [1, 2])]
    ['float32', 'float32']

    Two tensors are returned as they are: the op's own check reports a dtype
    mismatch, naming the op and both dtypes.
    """
    if isinstance(x, Tensor) and isinstance(y, Tensor):
        return x, y  # the common case, first: every binary op on two tensors
    x_is = isinstance(x, Tensor) or hasattr(x, "_as_tensor")
    y_is = isinstance(y, Tensor) or hasattr(y, "_as_tensor")
    if x_is and y_is:
        return convert_to_tensor(x), convert_to_tensor(y)
    if x_is:
        x = convert_to_tensor(x)
        return x, convert_to_tensor(y, dtype=x.dtype)
    if y_is:
        y = convert_to_tensor(y)
        return convert_to_tensor(x, dtype=y.dtype), y
    # Two Python values: the second takes the first's dtype where it can, as TensorFlow's ops
    # convert their inputs in order (rt.add(1.0, [1, 2]) is float32); where it cannot
    # (rt.add([1, 2], 1.5)), the op's own check names both dtypes.
    x = convert_to_tensor(x)
    try:
        return x, convert_to_tensor(y, dtype=x.dtype)
    except (TypeError, ValueError):
        return x, convert_to_tensor(y)


# --- samples: what the op's tests run it on (runtime.ops.op_info) ---
from runtime.ops.op_info import Sample, op_info  # noqa: E402

_PYTHON_TYPE = {"f": float, "i": int, "u": int, "b": bool}  # int() truncates toward zero


def _cast_reference(x, dtype):
    kind = np.dtype(dtype.as_numpy_dtype)
    return np.asarray([_PYTHON_TYPE[kind.kind](v) for v in x.flat], kind).reshape(x.shape)


def _cast_samples(rng):
    def draw(*shape, dtype="float64"):
        return rng.uniform(-3.0, 3.0, shape).astype(dtype)

    return [
        Sample((draw(2, 3, dtype="float32"),), {"dtype": dtypes.int32}),
        Sample((draw(3),), {"dtype": dtypes.int64}),
        Sample((np.array([-2, 0, 7], np.int32),), {"dtype": dtypes.float64}),
        Sample((np.array([[True, False]]),), {"dtype": dtypes.float32}),
    ]


op_info("rt.cast", _cast_samples, _cast_reference)(cast)
