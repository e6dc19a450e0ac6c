"""``rt.keras.metrics``: stateful metrics as in Keras 3, and their function forms.

A metric object accumulates batches (``update_state``), gives the value so far
(``result``) and starts again (``reset_state``); calling it does the first two.
Its state is non-trainable variables, so it updates inside an ``ag.function``
(``fit``'s staged step) as it does eagerly. The functions (``binary_accuracy``,
``mean_squared_error``...) give each example's value.

>>> import runtime as rt
>>> m = rt.keras.metrics.SparseCategoricalAccuracy()
>>> m.update_state([2, 0], [[0.1, 0.2, 0.7], [0.3, 0.6, 0.1]])
>>> float(m.result())
0.5
>>> m.update_state([1], [[0.3, 0.6, 0.1]]); round(float(m.result()), 6)
0.666667
>>> rt.keras.metrics.sparse_categorical_accuracy([2, 0], [[0.1, 0.2, 0.7], [0.3, 0.6, 0.1]])
<rt.Tensor: shape=(2,), dtype=float32, numpy=array([1., 0.], dtype=float32)>
"""

from runtime.keras.metrics.accuracy_metrics import (
    Accuracy,
    BinaryAccuracy,
    CategoricalAccuracy,
    SparseCategoricalAccuracy,
    SparseTopKCategoricalAccuracy,
    TopKCategoricalAccuracy,
    accuracy,
    binary_accuracy,
    categorical_accuracy,
    sparse_categorical_accuracy,
    sparse_top_k_categorical_accuracy,
    top_k_categorical_accuracy,
)
from runtime.keras.metrics.at_threshold import (
    PrecisionAtRecall,
    RecallAtPrecision,
    SensitivityAtSpecificity,
    SpecificityAtSensitivity,
)
from runtime.keras.metrics.auc import AUC
from runtime.keras.metrics.confusion import (
    FalseNegatives,
    FalsePositives,
    Precision,
    Recall,
    TrueNegatives,
    TruePositives,
)
from runtime.keras.metrics.hinge_metrics import (
    CategoricalHinge,
    F1Score,
    FBetaScore,
    Hinge,
    SquaredHinge,
    categorical_hinge,
    hinge,
    squared_hinge,
)
from runtime.keras.metrics.lookup import deserialize, get, serialize
from runtime.keras.metrics.metric import Metric
from runtime.keras.metrics.probabilistic import (
    BinaryCrossentropy,
    CategoricalCrossentropy,
    KLDivergence,
    Poisson,
    SparseCategoricalCrossentropy,
    binary_crossentropy,
    categorical_crossentropy,
    kl_divergence,
    poisson,
    sparse_categorical_crossentropy,
)
from runtime.keras.metrics.r2 import R2Score
from runtime.keras.metrics.reduction import Mean, MeanMetricWrapper, Sum
from runtime.keras.metrics.regression import (
    CosineSimilarity,
    LogCoshError,
    MeanAbsoluteError,
    MeanAbsolutePercentageError,
    MeanSquaredError,
    MeanSquaredLogarithmicError,
    RootMeanSquaredError,
    cosine_similarity,
    log_cosh,
    mape,
    mean_absolute_error,
    mean_absolute_percentage_error,
    mean_squared_error,
    mean_squared_logarithmic_error,
    msle,
)

mse = MSE = mean_squared_error
mae = MAE = mean_absolute_error
MAPE = mape
MSLE = msle
kld = KLD = kl_divergence
logcosh = log_cosh

__all__ = [
    "AUC", "Accuracy", "BinaryAccuracy", "BinaryCrossentropy", "CategoricalAccuracy",
    "CategoricalCrossentropy", "CosineSimilarity", "FalseNegatives", "FalsePositives",
    "KLDivergence", "LogCoshError", "Mean", "MeanAbsoluteError", "MeanAbsolutePercentageError",
    "MeanMetricWrapper", "MeanSquaredError", "MeanSquaredLogarithmicError", "Metric", "Poisson",
    "Precision", "PrecisionAtRecall", "R2Score", "Recall", "RecallAtPrecision", "SensitivityAtSpecificity",
    "SpecificityAtSensitivity", "RootMeanSquaredError", "SparseCategoricalAccuracy",
    "SparseCategoricalCrossentropy", "SparseTopKCategoricalAccuracy", "Sum",
    "TopKCategoricalAccuracy", "TrueNegatives", "TruePositives", "accuracy", "binary_accuracy",
    "binary_crossentropy", "categorical_accuracy", "categorical_crossentropy",
    "cosine_similarity", "deserialize", "get", "kl_divergence", "log_cosh", "mae", "mape",
    "mean_absolute_error", "mean_absolute_percentage_error", "mean_squared_error",
    "mean_squared_logarithmic_error", "mse", "msle", "poisson", "serialize",
    "sparse_categorical_accuracy", "sparse_categorical_crossentropy",
    "sparse_top_k_categorical_accuracy", "top_k_categorical_accuracy",
    "CategoricalHinge", "F1Score", "FBetaScore", "Hinge", "SquaredHinge", "categorical_hinge",
    "hinge", "squared_hinge",
]  # fmt: skip
