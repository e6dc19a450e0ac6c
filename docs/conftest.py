"""Doctests of docs/: a page whose examples need an optional extra is skipped without it
(but not where ``AUTOGRAPH_REQUIRE_EXTRAS=1``, as in CI: there a missing extra fails)."""

import importlib.util
import os

_NEEDS = {"export.md": ("onnx", "onnxruntime"), "xla.md": ("jax",)}

collect_ignore = [
    page
    for page, modules in _NEEDS.items()
    if os.environ.get("AUTOGRAPH_REQUIRE_EXTRAS") != "1"
    and any(importlib.util.find_spec(m) is None for m in modules)
]
