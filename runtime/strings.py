"""String operations: ``rt.strings.join``, ``length``, ``as_string``."""

from runtime.ops.string_ops import as_string, join, length

__all__ = ["as_string", "join", "length"]
