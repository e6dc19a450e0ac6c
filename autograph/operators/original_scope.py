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
import inspect
import sys

from autograph.operators.variables import Undefined

_UNSET = object()
_ONE_DICT_PER_CALL = sys.version_info < (3, 13)  # PEP 667 made locals() a new dict each time
_SHARED = "ag__ locals"  # a key of a frame's locals that no variable can be named
_made_names = {}  # generated file -> the names conversion made in it


def register(generated_file, made_names):
    """Records the names conversion made in ``generated_file``: they are no user's variables."""
    _made_names[generated_file] = frozenset(made_names) | {"ag__"}


def user_locals(frame, depth=None):
    """The variables of the user function whose converted code runs in ``frame``.

    ``depth``: how many functions that conversion made stand between ``frame`` and the
    user's function; None when unknown (``f = eval; f(s)``): then every frame of a function
    that conversion made, up to the first that it did not.

    As Python's ``locals()`` on the version that runs: before 3.13 (PEP 667), one dict per
    call of the user's function, updated by each call, so that what ``exec`` writes there
    stays; since, a new dict each time.
    """
    made = _made_names.get(frame.f_code.co_filename)
    if made is None or not frame.f_code.co_flags & inspect.CO_OPTIMIZED:
        # Not converted code, or a class body: its namespace itself, as Python gives it.
        return frame.f_locals if _ONE_DICT_PER_CALL else dict(frame.f_locals)
    frames = _user_frames(frame, depth, made)
    merged = {}
    for f in reversed(frames):  # the innermost value of a name wins
        merged.update(f.f_locals)
    variables = {
        k: v
        for k, v in merged.items()
        if k not in made and k != _SHARED and not isinstance(v, Undefined)
    }
    if not _ONE_DICT_PER_CALL:
        return variables
    return _update_shared(frames, variables, made)


def _update_shared(frames, variables, made):
    """The one dict of the user function's call (kept in its frame's own, under a name no
    variable can have), updated as Python updates a frame's: every variable set to its value,
    unassigned ones removed, any other name (what ``exec`` wrote) left."""
    shared = frames[-1].f_locals.setdefault(_SHARED, {})
    names = {n for f in frames for n in _frame_variables(f.f_code)} - made
    for name in names.difference(variables):
        shared.pop(name, None)
    shared.update(variables)
    return shared


def _frame_variables(code):
    return (*code.co_varnames, *code.co_cellvars, *code.co_freevars)


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
    """``exec``; without ``globals``, in the user function's variables as ``locals()`` gives
    them, which, as in Python, the executed code's assignments do not change."""
    namespaces = _namespaces(sys._getframe(1), globals, locals, depth)
    if closure is not None:
        return builtins.exec(source, *namespaces, closure=closure)
    return builtins.exec(source, *namespaces)


def locals_(*, depth=0):
    """``locals()``: the user function's variables (``user_locals``)."""
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
