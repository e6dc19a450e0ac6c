"""Tracebacks without the library's own frames, as TensorFlow filters its own.

An error that leaves a public entry point (calling an ``ag.function``, a concrete
or loaded function, a converted function, ``Session.run``) for the user's code
loses the frames of ``runtime/``, ``autograph/`` and converted code from its
traceback: what is left is the user's own frames and the message, which for
converted code ends with the user's lines ("in user code:"). Exceptions it
chains (``__cause__``, ``__context__``) are filtered alike, and one raised
wholly inside the library, or inside what the library called of the installed
packages (numpy's error that a kernel's message already quotes), is left out.
Each entry point does::

    try:
        ...
    except Exception as error:
        tracebacks.filter_traceback(error)
        raise

A bare ``raise`` keeps the traceback the error holds, so on Python 3.11 and
later not even the entry point's frame is left. Python 3.10 restores the
traceback a bare ``raise`` was caught with: there the entry point's frame stays,
followed by the frames kept.

``rt.debugging.disable_traceback_filtering()`` shows every frame again, as
``tf.debugging.disable_traceback_filtering()`` does.

>>> import runtime as rt
>>> rt.debugging.is_traceback_filtering_enabled()
True
"""

from __future__ import annotations

import os
import site
import sys
import sysconfig
import types

_RUNTIME_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
COMPILED_GRAPH_FILES = "<rt-graph-"  # how the file names of compiled graphs' programs start
_hidden = [_RUNTIME_DIR, COMPILED_GRAPH_FILES]
_hidden_prefixes = tuple(_hidden)
_library = list(_hidden)  # hidden paths that hold the library's own code (not converted code)
_library_prefixes = tuple(_library)
_enabled = True


def _installed_packages():
    """Where the standard library and installed packages (numpy, ...) live: not user code."""
    paths = [sysconfig.get_paths().get(k) for k in ("stdlib", "platstdlib", "purelib", "platlib")]
    paths += site.getsitepackages() if hasattr(site, "getsitepackages") else []
    paths.append(site.getusersitepackages())
    return tuple(os.path.join(os.path.abspath(p), "") for p in paths if p) + ("<frozen ",)


_INSTALLED_PREFIXES = _installed_packages()


def enable_traceback_filtering():
    """Leaves the library's frames out of the tracebacks of errors raised to user code (the default)."""
    global _enabled
    _enabled = True


def disable_traceback_filtering():
    """Shows every frame in tracebacks, the library's included (for debugging the library)."""
    global _enabled
    _enabled = False


def is_traceback_filtering_enabled() -> bool:
    """Whether tracebacks leave out the library's frames."""
    return _enabled


def register_hidden_path(path, library=True):
    """Frames of files under ``path`` are left out of filtered tracebacks.

    ``library=False`` for generated code (converted functions): its frames are
    hidden, but an exception raised there is still the user's, never left out.
    """
    global _hidden_prefixes, _library_prefixes
    prefix = os.path.join(os.path.abspath(path), "")
    _hidden.append(prefix)
    _hidden_prefixes = tuple(_hidden)
    if library:
        _library.append(prefix)
        _library_prefixes = tuple(_library)


def is_hidden(filename) -> bool:
    """Whether frames of ``filename`` are library or generated code."""
    return filename.startswith(_hidden_prefixes)


def filter_traceback(error: BaseException) -> None:
    """Leaves the library's frames out of the traceback of ``error``, caught by an entry point
    that raises it again with a bare ``raise``.

    Only when filtering is on and the entry point (the frame of the traceback's
    first entry) was called from user code: one called by the library leaves the
    error whole for the outermost one.
    """
    tb = error.__traceback__
    if not _enabled or tb is None:
        return
    caller = tb.tb_frame.f_back
    if caller is not None and is_hidden(caller.f_code.co_filename):
        return
    strip_library_frames(error)  # the entry point's own frame is the library's too: left out
    if sys.version_info < (3, 11):
        # A bare raise restores the traceback as caught, whose first entry is the entry point's
        # frame: that one frame stays, and what follows it is what was kept.
        tb.tb_next = error.__traceback__


def strip_library_frames(error: BaseException) -> None:
    """Leaves the library's frames out of the traceback of ``error`` and those it chains."""
    _filter_chain(error, set())


def _filter_chain(error, seen):
    while error is not None and id(error) not in seen:
        seen.add(id(error))
        error.__traceback__ = _without_hidden_frames(error.__traceback__)
        for chained in ("__cause__", "__context__"):
            inner = getattr(error, chained)
            if inner is not None and _none_of_the_users(inner.__traceback__):
                setattr(error, chained, None)  # the library's own detail, not the user's
        _filter_chain(error.__context__, seen)
        error = error.__cause__


def _none_of_the_users(tb) -> bool:
    """Whether a traceback runs wholly through the library (and what it called of the
    installed packages): an error the user's code did not raise, only the library's detail."""
    if tb is None or not tb.tb_frame.f_code.co_filename.startswith(_library_prefixes):
        return False  # raised by the user's code, or by a package the user called
    while tb is not None:
        filename = tb.tb_frame.f_code.co_filename
        if not filename.startswith(_library_prefixes + _INSTALLED_PREFIXES):
            return False
        tb = tb.tb_next
    return True


def _without_hidden_frames(tb):
    kept = []
    while tb is not None:
        if not is_hidden(tb.tb_frame.f_code.co_filename):
            kept.append(tb)
        tb = tb.tb_next
    rebuilt = None
    for entry in reversed(kept):
        rebuilt = types.TracebackType(rebuilt, entry.tb_frame, entry.tb_lasti, entry.tb_lineno)
    return rebuilt
