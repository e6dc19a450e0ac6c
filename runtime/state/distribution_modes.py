"""How a variable would be kept on several devices: TensorFlow's ``VariableSynchronization``
and ``VariableAggregation``, recorded on each variable (the runtime runs on one device).

>>> distribution_modes(None, 2, None, "v")
(<VariableSynchronization.AUTO: 0>, <VariableAggregation.MEAN: 2>, True)
"""

from __future__ import annotations

import enum


class VariableSynchronization(enum.Enum):
    """When a variable copied to several devices is synchronised (``tf.VariableSynchronization``).

    The runtime runs on one device, so it has one copy: the value is recorded on the
    variable (``v.synchronization``) and changes nothing else. ``ON_READ`` makes a variable
    non-trainable unless ``trainable=`` says otherwise, as in TensorFlow.

    >>> VariableSynchronization(3)
    <VariableSynchronization.ON_READ: 3>
    """

    AUTO = 0
    NONE = 1
    ON_WRITE = 2
    ON_READ = 3


class VariableAggregation(enum.Enum):
    """How updates of a variable from several replicas combine (``tf.VariableAggregation``).

    Recorded on the variable (``v.aggregation``); with one device and one replica, every
    mode updates the one copy as given.

    >>> VariableAggregation.MEAN.value
    2
    """

    NONE = 0
    SUM = 1
    MEAN = 2
    ONLY_FIRST_REPLICA = 3


def distribution_modes(synchronization, aggregation, trainable, name):
    """``(synchronization, aggregation, trainable)`` as TensorFlow settles them: None is the
    default, a member's value stands for it, and ``trainable=None`` is True unless ON_READ."""
    try:
        synchronization = VariableSynchronization(
            VariableSynchronization.AUTO if synchronization is None else synchronization
        )
    except ValueError:
        raise ValueError(
            f"Invalid variable synchronization mode: {synchronization} for variable: {name}"
        ) from None
    try:
        aggregation = VariableAggregation(
            VariableAggregation.NONE if aggregation is None else aggregation
        )
    except ValueError:
        raise ValueError(
            f"Invalid variable aggregation mode: {aggregation} for variable: {name}"
        ) from None
    if trainable is None:
        trainable = synchronization is not VariableSynchronization.ON_READ
    return synchronization, aggregation, bool(trainable)
