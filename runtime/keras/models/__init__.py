"""``rt.keras.models``: ``Model`` and ``Sequential``; ``load_model``/``save_model`` (``.keras``)."""

from runtime.keras.models import functional as _functional  # noqa: F401 (Model(inputs, outputs))
from runtime.keras.models.model import Model
from runtime.keras.models.sequential import Sequential
from runtime.keras.saving.saving_api import load_model, save_model

__all__ = ["Model", "Sequential", "load_model", "save_model"]
