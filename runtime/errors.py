"""Exceptions raised by the runtime, named as TensorFlow names them."""


class OpError(Exception):
    """An operation failed while it executed."""

    def __init__(self, message, op=None):
        super().__init__(message)
        self.message = message
        self.op = op


class InvalidArgumentError(OpError):
    """An op received an argument it cannot work with, or an assertion failed."""


class OperatorNotAllowedInGraphError(TypeError):
    """A symbolic tensor was used where Python needs a concrete value (``bool``, iteration)."""


class UnimplementedError(OpError):
    """An operation has no implementation where it was asked to run or be exported (ONNX, XLA)."""


class NestedStructureError(TypeError, ValueError):
    """Two values that must have the same nested structure (a loop variable before and after
    an iteration, a variable in both branches of an ``if``) do not.

    A ``TypeError``, as TensorFlow's AutoGraph raises it, and a ``ValueError``, as
    ``rt.nest.assert_same_structure``, ``rt.cond`` and ``rt.while_loop`` raise it.
    """


class SignatureMismatchError(TypeError, ValueError):
    """An argument's shape does not fit the spec a function was traced or saved for (an
    ``input_signature``'s, a concrete function's, a loaded function's).

    A ``TypeError``, as TensorFlow 2.21 raises it ("Can not cast TensorSpec(...) to
    TensorSpec(...)"), and a ``ValueError``, as this project raised it before.
    """
