"""``rt.keras.optimizers``: Keras 3's optimizers, learning-rate schedules and lookup by name.

``SGD``, ``Adam``, ``AdamW``, ``RMSprop``, ``Adagrad``, ``Adadelta``, ``Adamax``,
``Nadam``, ``Lion`` and ``Ftrl`` share ``Optimizer``'s arguments (``weight_decay``,
``clipnorm``, ``clipvalue``, ``global_clipnorm``, ``use_ema``, ``ema_momentum``,
``ema_overwrite_frequency``, ``loss_scale_factor``, ``gradient_accumulation_steps``,
``name``); ``get`` finds one by name or config, ``serialize``/``deserialize``
write and read Keras 3's ``{"module", "class_name", "config"}`` dicts.

>>> import runtime as rt
>>> opt = rt.keras.optimizers.get({"class_name": "Adam", "config": {"learning_rate": 0.01}})
>>> type(opt).__name__, round(float(opt.learning_rate.numpy()), 6)
('Adam', 0.01)
>>> rt.keras.optimizers.serialize(rt.keras.optimizers.SGD())["class_name"]
'SGD'
"""

from __future__ import annotations

from runtime.keras._config import deserialize_object, serialize_object
from runtime.keras.optimizers import schedules
from runtime.keras.optimizers.adam import Adam, Adamax, AdamW, Nadam
from runtime.keras.optimizers.base import Optimizer
from runtime.keras.optimizers.ftrl import Ftrl
from runtime.keras.optimizers.lion import Lion
from runtime.keras.optimizers.rmsprop import Adadelta, Adagrad, RMSprop
from runtime.keras.optimizers.sgd import SGD

ALL_OBJECTS = (Optimizer, SGD, Adam, AdamW, Adamax, Nadam, RMSprop, Adagrad, Adadelta, Lion, Ftrl)
_BY_NAME = {cls.__name__.lower(): cls for cls in ALL_OBJECTS}


def serialize(optimizer):
    """The optimizer's config as Keras 3 writes it."""
    return serialize_object(optimizer)


def deserialize(config, custom_objects=None):
    """The optimizer a ``serialize`` dict describes; built-in class names in any case."""
    name = config["class_name"]
    names = {name: _BY_NAME[name.lower()]} if name.lower() in _BY_NAME else {}
    names.update(custom_objects or {})
    return deserialize_object(config, names, "optimizer", _unknown_optimizer)


def _unknown_optimizer(name):
    return ValueError(
        f"Could not interpret optimizer identifier: {name!r}. Use one of "
        f"{sorted(_BY_NAME)} or an optimizer object."
    )


def get(identifier):
    """An optimizer: by name (``"sgd"``, ``"adam"``..., any case), by config dict, or as it
    is; None stays None."""
    if identifier is None or isinstance(identifier, Optimizer):
        return identifier
    if isinstance(identifier, type) and issubclass(identifier, Optimizer):
        name = identifier.__name__
        raise TypeError(f"optimizer={name} is a class: pass an instance, {name}()")
    if isinstance(identifier, dict):
        return deserialize(identifier)
    if isinstance(identifier, str) and identifier.lower() in _BY_NAME:
        return _BY_NAME[identifier.lower()]()
    raise ValueError(
        f"Could not interpret optimizer identifier: {identifier!r}. Use one of "
        f"{sorted(_BY_NAME)} or an optimizer object."
    )


__all__ = [
    "SGD",
    "Adadelta",
    "Adagrad",
    "Adam",
    "AdamW",
    "Adamax",
    "Ftrl",
    "Lion",
    "Nadam",
    "Optimizer",
    "RMSprop",
    "deserialize",
    "get",
    "schedules",
    "serialize",
]
