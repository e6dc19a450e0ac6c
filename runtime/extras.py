"""The optional extras (``pip install "autograph-numpy[onnx]"``): the one place their install hint is written.

>>> require("no_such_module_here", "onnx", "Exporting to ONNX")
Traceback (most recent call last):
    ...
ImportError: Exporting to ONNX needs the no_such_module_here package: pip install "autograph-numpy[onnx]"
"""

from __future__ import annotations

import importlib

DISTRIBUTION = "autograph-numpy"
"""The name this project is installed under, as ``pip install`` spells it."""


def install_hint(extra: str) -> str:
    """The command that installs ``extra``: ``pip install "autograph-numpy[onnx]"``."""
    return f'pip install "{DISTRIBUTION}[{extra}]"'


def require(module: str, extra: str, feature: str):
    """Imports ``module`` of the optional ``extra``; without it, an ImportError saying how to
    install it. ``feature`` says what needs it ("Exporting to ONNX")."""
    try:
        return importlib.import_module(module)
    except ImportError:
        raise ImportError(f"{feature} needs the {module} package: {install_hint(extra)}") from None
