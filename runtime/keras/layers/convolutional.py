"""Convolution layers: ``Conv1D`` and ``Conv2D``, as Keras 3 defines them.

A kernel ``(*kernel_size, input_channels // groups, filters)`` and a bias ``(filters,)``
(Keras's names and order), ``rt.nn.conv1d`` / ``conv2d`` over channels-last inputs (a
channels-first input is transposed), the bias added, then the activation.

>>> import numpy as np
>>> import runtime as rt
>>> rt.keras.backend.clear_session()
>>> conv = rt.keras.layers.Conv2D(2, 3, padding="same", kernel_initializer="ones")
>>> conv(np.ones((1, 4, 4, 1), np.float32))[0, :, :, 0].numpy()   # 3x3 sums of ones
array([[4., 6., 6., 4.],
       [6., 9., 9., 6.],
       [6., 9., 9., 6.],
       [4., 6., 6., 4.]], dtype=float32)
>>> [(v.name, v.shape.as_list()) for v in conv.weights]
[('conv2d/kernel:0', [3, 3, 1, 2]), ('conv2d/bias:0', [2])]
"""

from __future__ import annotations

from runtime.core.tensor_shape import TensorShape
from runtime.keras import activations, constraints, initializers, regularizers
from runtime.keras.layers import arguments as args
from runtime.keras.layers.base import Layer
from runtime.ops.array_ops import concat, reshape, transpose
from runtime.ops.constant_ops import cast
from runtime.ops.conv_ops import conv1d, conv2d
from runtime.ops.padding_ops import pad


class _Conv(Layer):
    """A ``rank``-D convolution layer (Keras's BaseConv)."""

    rank = None

    def __init__(
        self,
        filters,
        kernel_size,
        strides=1,
        padding="valid",
        data_format=None,
        dilation_rate=1,
        groups=1,
        activation=None,
        use_bias=True,
        kernel_initializer="glorot_uniform",
        bias_initializer="zeros",
        kernel_regularizer=None,
        bias_regularizer=None,
        activity_regularizer=None,
        kernel_constraint=None,
        bias_constraint=None,
        **kwargs,
    ):
        if activity_regularizer is not None:  # the base layer's, as in Keras
            kwargs["activity_regularizer"] = activity_regularizer
        super().__init__(**kwargs)
        rank = self.rank
        self.filters = filters
        self.groups = groups
        self.kernel_size = args.standardize_tuple(kernel_size, rank, "kernel_size")
        self.strides = args.standardize_tuple(strides, rank, "strides")
        self.dilation_rate = args.standardize_tuple(dilation_rate, rank, "dilation_rate")
        self.padding = args.standardize_padding(padding, allow_causal=rank == 1)
        self.data_format = args.standardize_data_format(data_format)
        self.activation = activations.get(activation)
        self.use_bias = use_bias
        self.kernel_initializer = initializers.get(kernel_initializer)
        self.bias_initializer = initializers.get(bias_initializer)
        # Kept, and given to the weights (add_weight's regularizer and constraint), as Keras does.
        self.kernel_regularizer = kernel_regularizer
        self.bias_regularizer = bias_regularizer
        self.kernel_constraint = kernel_constraint
        self.bias_constraint = bias_constraint
        self._check_arguments()

    def _check_arguments(self):
        if self.filters is not None and self.filters <= 0:
            raise ValueError(
                "Invalid value for argument `filters`. Expected a strictly positive value. "
                f"Received filters={self.filters}."
            )
        if self.groups <= 0:
            raise ValueError(
                f"The number of groups must be a positive integer. Received: groups={self.groups}."
            )
        if self.filters is not None and self.filters % self.groups != 0:
            raise ValueError(
                "The number of filters must be evenly divisible by the number of groups. "
                f"Received: groups={self.groups}, filters={self.filters}."
            )
        if max(self.strides) > 1 and max(self.dilation_rate) > 1:
            raise ValueError(
                "`strides > 1` not supported in conjunction with `dilation_rate > 1`. "
                f"Received: strides={self.strides} and dilation_rate={self.dilation_rate}"
            )

    def _channels(self, input_shape):
        return input_shape[-1] if self.data_format == "channels_last" else input_shape[1]

    def build(self, input_shape):
        args.check_rank(self, input_shape, self.rank + 2, at_least=True)
        channels = self._channels(input_shape)
        if channels is None:
            raise ValueError(
                "The channel dimension of the inputs should be defined. Found None. "
                f"Full input shape received: {tuple(input_shape)}"
            )
        if channels % self.groups != 0:
            raise ValueError(
                "The number of input channels must be evenly divisible by the number of groups. "
                f"Received groups={self.groups}, but the input has {channels} channels (full "
                f"input shape is {tuple(input_shape)})."
            )
        self.compute_output_shape(input_shape)  # refuses a window that does not fit
        self.kernel = self.add_weight(
            name="kernel",
            shape=(*self.kernel_size, channels // self.groups, self.filters),
            initializer=self.kernel_initializer,
            regularizer=self.kernel_regularizer,
            constraint=self.kernel_constraint,
        )
        self.bias = None
        if self.use_bias:
            self.bias = self.add_weight(
                name="bias",
                shape=(self.filters,),
                initializer=self.bias_initializer,
                regularizer=self.bias_regularizer,
                constraint=self.bias_constraint,
            )

    def call(self, inputs):
        args.check_rank(self, inputs.shape.as_list() if inputs.shape.rank is not None else None,
                        self.rank + 2, at_least=True)  # fmt: skip
        if inputs.dtype is not self.kernel.dtype:
            inputs = cast(inputs, self.kernel.dtype)
        first = self.data_format == "channels_first"
        x = transpose(inputs, [0, *range(2, self.rank + 2), 1]) if first else inputs
        if self.padding == "causal":  # the past only: all the padding before
            reach = (self.kernel_size[0] - 1) * self.dilation_rate[0]
            x = pad(x, [[0, 0], [reach, 0], [0, 0]])
        outputs = self._grouped_convolution(x)
        if self.bias is not None:
            outputs = outputs + reshape(self.bias, [1] * (self.rank + 1) + [self.filters])
        if first:
            outputs = transpose(outputs, [0, self.rank + 1, *range(1, self.rank + 1)])
        return self.activation(outputs)  # as Keras: on the output in its own data format

    def _grouped_convolution(self, x):
        """Each group of input channels convolved with its share of the filters, joined."""
        if self.groups == 1:
            return self._convolution(x, self.kernel)
        per_group, filters = x.shape[-1] // self.groups, self.filters // self.groups
        parts = [
            self._convolution(
                x[..., g * per_group : (g + 1) * per_group],
                self.kernel[..., g * filters : (g + 1) * filters],
            )
            for g in range(self.groups)
        ]
        return concat(parts, axis=-1)

    def _convolution(self, x, kernel):
        padding = "VALID" if self.padding == "causal" else self.padding.upper()
        conv = conv1d if self.rank == 1 else conv2d
        return conv(x, kernel, self.strides, padding, dilations=self.dilation_rate)

    def compute_output_shape(self, input_shape):
        shape = list(input_shape)
        first = self.data_format == "channels_first"
        spatial = shape[2:] if first else shape[1:-1]
        out = [
            _output_size(n, k, s, d, self.padding)
            for n, k, s, d in zip(spatial, self.kernel_size, self.strides, self.dilation_rate)
        ]
        if any(n is not None and n <= 0 for n in out):
            raise ValueError(
                "Computed output size would be zero or negative. Received `inputs "
                f"shape={tuple(input_shape)}`, `kernel shape="
                f"{(*self.kernel_size, self._channels(shape), self.filters)}`, "
                f"`dilation_rate={list(self.dilation_rate)}`, `strides={self.strides}`, "
                f"`padding={self.padding}`."
            )
        if first:
            return TensorShape([shape[0], self.filters, *out])
        return TensorShape([shape[0], *out, self.filters])

    def get_config(self):
        config = super().get_config()
        config.update(
            {
                "filters": self.filters,
                "kernel_size": self.kernel_size,
                "strides": self.strides,
                "padding": self.padding,
                "data_format": self.data_format,
                "dilation_rate": self.dilation_rate,
                "groups": self.groups,
                "activation": activations.serialize(self.activation),
                "use_bias": self.use_bias,
                "kernel_initializer": initializers.serialize(self.kernel_initializer),
                "bias_initializer": initializers.serialize(self.bias_initializer),
                "kernel_regularizer": regularizers.serialize(self.kernel_regularizer),
                "bias_regularizer": regularizers.serialize(self.bias_regularizer),
                "activity_regularizer": regularizers.serialize(self.activity_regularizer),
                "kernel_constraint": constraints.serialize(self.kernel_constraint),
                "bias_constraint": constraints.serialize(self.bias_constraint),
            }
        )
        return config


def _output_size(size, kernel, stride, dilation, padding):
    """Keras's output length along one dim (None when the input's is unknown)."""
    if size is None:
        return None
    if padding == "valid":
        return (size - dilation * (kernel - 1) - 1) // stride + 1
    return (size - 1) // stride + 1


class Conv1D(_Conv):
    """1-D convolution over ``(batch, steps, channels)`` (channels_last) inputs;
    ``padding="causal"`` sees only the past (pads before the sequence).

    >>> layer = Conv1D(4, 3, padding="causal")
    >>> layer.compute_output_shape((None, 10, 2))
    TensorShape([None, 10, 4])
    """

    rank = 1


class Conv2D(_Conv):
    """2-D convolution over ``(batch, height, width, channels)`` (channels_last) inputs.

    >>> Conv2D(8, (3, 3), strides=2).compute_output_shape((None, 28, 28, 1))
    TensorShape([None, 13, 13, 8])
    """

    rank = 2
