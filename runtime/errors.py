"""Exceptions raised by the runtime, named as TensorFlow names them."""


class OpError(Exception):
    """An operation failed while it executed."""

    def __init__(self, message, op=None):
        super().__init__(message)
        self.message = message
        self.op = op


class InvalidArgumentError(OpError):
    """An op received an argument it cannot work with, or an assertion failed."""


class NotFoundError(OpError):
    """A file or entity that was asked for does not exist (a checkpoint that was never written)."""


class DataLossError(OpError):
    """A file holds damaged or truncated data (a checkpoint whose checksum does not match)."""


class AlreadyExistsError(OpError):
    """Something that is made once was made again (a second profiler started)."""


class UnavailableError(OpError):
    """A service is not running (a profiler stopped that was never started)."""


class OperatorNotAllowedInGraphError(TypeError):
    """A symbolic tensor was used where Python needs a concrete value (``bool``, iteration)."""


class UnimplementedError(OpError):
    """An operation has no implementation where it was asked to run or be exported (ONNX, XLA)."""


class OutOfRangeError(OpError):
    """An iteration went past its end (``StopIteration`` raised by an ``rt.py_function``)."""


class ResourceExhaustedError(OpError):
    """Memory or another resource ran out (``MemoryError`` raised by an ``rt.py_function``)."""


class InternalError(OpError):
    """The runtime found itself in a state it should never be in."""


class UnknownError(OpError):
    """An error of no better-known kind (any other exception an ``rt.py_function`` raises)."""


class NestedStructureError(TypeError, ValueError):
    """Two values that must have the same nested structure (a loop variable before and after
    an iteration, a variable in both branches of an ``if``) do not.

    A ``TypeError``, as TensorFlow's AutoGraph raises it, and a ``ValueError``, as
    ``rt.nest.assert_same_structure``, ``rt.cond`` and ``rt.while_loop`` raise it.
    """


class EagerInvalidArgumentError(InvalidArgumentError, ValueError):
    """An op executing eagerly refused its operands: shapes that do not match
    (``Matrix size-incompatible: In[0]: [2,3], In[1]: [2,3] [Op:MatMul]``), a bad axis.

    An ``InvalidArgumentError``, as TensorFlow raises it eagerly, and a ``ValueError``,
    as the same op refuses the same operands while a graph is built: an ``except`` written
    for either catches it.
    """


class EagerDTypeError(InvalidArgumentError, TypeError):
    """An op executing eagerly was given tensors of different dtypes where they must agree
    (``cannot compute Add as input #1(zero-based) was expected to be a int32 tensor but is a
    float tensor [Op:Add]``).

    An ``InvalidArgumentError``, as TensorFlow raises it eagerly, and a ``TypeError``, as the
    same op refuses them while a graph is built (and as this project raised before).
    """


class SymbolicValueError(AttributeError, NotImplementedError):
    """A symbolic tensor was asked for its value (``.numpy()``), which exists only when its
    graph runs.

    An ``AttributeError``, as in TensorFlow (a symbolic tensor has no ``numpy``), and a
    ``NotImplementedError``, as this project raised before.
    """

    # Its message is its one argument, as any exception's (AttributeError formats its own):
    # so a converted function's error can end it with the user's lines, on every Python.
    __str__ = BaseException.__str__


class LeakedTensorError(TypeError, ValueError):
    """A symbolic tensor was passed to an op running eagerly: it escaped the function trace
    or the graph it belongs to.

    A ``TypeError``, as in TensorFlow, and a ``ValueError``, as this project raised before.
    """


class InaccessibleTensorError(ValueError):
    """A function used a tensor of a graph that has finished building inside it (a loop
    body's, a branch's): that tensor is out of scope, as TensorFlow's error says; return it
    from the loop or branch instead. A ``ValueError``, as in TensorFlow."""


class ArgumentDTypeError(InvalidArgumentError, TypeError):
    """A tensor argument's dtype is not the one a function was traced, or its signature
    declared, for.

    An ``InvalidArgumentError``, as TensorFlow raises it when a concrete function's graph is
    given it, and a ``TypeError``, as TensorFlow's ``input_signature`` check raises it (and
    this project raised it before).
    """


class SignatureMismatchError(TypeError, ValueError):
    """An argument's shape does not fit the spec a function was traced or saved for (an
    ``input_signature``'s, a concrete function's, a loaded function's).

    A ``TypeError``, as TensorFlow 2.21 raises it ("Can not cast TensorSpec(...) to
    TensorSpec(...)"), and a ``ValueError``, as this project raised it before.
    """
