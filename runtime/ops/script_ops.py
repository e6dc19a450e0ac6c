"""``rt.py_function``: Python called when the op runs, as TensorFlow's ``tf.py_function``.

Eagerly the function is called at once on the eager tensors. In a graph it is one stateful
``EagerPyFunc`` op: each time the graph runs, the function is called on eager tensors holding
the inputs' values, and what it returns is converted to ``Tout``. Where a gradient may be
taken (a tape records, or the graph holds the op's gradient), the function runs under a tape
of its own, kept with the run; the gradient (``runtime.gradients.py_function``, also an
``EagerPyFunc`` op in a graph) differentiates that tape, as TensorFlow does, and never calls
the function again. Each run is tied to the run of the op, not to the thread: the op has one
hidden int64 output more than ``Tout``, the run's id, which its gradient op takes as an input
(``ForwardRun.find``); so two runs of one graph, or the iterations of a loop, each get the
gradient of their own run. A graph holding one cannot be saved (the function is Python, which a
saved model never holds), compiled by XLA or exported to ONNX.

>>> import runtime as rt
>>> with rt.Graph().as_default() as g:
...     x = rt.placeholder(rt.float32, [])
...     y = rt.py_function(lambda t: t.numpy() ** 2 + 1, [x], rt.float32)
>>> float(rt.Session(g).run(y, {x: 3.0}))
10.0
"""

from __future__ import annotations

import functools

import numpy as np

from runtime import errors
from runtime.core import attr_kinds as kinds
from runtime.core import context, dtypes
from runtime.core.op_def import OpDef
from runtime.core.tensor import EagerTensor, Tensor
from runtime.core.tensor_shape import TensorShape
from runtime.ops.constant_ops import convert_to_tensor
from runtime.ops.custom_gradient_ops import CUSTOM_GRADIENT
from runtime.ops.registry import bind

# Calls a PythonFunction under a tape and keeps the run (``runtime.gradients.py_function``'s
# ``run_on_tape``, set as that module loads: the tape is a layer above the ops).
run_on_tape = None


class PythonFunction:
    """The Python callable an ``EagerPyFunc`` op runs: what a saved model cannot hold."""

    __slots__ = ("func", "single", "differentiated")

    not_saved_because = (
        "a graph holding rt.py_function cannot be saved: the Python function it calls is not "
        "part of the graph, and a saved model never holds code (TensorFlow does not serialize "
        "it either). Compute the value with ops, or save the model without that function"
    )

    def __init__(self, func, single=False):
        self.func = func
        self.single = single  # Tout was one dtype: what func returns is one value
        self.differentiated = False  # set once a graph holds the op's gradient

    @property
    def name(self):
        return getattr(self.func, "__qualname__", type(self.func).__name__)

    def __call__(self, inputs, Tout):
        """``func`` on eager tensors of ``inputs`` (numpy values): the values it returns, then
        the run's id (``NO_RUN`` where no gradient may be taken, so none is kept)."""
        tensors = [EagerTensor(v, t) for v, t in inputs]
        with context.eager_mode():
            if self.differentiated or context.recording_tapes():
                run = run_on_tape(self, tensors, Tout)
                returned, run_id = run.outputs, run.id_value()
            else:
                returned = call_converting(self, tensors, Tout)
                run_id = np.array(NO_RUN, np.int64)
        return (*[t._value for t in returned], run_id)


NO_RUN = 0  # the run id of a run kept for no gradient


_DTYPES = kinds.AttrKind(
    "a tuple of dtypes",
    lambda v: type(v) is tuple and all(isinstance(d, dtypes.DType) for d in v),
)


# What an exception the function raises becomes, as in TensorFlow; any other: UnknownError.
_ERRORS = (
    ((ValueError, TypeError), errors.InvalidArgumentError),
    (StopIteration, errors.OutOfRangeError),
    (MemoryError, errors.ResourceExhaustedError),
    (NotImplementedError, errors.UnimplementedError),
)


def call_converting(function, tensors, Tout):
    """``function.func(*tensors)`` as a list of tensors of the dtypes ``Tout``; what the
    function raises becomes TensorFlow's error for it (``_ERRORS``)."""
    try:
        returned = function.func(*tensors)
        if function.single:
            outputs = [returned]
        elif returned is None and not Tout:
            outputs = []
        else:
            outputs = returned if isinstance(returned, list | tuple) else [returned]
        if len(outputs) != len(Tout):
            raise ValueError(f"it returned {len(outputs)} values for {len(Tout)} dtypes in Tout")
        return [convert_to_tensor(v, dtype) for v, dtype in zip(outputs, Tout)]
    except errors.OpError:
        raise
    except Exception as e:
        raise _op_error(function, e) from e


def _op_error(function, error):
    kind = next((kind for raised, kind in _ERRORS if isinstance(error, raised)), None)
    message = f"{type(error).__name__}: {error} (in {function.name}, called by rt.py_function)"
    return (kind or errors.UnknownError)(message)


def _kernel(*values, function, Tout, input_dtypes):
    return function(zip(values, input_dtypes), Tout)


def _infer(inputs, attrs):
    if tuple(t.dtype for t in inputs) != attrs["input_dtypes"]:
        raise TypeError("EagerPyFunc: its inputs do not have the dtypes it was made for")
    results = [(dtype, TensorShape(None)) for dtype in attrs["Tout"]]
    return [*results, (dtypes.int64, TensorShape([]))]  # and the run's id


PY_FUNCTION = OpDef(
    "EagerPyFunc",
    _kernel,
    _infer,
    stateful=True,  # Python may do anything, and must run every time, in order
    attrs={
        "function": kinds.AttrKind("a Python function", lambda v: isinstance(v, PythonFunction)),
        "Tout": _DTYPES,
        "input_dtypes": _DTYPES,
    },
    # set by runtime.gradients.py_function as it loads: the rule runs a tape
)


def py_function(func=None, inp=None, Tout=None, name=None):
    """Calls the Python function ``func`` on ``inp`` (a list of tensors) when the op runs, and
    returns what it returns as tensors of ``Tout`` (a dtype: one tensor; a list of dtypes: a
    list), as TensorFlow's ``tf.py_function``.

    ``func`` is given eager tensors (``.numpy()`` works) every time the op runs: eagerly at
    once, in an ``ag.function`` or a Session each time the graph runs. The results' shapes
    are unknown in a graph. Gradients of its floating-point inputs flow through it, from the
    tape ``func`` ran under (the same run, never a second call; zero where ``func`` computed
    with numpy). A graph holding one cannot be saved, compiled with ``jit_compile=True`` or
    exported to ONNX. What ``func`` raises is TensorFlow's error for it when it runs:
    ValueError and TypeError an ``InvalidArgumentError``, StopIteration an
    ``OutOfRangeError``, MemoryError a ``ResourceExhaustedError``, NotImplementedError an
    ``UnimplementedError``, anything else an ``UnknownError``.

    Without ``func`` (and ``inp``), a decorator, as in TensorFlow: the function it makes runs
    ``func`` through the op on the arguments it is called with.

    >>> import runtime as rt
    >>> rt.py_function(lambda a, b: a.numpy() + b.numpy(), [1.0, 2.0], rt.float32).numpy()
    np.float32(3.0)
    >>> @rt.py_function(Tout=rt.float32)
    ... def total(a, b):
    ...     return a.numpy() + b.numpy()
    >>> total(1.0, 2.0).numpy()
    np.float32(3.0)
    """
    if Tout is None:
        raise TypeError("py_function: give Tout, the dtype (or list of dtypes) func returns")
    if func is None:
        return functools.partial(_decorated, Tout=Tout, name=name)
    if inp is None:  # (decorating: ``rt.py_function(f, Tout=...)`` makes the function)
        return _decorated(func, Tout, name)
    single = not isinstance(Tout, list | tuple)
    function = func if isinstance(func, PythonFunction) else PythonFunction(func, single)
    out_dtypes = tuple(dtypes.as_dtype(d) for d in ([Tout] if single else Tout))
    inputs = [t if isinstance(t, Tensor) else convert_to_tensor(t) for t in inp]  # (reads)
    if context.building_graph() is None:
        outputs = _call_eagerly(function, inputs, out_dtypes)
    else:
        attrs = {
            "function": function,
            "Tout": out_dtypes,
            "input_dtypes": tuple(t.dtype for t in inputs),
        }
        *outputs, _run_id = bind(PY_FUNCTION, inputs, attrs, name=name or "EagerPyFunc")
    return outputs[0] if single else list(outputs)


def _decorated(func, Tout, name):
    @functools.wraps(func)
    def run_through_the_op(*args):
        return py_function(func, list(args), Tout, name)

    return run_through_the_op


def _call_eagerly(function, inputs, Tout):
    """``func`` called at once. While a tape records, on new tensors of the inputs' values under
    a tape of its own, its results new tensors again: recording tapes see the call as one op
    whose gradient is that tape's (as TensorFlow's EagerPyFunc op), not the ops inside."""
    tapes = context.recording_tapes()
    if not tapes:
        return call_converting(function, inputs, Tout)
    run = run_on_tape(function, [EagerTensor(t._value, t.dtype) for t in inputs], Tout)
    outputs = [EagerTensor(t._value, t.dtype) for t in run.outputs]
    wanted = [i for i, t in enumerate(inputs) if t.dtype.is_floating]
    given = [i for i, t in enumerate(outputs) if t.dtype.is_floating]

    def gradient(upstream):
        input_grads = [None] * len(inputs)
        if wanted and given:
            found = run.gradients(wanted, given, [upstream[i] for i in given])
            for i, g in zip(wanted, found):
                input_grads[i] = g
        return input_grads

    attrs = {
        "gradient": gradient,
        "arguments": len(inputs),
        "results": len(outputs),
        "connected": None,
    }
    for tape in tapes:
        tape.record_eager(CUSTOM_GRADIENT, inputs, attrs, outputs)
    return outputs
