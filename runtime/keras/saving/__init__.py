"""``rt.keras.saving``: Keras 3's serialization and its ``.keras`` files.

``save_model``/``load_model`` (also ``model.save("m.keras")`` and
``rt.keras.models.load_model``), ``serialize_keras_object``/``deserialize_keras_object``,
``register_keras_serializable``, ``custom_object_scope``. See ``saving_api``,
``serialization`` and ``object_registration``.
"""

from runtime.keras.saving.object_registration import (
    CustomObjectScope,
    custom_object_scope,
    get_custom_objects,
    get_registered_name,
    get_registered_object,
    register_keras_serializable,
)
from runtime.keras.saving.saving_api import load_model, load_weights, save_model, save_weights
from runtime.keras.saving.serialization import deserialize_keras_object, serialize_keras_object

__all__ = [
    "CustomObjectScope",
    "custom_object_scope",
    "deserialize_keras_object",
    "get_custom_objects",
    "get_registered_name",
    "get_registered_object",
    "load_model",
    "load_weights",
    "register_keras_serializable",
    "save_model",
    "save_weights",
    "serialize_keras_object",
]
