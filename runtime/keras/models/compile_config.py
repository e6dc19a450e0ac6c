"""A model's compile config: what ``compile`` was given, as Keras 3 saves it in ``.keras`` files.

>>> import runtime as rt
>>> model = rt.keras.Sequential([rt.keras.layers.Dense(1)])
>>> model.compile(optimizer=rt.keras.optimizers.SGD(0.5), loss="mse", metrics=["mae"])
>>> config = model.get_compile_config()
>>> config["optimizer"]["class_name"], config["loss"], config["metrics"]
('SGD', 'mse', ['mae'])
"""

from __future__ import annotations

import inspect

from runtime.keras.saving.serialization import (
    deserialize_keras_object,
    keras_module_of,
    serialize_keras_object,
)


def compile_config(model):
    given = model._compile_arguments
    return {
        "optimizer": serialize_optimizer(model.optimizer),
        "loss": serialize_keras_object(model.loss),
        "loss_weights": serialize_keras_object(given["loss_weights"]),
        "metrics": serialize_keras_object(given["metrics"]),
        "weighted_metrics": serialize_keras_object(given["weighted_metrics"]),
        "run_eagerly": model.run_eagerly,
        "steps_per_execution": model.steps_per_execution,
        "jit_compile": given["jit_compile"],
    }


def serialize_optimizer(optimizer):
    """The optimizer's config; from its constructor's arguments when it has no ``get_config``."""
    if hasattr(optimizer, "get_config"):
        return serialize_keras_object(optimizer)
    parameters = inspect.signature(type(optimizer).__init__).parameters
    config = {name: getattr(optimizer, name) for name in parameters if hasattr(optimizer, name)}
    config["learning_rate"] = float(optimizer.learning_rate.numpy())
    config["name"] = optimizer.name
    cls = type(optimizer)
    return {"module": keras_module_of(cls) or cls.__module__, "class_name": cls.__name__,
            "config": serialize_keras_object(config), "registered_name": None}  # fmt: skip


def compile_from_config(model, config):
    config = deserialize_keras_object(config)
    optimizer = config.get("optimizer")
    model.compile(
        optimizer=optimizer if optimizer is not None else "rmsprop",
        loss=config.get("loss"),
        loss_weights=config.get("loss_weights"),
        metrics=config.get("metrics"),
        weighted_metrics=config.get("weighted_metrics"),
        run_eagerly=bool(config.get("run_eagerly")),
        steps_per_execution=config.get("steps_per_execution") or 1,
        jit_compile=config.get("jit_compile", "auto"),
    )
