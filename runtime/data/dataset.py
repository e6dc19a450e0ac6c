"""``Dataset``: an input pipeline, as ``tf.data.Dataset`` writes one, iterated eagerly.

A dataset is a recipe: each ``iter(ds)`` runs it again from the start (a shuffle
reshuffles), yielding elements as nested structures (tuples, dicts) of eager
tensors. Internally elements are numpy arrays, converted once as they leave.

>>> import numpy as np, runtime as rt
>>> ds = rt.data.Dataset.from_tensor_slices((np.arange(5), np.arange(5) * 10))
>>> [(int(x), int(y)) for x, y in ds.take(2)]
[(0, 0), (1, 10)]
>>> [b.numpy().tolist() for b in rt.data.Dataset.range(5).batch(2)]
[[0, 1], [2, 3], [4]]
>>> rt.data.Dataset.range(10).shuffle(10, seed=1).batch(4, drop_remainder=True).cardinality()
2
"""

from __future__ import annotations

import itertools

import numpy as np

from runtime.core import dtypes, nest
from runtime.core.tensor import EagerTensor, Tensor
from runtime.core.tensor_spec import TensorSpec
from runtime.ops.random_ops import RandomState

AUTOTUNE = -1
INFINITE = -1  # what ``cardinality()`` gives for a dataset that never ends
UNKNOWN = -2  # ... and for one whose length is not known without running it


def _as_array(value):
    """A component of an element as numpy: float64 from Python floats stays float32 as
    ``rt.constant`` makes it, and a tensor gives its value."""
    if isinstance(value, Tensor):
        return value.numpy()
    array = np.asarray(value)
    if not isinstance(value, np.ndarray):  # Python numbers: float32 and int32, as rt.constant
        if array.dtype == np.float64:
            array = array.astype(np.float32)
        elif array.dtype == np.int64:
            array = array.astype(np.int32)
    if array.dtype.kind == "U":
        array = array.astype(object)
    return array


def _structure(value):
    """``value`` with its leaves made arrays: TensorFlow reads a list as one tensor, and
    tuples and dicts as structures."""
    if isinstance(value, dict):
        return {key: _structure(v) for key, v in value.items()}
    if isinstance(value, tuple):
        parts = [_structure(v) for v in value]
        return type(value)(*parts) if hasattr(value, "_fields") else tuple(parts)
    return _as_array(value)


def _to_tensors(element):
    return nest.map_structure(lambda a: EagerTensor(a, dtypes.as_dtype(a.dtype)), element)


def _spec(element):
    return nest.map_structure(lambda a: TensorSpec(a.shape, dtypes.as_dtype(a.dtype)), element)


class Dataset:
    """A sequence of elements made by a recipe; build one with ``from_tensor_slices``,
    ``from_tensors`` or ``range``, and transform it with ``batch``, ``shuffle``, ``map``...

    >>> import runtime as rt
    >>> [int(x) for x in rt.data.Dataset.range(3).map(lambda x: x * 2)]
    [0, 2, 4]
    """

    def __init__(self, make_iterator, element_spec, cardinality):
        self._make_iterator = make_iterator  # () -> an iterator of numpy structures
        self._element_spec = element_spec  # or a function giving it, when first asked
        self._cardinality = cardinality

    # --- sources -----------------------------------------------------------------------------

    @staticmethod
    def from_tensor_slices(tensors, name=None):
        """The slices of ``tensors`` along their first axis, one element each."""
        structure = _structure(tensors)
        flat = nest.flatten(structure)
        if not flat:
            raise ValueError("Invalid `element`. `element` should not be empty.")
        for array in flat:
            if array.ndim == 0:
                raise ValueError(
                    f"Unbatching a tensor is only supported for rank >= 1, got a scalar {array!r}"
                )
        sizes = {len(a) for a in flat}
        if len(sizes) > 1:
            raise ValueError(
                f"Dimensions in the first axis of the components differ: {[a.shape for a in flat]}"
            )
        size = sizes.pop()

        def iterate():
            for i in range(size):
                yield nest.pack_sequence_as(structure, [a[i] for a in flat])

        spec = nest.map_structure(lambda a: TensorSpec(a.shape[1:], dtypes.as_dtype(a.dtype)),
                                  structure)  # fmt: skip
        return Dataset(iterate, spec, size)

    @staticmethod
    def from_tensors(tensors, name=None):
        """A dataset of one element: ``tensors`` whole."""
        element = _structure(tensors)
        return Dataset(lambda: iter([element]), _spec(element), 1)

    @staticmethod
    def range(*args, output_type=dtypes.int64, name=None):
        """``Dataset.range(stop)``, ``range(start, stop[, step])``: int64 scalars."""
        numbers = range(*args)
        np_type = dtypes.as_dtype(output_type).as_numpy_dtype

        def iterate():
            return (np_type(i) for i in numbers)

        return Dataset(iterate, TensorSpec((), dtypes.as_dtype(output_type)), len(numbers))

    @staticmethod
    def zip(*datasets, name=None):
        """Elements of several datasets side by side, as long as the shortest."""
        if len(datasets) == 1 and isinstance(datasets[0], (tuple, dict)):
            datasets = datasets[0]
        flat = nest.flatten(datasets) if isinstance(datasets, dict) else list(datasets)
        for d in flat:
            if not isinstance(d, Dataset):
                raise TypeError(f"Dataset.zip expects datasets, got {type(d).__name__}")

        def iterate():
            for parts in zip(*(d._make_iterator() for d in flat)):
                yield (
                    nest.pack_sequence_as(datasets, list(parts))
                    if isinstance(datasets, dict)
                    else tuple(parts)
                )

        def spec():
            specs = [d.element_spec for d in flat]
            return (
                nest.pack_sequence_as(datasets, specs)
                if isinstance(datasets, dict)
                else tuple(specs)
            )

        known = [d._cardinality for d in flat if d._cardinality >= 0]
        cardinality = min(known) if known else flat[0]._cardinality
        return Dataset(iterate, spec, cardinality)

    # --- transformations ---------------------------------------------------------------------

    def batch(self, batch_size, drop_remainder=False, num_parallel_calls=None,
              deterministic=None, name=None):  # fmt: skip
        """Consecutive elements stacked, ``batch_size`` at a time; the last batch may be
        smaller unless ``drop_remainder``."""
        batch_size = int(batch_size)
        if batch_size <= 0:
            raise ValueError(f"batch_size must be greater than zero, got {batch_size}")

        def iterate():
            it = self._make_iterator()
            while True:
                chunk = list(itertools.islice(it, batch_size))
                if not chunk or (drop_remainder and len(chunk) < batch_size):
                    return
                flats = [nest.flatten(e) for e in chunk]
                stacked = [np.stack(parts) for parts in zip(*flats)]
                yield nest.pack_sequence_as(chunk[0], stacked)

        def batched(spec):
            first = batch_size if drop_remainder else None
            return TensorSpec((first, *spec.shape.as_list()), spec.dtype)

        cardinality = self._cardinality
        if cardinality >= 0:
            cardinality = (
                cardinality // batch_size if drop_remainder else -(-cardinality // batch_size)
            )
        return Dataset(iterate, lambda: nest.map_structure(batched, self.element_spec), cardinality)

    def shuffle(self, buffer_size, seed=None, reshuffle_each_iteration=True, name=None):
        """Elements in random order, drawn from a buffer of ``buffer_size`` as TensorFlow
        does: a buffer as large as the dataset gives a uniform permutation. With a seed
        (or ``rt.random.set_seed``) the orders are the same on every run."""
        buffer_size = int(buffer_size)
        if buffer_size <= 0 and buffer_size != AUTOTUNE:
            raise ValueError(f"buffer_size must be greater than zero, got {buffer_size}")
        first = RandomState(seed)

        def iterate():
            generator = (RandomState(seed) if reshuffle_each_iteration else first.fresh()).generator
            it, buffer = self._make_iterator(), []
            for element in it:
                buffer.append(element)
                if len(buffer) >= buffer_size:
                    break
            for element in it:
                i = generator.integers(len(buffer))
                yield buffer[i]
                buffer[i] = element
            generator.shuffle(buffer)
            yield from buffer

        return Dataset(iterate, lambda: self.element_spec, self._cardinality)

    def map(self, map_func, num_parallel_calls=None, deterministic=None, name=None):
        """``map_func`` applied to each element (a tuple element is passed as arguments),
        eagerly."""

        def apply(element):
            tensors = _to_tensors(element)
            out = map_func(*tensors) if isinstance(tensors, tuple) else map_func(tensors)
            return _structure(out)

        def iterate():
            return (apply(e) for e in self._make_iterator())

        def spec():  # what the first element is, made only when asked for
            first = next(iterate(), None)
            return self.element_spec if first is None else _spec(first)

        return Dataset(iterate, spec, self._cardinality)

    def repeat(self, count=None, name=None):
        """The dataset ``count`` times over (forever when None or -1)."""
        forever = count is None or count == -1

        def iterate():
            rounds = itertools.count() if forever else range(count)
            for _ in rounds:
                yield from self._make_iterator()

        if forever:
            cardinality = INFINITE if self._cardinality != 0 else 0
        else:
            cardinality = self._cardinality * count if self._cardinality >= 0 else self._cardinality
        return Dataset(iterate, lambda: self.element_spec, cardinality)

    def take(self, count, name=None):
        """The first ``count`` elements (all when -1)."""
        if count == -1:
            return self

        def iterate():
            return itertools.islice(self._make_iterator(), count)

        size = self._cardinality
        return Dataset(iterate, lambda: self.element_spec, count if size == INFINITE else
                       (min(size, count) if size >= 0 else size))  # fmt: skip

    def skip(self, count, name=None):
        """All but the first ``count`` elements."""

        def iterate():
            return itertools.islice(self._make_iterator(), count, None)

        size = self._cardinality
        return Dataset(
            iterate, lambda: self.element_spec, max(size - count, 0) if size >= 0 else size
        )

    def prefetch(self, buffer_size, name=None):
        """The same elements: this executor makes each one as it is asked for."""
        return self

    # --- reading -----------------------------------------------------------------------------

    @property
    def element_spec(self):
        """The structure of ``TensorSpec`` an element has."""
        if callable(self._element_spec):
            self._element_spec = self._element_spec()
        return self._element_spec

    def cardinality(self):
        """The number of elements; ``rt.data.INFINITE_CARDINALITY`` (-1) or
        ``UNKNOWN_CARDINALITY`` (-2) where it has none or is not known."""
        return self._cardinality

    def __len__(self):
        if self._cardinality == INFINITE:
            raise TypeError("The dataset is infinite.")
        if self._cardinality < 0:
            raise TypeError("The dataset length is unknown.")
        return self._cardinality

    def __iter__(self):
        return (_to_tensors(e) for e in self._make_iterator())

    def as_numpy_iterator(self):
        """The elements as numpy values (scalars as numpy scalars)."""
        return iter(self._make_iterator())

    def __repr__(self):
        return f"<Dataset element_spec={self.element_spec}>"
