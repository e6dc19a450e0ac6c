"""``Sum``, ``Mean`` and ``MeanMetricWrapper``: the (weighted) sum or mean of values over batches.

With ``sample_weight`` the mean is the weighted mean, ``sum(w * v) / sum(w)``,
as in Keras: the weights are brought to the values' rank (a trailing axis of
size 1 dropped or added), values with more axes than the weights are first
averaged over the extra axes, and each example's value is the mean over its
non-batch axes.

>>> import runtime as rt
>>> m = rt.keras.metrics.Mean()
>>> m.update_state([1, 3, 5, 7]); float(m.result())
4.0
>>> m.reset_state(); m.update_state([1, 3, 5, 7], sample_weight=[1, 1, 0, 0]); float(m.result())
2.0
>>> float(rt.keras.metrics.Sum()([1, 3, 5, 7]))
16.0
"""

from __future__ import annotations

from runtime.keras.backend import get_keras_mask
from runtime.keras.loss_base import (
    apply_mask,
    as_loss_dtype,
    divide_no_nan,
    squeeze_or_expand_to_same_rank,
)
from runtime.keras.metrics.metric import Metric
from runtime.ops.array_ops import zeros_like
from runtime.ops.constant_ops import cast
from runtime.ops.reduction_ops import reduce_mean, reduce_sum
from runtime.ops.shape_ops import shape as shape_op


def _reduce_axes_from(values, first_axis, reduce_fn):
    rank = values.shape.rank
    if rank is None or rank <= first_axis:
        return values
    return reduce_fn(values, axis=list(range(first_axis, rank)))


def reduce_to_samplewise_values(values, sample_weight, reduce_fn, dtype):
    """``(values, sample_weight)``: one value per example (``reduce_fn`` over the other axes)
    already multiplied by its weight, and the weights as broadcast against the values."""
    mask = get_keras_mask(values)
    values = as_loss_dtype(values, dtype)
    if sample_weight is not None:
        sample_weight = as_loss_dtype(sample_weight, dtype)
        sample_weight = apply_mask(sample_weight, mask, "sum", dtype)  # as Keras 3
        values, sample_weight = squeeze_or_expand_to_same_rank(values, sample_weight)
        values = _reduce_axes_from(values, sample_weight.shape.rank, reduce_fn)
        if values.shape.rank != 0 or sample_weight.shape.rank != 0:  # two scalars: as they are
            sample_weight = sample_weight + zeros_like(values)  # broadcast: counts every value
        values = values * sample_weight
        sample_weight = _reduce_axes_from(sample_weight, 1, reduce_fn)
    return _reduce_axes_from(values, 1, reduce_fn), sample_weight


def _sum_all(x):
    """The sum of ``x``'s values; a scalar as it is (the loss tracker's per-step cost)."""
    return x if x.shape.rank == 0 else reduce_sum(x)


class Sum(Metric):
    """The (weighted) sum of the values given: one variable, ``total``.

    >>> import runtime as rt
    >>> float(rt.keras.metrics.Sum()([1, 3, 5, 7], sample_weight=[1, 1, 0, 0]))
    4.0
    """

    def __init__(self, name="sum", dtype=None):
        super().__init__(name=name, dtype=dtype)
        self.total = self.add_variable(shape=(), initializer="zeros", name="total")

    def update_state(self, values, sample_weight=None):
        values, _ = reduce_to_samplewise_values(
            values, sample_weight, reduce_sum, self._tensor_dtype
        )
        self.total.assign_add(reduce_sum(values))

    def result(self):
        return self.total.read_value()


class Mean(Metric):
    """The (weighted) mean of the values given: ``total / count``, 0 before any value.

    >>> import runtime as rt
    >>> float(rt.keras.metrics.Mean()([[1.0, 3.0], [5.0, 7.0]], sample_weight=[1.0, 3.0]))
    5.0
    """

    def __init__(self, name="mean", dtype=None):
        super().__init__(name=name, dtype=dtype)
        self.total = self.add_variable(shape=(), initializer="zeros", name="total")
        self.count = self.add_variable(shape=(), initializer="zeros", name="count")

    def update_state(self, values, sample_weight=None):
        values, sample_weight = reduce_to_samplewise_values(
            values, sample_weight, reduce_mean, self._tensor_dtype
        )
        self.total.assign_add(_sum_all(values))
        if sample_weight is not None:
            count = _sum_all(sample_weight)
        elif values.shape.rank:
            count = cast(shape_op(values)[0], self._tensor_dtype)
        else:
            count = 1.0
        self.count.assign_add(as_loss_dtype(count, self._tensor_dtype))

    def result(self):
        return divide_no_nan(self.total.read_value(), self.count.read_value())


class MeanMetricWrapper(Mean):
    """The mean of ``fn(y_true, y_pred, **kwargs)``, each example's value, over every example.

    >>> import runtime as rt
    >>> def gap(y_true, y_pred):
    ...     return rt.abs(y_true - y_pred)
    >>> m = rt.keras.metrics.MeanMetricWrapper(gap, name="gap")
    >>> float(m(rt.constant([0.0, 1.0]), rt.constant([1.0, 3.0]))), m.name
    (1.5, 'gap')
    """

    def __init__(self, fn, name=None, dtype=None, **kwargs):
        super().__init__(name=name or getattr(fn, "__name__", None) or "mean", dtype=dtype)
        self._fn = fn
        self._fn_kwargs = kwargs

    def update_state(self, y_true, y_pred, sample_weight=None):
        mask = get_keras_mask(y_pred)  # the predictions' Keras mask leaves entries out
        values = self._fn(y_true, y_pred, **self._fn_kwargs)
        sample_weight = apply_mask(sample_weight, mask, "sum", self._tensor_dtype)
        super().update_state(values, sample_weight=sample_weight)

    def get_config(self):
        """Keras' keys; a wrapped function known to ``rt.keras.metrics`` by its name, any other
        as the function itself (``from_config`` takes either)."""
        config = {**super().get_config(), **self._fn_kwargs}
        if type(self) is MeanMetricWrapper:
            name = getattr(self._fn, "__name__", None)
            config["fn"] = name if KNOWN_FUNCTIONS.get(name) is self._fn else self._fn
        return config

    @classmethod
    def from_config(cls, config):
        if isinstance(config.get("fn"), str):
            if config["fn"] not in KNOWN_FUNCTIONS:
                raise ValueError(f"Unknown metric function: '{config['fn']}'")
            config = {**config, "fn": KNOWN_FUNCTIONS[config["fn"]]}
        return cls(**config)


# The metric functions of rt.keras.metrics by name (``lookup`` fills it): how a wrapper's
# config names its function.
KNOWN_FUNCTIONS = {}
