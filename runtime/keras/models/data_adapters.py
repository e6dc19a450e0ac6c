"""The data of ``fit``, ``evaluate`` and ``predict``, as batches of numpy structures.

Two kinds of data, as Keras 3 takes them:

- arrays (numpy, tensors, lists of numbers), or nested structures of them (a
  list or dict of inputs for a multi-input model, a dict of targets): sliced
  into batches of ``batch_size``, reordered every epoch when shuffled;
- an iterable of batches (a Python generator, a list of batches wrapped in
  ``iter``, any object with ``__iter__``): each batch is ``x``, ``(x,)``,
  ``(x, y)`` or ``(x, y, sample_weight)``, taken as it comes.

Every batch comes out as ``(x, y, sample_weight)`` (``y`` and
``sample_weight`` may be None) of numpy arrays; float arrays become
``backend.floatx()`` (float32 unless set), the dtype the layers compute in.

>>> import numpy as np
>>> data = ArrayData({"a": np.zeros((5, 2)), "b": np.ones((5, 1))}, np.arange(5), batch_size=2)
>>> [(sorted(x), y.tolist()) for x, y, _ in data.epoch()]
[(['a', 'b'], [0, 1]), (['a', 'b'], [2, 3]), (['a', 'b'], [4])]
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Mapping

import numpy as np

from runtime.core import nest
from runtime.core.tensor import Tensor
from runtime.keras import backend
from runtime.ops.random_ops import RandomState

# --- single arrays and structures of them -------------------------------------------------------


def as_array(data, what):
    """``data`` (numpy, a list, a tensor) as a numpy array with examples along the first axis;
    float arrays become ``backend.floatx()`` (float32 by default), as Keras feeds its layers."""
    if data is None:
        raise ValueError(f"{what} is None: fit and evaluate need inputs and targets")
    if isinstance(data, (str, bytes)) or not hasattr(data, "__len__") and not np.isscalar(data):
        raise ValueError(
            f"Expected all elements of `{what}` to be array-like. Received invalid types: "
            f"{what}={data!r}"
        )
    if isinstance(data, Tensor):
        data = data.numpy()
    array = np.asarray(data)
    floatx = backend.floatx()
    if array.dtype.kind == "f" and array.dtype != floatx:
        array = array.astype(floatx)
    if array.ndim == 0:
        raise ValueError(f"{what} must have a batch dimension, got a scalar")
    return array


def _holds_arrays(data):
    """Whether a list or tuple is a structure of arrays (inputs of a multi-input model) rather
    than one array written as nested lists of numbers."""
    return any(isinstance(item, (np.ndarray, Tensor, Mapping, list, tuple)) for item in data) and (
        not all(isinstance(item, (list, tuple)) and not _holds_arrays(item) for item in data)
    )


def as_structure(data, what):
    """``data`` as numpy arrays in the same structure: a dict of arrays, a list or tuple of
    arrays, or one array (a list of numbers is one array). None stays None."""
    if data is None:
        return None
    if isinstance(data, Mapping):
        return {key: as_structure(value, f"{what}[{key!r}]") for key, value in data.items()}
    if isinstance(data, (list, tuple)) and _holds_arrays(data):
        items = [as_structure(item, f"{what}[{i}]") for i, item in enumerate(data)]
        return items if isinstance(data, list) else tuple(items)
    return as_array(data, what)


def pack_x_y_sample_weight(x, y=None, sample_weight=None):
    """The batch as Keras' steps get it: ``x`` (wrapped as ``(x,)`` when it is a list or tuple
    of inputs), ``(x, y)`` or ``(x, y, sample_weight)``.

    >>> pack_x_y_sample_weight("x"), pack_x_y_sample_weight(["a", "b"])
    ('x', (['a', 'b'],))
    >>> pack_x_y_sample_weight("x", "y"), pack_x_y_sample_weight("x", "y", "w")
    (('x', 'y'), ('x', 'y', 'w'))
    """
    if y is None:
        return (x,) if isinstance(x, (list, tuple)) else x
    return (x, y) if sample_weight is None else (x, y, sample_weight)


def unpack_x_y_sample_weight(data):
    """A batch as ``(x, y, sample_weight)``: ``x``, ``(x,)``, ``(x, y)`` or ``(x, y, w)``.

    >>> unpack_x_y_sample_weight("x"), unpack_x_y_sample_weight(("x", "y"))
    (('x', None, None), ('x', 'y', None))
    """
    if isinstance(data, list):
        data = tuple(data)
    if not isinstance(data, tuple):
        return data, None, None
    if len(data) <= 3:
        return (*data, *(None,) * (3 - len(data)))
    raise ValueError(
        "Data is expected to be in format `x`, `(x,)`, `(x, y)`, or `(x, y, sample_weight)`, "
        f"found: {data}"
    )


def num_examples(data):
    """The number of examples of a structure of arrays (the first one's first dimension)."""
    return len(next(a for a in nest.flatten(data) if a is not None))


def check_cardinality(x, y, sample_weight):
    """ValueError (Keras' message) unless every array has as many examples."""
    parts = {"x": x, "y": y, "sample_weight": sample_weight}
    sizes = {len(a) for part in parts.values() for a in nest.flatten(part) if a is not None}
    if len(sizes) > 1:
        message = "Data cardinality is ambiguous. Make sure all arrays contain the same number of samples."
        for label, part in parts.items():
            lengths = ", ".join(str(len(a)) for a in nest.flatten(part) if a is not None)
            message += f"'{label}' sizes: {lengths}\n"
        raise ValueError(message)


# --- sample and class weights -------------------------------------------------------------------


def class_weight_to_sample_weights(y, class_weight):
    """Each example's weight: the weight of its class (``class_weight[c]``, 1 when missing). The
    class is the label, or the argmax of a one-hot row (Keras' rule)."""
    if not (hasattr(class_weight, "items") and hasattr(class_weight, "get")):
        raise ValueError(
            "`class_weight` must be a dict-like mapping of class indices to weights. "
            f"Received: class_weight={class_weight} of type {type(class_weight)}."
        )
    weights = {}
    for key, value in class_weight.items():
        try:
            weights[int(key)] = value
        except (TypeError, ValueError):
            raise ValueError(
                "`class_weight` must be a dictionary with integer keys representing class "
                f"indices. Received an invalid key: {key!r} of type {type(key)}."
            ) from None
    labels = np.asarray(y.numpy() if isinstance(y, Tensor) else y)
    if labels.ndim > 1:
        labels = np.argmax(labels, axis=-1) if labels.shape[-1] != 1 else labels[..., 0]
    labels = np.round(labels).astype(np.int64)
    return np.array([weights.get(int(c), 1.0) for c in labels], np.float32)


def standardize_sample_weight(y, sample_weight, class_weight):
    """The weights one structure with ``y`` (one array per output; a per-example array given
    for several outputs serves them all), from ``sample_weight`` or ``class_weight``."""
    if class_weight is not None:
        if sample_weight is not None:
            raise ValueError("You cannot `class_weight` and `sample_weight` at the same time.")
        if nest.is_nested(y):
            raise ValueError("`class_weight` is only supported for Models with a single output.")
        return class_weight_to_sample_weights(y, class_weight)
    if sample_weight is None or not nest.is_nested(y):
        return sample_weight
    if nest.is_nested(sample_weight):
        try:
            nest.assert_same_structure(y, sample_weight)
        except ValueError:
            raise ValueError(
                "You should provide one `sample_weight` array per output in `y`. The two "
                f"structures did not match:\n- y: {nest.describe(y)}\n"
                f"- sample_weight: {nest.describe(sample_weight)}\n"
            ) from None
        return sample_weight
    if not (sample_weight.ndim == 1 or sample_weight.shape[1:] == (1,)):
        raise ValueError(
            "For a model with multiple outputs, when providing a single `sample_weight` array, "
            "it should only have one scalar score per sample (i.e. shape `(num_samples,)`). If "
            "you want to use non-scalar sample weights, pass a `sample_weight` argument with one "
            "array per model output."
        )
    return nest.map_structure(lambda _: sample_weight, y)


def _weights(y, sample_weight):
    """``sample_weight`` as arrays; a list, tuple or dict given for several outputs is one
    array per output, whatever it holds (Keras' rule)."""
    if nest.is_nested(y) and isinstance(sample_weight, (list, tuple, Mapping)):
        items = (
            sample_weight.items()
            if isinstance(sample_weight, Mapping)
            else enumerate(sample_weight)
        )
        converted = {key: as_structure(w, f"sample_weight[{key!r}]") for key, w in items}
        if isinstance(sample_weight, Mapping):
            return converted
        return (
            type(sample_weight)(converted.values())
            if isinstance(sample_weight, tuple)
            else list(converted.values())
        )
    return as_structure(sample_weight, "sample_weight")


def train_validation_split(arrays, validation_split):
    """``(train, validation)``: the last ``validation_split`` of the examples is validation,
    taken before any shuffling, as Keras does."""
    if not 0 < validation_split <= 1:  # 1.0 leaves no training data: Keras' message below
        raise ValueError(f"validation_split must be in (0, 1), got {validation_split}")
    if is_iterable_of_batches(arrays[0]):
        raise ValueError(
            "Argument `validation_split` is only supported for tensors or NumPy arrays."
            f"Found incompatible type in the input: {[type(arrays[0])]}"
        )
    total = num_examples(arrays)
    split_at = math.floor(total * (1.0 - validation_split))
    if split_at in (0, total):
        raise ValueError(
            f"Training data contains {total} samples, which is not sufficient to split it into "
            f"a validation and training set as specified by `validation_split={validation_split}`. "
            "Either provide more data, or a different value for the `validation_split` argument."
        )
    train = _map_arrays(lambda a: a[:split_at], arrays)
    return train, _map_arrays(lambda a: a[split_at:], arrays)


def _map_arrays(fn, structure):
    return nest.map_structure(lambda a: None if a is None else fn(a), structure)


# --- the two kinds of data ----------------------------------------------------------------------


class ArrayData:
    """Arrays (or structures of them) cut into batches; ``epoch()`` yields one epoch's."""

    def __init__(self, x, y=None, sample_weight=None, batch_size=32, shuffle=False,
                 class_weight=None):  # fmt: skip
        x, y = as_structure(x, "x"), as_structure(y, "y")
        sample_weight = standardize_sample_weight(y, _weights(y, sample_weight), class_weight)
        check_cardinality(x, y, sample_weight)
        self.data = (x, y, sample_weight)
        self._nested = any(nest.is_nested(part) for part in self.data)
        self.size = num_examples(x)
        if self.size == 0:
            raise ValueError("Expected input data to be non-empty.")
        self.batch_size = batch_size
        self.num_batches = math.ceil(self.size / batch_size)
        self._generator = RandomState(None).generator if shuffle else None

    def epoch(self):
        """The batches, in a new order when shuffled (gathered batch by batch: cheaper than
        reordering all the data), else as numpy views."""
        order = self._generator.permutation(self.size) if self._generator is not None else None
        for start in range(0, self.size, self.batch_size):
            stop = min(start + self.batch_size, self.size)
            picked = slice(start, stop) if order is None else order[start:stop]
            if self._nested:
                yield _map_arrays(lambda a, picked=picked: a[picked], self.data)
            else:  # plain arrays: sliced without walking a structure (the per-batch cost)
                yield tuple(None if a is None else a[picked] for a in self.data)


class IterableData:
    """A generator, or any iterable, of batches: ``x``, ``(x, y)`` or ``(x, y, w)`` each."""

    def __init__(self, iterable):
        self.iterable = iterable
        self.num_batches = len(iterable) if hasattr(iterable, "__len__") else None

    def epoch(self):
        """The batches, from where the iterable is (a generator goes on where it stopped)."""
        for batch in self.iterable:
            x, y, sample_weight = unpack_x_y_sample_weight(batch)
            yield (
                as_structure(x, "x"),
                as_structure(y, "y"),
                as_structure(sample_weight, "sample_weight"),
            )


def is_iterable_of_batches(x):
    """Whether ``x`` is data given batch by batch rather than arrays."""
    if isinstance(x, (np.ndarray, Tensor, Mapping, list, tuple, str, bytes)) or x is None:
        return False
    return hasattr(x, "__iter__") or hasattr(x, "__next__")


def get_data(x, y=None, sample_weight=None, batch_size=32, shuffle=False, class_weight=None):
    """``ArrayData`` or ``IterableData`` for the arguments of ``fit``/``evaluate``/``predict``;
    ValueError (Keras' words) for what a generator cannot be given with."""
    if not is_iterable_of_batches(x):
        return ArrayData(x, y, sample_weight, batch_size, shuffle, class_weight)
    for name, given, what in (("y", y, "the targets"),
                              ("sample_weights", sample_weight, "the sample weights")):  # fmt: skip
        if given is not None:
            raise ValueError(
                f"When providing `x` as a generator, `{name}` should not be passed. Instead, "
                f"{what} should be included as part of the generator."
            )
    if class_weight is not None:
        raise ValueError(
            "Argument `class_weight` is not supported for Python generator inputs. "
            f"Received: class_weight={class_weight}"
        )
    return IterableData(x)


class EpochIterator:
    """The batches of each epoch, ``steps_per_epoch`` of them when given (Keras 3's rules).

    Without ``steps_per_epoch`` an epoch is one pass over the data (a generator: until it is
    exhausted). With it, an epoch takes that many batches and the next goes on from there;
    data that runs out ends the epoch early with Keras' warning and starts again next epoch.
    """

    def __init__(self, data, steps_per_epoch=None):
        self.data = data
        self.steps_per_epoch = steps_per_epoch
        self._batches = None  # the pass in progress, across epochs when steps_per_epoch is set
        self._taken = 0

    @property
    def num_batches(self):
        """Batches per epoch, or None while unknown (a generator not yet exhausted)."""
        return self.steps_per_epoch or self.data.num_batches

    def epoch(self):
        """Yields ``(step, batch)`` for one epoch."""
        if self._batches is None or self.steps_per_epoch is None:
            self._batches, self._taken = self.data.epoch(), 0
        limit = self.steps_per_epoch or math.inf
        step = 0
        while step < limit:
            batch = next(self._batches, None)
            if batch is None:
                if self.steps_per_epoch:
                    _warn_ran_out()
                self._batches = None
                return
            self._taken += 1
            yield step, batch
            step += 1
        if self.data.num_batches and self._taken >= self.data.num_batches:
            self._batches = None  # the next epoch starts a new pass


def _warn_ran_out():
    warnings.warn(
        "Your input ran out of data; interrupting training. Make sure that your dataset or "
        "generator can generate at least `steps_per_epoch * epochs` batches. You may need to "
        "use the `.repeat()` function when building your dataset.",
        stacklevel=4,
    )
