"""Where ops come from: the user's file and line that made each op, for errors and exports.

When an op is created, the first frame of the stack that is not library code
(this package, the standard library, and paths registered with
``register_library_path``) is remembered. Frames of generated code (AutoGraph's
converted functions) are mapped back to the user's source by translators that
the converter registers: the runtime itself knows nothing of source conversion.

>>> import runtime as rt
>>> g = rt.Graph()
>>> with g.as_default():
...     y = rt.constant(1) + 2
>>> location = y.op.source
>>> location.function, location.lineno
('<module>', 2)
"""

from __future__ import annotations

import os
import sys
import sysconfig
import warnings
from typing import NamedTuple

_RUNTIME_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
_library_paths = [_RUNTIME_DIR, os.path.join(sysconfig.get_paths()["stdlib"], "")]
_skipped = tuple(_library_paths)
_translators = []
_is_library = {}  # code object -> whether it is library code: asked once per code object


class SourceLocation(NamedTuple):
    """A place in the user's code: ``File "model.py", line 12, in f``."""

    filename: str
    lineno: int
    function: str

    def __str__(self):
        return f'File "{self.filename}", line {self.lineno}, in {self.function}'


def register_library_path(path):
    """Frames of files under ``path`` are library code: an op is never said to come from them."""
    global _skipped
    _library_paths.append(os.path.join(os.path.abspath(path), ""))
    _skipped = tuple(_library_paths)
    _is_library.clear()


def register_translator(translate):
    """``translate(filename, lineno)`` -> ``(filename, lineno, function)`` or None.

    It maps a frame of generated code to the user code it stands for; None leaves it alone.
    """
    _translators.append(translate)


def caller_frame():
    """``(filename, lineno, function)`` of the innermost frame outside library code, or None.

    Cheap enough to run for every op created: the translation to the user's own
    lines waits until someone asks (``locate``).
    """
    frame = sys._getframe(1)
    known = _is_library
    while frame is not None:
        code = frame.f_code
        library = known.get(code)
        if library is None:
            library = known[code] = code.co_filename.startswith(_skipped)
        if not library:
            return code.co_filename, frame.f_lineno, code.co_name
        frame = frame.f_back
    return None


def locate(raw) -> SourceLocation | None:
    """The user's location for a frame found by ``caller_frame``."""
    if raw is None:
        return None
    for translate in _translators:
        mapped = translate(raw[0], raw[1])
        if mapped is not None:
            return SourceLocation(*mapped)
    return SourceLocation(*raw)


def warn(message, category=UserWarning):
    """Issues a warning at the user's line that led here: the innermost frame outside library
    code, or for converted code the line of the user's own source it stands for."""
    frame, stacklevel = sys._getframe(1), 2
    while frame is not None and frame.f_code.co_filename.startswith(_skipped):
        frame, stacklevel = frame.f_back, stacklevel + 1
    if frame is None:
        warnings.warn(message, category, stacklevel=2)
        return
    code = frame.f_code
    where = locate((code.co_filename, frame.f_lineno, code.co_name))
    if where.filename == code.co_filename and where.lineno == frame.f_lineno:
        warnings.warn(message, category, stacklevel=stacklevel)
    else:
        module = os.path.splitext(os.path.basename(where.filename))[0]
        registry = frame.f_globals.setdefault("__warningregistry__", {})
        warnings.warn_explicit(message, category, where.filename, where.lineno, module, registry)
