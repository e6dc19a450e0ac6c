"""Shapes whose dimensions, or whose rank, may be unknown.

>>> s = TensorShape([None, 3])
>>> s.rank, s.as_list(), s == (None, 3)
(2, [None, 3], True)
>>> s.is_compatible_with([5, 3])
True
"""

from __future__ import annotations

# The most dimensions a tensor may have: TensorFlow's limit (MaxDimensions in its
# tensor_shape.h). Shapes inferred from data (a shape tensor's value, an index of many
# ``None``s) are checked against it, so a huge one is an error, not a huge shape.
MAX_RANK = 254


def check_rank(rank, what):
    """Raises ValueError when ``rank`` is over MAX_RANK, in TensorFlow's words."""
    if rank > MAX_RANK:
        raise ValueError(
            f"{what} would have {rank} dimensions: too many dimensions in tensor "
            f"(at most {MAX_RANK})"
        )


class TensorShape:
    """A tensor's shape: a tuple of dims (``None`` = unknown), or unknown rank."""

    __slots__ = ("_dims",)

    def __init__(self, dims=None):
        if dims is None:
            self._dims = None
        elif isinstance(dims, TensorShape):
            self._dims = dims._dims
        else:
            self._dims = tuple(map(_as_dim, dims))

    @classmethod
    def unknown(cls) -> TensorShape:
        return cls(None)

    @classmethod
    def of_array(cls, dims: tuple) -> TensorShape:
        """The shape of a numpy value, ``np.shape(value)``: dims known to be ints >= 0, so
        taken as they are (eager code asks for the shape of every value)."""
        shape = cls.__new__(cls)
        shape._dims = dims
        return shape

    @property
    def dims(self):
        return None if self._dims is None else list(self._dims)

    @property
    def rank(self):
        return None if self._dims is None else len(self._dims)

    @property
    def ndims(self):
        return self.rank

    def as_list(self):
        if self._dims is None:
            raise ValueError("as_list() is not defined on an unknown TensorShape.")
        return list(self._dims)

    def as_tuple(self):
        """The dims as a tuple, or None for an unknown rank."""
        return self._dims

    def is_fully_defined(self) -> bool:
        return self._dims is not None and all(d is not None for d in self._dims)

    def num_elements(self):
        if not self.is_fully_defined():
            return None
        n = 1
        for d in self._dims:
            n *= d
        return n

    def is_compatible_with(self, other) -> bool:
        other = as_shape(other)
        if self._dims is None or other._dims is None:
            return True
        if len(self._dims) != len(other._dims):
            return False
        return all(a is None or b is None or a == b for a, b in zip(self._dims, other._dims))

    def is_subtype_of(self, other) -> bool:
        """Whether this shape is at least as specific as ``other``: every dim ``other`` knows, it
        knows the same (``[3]`` is a subtype of ``[None]``, not the reverse)."""
        other = as_shape(other)
        if other._dims is None:
            return True
        if self._dims is None or len(self._dims) != len(other._dims):
            return False
        return all(o is None or s == o for s, o in zip(self._dims, other._dims))

    def merge_with(self, other) -> TensorShape:
        """The most specific shape compatible with both; ValueError if there is none."""
        other = as_shape(other)
        if not self.is_compatible_with(other):
            raise ValueError(f"Shapes {self} and {other} are not compatible")
        if self._dims is None:
            return other
        if other._dims is None:
            return self
        return TensorShape(a if a is not None else b for a, b in zip(self._dims, other._dims))

    def most_specific_compatible_shape(self, other) -> TensorShape:
        """The most specific shape that both shapes are compatible with (dims that differ become None)."""
        other = as_shape(other)
        if self._dims is None or other._dims is None or len(self._dims) != len(other._dims):
            return TensorShape(None)
        return TensorShape(a if a == b else None for a, b in zip(self._dims, other._dims))

    def __len__(self):
        if self._dims is None:
            raise ValueError("Cannot take the length of a shape with unknown rank.")
        return len(self._dims)

    def __iter__(self):
        if self._dims is None:
            raise ValueError("Cannot iterate over a shape with unknown rank.")
        return iter(self._dims)

    def __getitem__(self, key):
        if self._dims is None:
            return TensorShape(None) if isinstance(key, slice) else None
        if isinstance(key, slice):
            return TensorShape(self._dims[key])
        return self._dims[key]

    def __eq__(self, other):
        try:
            other = as_shape(other)
        except (TypeError, ValueError):
            return NotImplemented
        return self._dims == other._dims

    def __hash__(self):
        return hash(self._dims)

    def __add__(self, other):
        return self.concatenate(other)

    def concatenate(self, other) -> TensorShape:
        other = as_shape(other)
        if self._dims is None or other._dims is None:
            return TensorShape(None)
        return TensorShape(self._dims + other._dims)

    def __str__(self):
        if self._dims is None:
            return "<unknown>"
        if len(self._dims) == 1:
            return f"({self._dims[0]},)"
        return "(" + ", ".join(str(d) for d in self._dims) + ")"

    def __repr__(self):
        if self._dims is None:
            return "TensorShape(None)"
        return f"TensorShape({list(self._dims)})"


def _as_dim(d):
    if type(d) is int and d >= 0:  # the common case, first: every op's inferred shape
        return d
    if d is None or d == -1:
        return None
    if hasattr(d, "__index__"):
        d = d.__index__()
        if d < 0:
            raise ValueError(f"Dimension {d} must be >= 0")
        return d
    raise TypeError(f"Dimension value must be an integer or None, got {d!r}")


def as_shape(value) -> TensorShape:
    """Converts a TensorShape, tuple, list or None to a TensorShape."""
    if isinstance(value, TensorShape):
        return value
    if value is None:
        return TensorShape(None)
    if isinstance(value, (tuple, list)):
        return TensorShape(value)
    if hasattr(value, "__index__"):
        return TensorShape([value])
    raise TypeError(f"Cannot convert {value!r} to a TensorShape")


def bracketed(shape: TensorShape) -> str:
    """A shape as TensorFlow's kernels write it in their errors: ``[2,3]``, ``[?,3]``.

    >>> bracketed(TensorShape([None, 3])), bracketed(TensorShape(None))
    ('[?,3]', '<unknown>')
    """
    if shape._dims is None:
        return "<unknown>"
    return "[" + ",".join("?" if d is None else str(d) for d in shape._dims) + "]"


def broadcast_shapes(a: TensorShape, b: TensorShape) -> TensorShape:
    """Numpy broadcasting on shapes that may hold unknown dims.

    >>> broadcast_shapes(TensorShape([None, 1]), TensorShape([3]))
    TensorShape([None, 3])
    >>> broadcast_shapes(TensorShape([2]), TensorShape([3]))
    Traceback (most recent call last):
    ...
    ValueError: Incompatible shapes: [2] vs. [3]
    """
    if a._dims is None or b._dims is None:
        return TensorShape(None)
    x, y = a._dims, b._dims
    if x == y and None not in x:
        return a
    n = max(len(x), len(y))
    x = (1,) * (n - len(x)) + x
    y = (1,) * (n - len(y)) + y
    out = []
    for p, q in zip(x, y):
        if p == 1:
            out.append(q)
        elif q == 1:
            out.append(p)
        elif p is None:
            out.append(q)
        elif q is None or p == q:
            out.append(p)
        else:
            raise ValueError(f"Incompatible shapes: {bracketed(a)} vs. {bracketed(b)}")
    return TensorShape(out)
