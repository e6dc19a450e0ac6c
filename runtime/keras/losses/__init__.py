"""``rt.keras.losses``: Keras 3's losses, as objects and as functions.

A loss object, ``loss(y_true, y_pred, sample_weight=None)``, gives by default
the mean of every example's loss (Keras' ``"sum_over_batch_size"``; see
``runtime.keras.loss_base`` for the weights and the other reductions); the
function of the same name (``mean_squared_error``, ``huber``...) gives each
example's loss. ``get`` finds a loss by name, config dict or function;
``serialize``/``deserialize`` write and read Keras 3's dicts.

>>> import runtime as rt
>>> mse = rt.keras.losses.MeanSquaredError()
>>> mse(rt.constant([[0.0, 1.0], [1.0, 1.0]]), rt.constant([[1.0, 1.0], [1.0, 0.0]])).numpy()
np.float32(0.5)
>>> rt.keras.losses.get("huber").name
'huber_loss'
"""

from __future__ import annotations

from runtime.keras._config import deserialize_object, serialize_object
from runtime.keras.loss_base import Loss, LossFunctionWrapper
from runtime.keras.losses.classes import (
    BinaryCrossentropy,
    BinaryFocalCrossentropy,
    CategoricalCrossentropy,
    CategoricalFocalCrossentropy,
    CategoricalHinge,
    CosineSimilarity,
    Hinge,
    Huber,
    KLDivergence,
    LogCosh,
    MeanAbsoluteError,
    MeanAbsolutePercentageError,
    MeanSquaredError,
    MeanSquaredLogarithmicError,
    Poisson,
    SparseCategoricalCrossentropy,
    SquaredHinge,
)
from runtime.keras.losses.crossentropy import (
    binary_crossentropy,
    binary_focal_crossentropy,
    categorical_crossentropy,
    categorical_focal_crossentropy,
    sparse_categorical_crossentropy,
)
from runtime.keras.losses.regression import (
    align,
    categorical_hinge,
    cosine_similarity,
    hinge,
    huber,
    kl_divergence,
    log_cosh,
    mean_absolute_error,
    mean_absolute_percentage_error,
    mean_squared_error,
    mean_squared_logarithmic_error,
    poisson,
    squared_hinge,
)

mse = MSE = mean_squared_error
mae = MAE = mean_absolute_error
mape = MAPE = mean_absolute_percentage_error
msle = MSLE = mean_squared_logarithmic_error
kld = KLD = kullback_leibler_divergence = kl_divergence
logcosh = log_cosh

CLASSES = (
    MeanSquaredError,
    MeanAbsoluteError,
    MeanAbsolutePercentageError,
    MeanSquaredLogarithmicError,
    CosineSimilarity,
    Huber,
    LogCosh,
    Hinge,
    SquaredHinge,
    CategoricalHinge,
    KLDivergence,
    Poisson,
    BinaryCrossentropy,
    BinaryFocalCrossentropy,
    CategoricalCrossentropy,
    CategoricalFocalCrossentropy,
    SparseCategoricalCrossentropy,
)
_CLASS_BY_NAME = {cls.__name__: cls for cls in CLASSES}
# A name (the function's and its aliases) gives the loss object of the same function.
_BY_NAME = {
    **{cls().fn.__name__: cls for cls in CLASSES},
    "mse": MeanSquaredError,
    "mae": MeanAbsoluteError,
    "mape": MeanAbsolutePercentageError,
    "msle": MeanSquaredLogarithmicError,
    "kld": KLDivergence,
    "kullback_leibler_divergence": KLDivergence,
    "logcosh": LogCosh,
}


def serialize(loss):
    """The loss's config as Keras 3 writes it."""
    return serialize_object(loss)


def deserialize(config, custom_objects=None):
    """The loss a ``serialize`` dict (or a name) describes."""
    if isinstance(config, str):
        return get(config)
    return deserialize_object(
        config, {**_CLASS_BY_NAME, **(custom_objects or {})}, "loss", _unknown_loss
    )


def _unknown_loss(name):
    return ValueError(f"Unknown loss function: '{name}'. Use one of {sorted(_CLASS_BY_NAME)}.")


def get(identifier):
    """A Loss: by name (``"mse"``, ``"huber"``, ``"sparse_categorical_crossentropy"``...) or
    class name, from a config dict, a Loss as it is, or a function of ``(y_true, y_pred)``
    wrapped to take the batch mean; None stays None."""
    if identifier is None or isinstance(identifier, Loss):
        return identifier
    if isinstance(identifier, type) and issubclass(identifier, Loss):
        name = identifier.__name__
        raise TypeError(f"loss={name} is a class: pass an instance, {name}()")
    if isinstance(identifier, dict):
        return deserialize(identifier)
    if isinstance(identifier, str):
        cls = _BY_NAME.get(identifier) or _CLASS_BY_NAME.get(identifier)
        if cls is None:
            raise ValueError(
                f"Unknown loss function: {identifier!r}. Use one of {sorted(_BY_NAME)}."
            )
        return cls()
    if callable(identifier):
        return LossFunctionWrapper(identifier)
    raise ValueError(f"Could not interpret loss function identifier: {identifier!r}")
