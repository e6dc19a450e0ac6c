"""``rt.keras.models``: ``Model`` and ``Sequential``."""

from runtime.keras.models import functional as _functional  # noqa: F401 (Model(inputs, outputs))
from runtime.keras.models.model import Model
from runtime.keras.models.sequential import Sequential

__all__ = ["Model", "Sequential"]
