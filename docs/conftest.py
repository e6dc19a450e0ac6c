"""Doctests of docs/: a page whose examples need an optional extra is skipped without it."""

import importlib.util

_NEEDS = {"export.md": ("onnx", "onnxruntime"), "xla.md": ("jax",)}

collect_ignore = [
    page
    for page, modules in _NEEDS.items()
    if any(importlib.util.find_spec(m) is None for m in modules)
]
