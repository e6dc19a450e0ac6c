"""TensorSpec: the dtype and shape a tensor argument must have.

>>> import runtime as rt
>>> spec = rt.TensorSpec([None, 2], rt.float32)
>>> spec.is_compatible_with(rt.zeros([5, 2]))
True
>>> spec
TensorSpec(shape=(None, 2), dtype=rt.float32, name=None)
"""

from __future__ import annotations

from runtime.core import dtypes
from runtime.core.tensor_shape import as_shape
from runtime.errors import ArgumentDTypeError, SignatureMismatchError


class TensorSpec:
    """Describes a tensor: ``shape`` (``None`` dims match any size) and ``dtype``."""

    __slots__ = ("shape", "dtype", "name")

    def __init__(self, shape, dtype=dtypes.float32, name=None):
        self.shape = as_shape(shape)
        self.dtype = dtypes.as_dtype(dtype)
        self.name = name

    @classmethod
    def from_tensor(cls, tensor, name=None):
        return cls(tensor.shape, tensor.dtype, name)

    def is_compatible_with(self, other) -> bool:
        """Whether a tensor (or spec) has this dtype and a shape that fits."""
        return other.dtype is self.dtype and self.shape.is_compatible_with(other.shape)

    def check_argument(self, fn_name, arg_name, value, source="the input_signature"):
        """Raises a TypeError naming the argument, with TensorFlow's "Can not cast" words,
        unless ``value`` (a tensor or spec) fits; ``source`` says where this spec comes from.

        A shape that does not fit raises ``rt.errors.SignatureMismatchError``, a TypeError as in
        TensorFlow and also the ValueError this project raised before; a dtype, a TypeError for
        an input_signature, as TensorFlow's, and for a traced or saved function's inputs
        ``rt.errors.ArgumentDTypeError``, a TypeError and TensorFlow's InvalidArgumentError.
        """
        if value.dtype is not self.dtype:
            problem = f"has dtype {value.dtype.name}, but {source} requires {self.dtype.name}"
            error = TypeError if source == "the input_signature" else ArgumentDTypeError
        elif not self.shape.is_compatible_with(value.shape):
            problem = f"has shape {value.shape}, which does not fit {source}'s {self.shape}"
            error = SignatureMismatchError
        else:
            return
        raise error(
            f"{fn_name}: argument '{arg_name}' {problem} "
            f"(Can not cast {TensorSpec(value.shape, value.dtype)!r} to {self!r})"
        )

    def __eq__(self, other):
        return (
            isinstance(other, TensorSpec)
            and self.shape == other.shape
            and self.dtype is other.dtype
            and self.name == other.name
        )

    def __hash__(self):
        return hash((self.shape, self.dtype.name, self.name))

    def __repr__(self):
        return f"TensorSpec(shape={self.shape}, dtype={self.dtype!r}, name={self.name!r})"
