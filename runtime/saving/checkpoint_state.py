"""The ``checkpoint`` file of a directory: which checkpoints it holds, newest last.

The file is TensorFlow's ``CheckpointState`` in protobuf text form, so the two
read each other's::

    model_checkpoint_path: "ckpt-2"
    all_model_checkpoint_paths: "ckpt-1"
    all_model_checkpoint_paths: "ckpt-2"
    all_model_checkpoint_timestamps: 1700000000.5
    last_preserved_timestamp: 1699999999.0

Paths are stored relative to the directory where they can be, and come back
joined to it. Reading parses only these fields (strings with C escapes,
numbers), within a size limit.

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
import os
import re

from runtime.saving.checkpoint_files import replace_file
from runtime.saving.files import open_regular_file, read_limited
from runtime.saving.format import SavedModelError

STATE_FILE = "checkpoint"
MAX_STATE_BYTES = 16 << 20
_LINE = re.compile(r"\s*([a-z_]+)\s*:\s*(.*?)\s*")
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

logger = logging.getLogger("runtime")


@dataclasses.dataclass
class CheckpointState:
    """TensorFlow's ``CheckpointState``: the newest checkpoint and those kept, oldest first."""

    model_checkpoint_path: str = ""
    all_model_checkpoint_paths: list = dataclasses.field(default_factory=list)
    all_model_checkpoint_timestamps: list = dataclasses.field(default_factory=list)
    last_preserved_timestamp: float = 0.0


class StateParseError(ValueError):
    """The state file is not CheckpointState text."""


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


def _unquote(text):
    if len(text) < 2 or text[0] != text[-1] or text[0] not in "\"'":
        raise StateParseError(f"expected a quoted string, found {text!r:.80}")
    body = text[1:-1].encode("utf-8", "surrogateescape")

    def one(match):
        octal, hexadecimal, simple = match.groups()
        if octal is not None:
            return bytes([int(octal, 8) & 0xFF])
        if hexadecimal is not None:
            return bytes([int(hexadecimal, 16)])
        if simple not in _SIMPLE_ESCAPES:
            raise StateParseError(f"unknown escape \\{simple.decode('latin-1')}")
        return _SIMPLE_ESCAPES[simple]

    return os.fsdecode(_ESCAPE.sub(one, body))


def _number(text):
    try:
        return float(text)
    except ValueError:
        raise StateParseError(f"expected a number, found {text!r:.80}") from None


def parse_state(text, directory):
    """The CheckpointState that ``text`` holds; relative paths are joined to ``directory``."""
    state = CheckpointState()
    for line in text.splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        match = _LINE.fullmatch(line)
        if match is None:
            raise StateParseError(f"cannot parse line {line!r:.80}")
        field, value = match.groups()
        if field == "model_checkpoint_path":
            state.model_checkpoint_path = _unquote(value)
        elif field == "all_model_checkpoint_paths":
            state.all_model_checkpoint_paths.append(_unquote(value))
        elif field == "all_model_checkpoint_timestamps":
            state.all_model_checkpoint_timestamps.append(_number(value))
        elif field == "last_preserved_timestamp":
            state.last_preserved_timestamp = _number(value)
        else:
            raise StateParseError(f"unknown field {field!r}")
    directory = os.fspath(directory)

    def joined(path):
        return path if not path or os.path.isabs(path) else os.path.join(directory, path)

    state.model_checkpoint_path = joined(state.model_checkpoint_path)
    state.all_model_checkpoint_paths = [joined(p) for p in state.all_model_checkpoint_paths]
    return state


def get_checkpoint_state(checkpoint_dir, latest_filename=None):
    """The CheckpointState of ``checkpoint_dir``, or None when it has no state file (or one
    that cannot be parsed: logged, as TensorFlow does). A state file naming no checkpoint
    raises ValueError, as TensorFlow's ``tf.train.get_checkpoint_state``."""
    directory = os.fspath(checkpoint_dir)
    path = os.path.join(directory, latest_filename or STATE_FILE)
    try:
        file, _ = open_regular_file(path, MAX_STATE_BYTES, "the checkpoint state file")
    except FileNotFoundError:
        return None
    except SavedModelError as e:
        logger.warning("%s: Checkpoint ignored (%s)", path, e)
        return None
    with file:
        try:
            raw = read_limited(file, MAX_STATE_BYTES, path, "the checkpoint state file")
            state = parse_state(raw.decode("utf-8", "surrogateescape"), directory)
        except (SavedModelError, StateParseError) as e:
            logger.warning("%s: %s", type(e).__name__, e)
            logger.warning("%s: Checkpoint ignored", path)
            return None
    if not state.model_checkpoint_path:
        raise ValueError(f"Invalid checkpoint state loaded from {directory}")
    return state
