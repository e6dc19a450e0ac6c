"""Pooling layers, as Keras 3 defines them: ``MaxPooling1D/2D``, ``AveragePooling1D/2D``
(windows of ``pool_size`` moved by ``strides``, by default ``pool_size``) and
``GlobalMaxPooling1D/2D``, ``GlobalAveragePooling1D/2D`` (over every step or pixel).

>>> import numpy as np
>>> import runtime as rt
>>> x = np.arange(16.0, dtype=np.float32).reshape(1, 4, 4, 1)
>>> rt.keras.layers.MaxPooling2D()(x)[0, :, :, 0].numpy()
array([[ 5.,  7.],
       [13., 15.]], dtype=float32)
>>> rt.keras.layers.GlobalAveragePooling2D(keepdims=True)(x).shape
TensorShape([1, 1, 1, 1])
"""

from __future__ import annotations

from runtime.core import dtypes
from runtime.core.tensor_shape import TensorShape
from runtime.keras.layers import arguments as args
from runtime.keras.layers.base import Layer
from runtime.ops.array_ops import expand_dims
from runtime.ops.constant_ops import cast
from runtime.ops.pooling_ops import avg_pool1d, avg_pool2d, max_pool1d, max_pool2d
from runtime.ops.reduction_ops import reduce_max, reduce_mean, reduce_sum

_POOLS = {("max", 1): max_pool1d, ("max", 2): max_pool2d,
          ("average", 1): avg_pool1d, ("average", 2): avg_pool2d}  # fmt: skip


class _Pooling(Layer):
    """Keras's BasePooling: ``pool_mode`` (``"max"`` or ``"average"``) over windows."""

    _built_at_init = True  # as Keras 3: its config in a .keras file has no build config

    rank = None
    pool_mode = None

    def __init__(self, pool_size, strides=None, padding="valid", data_format=None, name=None, **kwargs):  # fmt: skip
        super().__init__(name=name, **kwargs)
        self.pool_size = args.standardize_tuple(pool_size, self.rank, "pool_size")
        strides = pool_size if strides is None else strides
        self.strides = args.standardize_tuple(strides, self.rank, "strides", allow_zero=True)
        self.padding = padding
        self.data_format = args.standardize_data_format(data_format)
        self.built = True  # no weights: built when made, as in Keras

    def call(self, inputs):
        args.check_rank(self, _dims(inputs.shape), self.rank + 2)
        pool = _POOLS[self.pool_mode, self.rank]
        first = self.data_format == "channels_first"
        data_format = (
            ("NCW" if first else "NWC") if self.rank == 1 else ("NCHW" if first else "NHWC")
        )
        padding = args.standardize_padding(self.padding).upper()
        return pool(inputs, self.pool_size, self.strides, padding, data_format)

    def compute_output_shape(self, input_shape):
        shape = list(input_shape)
        first = self.data_format == "channels_first"
        spatial = shape[2:] if first else shape[1:-1]
        padding = str(self.padding).lower()
        if padding not in ("valid", "same"):
            raise ValueError(
                "Argument `padding` must be either 'valid' or 'same'. Received: "
                f"padding={self.padding}"
            )
        out = [
            None if n is None else ((n - 1) // s + 1 if padding == "same" else (n - k) // s + 1)
            for n, k, s in zip(spatial, self.pool_size, self.strides)
        ]
        if any(n is not None and n <= 0 for n in out):
            raise ValueError(
                "Computed output size would be zero or negative. Received: "
                f"`inputs.shape={tuple(input_shape)}`, `pool_size={self.pool_size}`, "
                f"`strides={self.strides}`, `padding={self.padding}`."
            )
        if first:
            return TensorShape([shape[0], shape[1], *out])
        return TensorShape([shape[0], *out, shape[-1]])

    def get_config(self):
        config = super().get_config()
        config.update(
            {
                "pool_size": self.pool_size,
                "padding": self.padding,
                "strides": self.strides,
                "data_format": self.data_format,
            }
        )
        return config


def _dims(shape):
    return shape.as_list() if shape.rank is not None else None


class MaxPooling1D(_Pooling):
    """The largest of each window of steps of ``(batch, steps, features)``."""

    rank, pool_mode = 1, "max"

    def __init__(self, pool_size=2, strides=None, padding="valid", data_format=None, name=None, **kwargs):  # fmt: skip
        super().__init__(pool_size, strides, padding, data_format, name, **kwargs)


class AveragePooling1D(_Pooling):
    """The mean of each window of steps of ``(batch, steps, features)``."""

    rank, pool_mode = 1, "average"

    def __init__(self, pool_size, strides=None, padding="valid", data_format=None, name=None, **kwargs):  # fmt: skip
        super().__init__(pool_size, strides, padding, data_format, name, **kwargs)


class MaxPooling2D(_Pooling):
    """The largest of each window of ``(batch, height, width, channels)``.

    >>> MaxPooling2D((2, 2)).compute_output_shape((None, 27, 27, 8))
    TensorShape([None, 13, 13, 8])
    """

    rank, pool_mode = 2, "max"

    def __init__(self, pool_size=(2, 2), strides=None, padding="valid", data_format=None, name=None, **kwargs):  # fmt: skip
        super().__init__(pool_size, strides, padding, data_format, name, **kwargs)


class AveragePooling2D(_Pooling):
    """The mean of each window of ``(batch, height, width, channels)`` (with ``"same"``
    padding, of the window's elements inside the input)."""

    rank, pool_mode = 2, "average"

    def __init__(self, pool_size, strides=None, padding="valid", data_format=None, name=None, **kwargs):  # fmt: skip
        super().__init__(pool_size, strides, padding, data_format, name, **kwargs)


# --- global pooling -------------------------------------------------------------------------


class _GlobalPooling(Layer):
    """Keras's BaseGlobalPooling: one value per channel (``keepdims``: the spatial dims
    kept, as 1s)."""

    _built_at_init = True  # as Keras 3: its config in a .keras file has no build config

    rank = None
    reduce = None

    def __init__(self, data_format=None, keepdims=False, **kwargs):
        super().__init__(**kwargs)
        self.data_format = args.standardize_data_format(data_format)
        self.keepdims = keepdims
        self.built = True  # no weights: built when made, as in Keras

    def call(self, inputs):
        args.check_rank(self, _dims(inputs.shape), self.rank + 2)
        first = self.data_format == "channels_first"
        axes = list(range(2, self.rank + 2)) if first else list(range(1, self.rank + 1))
        return self.reduce(inputs, axis=axes, keepdims=self.keepdims)

    def compute_output_shape(self, input_shape):
        shape = list(input_shape)
        if self.data_format == "channels_last":
            spatial, channels = (1,) * (len(shape) - 2), [shape[-1]]
            return TensorShape([shape[0], *(spatial if self.keepdims else ()), *channels])
        spatial = (1,) * (len(shape) - 2) if self.keepdims else ()
        return TensorShape([shape[0], shape[1], *spatial])

    def get_config(self):
        config = super().get_config()
        config.update({"data_format": self.data_format, "keepdims": self.keepdims})
        return config


class GlobalAveragePooling1D(_GlobalPooling):
    """The mean over the steps of ``(batch, steps, features)``; with a ``mask``
    ``(batch, steps)``, over the steps it marks."""

    rank, reduce = 1, staticmethod(reduce_mean)
    _supports_masking = True  # as Keras: it takes the mask, and its output has none

    def call(self, inputs, mask=None):
        if mask is None:
            return super().call(inputs)
        steps = 1 if self.data_format == "channels_last" else 2
        weights = expand_dims(cast(cast(mask, dtypes.bool_), inputs.dtype), 3 - steps)
        total = reduce_sum(inputs * weights, axis=steps, keepdims=self.keepdims)
        return total / reduce_sum(weights, axis=steps, keepdims=self.keepdims)

    def compute_mask(self, inputs, mask=None):
        return None


class GlobalAveragePooling2D(_GlobalPooling):
    """The mean over the pixels of ``(batch, height, width, channels)``."""

    rank, reduce = 2, staticmethod(reduce_mean)


class GlobalMaxPooling1D(_GlobalPooling):
    """The largest value over the steps of ``(batch, steps, features)``."""

    rank, reduce = 1, staticmethod(reduce_max)


class GlobalMaxPooling2D(_GlobalPooling):
    """The largest value over the pixels of ``(batch, height, width, channels)``."""

    rank, reduce = 2, staticmethod(reduce_max)
