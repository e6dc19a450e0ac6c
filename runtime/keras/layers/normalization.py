"""Normalization layers: ``BatchNormalization``, ``LayerNormalization``, ``GroupNormalization``,
``UnitNormalization``, as Keras 3 defines them.

>>> import runtime as rt
>>> rt.keras.backend.clear_session()
>>> bn = rt.keras.layers.BatchNormalization(momentum=0.5, epsilon=0.0)
>>> bn(rt.constant([[1.0], [3.0]]), training=True).numpy()    # the batch's mean 2, variance 1
array([[-1.],
       [ 1.]], dtype=float32)
>>> bn.moving_mean.numpy(), bn.moving_variance.numpy()      # 0 * 0.5 + 2 * 0.5, 1 * 0.5 + 1 * 0.5
(array([1.], dtype=float32), array([1.], dtype=float32))
>>> [v.name for v in bn.weights]
['batch_normalization/gamma:0', 'batch_normalization/beta:0', 'batch_normalization/moving_mean:0', 'batch_normalization/moving_variance:0']
"""

from __future__ import annotations

import numbers

from runtime.core.tensor import Tensor
from runtime.core.tensor_shape import TensorShape
from runtime.functions.control_flow import cond
from runtime.keras.layers import config_keys
from runtime.keras.layers.base import Layer
from runtime.ops.array_ops import reshape, shape_of, stop_gradient
from runtime.ops.constant_ops import cast, convert_to_tensor
from runtime.ops.math_ops import maximum, minimum, sqrt
from runtime.ops.nn_ops import relu
from runtime.ops.normalization_ops import batch_normalization, moments
from runtime.ops.reduction_ops import reduce_sum


def _axes(axis, rank, layer):
    """``axis`` (an int or a list) as sorted non-negative axes of a rank-``rank`` input."""
    listed = list(axis) if isinstance(axis, (list, tuple)) else [axis]
    found = []
    for a in listed:
        if not -rank <= a < rank:  # Keras 3's words
            raise ValueError(f"Axis {a} is out of bounds for tensor of rank {rank}.")
        found.append(a % rank)
    if len(set(found)) != len(found):
        raise ValueError(f"Duplicate axes are not allowed. Received: axis={axis}")
    return sorted(found)


def _broadcast(weight, axes, rank):
    """A per-feature tensor (its dims: the sizes of ``axes``) reshaped so that it broadcasts
    along ``axes`` of a rank-``rank`` input."""
    if weight is None or axes == [rank - 1]:
        return weight
    sizes = iter(weight.shape.as_list())
    return reshape(weight, [next(sizes) if d in axes else 1 for d in range(rank)])


def _check_renorm_clipping(clipping):
    """Keras's checks of ``renorm_clipping``, worded as Keras words them."""
    keys = ["rmax", "rmin", "dmax"]
    if set(clipping) - set(keys):
        raise ValueError(
            f"Received invalid keys for `renorm_clipping` argument: {clipping}. "
            f"Supported values: {keys}."
        )
    rmax, rmin, dmax = (clipping.get(key) for key in keys)
    if rmax is not None and rmin is not None and rmax < rmin:
        raise ValueError(
            "rmax should be greater than rmin in the `renorm_clipping` argument. "
            f"Received: rmax={rmax}, rmin={rmin}."
        )
    if dmax is not None and dmax < 0:
        raise ValueError(
            f"dmax should be non-negative in the `renorm_clipping` argument. Received: dmax={dmax}."
        )


def _clip(value, low, high):
    if low is not None:
        value = maximum(value, low)
    return value if high is None else minimum(value, high)


class _Normalization(Layer):
    """What the normalization layers share: beta and gamma with their initializers."""

    def _keep_affine(self, center, scale, beta_initializer, gamma_initializer, **others):
        self.center, self.scale = bool(center), bool(scale)
        self.beta_initializer = config_keys.initializer(beta_initializer)
        self.gamma_initializer = config_keys.initializer(gamma_initializer)
        for key, value in others.items():  # regularizers and constraints, kept for the config
            setattr(self, key, value)

    def _affine_config(self):
        return {
            "beta_initializer": config_keys.serialize_initializer(self.beta_initializer),
            "gamma_initializer": config_keys.serialize_initializer(self.gamma_initializer),
            "beta_regularizer": config_keys.serialize_other(self.beta_regularizer),
            "gamma_regularizer": config_keys.serialize_other(self.gamma_regularizer),
            "beta_constraint": config_keys.serialize_other(self.beta_constraint),
            "gamma_constraint": config_keys.serialize_other(self.gamma_constraint),
        }

    def _affine_weight(self, name, shape):
        """``gamma`` or ``beta``, with its own initializer, regularizer and constraint."""
        return self.add_weight(
            name,
            shape,
            initializer=getattr(self, f"{name}_initializer"),
            regularizer=getattr(self, f"{name}_regularizer"),
            constraint=getattr(self, f"{name}_constraint"),
        )

    @classmethod
    def from_config(cls, config):
        return config_keys.from_config(cls, config)

    def compute_output_shape(self, input_shape):
        axis = getattr(self, "axis", -1)
        _axes(axis, len(tuple(input_shape)), self.name)  # an axis out of bounds is refused
        return TensorShape(input_shape)


class BatchNormalization(_Normalization):
    """Normalizes each feature (along ``axis``) by the batch's mean and variance in training,
    by ``moving_mean`` and ``moving_variance`` otherwise; then scales by ``gamma`` and shifts by
    ``beta``. Each training call updates the moving statistics:
    ``moving = moving * momentum + batch * (1 - momentum)``. A layer with ``trainable=False``
    always runs in inference mode (Keras 3).
    """

    def __init__(
        self,
        axis=-1,
        momentum=0.99,
        epsilon=1e-3,
        center=True,
        scale=True,
        beta_initializer="zeros",
        gamma_initializer="ones",
        moving_mean_initializer="zeros",
        moving_variance_initializer="ones",
        beta_regularizer=None,
        gamma_regularizer=None,
        beta_constraint=None,
        gamma_constraint=None,
        renorm=False,
        renorm_clipping=None,
        renorm_momentum=0.99,
        synchronized=False,
        **kwargs,
    ):
        super().__init__(**kwargs)
        if renorm:
            _check_renorm_clipping(renorm_clipping or {})
        self.axis = int(axis)
        self.momentum, self.epsilon = float(momentum), float(epsilon)
        self._keep_affine(
            center, scale, beta_initializer, gamma_initializer,
            beta_regularizer=beta_regularizer, gamma_regularizer=gamma_regularizer,
            beta_constraint=beta_constraint, gamma_constraint=gamma_constraint,
        )  # fmt: skip
        self.moving_mean_initializer = config_keys.initializer(moving_mean_initializer)
        self.moving_variance_initializer = config_keys.initializer(moving_variance_initializer)
        self.renorm, self.renorm_clipping, self.renorm_momentum = (
            renorm,
            renorm_clipping,
            renorm_momentum,
        )
        self.synchronized = synchronized

    def build(self, input_shape):
        rank = len(input_shape)
        self._axis = _axes(self.axis, rank, self.name)[0]
        size = input_shape[self._axis]
        if size is None:
            raise ValueError(
                f"Axis {self.axis} of input tensor should have a defined dimension but the layer "
                f"received an input with shape {tuple(input_shape)}."
            )
        self.gamma = self.beta = None
        if self.scale:
            self.gamma = self._affine_weight("gamma", (size,))
        if self.center:
            self.beta = self._affine_weight("beta", (size,))
        self.moving_mean = self.add_weight(
            "moving_mean", (size,), initializer=self.moving_mean_initializer, trainable=False
        )
        self.moving_variance = self.add_weight(
            "moving_variance",
            (size,),
            initializer=self.moving_variance_initializer,
            trainable=False,
        )
        if self.renorm:
            self._build_renorm(size)

    def _build_renorm(self, size):
        """Batch renormalization's statistics (Ioffe, 2017): moving and renorm standard
        deviations start as the square root of the moving variance's initial value."""

        def stddev_initializer(shape, dtype):
            return sqrt(self.moving_variance_initializer(shape, dtype))

        self.moving_stddev = self.add_weight(
            "moving_stddev", (size,), initializer=stddev_initializer, trainable=False
        )
        self.renorm_mean = self.add_weight(
            "renorm_mean", (size,), initializer=self.moving_mean_initializer, trainable=False
        )
        self.renorm_stddev = self.add_weight(
            "renorm_stddev", (size,), initializer=stddev_initializer, trainable=False
        )

    def call(self, inputs, training=None, mask=None):
        if mask is not None:
            mask = convert_to_tensor(mask)
        if mask is not None and mask.shape.rank != inputs.shape.rank - 1:
            raise ValueError(
                "The mask provided should be one dimension less than the inputs. Received: "
                f"mask.shape={tuple(mask.shape.as_list())}, "
                f"inputs.shape={tuple(inputs.shape.as_list())}"
            )
        if not self.trainable:
            training = False
        if isinstance(training, Tensor):  # decided when the graph runs
            return cond(training, lambda: self._train(inputs, mask), lambda: self._infer(inputs))
        return self._train(inputs, mask) if training else self._infer(inputs)

    def _train(self, inputs, mask):
        mean, variance = self._moments(inputs, mask)
        if self.renorm:
            return self._train_renormalized(inputs, mean, variance)
        keep = self.momentum
        self.moving_mean.assign(self.moving_mean * keep + mean * (1.0 - keep))
        self.moving_variance.assign(self.moving_variance * keep + variance * (1.0 - keep))
        return self._normalize(inputs, mean, variance)

    def _train_renormalized(self, inputs, mean, variance):
        """The batch's statistics corrected towards the renorm ones by ``r`` and ``d`` (held
        constant for the gradient): ``(x_hat * r + d) * gamma + beta``; then every moving
        statistic updated by its momentum, the moving variance from the moving stddev."""
        stddev = sqrt(variance + self.epsilon)
        floor = maximum(self.renorm_stddev, self.epsilon**0.5)  # no division by zero early on
        clipping = self.renorm_clipping or {}
        r = stop_gradient(_clip(stddev / floor, clipping.get("rmin"), clipping.get("rmax")))
        dmax = clipping.get("dmax")
        d = (mean - self.renorm_mean) / floor
        d = stop_gradient(_clip(d, None if dmax is None else -dmax, dmax))
        scale = r * self.gamma if self.gamma is not None else r
        offset = d * self.gamma if self.gamma is not None else d
        if self.beta is not None:
            offset = offset + self.beta
        self._update_renorm_statistics(mean, stddev)
        rank, axes = inputs.shape.rank, [self._axis]
        mean, variance, offset, scale = (
            _broadcast(w, axes, rank) for w in (mean, variance, offset, scale)
        )
        return batch_normalization(inputs, mean, variance, offset, scale, self.epsilon)

    def _update_renorm_statistics(self, mean, stddev):
        keep, renorm_keep = self.momentum, self.renorm_momentum
        self.renorm_mean.assign(self.renorm_mean * renorm_keep + mean * (1.0 - renorm_keep))
        self.renorm_stddev.assign(self.renorm_stddev * renorm_keep + stddev * (1.0 - renorm_keep))
        self.moving_mean.assign(self.moving_mean * keep + mean * (1.0 - keep))
        moving_stddev = self.moving_stddev * keep + stddev * (1.0 - keep)
        self.moving_stddev.assign(moving_stddev)
        # relu: rounding must not make the variance negative
        self.moving_variance.assign(relu(moving_stddev * moving_stddev - self.epsilon))

    def _infer(self, inputs):
        return self._normalize(inputs, self.moving_mean, self.moving_variance)

    def _normalize(self, inputs, mean, variance):
        rank, axes = inputs.shape.rank, [self._axis]
        mean, variance, beta, gamma = (
            _broadcast(w, axes, rank) for w in (mean, variance, self.beta, self.gamma)
        )
        return batch_normalization(inputs, mean, variance, beta, gamma, self.epsilon)

    def _reduction_axes(self, rank):
        return [d for d in range(rank) if d != self._axis]

    def _moments(self, inputs, mask):
        axes = self._reduction_axes(inputs.shape.rank)
        if mask is None:
            return moments(inputs, axes)
        # Only the unmasked steps count: a weighted mean and variance (Keras 3's rule, with its
        # epsilon keeping a fully masked batch at zero rather than NaN).
        weights = cast(mask, inputs.dtype)[..., None] * (inputs * 0 + 1)
        count = reduce_sum(weights, axes) + 1e-7
        mean = reduce_sum(inputs * weights, axes) / count
        centered = inputs - _broadcast(mean, [self._axis], inputs.shape.rank)
        variance = reduce_sum(centered * centered * weights, axes) / count
        return mean, variance

    def get_config(self):
        return {
            **config_keys.base_config(self),
            "axis": self.axis,
            "momentum": self.momentum,
            "epsilon": self.epsilon,
            "center": self.center,
            "scale": self.scale,
            "beta_initializer": config_keys.serialize_initializer(self.beta_initializer),
            "gamma_initializer": config_keys.serialize_initializer(self.gamma_initializer),
            "moving_mean_initializer": config_keys.serialize_initializer(
                self.moving_mean_initializer
            ),
            "moving_variance_initializer": config_keys.serialize_initializer(
                self.moving_variance_initializer
            ),
            **{k: v for k, v in self._affine_config().items() if "initializer" not in k},
            "synchronized": self.synchronized,
            "renorm": self.renorm,
            "renorm_clipping": self.renorm_clipping,
            "renorm_momentum": self.renorm_momentum,
        }


class LayerNormalization(_Normalization):
    """Normalizes each example over ``axis`` (the last by default) by its own mean and
    variance, then scales by ``gamma`` and shifts by ``beta``. With ``rms_scaling=True``
    (deprecated in Keras 3, kept for its files) it scales by ``gamma / sqrt(variance + eps)``
    without centering, as Keras 3 does.
    """

    def __init__(
        self,
        axis=-1,
        epsilon=1e-3,
        center=True,
        scale=True,
        beta_initializer="zeros",
        gamma_initializer="ones",
        beta_regularizer=None,
        gamma_regularizer=None,
        beta_constraint=None,
        gamma_constraint=None,
        rms_scaling=False,
        **kwargs,
    ):
        super().__init__(**kwargs)
        if isinstance(axis, (list, tuple)):
            self.axis = list(axis)
        elif isinstance(axis, numbers.Integral) and not isinstance(axis, bool):
            self.axis = int(axis)
        else:
            raise TypeError(
                "Expected an int or a list/tuple of ints for the argument 'axis', but "
                f"received: {axis!r}"
            )
        self.epsilon = epsilon
        self.rms_scaling = bool(rms_scaling)
        self._keep_affine(
            center, scale, beta_initializer, gamma_initializer,
            beta_regularizer=beta_regularizer, gamma_regularizer=gamma_regularizer,
            beta_constraint=beta_constraint, gamma_constraint=gamma_constraint,
        )  # fmt: skip

    def build(self, input_shape):
        self.axis = _axes(self.axis, len(input_shape), self.name)
        shape = tuple(input_shape[d] for d in self.axis)
        self.gamma = self.beta = None
        if self.scale or self.rms_scaling:
            self.gamma = self._affine_weight("gamma", shape)
        if self.center and not self.rms_scaling:
            self.beta = self._affine_weight("beta", shape)

    def call(self, inputs):
        rank = inputs.shape.rank
        gamma, beta = (_broadcast(w, self.axis, rank) for w in (self.gamma, self.beta))
        mean, variance = moments(inputs, self.axis, keepdims=True)
        if self.rms_scaling:  # Keras 3's deprecated form: scaled by the variance, not centered
            return inputs * (1.0 / sqrt(variance + self.epsilon)) * gamma
        return batch_normalization(inputs, mean, variance, beta, gamma, self.epsilon)

    def get_config(self):
        return {
            **config_keys.base_config(self),
            "axis": self.axis,
            "epsilon": self.epsilon,
            "center": self.center,
            "scale": self.scale,
            "rms_scaling": self.rms_scaling,
            **self._affine_config(),
        }


class GroupNormalization(_Normalization):
    """Splits the channels (``axis``) into ``groups`` and normalizes each example over each
    group's channels and the other non-batch axes; ``groups=-1`` is instance normalization,
    ``groups=1`` layer normalization over all but the batch."""

    def __init__(
        self,
        groups=32,
        axis=-1,
        epsilon=1e-3,
        center=True,
        scale=True,
        beta_initializer="zeros",
        gamma_initializer="ones",
        beta_regularizer=None,
        gamma_regularizer=None,
        beta_constraint=None,
        gamma_constraint=None,
        **kwargs,
    ):
        valid = isinstance(groups, numbers.Integral) and not isinstance(groups, bool)
        if not valid or (groups <= 0 and groups != -1):
            raise ValueError(
                "Received an invalid value for argument `groups`, expected a positive integer "
                f"(or `-1` for instance normalization). Received: groups={groups}"
            )
        super().__init__(**kwargs)
        self.groups, self.axis, self.epsilon = int(groups), axis, epsilon
        self._keep_affine(
            center, scale, beta_initializer, gamma_initializer,
            beta_regularizer=beta_regularizer, gamma_regularizer=gamma_regularizer,
            beta_constraint=beta_constraint, gamma_constraint=gamma_constraint,
        )  # fmt: skip

    def build(self, input_shape):
        channels = input_shape[self.axis]
        if channels is None:
            raise ValueError(
                f"Axis {self.axis} of input tensor should have a defined dimension but the layer "
                f"received an input with shape {tuple(input_shape)}."
            )
        if self.groups == -1:
            self.groups = channels
        if channels < self.groups:
            raise ValueError(
                f"Number of groups ({self.groups}) cannot be more than the number of channels "
                f"({channels})."
            )
        if channels % self.groups:
            raise ValueError(
                f"Number of groups ({self.groups}) must be a multiple of the number of channels "
                f"({channels})."
            )
        self.gamma = self.beta = None
        if self.scale:
            self.gamma = self._affine_weight("gamma", (channels,))
        if self.center:
            self.beta = self._affine_weight("beta", (channels,))

    def call(self, inputs):
        rank = inputs.shape.rank
        axis = self.axis % rank
        channels = inputs.shape[axis]
        shape = shape_of(inputs)
        # (..., channels, ...) -> (..., groups, channels // groups, ...): the group is an axis
        dims = [shape[d] for d in range(rank)]
        grouped = reshape(
            inputs, [*dims[:axis], self.groups, channels // self.groups, *dims[axis + 1 :]]
        )
        reduce = [d for d in range(1, rank + 1) if d != axis]
        mean, variance = moments(grouped, reduce, keepdims=True)
        normalized = reshape((grouped - mean) / sqrt(variance + self.epsilon), shape)
        gamma, beta = (_broadcast(w, [axis], rank) for w in (self.gamma, self.beta))
        if gamma is not None:
            normalized = normalized * gamma
        return normalized + beta if beta is not None else normalized

    def get_config(self):
        return {
            **config_keys.base_config(self),
            "groups": self.groups,
            "axis": self.axis,
            "epsilon": self.epsilon,
            "center": self.center,
            "scale": self.scale,
            **self._affine_config(),
        }


class UnitNormalization(Layer):
    """Scales each example to unit L2 norm over ``axis``: ``x / sqrt(max(sum(x**2), 1e-12))``."""

    def __init__(self, axis=-1, **kwargs):
        super().__init__(**kwargs)
        if isinstance(axis, (list, tuple)):
            self.axis = list(axis)
        elif isinstance(axis, int):
            self.axis = axis
        else:
            raise TypeError(
                "Invalid value for `axis` argument: expected an int or a list/tuple of ints. "
                f"Received: axis={axis}"
            )

    def call(self, inputs):
        squares = reduce_sum(inputs * inputs, self.axis, keepdims=True)
        return inputs / sqrt(maximum(squares, 1e-12))

    def compute_output_shape(self, input_shape):
        return TensorShape(input_shape)

    def get_config(self):
        return {**config_keys.base_config(self), "axis": self.axis}

    @classmethod
    def from_config(cls, config):
        return config_keys.from_config(cls, config)
