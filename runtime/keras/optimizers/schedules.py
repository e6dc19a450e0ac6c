"""Learning-rate schedules: a learning rate as a function of the optimizer's step.

An optimizer given a schedule calls it with its iteration count at every update,
eagerly or inside a traced step (each schedule is made of tensor ops). With
``s`` the step and ``lr`` the initial learning rate:

- ``ExponentialDecay``: ``lr * decay_rate ** (s / decay_steps)`` (``floor`` of the
  exponent with ``staircase=True``).
- ``PiecewiseConstantDecay``: ``values[i]`` for ``boundaries[i-1] < s <= boundaries[i]``.
- ``PolynomialDecay``: ``(lr - end) * (1 - s / decay_steps) ** power + end``, ``s`` held at
  ``decay_steps`` (with ``cycle=True``, ``decay_steps`` grows to the next multiple of it).
- ``InverseTimeDecay``: ``lr / (1 + decay_rate * s / decay_steps)``.
- ``CosineDecay``: ``lr * ((1 - alpha) * 0.5 * (1 + cos(pi * s / decay_steps)) + alpha)``,
  after a linear warmup from ``lr`` to ``warmup_target`` over ``warmup_steps``.
- ``CosineDecayRestarts``: the cosine decay, restarted after ``first_decay_steps``, each
  period ``t_mul`` times longer and ``m_mul`` times lower than the one before.

>>> import runtime as rt
>>> schedule = rt.keras.optimizers.schedules.ExponentialDecay(0.1, decay_steps=10, decay_rate=0.5)
>>> round(float(schedule(10)), 6), round(float(schedule(20)), 6)
(0.05, 0.025)
"""

from __future__ import annotations

import math

from runtime.core import dtypes
from runtime.keras._config import deserialize_object, serialize_object
from runtime.ops import math_ops
from runtime.ops.broadcast_ops import where
from runtime.ops.constant_ops import cast, convert_to_tensor

KERAS_MODULE = "keras.optimizers.schedules"


class LearningRateSchedule:
    """The base of schedules: ``__call__(step)`` gives the learning rate, ``get_config()``
    the arguments that rebuild it. An optimizer calls a schedule subclassed from it with its
    step as a float32 tensor.

    >>> import runtime as rt
    >>> class Inverse(rt.keras.optimizers.schedules.LearningRateSchedule):
    ...     def __call__(self, step):
    ...         return 0.1 / (step + 1)
    >>> sgd = rt.keras.optimizers.SGD(learning_rate=Inverse())
    >>> round(float(sgd.learning_rate), 6)
    0.1
    """

    takes_integer_step = False

    def __call__(self, step):
        raise NotImplementedError(
            f"Learning rate schedule '{type(self).__name__}' must override `__call__(self, step)`."
        )

    def get_config(self):
        raise NotImplementedError(
            f"Learning rate schedule '{type(self).__name__}' must override `get_config()` in "
            "order to be serializable."
        )

    @classmethod
    def from_config(cls, config):
        return cls(**config)


class _Schedule(LearningRateSchedule):
    """The built-in schedules: they take the optimizer's exact integer step (a schedule of
    a user's is given it as a float32, on which Python arithmetic works)."""

    takes_integer_step = True

    def _start(self, step):
        """The initial learning rate as a tensor, and ``step`` as one of its dtype."""
        initial = convert_to_tensor(self.initial_learning_rate)
        return initial, cast(convert_to_tensor(step), initial.dtype)


def _check_positive(name, value):
    if value <= 0:
        raise ValueError(f"Argument `{name}` must be > 0. Received: {name}={value}")


def _floor(x):
    return math_ops.floordiv(x, 1.0)


class ExponentialDecay(_Schedule):
    """``initial_learning_rate * decay_rate ** (step / decay_steps)``.

    >>> import runtime as rt
    >>> s = rt.keras.optimizers.schedules.ExponentialDecay(1.0, 2, 0.5, staircase=True)
    >>> [float(s(step)) for step in range(4)]
    [1.0, 1.0, 0.5, 0.5]
    """

    def __init__(
        self,
        initial_learning_rate,
        decay_steps,
        decay_rate,
        staircase=False,
        name="ExponentialDecay",
    ):
        self.initial_learning_rate = initial_learning_rate
        self.decay_steps = decay_steps
        self.decay_rate = decay_rate
        self.staircase = staircase
        self.name = name
        _check_positive("decay_steps", decay_steps)

    def __call__(self, step):
        initial, step = self._start(step)
        exponent = step / cast(self.decay_steps, initial.dtype)
        if self.staircase:
            exponent = _floor(exponent)
        return initial * math_ops.pow(cast(self.decay_rate, initial.dtype), exponent)

    def get_config(self):
        return {
            "initial_learning_rate": self.initial_learning_rate,
            "decay_steps": self.decay_steps,
            "decay_rate": self.decay_rate,
            "staircase": self.staircase,
            "name": self.name,
        }


class PiecewiseConstantDecay(_Schedule):
    """``values[0]`` up to ``boundaries[0]`` (included), ``values[1]`` up to ``boundaries[1]``,
    ..., ``values[-1]`` after the last boundary.

    >>> import runtime as rt
    >>> s = rt.keras.optimizers.schedules.PiecewiseConstantDecay([10, 20], [1.0, 0.5, 0.1])
    >>> [round(float(s(step)), 6) for step in (10, 11, 21)]
    [1.0, 0.5, 0.1]
    """

    def __init__(self, boundaries, values, name="PiecewiseConstant"):
        if len(boundaries) != len(values) - 1:
            raise ValueError(
                "The length of boundaries should be 1 less than the length of values. "
                f"Received: boundaries={boundaries} of length {len(boundaries)}, and "
                f"values={values} of length {len(values)}."
            )
        self.boundaries = boundaries
        self.values = values
        self.name = name

    def __call__(self, step):
        values = [convert_to_tensor(v) for v in self.values]
        step = cast(convert_to_tensor(step), dtypes.float64)  # exact for int64 steps too
        # From the last piece back: each boundary the step does not pass picks an earlier value.
        rate = values[-1]
        for boundary, value in zip(reversed(self.boundaries), reversed(values[:-1])):
            rate = where(step <= cast(boundary, step.dtype), value, rate)
        return rate

    def get_config(self):
        return {"boundaries": self.boundaries, "values": self.values, "name": self.name}


class PolynomialDecay(_Schedule):
    """``(initial - end) * (1 - step / decay_steps) ** power + end``.

    >>> import runtime as rt
    >>> s = rt.keras.optimizers.schedules.PolynomialDecay(1.0, 10, end_learning_rate=0.0)
    >>> [round(float(s(step)), 6) for step in (0, 5, 15)]
    [1.0, 0.5, 0.0]
    """

    def __init__(
        self,
        initial_learning_rate,
        decay_steps,
        end_learning_rate=0.0001,
        power=1.0,
        cycle=False,
        name="PolynomialDecay",
    ):
        self.initial_learning_rate = initial_learning_rate
        self.decay_steps = decay_steps
        self.end_learning_rate = end_learning_rate
        self.power = power
        self.cycle = cycle
        self.name = name
        _check_positive("decay_steps", decay_steps)

    def __call__(self, step):
        initial, step = self._start(step)
        end = cast(self.end_learning_rate, initial.dtype)
        decay_steps = cast(self.decay_steps, initial.dtype)
        if self.cycle:  # the first multiple of decay_steps at or past the step (1 at step 0)
            periods = -_floor(-step / decay_steps)
            decay_steps = decay_steps * where(math_ops.equal(step, 0.0), 1.0, periods)
        else:
            step = math_ops.minimum(step, decay_steps)
        remaining = 1.0 - step / decay_steps
        return (initial - end) * math_ops.pow(remaining, cast(self.power, initial.dtype)) + end

    def get_config(self):
        return {
            "initial_learning_rate": self.initial_learning_rate,
            "decay_steps": self.decay_steps,
            "end_learning_rate": self.end_learning_rate,
            "power": self.power,
            "cycle": self.cycle,
            "name": self.name,
        }


class InverseTimeDecay(_Schedule):
    """``initial_learning_rate / (1 + decay_rate * step / decay_steps)``.

    >>> import runtime as rt
    >>> s = rt.keras.optimizers.schedules.InverseTimeDecay(1.0, 1, 0.5)
    >>> [float(s(step)) for step in (0, 2)]
    [1.0, 0.5]
    """

    def __init__(
        self,
        initial_learning_rate,
        decay_steps,
        decay_rate,
        staircase=False,
        name="InverseTimeDecay",
    ):
        self.initial_learning_rate = initial_learning_rate
        self.decay_steps = decay_steps
        self.decay_rate = decay_rate
        self.staircase = staircase
        self.name = name
        _check_positive("decay_steps", decay_steps)

    def __call__(self, step):
        initial, step = self._start(step)
        fraction = step / cast(self.decay_steps, initial.dtype)
        if self.staircase:
            fraction = _floor(fraction)
        return initial / (1.0 + cast(self.decay_rate, initial.dtype) * fraction)

    def get_config(self):
        return {
            "initial_learning_rate": self.initial_learning_rate,
            "decay_steps": self.decay_steps,
            "decay_rate": self.decay_rate,
            "staircase": self.staircase,
            "name": self.name,
        }


def _cosine(fraction, alpha):
    """``(1 - alpha) * 0.5 * (1 + cos(pi * fraction)) + alpha``."""
    return (1.0 - alpha) * 0.5 * (1.0 + math_ops.cos(math.pi * fraction)) + alpha


class CosineDecay(_Schedule):
    """A cosine from the rate to ``alpha`` times it over ``decay_steps``, after a linear warmup
    to ``warmup_target`` over ``warmup_steps`` when a target is given.

    >>> import runtime as rt
    >>> s = rt.keras.optimizers.schedules.CosineDecay(1.0, 10)
    >>> [round(float(s(step)), 6) for step in (0, 5, 10, 20)]
    [1.0, 0.5, 0.0, 0.0]
    """

    def __init__(
        self,
        initial_learning_rate,
        decay_steps,
        alpha=0.0,
        name="CosineDecay",
        warmup_target=None,
        warmup_steps=0,
    ):
        self.initial_learning_rate = initial_learning_rate
        self.decay_steps = decay_steps
        self.alpha = alpha
        self.name = name
        self.warmup_steps = warmup_steps
        self.warmup_target = warmup_target
        _check_positive("decay_steps", decay_steps)

    def __call__(self, step):
        initial, step = self._start(step)
        dtype = initial.dtype
        decay_steps = cast(self.decay_steps, dtype)
        if self.warmup_target is None:
            fraction = math_ops.minimum(step, decay_steps) / decay_steps
            return initial * _cosine(fraction, self.alpha)
        target = cast(self.warmup_target, dtype)
        warmup_steps = cast(self.warmup_steps, dtype)
        step = math_ops.minimum(step, decay_steps + warmup_steps)
        # Both pieces are finite everywhere (warmup_steps may be 0): pick one, no branch.
        warming = initial + (target - initial) * step / math_ops.maximum(warmup_steps, 1.0)
        decaying = target * _cosine((step - warmup_steps) / decay_steps, self.alpha)
        return where(step < warmup_steps, warming, decaying)

    def get_config(self):
        return {
            "initial_learning_rate": self.initial_learning_rate,
            "decay_steps": self.decay_steps,
            "alpha": self.alpha,
            "name": self.name,
            "warmup_target": self.warmup_target,
            "warmup_steps": self.warmup_steps,
        }


class CosineDecayRestarts(_Schedule):
    """Cosine decay with warm restarts (SGDR): period ``i`` lasts ``first_decay_steps *
    t_mul ** i`` steps and starts at ``m_mul ** i`` times the initial rate.

    >>> import runtime as rt
    >>> s = rt.keras.optimizers.schedules.CosineDecayRestarts(1.0, 10, t_mul=1.0, m_mul=0.5)
    >>> [round(float(s(step)), 6) for step in (0, 5, 10, 20)]
    [1.0, 0.5, 0.5, 0.25]
    """

    def __init__(
        self,
        initial_learning_rate,
        first_decay_steps,
        t_mul=2.0,
        m_mul=1.0,
        alpha=0.0,
        name="SGDRDecay",
    ):
        self.initial_learning_rate = initial_learning_rate
        self.first_decay_steps = first_decay_steps
        self._t_mul = t_mul
        self._m_mul = m_mul
        self.alpha = alpha
        self.name = name
        _check_positive("first_decay_steps", first_decay_steps)

    def _restart_and_fraction(self, fraction, dtype):
        """Which period ``fraction`` (steps over the first period's length) falls in, and how
        far through that period it is."""
        if self._t_mul == 1.0:
            restart = _floor(fraction)
            return restart, fraction - restart
        t_mul = cast(self._t_mul, dtype)
        # Periods 1, t, t^2...: the sum of the first i is (1 - t^i) / (1 - t).
        restart = _floor(math_ops.log(1.0 - fraction * (1.0 - t_mul)) / math_ops.log(t_mul))
        done = (1.0 - math_ops.pow(t_mul, restart)) / (1.0 - t_mul)
        return restart, (fraction - done) / math_ops.pow(t_mul, restart)

    def __call__(self, step):
        initial, step = self._start(step)
        dtype = initial.dtype
        fraction = step / cast(self.first_decay_steps, dtype)
        restart, fraction = self._restart_and_fraction(fraction, dtype)
        scale = math_ops.pow(cast(self._m_mul, dtype), restart)
        alpha = self.alpha
        return initial * (
            (1.0 - alpha) * scale * 0.5 * (1.0 + math_ops.cos(math.pi * fraction)) + alpha
        )

    def get_config(self):
        return {
            "initial_learning_rate": self.initial_learning_rate,
            "first_decay_steps": self.first_decay_steps,
            "t_mul": self._t_mul,
            "m_mul": self._m_mul,
            "alpha": self.alpha,
            "name": self.name,
        }


ALL_SCHEDULES = {
    cls.__name__: cls
    for cls in (
        ExponentialDecay,
        PiecewiseConstantDecay,
        PolynomialDecay,
        InverseTimeDecay,
        CosineDecay,
        CosineDecayRestarts,
    )
}


def serialize(learning_rate_schedule):
    """The schedule as Keras 3 writes it: ``{"module", "class_name", "config",
    "registered_name"}``."""
    return serialize_object(learning_rate_schedule)


def deserialize(config, custom_objects=None):
    """The schedule ``serialize`` described (a custom class found in ``custom_objects``)."""
    known = {**ALL_SCHEDULES, **(custom_objects or {})}
    return deserialize_object(config, known, "learning rate schedule", _unknown_schedule)


def _unknown_schedule(name):
    return ValueError(f"Unknown learning rate schedule: '{name}'.")
