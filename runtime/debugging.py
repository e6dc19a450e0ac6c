"""Run-time checks (``rt.debugging.assert_equal``) and the switch of traceback filtering."""

from runtime.core.tracebacks import (
    disable_traceback_filtering,
    enable_traceback_filtering,
    is_traceback_filtering_enabled,
)
from runtime.ops.logging_ops import Assert, assert_equal

__all__ = [
    "Assert",
    "assert_equal",
    "disable_traceback_filtering",
    "enable_traceback_filtering",
    "is_traceback_filtering_enabled",
]
