"""The registry of custom objects: what a saved config may name besides Keras's own classes.

``register_keras_serializable(package, name)`` files a class or function under
``"package>name"``; ``custom_object_scope({...})`` and a loader's
``custom_objects=`` add names for a while. A name in a file is looked up here and
among rt.keras's own classes, never imported.

>>> import runtime as rt
>>> @rt.keras.saving.register_keras_serializable(package="Doc")
... def double(x):
...     return 2 * x
>>> rt.keras.saving.get_registered_name(double)
'Doc>double'
>>> rt.keras.saving.get_registered_object("Doc>double") is double
True
>>> with rt.keras.saving.custom_object_scope({"twice": double}):
...     rt.keras.saving.get_registered_object("twice") is double
True
>>> rt.keras.saving.get_registered_object("twice") is None
True
"""

from __future__ import annotations

import inspect
import threading

GLOBAL_CUSTOM_OBJECTS = {}  # "package>name" -> class or function
GLOBAL_CUSTOM_NAMES = {}  # class or function -> "package>name"


class _ScopedObjects(threading.local):
    """The objects of the ``custom_object_scope`` in effect in this thread."""

    def __init__(self):
        self.objects = {}


_scoped = _ScopedObjects()


class CustomObjectScope:
    """``with custom_object_scope({"name": obj}):`` makes ``name`` known to deserialization
    (``load_model``, ``deserialize_keras_object``) inside the block, in this thread."""

    def __init__(self, custom_objects):
        self.custom_objects = dict(custom_objects or {})
        self._outer = None

    def __enter__(self):
        self._outer = _scoped.objects
        _scoped.objects = {**self._outer, **self.custom_objects}
        return self

    def __exit__(self, *exc_info):
        _scoped.objects = self._outer


custom_object_scope = CustomObjectScope


def get_custom_objects():
    """The global dictionary of registered objects (live: changes to it count)."""
    return GLOBAL_CUSTOM_OBJECTS


def register_keras_serializable(package="Custom", name=None):
    """A decorator filing a class or function under ``"package>name"`` (``name`` defaults to
    its ``__name__``), so that a saved config naming it loads without ``custom_objects``.
    A class must have ``get_config``."""

    def decorator(obj):
        registered_name = f"{package}>{name if name is not None else obj.__name__}"
        if inspect.isclass(obj) and not hasattr(obj, "get_config"):
            raise ValueError("Cannot register a class that does not have a get_config() method.")
        GLOBAL_CUSTOM_OBJECTS[registered_name] = obj
        GLOBAL_CUSTOM_NAMES[obj] = registered_name
        return obj

    return decorator


def get_registered_name(obj):
    """The name ``obj`` is registered under, else its ``__name__``."""
    return GLOBAL_CUSTOM_NAMES.get(obj, obj.__name__)


def get_registered_object(name, custom_objects=None, module_objects=None):
    """The object known as ``name``: in the current ``custom_object_scope``, then the registry,
    then ``custom_objects``, then ``module_objects``; None when none has it."""
    for objects in (_scoped.objects, GLOBAL_CUSTOM_OBJECTS, custom_objects, module_objects):
        if objects and name in objects:
            return objects[name]
    return None


def scoped_objects():
    """The objects of the ``custom_object_scope`` in effect (a copy)."""
    return dict(_scoped.objects)
