"""``eval``, ``exec``, ``locals``, ``vars`` and ``dir`` as the user's own function sees them.

Converted code splits a function into several (``if_true``, ``loop_body``...), so the
frame calling ``eval`` may hold only part of the user's variables, and its own helpers
besides. These builtins read the user's variables from the frames of the converted function
instead: from the caller up through the ``depth`` functions that conversion made around the
call (``converters/scope_calls.py`` counts them), the innermost value of each name winning,
without the names conversion made (``if_true``, ``break_``, ``ag__``) or variables not
assigned yet. ``globals()`` needs nothing: converted code runs in the user's module globals.

>>> def f():
...     y = 4
...     return eval_("y * 2")
>>> f()
8
"""

from __future__ import annotations

import builtins
import sys

from autograph.operators.variables import Undefined

_UNSET = object()
_made_names = {}  # generated file -> the names conversion made in it


def register(generated_file, made_names):
    """Records the names conversion made in ``generated_file``: they are no user's variables."""
    _made_names[generated_file] = frozenset(made_names) | {"ag__"}


def user_locals(frame, depth=None):
    """The variables of the user function whose converted code runs in ``frame``.

    ``depth``: how many functions that conversion made stand between ``frame`` and the
    user's function; None when unknown (``f = eval; f(s)``): then every frame of a function
    that conversion made, up to the first that it did not.
    """
    made = _made_names.get(frame.f_code.co_filename)
    if made is None:  # not converted code
        return dict(frame.f_locals)
    merged = {}
    for f in reversed(_user_frames(frame, depth, made)):  # the innermost value of a name wins
        merged.update(f.f_locals)
    return {k: v for k, v in merged.items() if k not in made and not isinstance(v, Undefined)}


def _user_frames(frame, depth, made):
    """The frames of one user function's converted code, from ``frame`` out to the user's."""
    filename = frame.f_code.co_filename
    frames = []
    while frame is not None:
        if frame.f_code.co_filename == filename:  # not the operators' frames between them
            frames.append(frame)
            if depth is None and frame.f_code.co_name not in made:
                break
            if depth is not None and len(frames) > depth:
                break
        frame = frame.f_back
    return frames


def eval_(source, globals=None, locals=None, *, depth=0):  # noqa: A002 - eval's own names
    """``eval``; without ``globals``, in the user function's variables (``user_locals``)."""
    return builtins.eval(source, *_namespaces(sys._getframe(1), globals, locals, depth))


def exec_(source, globals=None, locals=None, *, depth=0, closure=None):  # noqa: A002
    """``exec``; without ``globals``, in a copy of the user function's variables, which,
    as in Python, the executed code's assignments do not change."""
    namespaces = _namespaces(sys._getframe(1), globals, locals, depth)
    if closure is not None:
        return builtins.exec(source, *namespaces, closure=closure)
    return builtins.exec(source, *namespaces)


def locals_(*, depth=0):
    """``locals()``: the user function's variables (a new dict)."""
    return user_locals(sys._getframe(1), depth)


def vars_(obj=_UNSET, *, depth=0):
    """``vars``; without an argument, ``locals()``."""
    if obj is not _UNSET:
        return builtins.vars(obj)
    return user_locals(sys._getframe(1), depth)


def dir_(obj=_UNSET, *, depth=0):
    """``dir``; without an argument, the user function's variable names, sorted."""
    if obj is not _UNSET:
        return builtins.dir(obj)
    return sorted(user_locals(sys._getframe(1), depth))


def _namespaces(frame, globals_, locals_, depth):
    """(globals, locals) as ``eval`` and ``exec`` pick them, for a call made in ``frame``."""
    if globals_ is not None:
        return globals_, locals_
    return frame.f_globals, user_locals(frame, depth) if locals_ is None else locals_


OVERRIDES = {
    builtins.eval: eval_,
    builtins.exec: exec_,
    builtins.locals: locals_,
    builtins.vars: vars_,
    builtins.dir: dir_,
}
