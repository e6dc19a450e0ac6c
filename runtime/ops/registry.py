"""``bind``: the one place where an op either runs now or joins a graph.

Every op is an ``OpDef`` row (``runtime.core.op_def``): a type name, a numpy
kernel, a rule that infers output dtypes and shapes (and rejects bad inputs),
and flags. Eager mode runs the kernel at once; graph mode records an
``Operation``. Because both go through ``infer``, eager and graph code fail
with the same errors.

>>> import numpy as np
>>> from runtime.ops.math_ops import NEG
>>> NEG.kernel is np.negative, NEG.stateful
(True, False)
>>> bind1(NEG, [EagerTensor(np.int32(3), dtypes.int32)])
<rt.Tensor: shape=(), dtype=int32, numpy=-3>
"""

from __future__ import annotations

from runtime import errors
from runtime.core import context, dtypes, floating_point
from runtime.core.graph import FuncGraph
from runtime.core.op_def import OpDef
from runtime.core.source import caller_frame, locate
from runtime.core.tensor import EagerTensor


def bind(opdef: OpDef, inputs, attrs=None, name=None):
    """Runs ``opdef`` on ``inputs`` (tensors) now, or adds it to the graph being built.

    Returns the list of output tensors.
    """
    attrs = attrs if attrs is not None else {}
    graph = context.building_graph()
    if graph is None:
        outputs = _run_eagerly(opdef, inputs, attrs)
        for tape in context.recording_tapes():  # a graph's ops report from Graph.create_op
            tape.record_eager(opdef, inputs, attrs, outputs)
        return outputs
    return _add_to_graph(graph, opdef, inputs, attrs, name).outputs


def bind_op(opdef: OpDef, inputs, attrs=None, name=None):
    """``bind`` for ops without outputs (print, assert): returns the new Operation, or None eagerly."""
    attrs = attrs if attrs is not None else {}
    graph = context.building_graph()
    if graph is None:
        _run_eagerly(opdef, inputs, attrs)
        return None
    return _add_to_graph(graph, opdef, inputs, attrs, name)


def _add_to_graph(graph, opdef, inputs, attrs, name):
    inputs = [graph.prepare_input(t) for t in inputs]
    specs = opdef.infer(inputs, attrs)
    return graph.create_op(opdef, inputs, attrs, name or opdef.default_name, specs)


def bind1(opdef, inputs, attrs=None, name=None):
    """``bind`` for an op with exactly one output: returns that tensor."""
    return bind(opdef, inputs, attrs, name)[0]


def _run_eagerly(opdef, inputs, attrs):
    try:
        values = [t._value for t in inputs]  # only an eager tensor has a value
    except AttributeError:
        raise _outside_its_graph(opdef, inputs) from None
    specs = _infer_eagerly(opdef, inputs, attrs)
    try:
        out = run_kernel(opdef.kernel, values, attrs, opdef.type)
    except errors.OpError as error:
        if opdef.type != "Assert":  # (TensorFlow's eager assertions raise from Python: no op named)
            _name_the_op(error, opdef.type)
        raise
    if len(specs) == 1:
        return [EagerTensor(out, specs[0][0])]
    return [EagerTensor(v, dtype) for v, (dtype, _) in zip(out or (), specs)]


class DTypeMismatch(TypeError):
    """What an ``infer`` rule raises for an input whose dtype is not the first input's: a
    TypeError while a graph is built, TensorFlow's eager InvalidArgumentError eagerly."""

    def __init__(self, message, index, expected, got):
        super().__init__(message)
        self.index, self.expected, self.got = index, expected, got


# TensorFlow's names of dtypes in its kernels' messages, where they are not the Python names.
_KERNEL_DTYPE_NAMES = {"float32": "float", "float64": "double", "float16": "half"}


def _infer_eagerly(opdef, inputs, attrs):
    """``opdef.infer``, where operands it refuses with a ValueError (shapes that do not match, a
    bad axis) are TensorFlow's eager ``InvalidArgumentError`` "... [Op:MatMul]", still a
    ValueError as while building a graph, and dtypes that differ its "cannot compute ..."
    (``EagerDTypeError``, still a TypeError). Raised on its own, not during handling of the
    first."""
    try:
        return opdef.infer(inputs, attrs)
    except DTypeMismatch as error:
        expected, got = (
            _KERNEL_DTYPE_NAMES.get(d.name, d.name) for d in (error.expected, error.got)
        )
        refusal = None
        message = (
            f"cannot compute {opdef.type} as input #{error.index}(zero-based) was expected to be a "
            f"{expected} tensor but is a {got} tensor [Op:{opdef.type}]\nTensors of different "
            f"dtypes are not converted implicitly: cast input #{error.index} "
            f"({error.got.name}) with rt.cast(..., rt.{error.expected.name})."
        )
    except ValueError as error:
        if type(error) is not ValueError:  # a more precise error (structures...) stays itself
            raise
        refusal = str(error)
    if refusal is None:
        raise errors.EagerDTypeError(message)
    raise errors.EagerInvalidArgumentError(f"{refusal} [Op:{opdef.type}]")


def _name_the_op(error, op_type):
    """Ends an eager kernel's error with TensorFlow's " [Op:Type]", where it lacks one."""
    message = str(error)
    if not message.endswith("]") or " [Op:" not in message:
        error.message = f"{message} [Op:{op_type}]"
        error.args = (error.message, *error.args[1:])


def _outside_its_graph(opdef, inputs):
    """TensorFlow's TypeError for a symbolic tensor given to an eager op, saying where the op
    runs, where the tensor was made, and what to do instead."""
    t = next(t for t in inputs if not isinstance(t, EagerTensor))
    used, made = locate(caller_frame()), t.op.source
    used = f" at {used}" if used is not None else ""
    made = f" ({made})" if made is not None else ""
    if isinstance(t.graph, FuncGraph):
        origin = f"made while tracing {t.graph.graph_name!r}{made}"
        advice = (
            "That graph is out of scope and its tensor cannot be used here (TensorFlow's "
            "words): a tensor made while a function traces exists only inside that function's "
            "graph; return the value from the function, and use what the call returns."
        )
    else:
        origin = f"of a graph{made}"
        advice = (
            "Its value exists only when that graph runs: run it with rt.Session(graph).run(...), "
            "or build this op inside `with graph.as_default():` too."
        )
    return errors.LeakedTensorError(
        'An op outside of the function building code is being passed a "Graph" tensor: '
        f"{opdef.type}, executing eagerly{used}, was given {t.name!r}, {origin}. {advice}"
    )


# What a kernel raises when it refuses its inputs (numpy's errors, Python's arithmetic's).
KERNEL_FAILURES = (ValueError, IndexError, TypeError, ZeroDivisionError, OverflowError)


def run_kernel(kernel, values, attrs, label=None):
    """``kernel(*values, **attrs)`` as every executor runs a kernel: numpy's floating-point
    warnings ignored (x/0 is inf and log(-1) is nan, as in TensorFlow), and a kernel refusing
    its inputs (``KERNEL_FAILURES``) raising ``kernel_error``'s InvalidArgumentError.

    ``label`` begins the message (an eager op's type); else the exception's type does.

    >>> import numpy as np
    >>> float(run_kernel(np.divide, [np.float32(1), np.float32(0)], {}))
    inf
    >>> run_kernel(np.reshape, [np.zeros(3)], {"shape": (2,)})
    Traceback (most recent call last):
    ...
    runtime.errors.InvalidArgumentError: ValueError: cannot reshape array of size 3 into shape (2,)
    """
    token = floating_point.ignore()
    try:
        return kernel(*values, **attrs)
    except errors.OpError:
        raise
    except KERNEL_FAILURES as error:
        raise kernel_error(error, label) from error
    finally:
        floating_point.restore(token)


def kernel_error(error, label=None) -> errors.OpError:
    """The OpError that ``error``, raised by a kernel, means: an OpError is itself; any other is
    an InvalidArgumentError ``"ValueError: message"`` (``label`` in place of the type's name)."""
    if isinstance(error, errors.OpError):
        return error
    return errors.InvalidArgumentError(f"{label or type(error).__name__}: {error}")


def unary_spec(inputs, attrs):
    """Output like the input: same dtype and shape."""
    return [(inputs[0].dtype, inputs[0].shape)]


def no_outputs(inputs, attrs):
    return []


def check_dtype(op_type, t, allowed, what="input"):
    """Raises TypeError naming the op when ``t``'s dtype is not one ``allowed`` accepts."""
    if not allowed(t.dtype):
        raise TypeError(f"{op_type} does not support {what} of dtype {t.dtype.name}")


NUMERIC = lambda d: d.is_numeric  # noqa: E731
FLOATING = lambda d: d.is_floating  # noqa: E731

BOOL = lambda d: d is dtypes.bool_  # noqa: E731
ANY_DTYPE = lambda d: True  # noqa: E731
