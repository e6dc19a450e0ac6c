"""``Loss``: each example's loss (``call``), then weighted and reduced as Keras 3 does.

``loss(y_true, y_pred, sample_weight=None)`` takes both as the loss's dtype
(float32), computes ``call`` (each example's loss), multiplies it by
``sample_weight`` once the two have the same rank (a trailing axis of size 1
dropped or added: weights ``(N, 1)`` against losses ``(N,)``), and reduces:
``"sum_over_batch_size"`` (or ``"mean"``, the default) sums and divides by the
number of loss values, ``"sum"`` sums, ``"mean_with_sample_weight"`` divides the
sum by the sum of the weights, ``None`` (or ``"none"``) keeps every value.

>>> import runtime as rt
>>> class Gap(rt.keras.losses.Loss):
...     def call(self, y_true, y_pred):
...         return y_pred - y_true
>>> Gap()([1.0, 2.0], [2.0, 4.0]).numpy()                       # (1 + 2) / 2
np.float32(1.5)
>>> Gap(reduction="sum")([1.0, 2.0], [2.0, 4.0], sample_weight=[[3.0], [1.0]]).numpy()
np.float32(5.0)
>>> Gap(reduction=None)([1.0, 2.0], [2.0, 4.0]).numpy()
array([1., 2.], dtype=float32)
"""

from __future__ import annotations

from runtime.core import dtypes
from runtime.keras import backend
from runtime.ops.array_ops import expand_dims, squeeze, zeros_like
from runtime.ops.broadcast_ops import where
from runtime.ops.constant_ops import cast, convert_to_tensor
from runtime.ops.math_ops import equal, logical_and, maximum
from runtime.ops.reduction_ops import reduce_sum
from runtime.ops.shape_ops import size

REDUCTIONS = ("sum_over_batch_size", "sum", None, "none", "mean", "mean_with_sample_weight")
_MEANS = ("sum_over_batch_size", "mean", "mean_with_sample_weight")


def standardize_reduction(reduction):
    """``reduction`` when Keras knows it, else ValueError (Keras' message)."""
    if reduction not in REDUCTIONS:
        raise ValueError(
            "Invalid value for argument `reduction`. "
            f"Expected one of {set(REDUCTIONS)}. Received: reduction={reduction}"
        )
    return reduction


def as_loss_dtype(x, dtype):
    """``x`` (a tensor, array, list or number) as a tensor of ``dtype``."""
    x = convert_to_tensor(x)
    return x if x.dtype is dtype else cast(x, dtype)


def as_prediction(y_pred):
    """``y_pred`` as a tensor, of ``backend.floatx()`` when it is not floating: Keras computes
    integer predictions as floats (``Poisson()([[0, 1]], [[1, 1]])``)."""
    y_pred = convert_to_tensor(y_pred)
    return y_pred if y_pred.dtype.is_floating else cast(y_pred, backend.floatx())


def squeeze_or_expand_to_same_rank(x1, x2, expand_rank_1=True):
    """The two with equal ranks where they differ by one trailing axis of size 1: that axis is
    dropped, or (when the other has rank 1) the other gains it. Other shapes are left as they
    are, as Keras leaves them (its ops then raise or broadcast)."""
    rank1, rank2 = x1.shape.rank, x2.shape.rank
    if rank1 is None or rank2 is None or rank1 == rank2:
        return x1, x2
    if rank1 == rank2 + 1 and x1.shape[-1] == 1:
        if rank2 == 1 and expand_rank_1:
            x2 = expand_dims(x2, -1)
        else:
            x1 = squeeze(x1, axis=-1)
    elif rank2 == rank1 + 1 and x2.shape[-1] == 1:
        if rank1 == 1 and expand_rank_1:
            x1 = expand_dims(x1, -1)
        else:
            x2 = squeeze(x2, axis=-1)
    return x1, x2


def divide_no_nan(x, y):
    """``x / y``, and 0 where ``y`` is 0 (with a finite gradient there too)."""
    zero = equal(y, 0.0)
    quotient = x / where(zero, 1.0, y)
    return where(zero, zeros_like(quotient), quotient)


def _count(values):
    """The number of values, as their dtype (a constant when the shape is known)."""
    known = values.shape.num_elements() if values.shape.rank is not None else None
    if known is not None:
        return convert_to_tensor(float(known), dtype=values.dtype)
    return cast(size(values), values.dtype)


def _mean(total, values):
    """``total`` over the number of ``values``; 0 for no values (their total is 0)."""
    return total / maximum(_count(values), 1.0)


def apply_mask(sample_weight, mask, reduction, dtype):
    """The weights with the mask's zeros; for the mean reductions the kept values are scaled
    by ``total / kept``, so the mean is over the values the mask keeps."""
    if mask is None:
        return sample_weight
    mask = cast(mask, dtype)
    if reduction in ("sum_over_batch_size", "mean"):
        mask = mask * divide_no_nan(_count(mask), reduce_sum(mask))
    if sample_weight is None:
        return mask
    mask, sample_weight = squeeze_or_expand_to_same_rank(mask, sample_weight)
    return sample_weight * mask


def reduce_weighted_values(values, sample_weight=None, mask=None, reduction="sum_over_batch_size"):
    """``values`` times ``sample_weight`` (and ``mask``), reduced by ``reduction``."""
    reduction = standardize_reduction(reduction)
    if sample_weight is not None:
        sample_weight = as_loss_dtype(sample_weight, values.dtype)
    sample_weight = apply_mask(sample_weight, mask, reduction, values.dtype)
    if sample_weight is not None:
        values, sample_weight = squeeze_or_expand_to_same_rank(values, sample_weight)
        values = values * sample_weight
    return reduce_values(values, sample_weight, reduction)


def reduce_values(values, sample_weight=None, reduction="sum_over_batch_size"):
    """The sum of ``values``, divided as ``reduction`` says; ``values`` as they are for no
    reduction or when they are one scalar."""
    shape = values.shape.as_list() if values.shape.rank is not None else None
    if reduction in (None, "none") or shape in ([], [0]):
        return values
    total = reduce_sum(values)
    if reduction not in _MEANS:
        return total
    if reduction == "mean_with_sample_weight" and sample_weight is not None:
        return divide_no_nan(total, reduce_sum(sample_weight))
    return _mean(total, values)


def _both(mask, other):
    """The entries both masks keep (either one, when the other is None)."""
    if mask is None or other is None:
        return other if mask is None else mask
    return logical_and(cast(mask, dtypes.bool_), cast(other, dtypes.bool_))


class Loss:
    """The base of losses (``keras.losses.Loss``): subclass it and define ``call(y_true,
    y_pred)``, giving each example's loss; calling the loss weighs and reduces it."""

    def __init__(self, name=None, reduction="sum_over_batch_size", dtype=None):
        self.name = name or backend.to_snake_case(type(self).__name__)
        self.reduction = standardize_reduction(reduction)
        self.dtype = dtypes.as_dtype(dtype or backend.floatx())

    def __call__(self, y_true, y_pred, sample_weight=None):
        # As Keras 3: the Keras mask of the predictions (and of the losses) leaves the masked
        # entries out, and the mean is over the others.
        pred_mask = backend.get_keras_mask(y_pred)
        y_pred = as_loss_dtype(y_pred, self.dtype)
        y_true = as_loss_dtype(y_true, self.dtype)
        losses, mask = self._losses_and_mask(y_true, y_pred)
        mask = _both(_both(pred_mask, backend.get_keras_mask(losses)), mask)
        losses = as_loss_dtype(losses, self.dtype)
        return reduce_weighted_values(losses, sample_weight, mask, self.reduction)

    def _losses_and_mask(self, y_true, y_pred):
        """``call``'s losses, and which of them count (None: all)."""
        return self.call(y_true, y_pred), None

    def call(self, y_true, y_pred):
        raise NotImplementedError

    def get_config(self):
        return {"name": self.name, "reduction": self.reduction}

    @classmethod
    def from_config(cls, config):
        return cls(**config)

    def __repr__(self):
        return f"<rt.keras.losses.{type(self).__name__}>"


class LossFunctionWrapper(Loss):
    """A Loss made of a function of ``(y_true, y_pred)`` giving each example's loss; the two
    are first brought to the same rank (``squeeze_or_expand_to_same_rank``)."""

    def __init__(self, fn, reduction="sum_over_batch_size", name=None, dtype=None, **kwargs):
        super().__init__(name or getattr(fn, "__name__", None), reduction, dtype)
        self.fn = fn
        self._fn_kwargs = kwargs

    def call(self, y_true, y_pred):
        y_true, y_pred = convert_to_tensor(y_true), convert_to_tensor(y_pred)
        y_true, y_pred = squeeze_or_expand_to_same_rank(y_true, y_pred)
        return self.fn(y_true, y_pred, **self._fn_kwargs)

    def get_config(self):
        return {**super().get_config(), **self._fn_kwargs}
