"""``rt.data``: input pipelines, as ``tf.data`` builds them (``Dataset``).

>>> import numpy as np, runtime as rt
>>> ds = rt.data.Dataset.from_tensor_slices((np.zeros((5, 2)), np.arange(5)))
>>> ds = ds.shuffle(5).batch(2).prefetch(rt.data.AUTOTUNE)
>>> [tuple(x.shape) for x, y in ds]
[(2, 2), (2, 2), (1, 2)]
"""

from runtime.data.dataset import AUTOTUNE, Dataset
from runtime.data.dataset import INFINITE as INFINITE_CARDINALITY
from runtime.data.dataset import UNKNOWN as UNKNOWN_CARDINALITY

__all__ = ["AUTOTUNE", "INFINITE_CARDINALITY", "UNKNOWN_CARDINALITY", "Dataset"]
