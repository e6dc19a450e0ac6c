"""The optional features of a conversion (TensorFlow's ``tf.autograph.experimental.Feature``).

Of TensorFlow's members only ``BUILTIN_FUNCTIONS`` changes what this converter
writes: with it, ``print`` becomes ``ag__.print_``, which prints tensors every
time the graph runs (``rt.print``); without it (the default of ``ag.function``
and ``ag.to_graph``, as of TensorFlow's) ``print`` is Python's, a side effect
of tracing. The others are accepted, for TensorFlow's code: what they select
is always on here. A converted function converts the functions it calls with
its own features.

>>> uses_builtin_functions(None), uses_builtin_functions(Feature.ALL)
(False, True)
>>> uses_builtin_functions((Feature.LISTS, Feature.BUILTIN_FUNCTIONS))
True
"""

from __future__ import annotations

import enum
import threading


class Feature(enum.Enum):
    """What a conversion may do besides converting control flow (TensorFlow's members)."""

    ALL = "ALL"
    AUTO_CONTROL_DEPS = "AUTO_CONTROL_DEPS"
    ASSERT_STATEMENTS = "ASSERT_STATEMENTS"
    BUILTIN_FUNCTIONS = "BUILTIN_FUNCTIONS"
    EQUALITY_OPERATORS = "EQUALITY_OPERATORS"
    LISTS = "LISTS"
    NAME_SCOPES = "NAME_SCOPES"


def as_features(features):
    """``features`` (None, one Feature, or a list or tuple of them) as a frozenset."""
    if features is None:
        return frozenset()
    if isinstance(features, Feature):
        return frozenset((features,))
    if isinstance(features, (list, tuple, set, frozenset)):
        wrong = [f for f in features if not isinstance(f, Feature)]
        if not wrong:
            return frozenset(features)
        features = wrong[0]
    raise TypeError(
        "experimental_autograph_options (experimental_optional_features) must be an "
        f"ag.experimental.Feature or a tuple of them, got {features!r}"
    )


def uses_builtin_functions(features):
    """Whether ``print`` is converted (``BUILTIN_FUNCTIONS`` or ``ALL`` among ``features``)."""
    chosen = as_features(features)
    return Feature.ALL in chosen or Feature.BUILTIN_FUNCTIONS in chosen


class _Converting(threading.local):
    builtin_functions = False  # those of the converted function running now, in this thread


converting = _Converting()
"""What the converted code running now was converted with: the functions it calls are
converted the same way."""
