"""The ``checkpoint`` file of a directory: which checkpoints it holds, newest last.

The file is TensorFlow's ``CheckpointState`` in protobuf text form, so the two
read each other's::

    model_checkpoint_path: "ckpt-2"
    all_model_checkpoint_paths: "ckpt-1"
    all_model_checkpoint_paths: "ckpt-2"
    all_model_checkpoint_timestamps: 1700000000.5
    last_preserved_timestamp: 1699999999.0

Paths are stored relative to the directory where they can be, and come back
joined to it. Reading parses protobuf's text format for these fields (on one
line or several, ``#`` comments, strings with C escapes, numbers), within a size
limit; text it cannot parse is a ``ParseError``, which ``get_checkpoint_state``
logs before ignoring the file, as TensorFlow does.

>>> text = state_text(CheckpointState("/d/ckpt-2", ["/d/ckpt-1", "/d/ckpt-2"]), "/d")
>>> print(text, end="")
model_checkpoint_path: "ckpt-2"
all_model_checkpoint_paths: "ckpt-1"
all_model_checkpoint_paths: "ckpt-2"
>>> parse_state(text, "/d").all_model_checkpoint_paths
['/d/ckpt-1', '/d/ckpt-2']
"""

from __future__ import annotations

import dataclasses
import logging
import math
import os
import re

from runtime.saving.checkpoint_files import replace_file
from runtime.saving.files import open_regular_file, read_limited
from runtime.saving.format import SavedModelError

STATE_FILE = "checkpoint"
MAX_STATE_BYTES = 16 << 20
# Protocol buffer text: fields may share a line or be split over lines, end in "," or ";",
# "# comments" run to the end of a line, adjacent quoted strings are joined.
_TOKEN = re.compile(
    r"""(?P<space>\s+|\#[^\n]*)
    |(?P<number>-?(?:(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?[fF]?
                    |(?i:inf(?:inity)?|nan)(?![\w])))
    |(?P<name>[A-Za-z_]\w*)
    |(?P<string>"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*')
    |(?P<mark>[:;,])""",
    re.VERBOSE,
)
_ESCAPE = re.compile(rb"\\(?:([0-7]{1,3})|x([0-9a-fA-F]{1,2})|(.))", re.DOTALL)
_SIMPLE_ESCAPES = {
    b"n": b"\n",
    b"t": b"\t",
    b"r": b"\r",
    b"a": b"\a",
    b"b": b"\b",
    b"f": b"\f",
    b"v": b"\v",
    b"\\": b"\\",
    b"'": b"'",
    b'"': b'"',
    b"?": b"?",
}
_STRING_FIELDS = ("model_checkpoint_path", "all_model_checkpoint_paths")
_NUMBER_FIELDS = ("all_model_checkpoint_timestamps", "last_preserved_timestamp")
_REPEATED_FIELDS = ("all_model_checkpoint_paths", "all_model_checkpoint_timestamps")

logger = logging.getLogger("runtime")


@dataclasses.dataclass
class CheckpointState:
    """TensorFlow's ``CheckpointState``: the newest checkpoint and those kept, oldest first."""

    model_checkpoint_path: str = ""
    all_model_checkpoint_paths: list = dataclasses.field(default_factory=list)
    all_model_checkpoint_timestamps: list = dataclasses.field(default_factory=list)
    last_preserved_timestamp: float = 0.0


class ParseError(ValueError):
    """The state file is not CheckpointState text (protobuf's ``text_format.ParseError``)."""


def _relative(path, directory):
    path = os.fspath(path)
    if os.path.isabs(path) == os.path.isabs(directory):
        return os.path.relpath(path, directory)
    return path


def _quoted(path):
    out = []
    for byte in os.fsencode(path):
        char = chr(byte)
        if char in '"\\':
            out.append("\\" + char)
        elif 32 <= byte < 127:
            out.append(char)
        else:
            out.append(f"\\{byte:03o}")
    return '"' + "".join(out) + '"'


def state_text(state, directory):
    """The text of the state file of ``directory`` for ``state``."""
    lines = [f"model_checkpoint_path: {_quoted(_relative(state.model_checkpoint_path, directory))}"]
    lines += [
        f"all_model_checkpoint_paths: {_quoted(_relative(p, directory))}"
        for p in state.all_model_checkpoint_paths
    ]
    lines += [
        f"all_model_checkpoint_timestamps: {t!r}" for t in state.all_model_checkpoint_timestamps
    ]
    if state.last_preserved_timestamp:
        lines.append(f"last_preserved_timestamp: {state.last_preserved_timestamp!r}")
    return "".join(line + "\n" for line in lines)


def write_state(directory, state, latest_filename=None):
    """Replaces the state file of ``directory`` with ``state``, atomically."""
    directory = os.fspath(directory)
    path = os.path.join(directory, latest_filename or STATE_FILE)
    replace_file(path, state_text(state, directory).encode("ascii"))


def _unescape(quoted):
    body = quoted[1:-1].encode("utf-8", "surrogateescape")

    def one(match):
        octal, hexadecimal, simple = match.groups()
        if octal is not None:
            return bytes([int(octal, 8) & 0xFF])
        if hexadecimal is not None:
            return bytes([int(hexadecimal, 16)])
        if simple not in _SIMPLE_ESCAPES:
            raise ValueError(f"Invalid escape sequence \\{simple.decode('latin-1')}")
        return _SIMPLE_ESCAPES[simple]

    return _ESCAPE.sub(one, body)


def _tokens(text):
    """``(kind, text, line, column)`` for each token of ``text``; ParseError where none fits."""
    position, line, line_start = 0, 1, 0
    while position < len(text):
        match = _TOKEN.match(text, position)
        column = position - line_start + 1
        if match is None:
            problem = "Unterminated string" if text[position] in "\"'" else "Unexpected text"
            raise ParseError(f"{line}:{column} : {problem}: {text[position : position + 20]!r}")
        if match.lastgroup != "space":
            yield match.lastgroup, match.group(), line, column
        line += match.group().count("\n")
        if "\n" in match.group():
            line_start = match.start() + match.group().rindex("\n") + 1
        position = match.end()


class _TokenStream:
    """The tokens of ``text``, made one at a time as the parser asks: junk fails at its first
    token, without the rest of the file being tokenized."""

    def __init__(self, text):
        self._tokens = _tokens(text)
        self._next = next(self._tokens, None)

    def peek(self):
        """The next token, not taken, or None at the end."""
        return self._next

    def skip(self):
        self._next = next(self._tokens, None)

    def take(self, kind, wanted):
        token = self._next
        if token is None:
            raise ParseError(f"Expected {wanted}, found the end of the text")
        found, value, line, column = token
        if found != kind or (kind == "mark" and value != ":"):
            raise ParseError(f"{line}:{column} : Expected {wanted}, found {value!r:.40}")
        self.skip()
        return value, line, column


def _field_values(text):
    """``(field, value)`` in order: strings as bytes, numbers as floats."""
    tokens = _TokenStream(text)
    while tokens.peek() is not None:
        field, line, column = tokens.take("name", "a field name")
        if field not in _STRING_FIELDS + _NUMBER_FIELDS:
            raise ParseError(
                f'{line}:{column} : Message type "tensorflow.CheckpointState" has no field '
                f'named "{field}".'
            )
        tokens.take("mark", '":"')
        if field in _STRING_FIELDS:
            value, line, column = tokens.take("string", "a quoted string")
            parts = [value]
            while tokens.peek() is not None and tokens.peek()[0] == "string":  # "a" "b" is "ab"
                parts.append(tokens.take("string", "a quoted string")[0])
            try:
                yield field, b"".join(_unescape(part) for part in parts)
            except ValueError as e:
                raise ParseError(f"{line}:{column} : {e}") from None
        else:
            value, line, column = tokens.take("number", "a number")
            word = value.lstrip("-").isalpha()  # inf, infinity, nan: their f is no suffix
            number = float(value if word else value.rstrip("fF"))
            if not math.isfinite(number):
                raise ParseError(f"{line}:{column} : a timestamp must be finite, found {value}")
            yield field, number
        if tokens.peek() is not None and tokens.peek()[1] in (",", ";"):
            tokens.skip()


def parse_state(text, directory):
    """The CheckpointState that ``text`` holds; relative paths are joined to ``directory``.

    A field given twice that is not a list keeps its last value, as protobuf's
    ``text_format.Merge`` (what TensorFlow reads the file with) does.
    """
    state = CheckpointState()
    for field, value in _field_values(text):
        if field in _STRING_FIELDS:
            value = os.fsdecode(value)
        if field in _REPEATED_FIELDS:
            getattr(state, field).append(value)
        else:
            setattr(state, field, value)
    directory = os.fspath(directory)

    def joined(path):
        return path if not path or os.path.isabs(path) else os.path.join(directory, path)

    state.model_checkpoint_path = joined(state.model_checkpoint_path)
    state.all_model_checkpoint_paths = [joined(p) for p in state.all_model_checkpoint_paths]
    return state


def get_checkpoint_state(checkpoint_dir, latest_filename=None):
    """The CheckpointState of ``checkpoint_dir``, or None when it has no state file (or one
    that cannot be read or parsed: logged, then ignored, as TensorFlow does). A state file
    naming no checkpoint raises ValueError, as TensorFlow's ``tf.train.get_checkpoint_state``.
    """
    directory = os.fspath(checkpoint_dir)
    path = os.path.join(directory, latest_filename or STATE_FILE)
    try:
        text = _state_text_in(path)
        state = None if text is None else parse_state(text, directory)
    except (SavedModelError, ParseError) as e:
        logger.warning("%s: %s", type(e).__name__, e)
        logger.warning("%s: Checkpoint ignored", path)
        return None
    if state is not None and not state.model_checkpoint_path:
        raise ValueError(f"Invalid checkpoint state loaded from {directory}")
    return state


def _state_text_in(path):
    """The text of the state file ``path``; None when there is none."""
    try:
        file, _ = open_regular_file(path, MAX_STATE_BYTES, "the checkpoint state file")
    except FileNotFoundError:
        return None
    with file:
        raw = read_limited(file, MAX_STATE_BYTES, path, "the checkpoint state file")
    return raw.decode("utf-8", "surrogateescape")
