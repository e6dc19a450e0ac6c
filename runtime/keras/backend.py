"""Keras' backend utilities: the naming of layers and models, ``clear_session``, ``floatx``.

Layers and models are named after their class, in snake case, numbered per name
from the second on, as in Keras: ``dense``, ``dense_1``, ``sequential``...

>>> import runtime as rt
>>> rt.keras.backend.clear_session()
>>> [rt.keras.layers.Dense(1).name for _ in range(3)]
['dense', 'dense_1', 'dense_2']
>>> rt.keras.backend.clear_session()
>>> rt.keras.layers.Dense(1).name
'dense'
"""

from __future__ import annotations

import collections
import re

_name_counts = collections.Counter()  # name -> how many objects were given it


def clear_session():
    """Restarts the numbering of names: the next Dense is ``dense`` again."""
    _name_counts.clear()


def unique_object_name(name):
    """``name`` the first time, then ``name_1``, ``name_2``, ... (until ``clear_session``)."""
    count = _name_counts[name]
    _name_counts[name] += 1
    return name if count == 0 else f"{name}_{count}"


def to_snake_case(name):
    """``SequentialModel`` -> ``sequential_model``, as Keras names an object after its class."""
    name = re.sub(r"(.)([A-Z][a-z0-9]+)", r"\1_\2", name)
    name = re.sub(r"([a-z])([A-Z])", r"\1_\2", name).lower()
    return name if not name.startswith("_") else "private" + name


# Keras' global settings (``rt.keras.config`` sets them): the default float type, the fuzz
# factor, the image layout.
_settings = {"floatx": "float32", "epsilon": 1e-7, "image_data_format": "channels_last"}
FLOATX_CHOICES = ("bfloat16", "float16", "float32", "float64")


def floatx():
    """The default float type of layers' weights and inputs: ``'float32'`` unless set."""
    return _settings["floatx"]


def set_floatx(value):
    """Sets ``floatx()``: one of ``'bfloat16'``, ``'float16'``, ``'float32'``, ``'float64'``."""
    if value not in FLOATX_CHOICES:
        raise ValueError(f"Unknown `floatx` value: {value}. Expected one of {set(FLOATX_CHOICES)}")
    _settings["floatx"] = str(value)


def epsilon():
    """The fuzz factor of losses and optimizers: ``1e-07`` unless set."""
    return _settings["epsilon"]


def set_epsilon(value):
    """Sets ``epsilon()``."""
    _settings["epsilon"] = value


def image_data_format():
    """Where images keep their channels: ``'channels_last'`` (NHWC) unless set."""
    return _settings["image_data_format"]


def set_image_data_format(data_format):
    """Sets ``image_data_format()``: ``'channels_first'`` or ``'channels_last'``."""
    data_format = str(data_format).lower()
    if data_format not in ("channels_first", "channels_last"):
        raise ValueError(
            "The `data_format` argument must be one of {'channels_first', 'channels_last'}. "
            f"Received: data_format={data_format}"
        )
    _settings["image_data_format"] = data_format


def get_keras_mask(x):
    """The Keras mask attached to ``x`` (by ``Embedding(mask_zero=True)``, ``Masking``...),
    or None: which timesteps the layers after it skip.

    >>> import numpy as np, runtime as rt
    >>> embedded = rt.keras.layers.Embedding(5, 2, mask_zero=True)(np.array([[3, 1, 0]]))
    >>> rt.keras.backend.get_keras_mask(embedded).numpy()
    array([[ True,  True, False]])
    """
    return getattr(x, "_keras_mask", None)


def set_keras_mask(x, mask):
    """Attaches ``mask`` to the tensor ``x`` (None: takes its mask away)."""
    x._keras_mask = mask
