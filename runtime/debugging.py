"""Run-time checks: ``rt.debugging.assert_equal``."""

from runtime.ops.logging_ops import Assert, assert_equal

__all__ = ["Assert", "assert_equal"]
