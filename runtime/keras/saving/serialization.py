"""Keras 3's serialization: an object as ``{"module", "class_name", "config", "registered_name"}``.

``serialize_keras_object`` writes what ``keras.saving.serialize_keras_object`` writes
(a layer, an initializer, an optimizer, a registered function...), and
``deserialize_keras_object`` makes the object again. A class name in a config is
looked up only among rt.keras's own classes (the public names of ``rt.keras.layers``,
``losses``, ``optimizers``, ``initializers``, ``activations``, ``metrics``,
``regularizers``, ``constraints`` and the models), registered objects, the
``custom_object_scope`` and ``custom_objects``: no module named in a config is ever
imported. With ``safe_mode=True`` (the default) a serialized Python lambda is refused.

>>> import runtime as rt
>>> rt.keras.backend.clear_session()
>>> config = rt.keras.saving.serialize_keras_object(rt.keras.layers.Dense(2, name="d"))
>>> config["module"], config["class_name"], config["config"]["units"]
('keras.layers', 'Dense', 2)
>>> layer = rt.keras.saving.deserialize_keras_object(config)
>>> type(layer).__name__, layer.name, layer.units
('Dense', 'd', 2)
>>> rt.keras.saving.deserialize_keras_object({"module": "os", "class_name": "system",
...                                           "config": {"command": "echo hi"}})
Traceback (most recent call last):
    ...
TypeError: Could not locate class 'system'. ...
"""

from __future__ import annotations

import base64
import contextlib
import inspect
import marshal
import sys
import threading
import types

import numpy as np

from runtime.core import dtypes
from runtime.core.tensor import Tensor
from runtime.core.tensor_shape import TensorShape
from runtime.keras._construct import construct
from runtime.keras.saving import object_registration

# Keras's public module of each rt.keras namespace whose classes a config may name.
NAMESPACES = {
    "keras.layers": "layers",
    "keras.losses": "losses",
    "keras.optimizers": "optimizers",
    "keras.initializers": "initializers",
    "keras.activations": "activations",
    "keras.metrics": "metrics",
    "keras.regularizers": "regularizers",
    "keras.constraints": "constraints",
    "keras.optimizers.schedules": "optimizers.schedules",
    "keras": "models",  # Sequential and Model are top-level names in Keras
    "keras.models": "models",
}
_FUNCTION_NAMESPACES = ("activations", "losses", "metrics")  # Keras's built-in functions
_CLASS_NAMESPACES = tuple(dict.fromkeys(NAMESPACES.values()))
_MODEL_ALIASES = {"Functional": "Model"}  # a functional model's class name in Keras's configs
_PLAIN_TYPES = (str, int, float, bool, type(None))

LAMBDA_REFUSED = (
    "Requested the deserialization of a Python lambda. This carries a potential risk of "
    "arbitrary code execution and thus it is disallowed by default. If you trust the source "
    "of the artifact, you can override this error by passing `safe_mode=False` to the loading "
    "function."
)


class _SafeMode(threading.local):
    def __init__(self):
        self.value = None  # None: each call's own safe_mode argument


_safe_mode = _SafeMode()


@contextlib.contextmanager
def safe_mode_scope(safe_mode):
    """Inside, every deserialization (nested ``from_config`` calls too) uses ``safe_mode``."""
    outer, _safe_mode.value = _safe_mode.value, safe_mode
    try:
        yield
    finally:
        _safe_mode.value = outer


def in_safe_mode():
    """The safe mode of the enclosing load (None outside one)."""
    return _safe_mode.value


# --- the table of rt.keras's own objects ----------------------------------------------------------


def _namespace(name):
    # Only a namespace rt.keras has imported already (all of them, once rt.keras is): this
    # module imports nothing, whatever a config names.
    return sys.modules.get(f"runtime.keras.{name}")


def _public_objects(name):
    """``{public name: object}`` of the rt.keras namespace ``name``, read now: namespaces grow."""
    module = _namespace(name)
    if module is None:
        return {}
    names = getattr(module, "__all__", None) or [n for n in vars(module) if not n.startswith("_")]
    found = {n: getattr(module, n, None) for n in names}
    # Only rt.keras's own definitions: not a helper a namespace happens to import.
    return {n: obj for n, obj in found.items() if _defined_in_keras(obj)}


def _defined_in_keras(obj):
    return (inspect.isclass(obj) or isinstance(obj, types.FunctionType)) and (
        getattr(obj, "__module__", "") or ""
    ).startswith("runtime.keras.")


def builtin_object(name, module, kind):
    """The rt.keras class (``kind="class"``) or function named ``name`` in Keras's ``module``
    (``"keras.layers"``...), or None. A module outside Keras finds nothing."""
    if module is None or module == "keras" or module.startswith("keras."):
        name = _MODEL_ALIASES.get(name, name)  # "keras.src.models.functional" too
    for namespace in _namespaces_for(module, kind):
        obj = _public_objects(namespace).get(name)
        if kind == "class" and inspect.isclass(obj):
            return obj
        if kind == "function" and isinstance(obj, types.FunctionType):
            return obj
    return None


def _namespaces_for(module, kind):
    everywhere = _FUNCTION_NAMESPACES if kind == "function" else _CLASS_NAMESPACES
    if kind == "function" and module == "builtins":  # how Keras names its own functions
        return everywhere
    if module in NAMESPACES:
        return [NAMESPACES[module]]
    if module is None or module.startswith("keras."):  # an older config, an internal module
        return everywhere
    return []


def keras_module_of(obj):
    """Keras's public module holding ``obj``'s kind (``"keras.layers"`` for Dense), or None
    when it is not one of rt.keras's own."""
    for module, namespace in NAMESPACES.items():
        if any(found is obj for found in _public_objects(namespace).values()):
            return module
    return None


# --- serializing ----------------------------------------------------------------------------------


def serialize_keras_object(obj):
    """``obj`` as Keras 3 writes it into a config: plain values as they are, containers item by
    item, arrays as ``__numpy__``, functions by name, objects with ``get_config`` as
    ``{"module", "class_name", "config", "registered_name"}``."""
    if isinstance(obj, _PLAIN_TYPES):
        return obj
    if isinstance(obj, (list, tuple)):
        return [serialize_keras_object(x) for x in obj]
    if isinstance(obj, dict):
        return {key: serialize_keras_object(value) for key, value in obj.items()}
    if obj is Ellipsis:
        return {"class_name": "__ellipsis__", "config": {}}
    if isinstance(obj, slice):
        parts = {"start": obj.start, "stop": obj.stop, "step": obj.step}
        return {"class_name": "__slice__", "config": serialize_keras_object(parts)}
    if isinstance(obj, bytes):
        return {"class_name": "__bytes__", "config": {"value": obj.decode("utf-8")}}
    if isinstance(obj, TensorShape):
        return obj.as_list() if obj.rank is not None else None
    if isinstance(obj, dtypes.DType):
        return obj.name
    if isinstance(obj, np.generic):
        return obj.item()
    if isinstance(obj, (np.ndarray, Tensor)):
        array = np.asarray(obj.numpy() if isinstance(obj, Tensor) else obj)
        kind = "__tensor__" if isinstance(obj, Tensor) else "__numpy__"
        return {"class_name": kind, "config": {"value": array.tolist(), "dtype": array.dtype.name}}
    if isinstance(obj, types.FunctionType):
        return _serialize_function(obj)
    if hasattr(obj, "get_config"):
        return _serialize_with_config(obj)
    raise TypeError(f"Cannot serialize {obj!r}: it has no `get_config()` method.")


def _serialize_function(fn):
    if fn.__name__ == "<lambda>":
        code = base64.b64encode(marshal.dumps(fn.__code__)).decode("ascii")
        closure = [cell.cell_contents for cell in fn.__closure__] if fn.__closure__ else None
        value = [code, list(fn.__defaults__) if fn.__defaults__ else None, closure]
        return {"class_name": "__lambda__", "config": {"value": value}}
    name = object_registration.GLOBAL_CUSTOM_NAMES.get(fn, fn.__name__)
    return {"module": "builtins", "class_name": "function", "config": name,
            "registered_name": "function"}  # fmt: skip


def _serialize_with_config(obj):
    cls = type(obj)
    module = keras_module_of(cls)
    registered = object_registration.GLOBAL_CUSTOM_NAMES.get(cls)
    config = {
        "module": module if module is not None else cls.__module__,
        "class_name": cls.__name__,
        "config": serialize_keras_object(obj.get_config()),
        "registered_name": None if module is not None else (registered or cls.__name__),
    }
    # A class of ours that Keras serializes from its internal module (the functional model):
    # written as Keras writes it, so that Keras finds it.
    internal_module = cls.__dict__.get("_keras_internal_module")
    if internal_module is not None:
        config["module"], config["registered_name"] = internal_module, cls.__name__
    build_config = getattr(obj, "get_build_config", lambda: None)()
    if build_config is not None:
        config["build_config"] = serialize_keras_object(build_config)
    compile_config = getattr(obj, "get_compile_config", lambda: None)()
    if compile_config is not None:
        config["compile_config"] = serialize_keras_object(compile_config)
    return config


# --- deserializing --------------------------------------------------------------------------------


def deserialize_keras_object(config, custom_objects=None, safe_mode=True, **kwargs):
    """The object ``config`` describes (what ``serialize_keras_object`` wrote, or Keras 3).

    Raises TypeError for a class or function found neither among rt.keras's own nor the
    registered and custom objects, ValueError for a lambda under ``safe_mode``.
    """
    if in_safe_mode() is not None:
        safe_mode = in_safe_mode()
    custom_objects = {**(custom_objects or {}), **object_registration.scoped_objects()}
    with safe_mode_scope(safe_mode):
        return _deserialize(config, custom_objects, safe_mode)


def _deserialize(config, custom_objects, safe_mode):
    if isinstance(config, str) and config in custom_objects:
        return custom_objects[config]
    if isinstance(config, (list, tuple)):
        return [_deserialize(x, custom_objects, safe_mode) for x in config]
    if isinstance(config, _PLAIN_TYPES):
        return config
    if hasattr(config, "get_config"):  # made already (a from_config handing its arguments on)
        return config
    if not isinstance(config, dict):
        raise TypeError(f"Could not parse config: {config}")
    if "class_name" not in config or "config" not in config:
        return {
            key: _deserialize(value, custom_objects, safe_mode) for key, value in config.items()
        }
    special = _SPECIAL.get(config["class_name"])
    if special is not None:
        return special(config, safe_mode)
    if config["class_name"] == "function":
        return _deserialize_function(config, custom_objects)
    return _deserialize_class(config, custom_objects)


def _deserialize_lambda(config, safe_mode):
    if safe_mode:
        raise ValueError(LAMBDA_REFUSED)
    # Keras's form: [base64 of the marshalled code, default values, closure values].
    value = config["config"]["value"]
    code, defaults, closure = (
        (list(value) + [None, None])[:3]
        if isinstance(value, (list, tuple))
        else (value, None, None)
    )
    code = marshal.loads(base64.b64decode(code))
    cells = tuple(types.CellType(v) for v in closure) if closure else None
    return types.FunctionType(
        code,
        {"__builtins__": __builtins__},
        code.co_name,
        tuple(defaults) if defaults else None,
        cells,
    )


def _inner(config):
    return config["config"] if config["config"] is not None else {}


def _array(config):
    """A serialized array, of booleans or numbers alone: a dtype such as ``S1500000000``
    would allocate gigabytes for a one-letter value."""
    dtype = np.dtype(_inner(config)["dtype"])
    if dtype.kind not in "biuf" or dtype.itemsize > 16:
        raise ValueError(
            f"Refused to deserialize an array of dtype '{dtype}': only boolean, integer and "
            "floating arrays (of at most 16 bytes an element) are read"
        )
    return np.array(_inner(config)["value"], dtype=dtype)


_SPECIAL = {
    "__numpy__": lambda c, _: _array(c),
    "__tensor__": lambda c, _: _array(c),
    "__bytes__": lambda c, _: _inner(c)["value"].encode("utf-8"),
    "__ellipsis__": lambda c, _: Ellipsis,
    "__slice__": lambda c, safe_mode: slice(
        *(_deserialize(_inner(c).get(k), {}, safe_mode) for k in ("start", "stop", "step"))
    ),
    "__lambda__": _deserialize_lambda,
}


def _deserialize_function(config, custom_objects):
    name = config["config"]
    if not isinstance(name, str):
        raise TypeError(
            "Expected 'config' to be a non-null str for a function classname,\n"
            f"instead got {type(name)}\nFull config: {config}"
        )
    found = _locate_function(name, config, custom_objects)
    if found is None:
        raise _not_found("function", name, config)
    return found


def _locate_function(name, config, custom_objects):
    found = object_registration.get_registered_object(name, custom_objects)
    if found is None:
        found = builtin_object(name, config.get("module"), "function")
    return found


def _deserialize_class(config, custom_objects):
    class_name = config["class_name"]
    inner = _inner(config)
    if not isinstance(inner, dict):
        raise TypeError(
            f"Expected 'config' to be a dict for {class_name},\ninstead got {type(inner)}\n"
            f"Full config: {config}"
        )
    cls = _find_class(class_name, config, custom_objects)
    if isinstance(cls, types.FunctionType):
        return cls
    if not hasattr(cls, "from_config") and _is_builtin(cls):
        return construct(cls, inner)  # one of ours without from_config: its constructor's keys
    if not hasattr(cls, "from_config"):
        raise TypeError(
            f"Unable to reconstruct an instance of '{class_name}' because the class is missing "
            f"a `from_config()` method. Full object config: {config}"
        )
    with object_registration.custom_object_scope(custom_objects):
        try:
            instance = cls.from_config(inner)
        except TypeError as e:
            raise TypeError(
                f"{cls} could not be deserialized properly. Please ensure that components that "
                "are Python object instances (layers, models, etc.) returned by `get_config()` "
                "are explicitly deserialized in the model's `from_config()` method."
                f"\n\nconfig={config}.\n\nException encountered: {e}"
            ) from e
        build_config = config.get("build_config")
        if build_config and not getattr(instance, "built", True):
            instance.build_from_config(build_config)
        compile_config = config.get("compile_config")
        if compile_config and hasattr(instance, "compile_from_config"):
            instance.compile_from_config(compile_config)
    return instance


def _is_builtin(cls):
    return keras_module_of(cls) is not None


def locate(config, custom_objects=None):
    """The class or function a serialized object (a dict with ``class_name``) names, found
    as ``deserialize_keras_object`` finds it (for Keras's own forms, ``__lambda__``...: the
    function reading them), or None."""
    custom_objects = {**(custom_objects or {}), **object_registration.scoped_objects()}
    if config["class_name"] in _SPECIAL:
        return _SPECIAL[config["class_name"]]
    if config["class_name"] == "function":
        name = config.get("config")
        return _locate_function(name, config, custom_objects) if isinstance(name, str) else None
    return _locate_class(config["class_name"], config, custom_objects)


def _locate_class(class_name, config, custom_objects):
    registered_name = config.get("registered_name") or class_name
    for name in dict.fromkeys((registered_name, class_name)):
        found = object_registration.get_registered_object(name, custom_objects)
        if found is not None:
            return found
    return builtin_object(class_name, config.get("module"), "class")


def _find_class(class_name, config, custom_objects):
    found = _locate_class(class_name, config, custom_objects)
    if found is None:
        raise _not_found("class", class_name, config)
    return found


def _not_found(kind, name, config):
    return TypeError(
        f"Could not locate {kind} '{name}'. Make sure custom classes and functions are "
        "decorated with `@rt.keras.saving.register_keras_serializable()`. If they are already "
        "decorated, make sure they are all imported so that the decorator is run before trying "
        f"to load them. Full object config: {config}"
    )
