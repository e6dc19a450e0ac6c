"""Which modules are library code: AutoGraph runs their functions as they are, and a staged
statement does not watch their objects.

Library code is ``runtime``, ``autograph``, numpy and gast, the modules built into Python, the
standard library and installed packages (site-packages). A user's module is none of these,
whatever its name begins with (``runtime_utils`` is the user's).

>>> import random
>>> is_library_module(random.Random.__module__), is_library_module("numpy.linalg")
(True, True)
>>> is_library_module("runtime"), is_library_module("runtime_utils")
(True, False)

A wrapper made with ``functools.wraps`` takes its user function's ``__module__``: its code's
file tells it apart.

>>> import runtime as rt
>>> is_library_function(rt.recompute_grad(lambda x: x)), is_library_function(lambda x: x)
(True, False)
"""

from __future__ import annotations

import os
import sys
import sysconfig

_PACKAGES = {"runtime", "autograph", "numpy", "gast", "builtins"}
_STDLIB = os.path.normcase(sysconfig.get_paths()["stdlib"])
_SITE = tuple(
    {os.path.normcase(p) for k, p in sysconfig.get_paths().items() if k in ("purelib", "platlib")}
)
_ANSWERS = {}  # module name -> whether it is library code (a module's file does not move)
_OWN_DIRS = tuple(
    os.path.normcase(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
    + os.sep
    + package
    + os.sep
    for package in ("runtime", "autograph")
)


def is_library_function(fn) -> bool:
    """Whether ``fn``'s code lies in the ``runtime`` or ``autograph`` packages' files."""
    code = getattr(fn, "__code__", None)
    return code is not None and os.path.normcase(code.co_filename).startswith(_OWN_DIRS)


def is_library_module(name: str) -> bool:
    """Whether the module called ``name`` (a ``__module__``) is library code."""
    answer = _ANSWERS.get(name)
    if answer is None:
        module = sys.modules.get(name)
        answer = _is_library(name, module)
        if module is not None:
            _ANSWERS[name] = answer
    return answer


def _is_library(name, module) -> bool:
    if name.split(".")[0] in _PACKAGES or name in sys.builtin_module_names:
        return True
    path = os.path.normcase(getattr(module, "__file__", None) or "")
    return bool(path) and (path.startswith(_STDLIB) or path.startswith(_SITE))
