"""``rt.compat``: older spellings kept for programs written for them (``rt.compat.v1``)."""

from runtime.compat import v1

__all__ = ["v1"]
