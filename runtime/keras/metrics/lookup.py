"""``get``, ``serialize`` and ``deserialize``: metrics by name and as Keras' config dicts.

>>> import runtime as rt
>>> rt.keras.metrics.get("mse")
<MeanSquaredError name=mean_squared_error>
>>> config = rt.keras.metrics.serialize(rt.keras.metrics.BinaryAccuracy(threshold=0.7))
>>> config["class_name"], config["config"]["threshold"]
('BinaryAccuracy', 0.7)
>>> rt.keras.metrics.deserialize(config).get_config()["threshold"]
0.7
"""

from __future__ import annotations

from runtime.keras import backend
from runtime.keras._config import deserialize_object, serialize_object
from runtime.keras.metrics import accuracy_metrics as accuracy
from runtime.keras.metrics import (
    at_threshold,
    auc,
    confusion,
    hinge_metrics,
    probabilistic,
    r2,
    reduction,
    regression,
)
from runtime.keras.metrics.metric import Metric

_CLASSES = [
    Metric,
    reduction.Mean,
    reduction.Sum,
    reduction.MeanMetricWrapper,
    regression.MeanSquaredError,
    regression.RootMeanSquaredError,
    regression.MeanAbsoluteError,
    regression.MeanAbsolutePercentageError,
    regression.MeanSquaredLogarithmicError,
    regression.CosineSimilarity,
    regression.LogCoshError,
    r2.R2Score,
    auc.AUC,
    at_threshold.PrecisionAtRecall,
    at_threshold.RecallAtPrecision,
    at_threshold.SensitivityAtSpecificity,
    at_threshold.SpecificityAtSensitivity,
    confusion.FalseNegatives,
    confusion.FalsePositives,
    confusion.Precision,
    confusion.Recall,
    confusion.TrueNegatives,
    confusion.TruePositives,
    probabilistic.KLDivergence,
    probabilistic.Poisson,
    probabilistic.BinaryCrossentropy,
    probabilistic.CategoricalCrossentropy,
    probabilistic.SparseCategoricalCrossentropy,
    accuracy.Accuracy,
    accuracy.BinaryAccuracy,
    accuracy.CategoricalAccuracy,
    accuracy.SparseCategoricalAccuracy,
    accuracy.TopKCategoricalAccuracy,
    accuracy.SparseTopKCategoricalAccuracy,
    hinge_metrics.Hinge,
    hinge_metrics.SquaredHinge,
    hinge_metrics.CategoricalHinge,
    hinge_metrics.FBetaScore,
    hinge_metrics.F1Score,
]
_FUNCTIONS = [
    accuracy.accuracy,
    accuracy.binary_accuracy,
    accuracy.categorical_accuracy,
    accuracy.sparse_categorical_accuracy,
    accuracy.top_k_categorical_accuracy,
    accuracy.sparse_top_k_categorical_accuracy,
    regression.mean_squared_error,
    regression.mean_absolute_error,
    regression.mean_absolute_percentage_error,
    regression.mean_squared_logarithmic_error,
    probabilistic.binary_crossentropy,
    probabilistic.categorical_crossentropy,
    probabilistic.sparse_categorical_crossentropy,
    probabilistic.kl_divergence,
    probabilistic.poisson,
    hinge_metrics.hinge,
    hinge_metrics.squared_hinge,
    hinge_metrics.categorical_hinge,
]
_ALIASES = {
    "bce": probabilistic.BinaryCrossentropy,
    "mse": regression.MeanSquaredError,
    "mae": regression.MeanAbsoluteError,
    "mape": regression.MeanAbsolutePercentageError,
    "msle": regression.MeanSquaredLogarithmicError,
}

BY_NAME = {cls.__name__: cls for cls in _CLASSES}
BY_NAME.update({backend.to_snake_case(cls.__name__): cls for cls in _CLASSES})
BY_NAME.update(_ALIASES)
BY_NAME.update({alias.upper(): cls for alias, cls in _ALIASES.items()})
FUNCTIONS = {fn.__name__: fn for fn in _FUNCTIONS}  # by name only in a serialized function
reduction.KNOWN_FUNCTIONS.update(FUNCTIONS)


def serialize(metric):
    """A metric (or metric function) as Keras' config dict."""
    if not isinstance(metric, Metric) and getattr(metric, "__name__", None) is None:
        raise TypeError(f"Cannot serialize {metric!r}: it is not a Metric nor a function")
    return serialize_object(metric)


def deserialize(config, custom_objects=None):
    """The metric (or function) a ``serialize`` dict, or a name, describes."""
    known = {**BY_NAME, **(custom_objects or {})}
    if isinstance(config, str):
        if config not in known:
            raise _unknown_metric(config)
        return known[config]
    if not isinstance(config, dict) or "class_name" not in config:
        raise ValueError(f"Could not interpret serialized metric: {config!r}")
    if config["class_name"] == "function":
        known = {**FUNCTIONS, **(custom_objects or {})}
    return deserialize_object(config, known, "metric", _unknown_metric)


def _unknown_metric(name):
    return ValueError(f"Unknown metric function: '{name}'")


def get(identifier):
    """A metric: by name (a class is instantiated, a function returned), a config dict, or
    the metric or function itself."""
    if identifier is None:
        return None
    if isinstance(identifier, dict):
        found = deserialize(identifier)
    elif isinstance(identifier, str):
        found = BY_NAME.get(identifier)
    else:
        found = identifier
    if isinstance(found, type) and issubclass(found, Metric):
        return found()
    if callable(found):
        return found
    raise ValueError(f"Could not interpret metric identifier: {identifier}")
