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
    """An operation has no implementation for the target it was asked to run on (XLA, ONNX)."""
