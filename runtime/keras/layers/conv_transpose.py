"""``Conv2DTranspose``, as Keras 3 defines it: the transpose of a ``Conv2D`` (what maps a
convolution's output shape back to its input's), the generator's upsampling in a GAN.

A kernel ``(*kernel_size, filters, input_channels)`` (Keras's shape: out before in) and a
bias ``(filters,)``, ``rt.nn.conv2d_transpose`` onto the output shape Keras's rule gives,
the bias added, then the activation. Along each spatial dim, with ``reach`` the dilated
kernel's extent: ``"valid"`` gives ``(n - 1) * stride + max(reach, stride)`` (or ``reach +
output_padding`` in place of the max), ``"same"`` gives ``n * stride`` (or ``(n - 1) * stride +
reach % 2 + output_padding``).

>>> import numpy as np
>>> import runtime as rt
>>> rt.keras.backend.clear_session()
>>> up = rt.keras.layers.Conv2DTranspose(1, 2, strides=2, kernel_initializer="ones")
>>> up(np.ones((1, 2, 2, 1), np.float32))[0, :, :, 0].numpy()  # each pixel a 2x2 block
array([[1., 1., 1., 1.],
       [1., 1., 1., 1.],
       [1., 1., 1., 1.],
       [1., 1., 1., 1.]], dtype=float32)
>>> [(v.name, v.shape.as_list()) for v in up.weights]
[('conv2d_transpose/kernel:0', [2, 2, 1, 1]), ('conv2d_transpose/bias:0', [1])]
"""

from __future__ import annotations

from runtime.core.tensor_shape import TensorShape
from runtime.keras import activations, constraints, initializers, regularizers
from runtime.keras.layers import arguments as args
from runtime.keras.layers.base import Layer
from runtime.ops.array_ops import reshape, shape
from runtime.ops.constant_ops import cast
from runtime.ops.conv_ops import conv2d_transpose


def transposed_size(size, kernel, stride, dilation, padding, output_padding):
    """Keras's output length along one dim of a transposed convolution (None when the
    input's is unknown); ``size`` may be a scalar tensor."""
    if size is None:
        return None
    reach = (kernel - 1) * dilation + 1
    if padding == "valid":
        extra = max(reach, stride) - reach if output_padding is None else output_padding
        return (size - 1) * stride + reach + extra
    if output_padding is None:
        return size * stride
    return (size - 1) * stride + reach % 2 + output_padding


class Conv2DTranspose(Layer):
    """2-D transposed convolution over ``(batch, height, width, channels)`` (channels_last)
    inputs: ``strides=2`` with ``padding="same"`` doubles the height and width.

    >>> Conv2DTranspose(8, (4, 4), strides=2, padding="same").compute_output_shape((None, 7, 7, 3))
    TensorShape([None, 14, 14, 8])
    """

    rank = 2

    def __init__(
        self,
        filters,
        kernel_size,
        strides=(1, 1),
        padding="valid",
        output_padding=None,
        data_format=None,
        dilation_rate=(1, 1),
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
        self.kernel_size = args.standardize_tuple(kernel_size, rank, "kernel_size")
        self.strides = args.standardize_tuple(strides, rank, "strides")
        self.dilation_rate = args.standardize_tuple(dilation_rate, rank, "dilation_rate")
        self.padding = args.standardize_padding(padding)
        self.output_padding = None
        if output_padding is not None:
            self.output_padding = args.standardize_tuple(
                output_padding, rank, "output_padding", allow_zero=True
            )
        self.data_format = args.standardize_data_format(data_format)
        self.activation = activations.get(activation)
        self.use_bias = use_bias
        self.kernel_initializer = initializers.get(kernel_initializer)
        self.bias_initializer = initializers.get(bias_initializer)
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
        for i, (extra, stride) in enumerate(zip(self.output_padding or (), self.strides)):
            if extra >= stride:
                raise ValueError(
                    "`output_padding` must be strictly less than `strides` for all "
                    f"dimensions. At dimension {i}, `output_padding` is {extra} but `strides` "
                    f"is {stride}. Received: output_padding={self.output_padding}, "
                    f"strides={self.strides}"
                )
        if max(self.strides) > 1 and max(self.dilation_rate) > 1:
            raise ValueError(
                "`strides > 1` not supported in conjunction with `dilation_rate > 1`. "
                f"Received: strides={self.strides} and dilation_rate={self.dilation_rate}"
            )

    def _channels_first(self):
        return self.data_format == "channels_first"

    def build(self, input_shape):
        args.check_rank(self, input_shape, self.rank + 2, at_least=True)
        channels = input_shape[1] if self._channels_first() else input_shape[-1]
        if channels is None:
            raise ValueError(
                "The channel dimension of the inputs should be defined. Found None. "
                f"Full input shape received: {tuple(input_shape)}"
            )
        self.kernel = self.add_weight(
            name="kernel",
            shape=(*self.kernel_size, self.filters, channels),
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

    def _output_sizes(self, spatial):
        extras = self.output_padding or (None,) * self.rank
        return [
            transposed_size(n, k, s, d, self.padding, extra)
            for n, k, s, d, extra in zip(
                spatial, self.kernel_size, self.strides, self.dilation_rate, extras
            )
        ]

    def call(self, inputs):
        if inputs.dtype is not self.kernel.dtype:
            inputs = cast(inputs, self.kernel.dtype)
        first = self._channels_first()
        static = inputs.shape.as_list()
        dynamic = shape(inputs) if None in static else None
        dims = [dynamic[i] if n is None else n for i, n in enumerate(static)]
        spatial = self._output_sizes(dims[2:] if first else dims[1:-1])
        output_shape = [dims[0], self.filters, *spatial] if first else [dims[0], *spatial, self.filters]  # fmt: skip
        outputs = conv2d_transpose(
            inputs,
            self.kernel,
            output_shape,
            self.strides,
            padding=self.padding.upper(),
            data_format="NCHW" if first else "NHWC",
            dilations=self.dilation_rate,
        )
        if self.bias is not None:
            bias_shape = [1, self.filters, 1, 1] if first else [1, 1, 1, self.filters]
            outputs = outputs + reshape(self.bias, bias_shape)
        return self.activation(outputs)

    def compute_output_shape(self, input_shape):
        dims = list(input_shape)
        if self._channels_first():
            return TensorShape([dims[0], self.filters, *self._output_sizes(dims[2:])])
        return TensorShape([dims[0], *self._output_sizes(dims[1:-1]), self.filters])

    def get_config(self):
        config = super().get_config()
        config.update(
            {
                "filters": self.filters,
                "kernel_size": self.kernel_size,
                "strides": self.strides,
                "padding": self.padding,
                "output_padding": self.output_padding,
                "data_format": self.data_format,
                "dilation_rate": self.dilation_rate,
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
