"""Optional extras: importing a package that only some features need, with a clear error.

>>> require("math", "none", "Counting").pi > 3
True
>>> require("no_such_package_here", "jax", "jit_compile=True")
Traceback (most recent call last):
...
ImportError: jit_compile=True needs the optional extra 'jax': pip install "autograph[jax]"
"""

from __future__ import annotations

import importlib

DISTRIBUTION = "autograph"
"""The name ``pip`` knows this project by: errors about a missing extra name it."""


def require(module, extra, feature):
    """Imports ``module``, or raises ImportError saying which extra of ours provides it."""
    try:
        return importlib.import_module(module)
    except ImportError as e:
        raise ImportError(
            f'{feature} needs the optional extra {extra!r}: pip install "{DISTRIBUTION}[{extra}]"'
        ) from e
