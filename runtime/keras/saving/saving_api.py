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
    if not isinstance(config, dict):
        raise archive.KerasFileError(f"{path}: its config.json is not a JSON object")
    if not compile:
        config["compile_config"] = None
    try:
        model = deserialize_keras_object(config, custom_objects, safe_mode=safe_mode)
    except RecursionError:
        raise archive.KerasFileError(f"{path}: its config.json is nested too deeply") from None
    with h5py.File(weights_file, "r") as h5file:
        weights.load_weights(model, h5file, path)
    return model


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
