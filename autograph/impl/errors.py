"""Errors raised in converted code, reported at the user's own file and line.

Each generated file registers its source map here. When an error leaves the
outermost converted function, the frames of generated code in its traceback
are mapped to the user's lines and added to the message:

    ValueError: 'y' must also be initialized in the false branch ...

    in user code:

        File "/home/me/model.py", line 12, in f
            if x > 0:
"""

from __future__ import annotations

import linecache

from runtime.core import source

_maps = {}  # generated file -> (user file, {generated line: user line}, or a callable making it)
_variables = {}  # generated file -> {a variable conversion made: what errors call it}

# What errors call the variables that lowering ``return``, ``break`` and ``continue`` makes.
GENERATED_VARIABLES = {
    "retval": "the function's return value",
    "do_return": "the flag of a `return`",
    "break_": "the flag of a `break`",
    "continue_": "the flag of a `continue`",
}


def register(generated_file, user_file, line_map, variables=None):
    """Records where ``generated_file`` came from; ``line_map`` may be a callable, made on first use.

    ``variables`` maps the names of variables that conversion made to their bases
    (``retval_1``: ``retval``), so that errors name them as the user knows them.
    """
    _maps[generated_file] = (user_file, line_map)
    named = {
        name: GENERATED_VARIABLES[base]
        for name, base in (variables or {}).items()
        if base in GENERATED_VARIABLES
    }
    if named:
        _variables[generated_file] = named


def is_generated(filename) -> bool:
    """Whether code from ``filename`` is converted code (a file we generated)."""
    return filename in _maps


def _line_map(generated_file):
    user_file, line_map = _maps[generated_file]
    if callable(line_map):
        line_map = line_map()
        _maps[generated_file] = (user_file, line_map)
    return user_file, line_map


def user_frames(tb):
    """(file, line, function) of the user code that each converted frame of ``tb`` stands for."""
    frames = []
    while tb is not None:
        code = tb.tb_frame.f_code
        if code.co_filename in _maps:
            user_file, line_map = _line_map(code.co_filename)
            entry = line_map.get(tb.tb_lineno)
            if entry is not None:
                line, user_function = entry
                frames.append((user_file, line, user_function or code.co_name))
        tb = tb.tb_next
    return _dedupe(frames)


def _user_location(filename, lineno):
    """The user's (file, line, function) for a line of converted code, for ``rt`` ops' sources."""
    if filename not in _maps:
        return None
    user_file, line_map = _line_map(filename)
    entry = line_map.get(lineno)
    if entry is None:
        return None
    line, user_function = entry
    return user_file, line, user_function or "<converted>"


source.register_translator(_user_location)


def _user_names(message, tb):
    """``message`` with the variables that conversion made (``'retval'``) named as the user
    knows them (the function's return value)."""
    while tb is not None:
        for name, description in _variables.get(tb.tb_frame.f_code.co_filename, {}).items():
            message = message.replace(f"'{name}'", description)
        tb = tb.tb_next
    return message


def _dedupe(frames):
    out = []
    for frame in frames:
        if not out or out[-1] != frame:
            out.append(frame)
    return out


def describe(frames):
    lines = ["", "", "in user code:", ""]
    for path, line, fn in frames:
        lines.append(f'    File "{path}", line {line}, in {fn}')
        text = linecache.getline(path, line).strip()
        if text:
            lines.append(f"        {text}")
    return "\n".join(lines)


def add_user_frames(error):
    """Ends the message of ``error`` with where it happened in user code (once)."""
    frames = user_frames(error.__traceback__)
    if not frames or getattr(error, "ag_user_frames", None):
        return
    note = describe(frames)
    if (
        len(error.args) == 1
        and isinstance(error.args[0], str)
        and type(error).__str__ is BaseException.__str__
    ):
        # The user's names for generated ones ('retval' is the return value), then where.
        error.args = (_user_names(error.args[0], error.__traceback__) + note,)
        if isinstance(getattr(error, "message", None), str):
            error.message = error.args[0]  # OpError keeps its message apart, as TensorFlow does
    elif hasattr(error, "add_note"):  # a message made another way (KeyError quotes its key)
        error.add_note(note.strip("\n"))  # Python 3.11 and later
    error.ag_user_frames = frames
