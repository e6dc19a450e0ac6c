"""The optional extras in tests: skipped where one is not installed, never in CI.

``.ci/run`` installs every extra and sets ``AUTOGRAPH_REQUIRE_EXTRAS=1``: there a
missing extra fails the run instead of skipping the tests that need it.
"""

from __future__ import annotations

import importlib
import os

import pytest


def import_extra(module: str):
    """``module`` imported, or the calling test module skipped when it is not installed."""
    if os.environ.get("AUTOGRAPH_REQUIRE_EXTRAS") == "1":
        return importlib.import_module(module)
    return pytest.importorskip(module)
