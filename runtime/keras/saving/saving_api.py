"""``save_model``/``load_model`` in Keras 3's ``.keras`` format; ``save_weights``/``load_weights``.

A ``.keras`` file is a zip of ``config.json`` (the model's config, as
``serialize_keras_object`` writes it, with its build and compile configs),
``metadata.json`` (``keras_version``, ``date_saved``) and ``model.weights.h5``
(see ``weights``). Files written here load in Keras 3 and files Keras 3 writes
load here, for the layers both have. The weights need the optional ``h5py``
(``pip install "autograph-numpy[keras]"``).

>>> import os, tempfile, numpy as np, runtime as rt
>>> rt.keras.backend.clear_session()
>>> model = rt.keras.Sequential([rt.keras.layers.Dense(2, input_shape=(3,))])
>>> path = os.path.join(tempfile.mkdtemp(), "m.keras")
>>> model.save(path)
>>> loaded = rt.keras.models.load_model(path)
>>> x = np.ones((1, 3), np.float32)
>>> np.allclose(loaded.predict(x), model.predict(x))
True
"""

from __future__ import annotations

import os

from runtime import extras
from runtime.keras.saving import archive, weights
from runtime.keras.saving.serialization import deserialize_keras_object, serialize_keras_object


def _h5py():
    return extras.require("h5py", "keras", "Saving and loading `.keras` and `.weights.h5` files")


def save_model(model, filepath, overwrite=True, zipped=True, **kwargs):
    """Saves ``model`` to ``filepath``, which must end in ``.keras``."""
    if kwargs:
        raise ValueError(f"The following argument(s) are not supported: {list(kwargs)}")
    if not str(filepath).endswith(".keras"):
        raise ValueError(
            "Invalid filepath extension for saving. Please add either a `.keras` extension for "
            "the native Keras format (recommended) or a `.h5` extension. Use "
            "`model.export(filepath)` if you want to export a SavedModel for use with "
            f"TFLite/TFServing/etc. Received: filepath={filepath}."
        )
    if not overwrite and os.path.exists(filepath):
        return
    config = serialize_keras_object(model)
    archive.write_keras_file(filepath, config, _weights_bytes(model))


def _weights_bytes(model):
    import io

    buffer = io.BytesIO()
    with _h5py().File(buffer, "w") as h5file:
        weights.save_weights(model, h5file)
    return buffer.getvalue()


def load_model(filepath, custom_objects=None, compile=True, safe_mode=True):
    """The model saved at ``filepath`` (a ``.keras`` file), with its weights (and, with
    ``compile``, its optimizer and its state). Classes the file names are found only among
    rt.keras's own, registered objects and ``custom_objects``; with ``safe_mode`` a lambda's
    code is refused."""
    path = os.fspath(filepath)
    if not path.endswith(".keras"):
        raise ValueError(
            f"File format not supported: filepath={filepath}. Keras 3 only supports V3 "
            "`.keras` files. A SavedModel directory loads with `rt.saved_model.load`."
        )
    if not os.path.exists(path):
        raise ValueError(
            f"File not found: filepath={filepath}. Please ensure the file is an accessible "
            "`.keras` zip file."
        )
    h5py = _h5py()
    with archive.KerasArchive(path) as keras_file:
        config = keras_file.config()
        weights_file = keras_file.weights_file()
    _check_serialized_objects(config, path)
    if not compile:
        config["compile_config"] = None
    model = _model_from_config(
        config, path, len(weights_file.getbuffer()), custom_objects, safe_mode
    )
    with h5py.File(weights_file, "r") as h5file:
        weights.load_weights(model, h5file, path)
    return model


def _model_from_config(config, path, weights_bytes, custom_objects, safe_mode):
    """The model ``config`` describes, its weights bounded by the weights file's size. A
    malformed config that none of Keras's own checks catches (a key missing, a list where a
    dict belongs) raises KerasFileError naming the file; Keras's own refusals (an unknown
    class's TypeError, safe mode's ValueError) pass as they are."""
    try:
        with archive.bounded_weights(weights_bytes, path):
            model = deserialize_keras_object(config, custom_objects, safe_mode=safe_mode)
    except RecursionError:
        raise archive.KerasFileError(f"{path}: its config.json is nested too deeply") from None
    except (KeyError, AttributeError, IndexError) as e:
        raise archive.KerasFileError(
            f"{path}: config.json: malformed ({type(e).__name__}: {e})"
        ) from e
    if not weights.is_layer(model):
        raise archive.KerasFileError(
            f"{path}: config.json: describes a {type(model).__name__}, not a model"
        )
    return model


def _check_serialized_objects(config, path):
    """Refuses a serialized object (a dict with ``class_name`` and ``config``) whose
    ``class_name`` is not a string, or whose ``module`` or ``registered_name`` is neither a
    string nor null: lookups would fail on them with a bare TypeError."""
    if not isinstance(config, dict):
        raise archive.KerasFileError(f"{path}: its config.json is not a JSON object")
    pending = [config]
    while pending:  # a loop, not recursion: the JSON may nest as deep as its parser allows
        value = pending.pop()
        if isinstance(value, list):
            pending.extend(value)
        elif isinstance(value, dict):
            if "class_name" in value and "config" in value:
                _check_names(value, path)
            pending.extend(value.values())


def _check_names(serialized, path):
    if not isinstance(serialized["class_name"], str):
        raise archive.KerasFileError(
            f"{path}: config.json: a 'class_name' is not a string: "
            f"{_shorten(serialized['class_name'])}"
        )
    for key in ("module", "registered_name"):
        if not isinstance(serialized.get(key), (str, type(None))):
            raise archive.KerasFileError(
                f"{path}: config.json: the '{key}' of '{serialized['class_name']}' is not a "
                f"string: {_shorten(serialized[key])}"
            )


def _shorten(value, limit=80):
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def save_weights(model, filepath, overwrite=True):
    """Saves ``model``'s weights (and its optimizer's state) to ``filepath``, which must end
    in ``.weights.h5``."""
    if not str(filepath).endswith(".weights.h5"):
        raise ValueError(f"The filename must end in `.weights.h5`. Received: filepath={filepath}")
    if not overwrite and os.path.exists(filepath):
        return
    data = _weights_bytes(model)
    archive.replace_atomically(filepath, lambda file: file.write(data))


def load_weights(model, filepath, skip_mismatch=False):
    """Assigns ``model``'s weights from a ``.weights.h5`` or ``.keras`` file; with
    ``skip_mismatch``, a layer whose weights do not fit is skipped with a warning."""
    path = os.fspath(filepath)
    h5py = _h5py()
    if path.endswith(".keras"):
        with archive.KerasArchive(path) as keras_file:
            weights_file = keras_file.weights_file()
    elif path.endswith(".weights.h5"):
        weights_file = archive.read_weights_file(path)
    else:
        raise ValueError(
            f"File format not supported: filepath={filepath}. Keras 3 only supports V3 "
            "`.keras` files and `.weights.h5` files."
        )
    try:
        h5file = h5py.File(weights_file, "r")
    except OSError as e:
        raise archive.KerasFileError(f"{path}: not an HDF5 weights file: {e}") from None
    with h5file:
        weights.load_weights(model, h5file, path, skip_mismatch=skip_mismatch)
