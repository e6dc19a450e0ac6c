"""A checkpoint's two files: ``<prefix>.index`` (its description) and
``<prefix>.data-00000-of-00001`` (its arrays).

The names are TensorFlow's, so code that looks for ``prefix + ".index"`` finds
a checkpoint; the contents are this project's. The index is JSON: the object
graph (each node's named edges, and a variable's value as a reference into the
arrays), the data file's size and SHA-256, and a SHA-256 of its own content.
The data file is the arrays file of saved models (``arrays.py``): ``.npy``
members, never pickled. Reading checks sizes, checksums and every reference
before anything is returned, so a damaged or hostile checkpoint raises
``rt.errors.DataLossError`` naming the file, and a missing one
``rt.errors.NotFoundError``; nothing in the files is ever run.

A write commits the pair at once: the data goes to a file the new index names
(``<prefix>.data-00000-of-00001``, or, when the index in place names that one,
``<prefix>.<16 hex digits>.data-00000-of-00001``), synced; the index goes to a
temporary file, synced, and is renamed over ``<prefix>.index``: the commit.
Only then is the data file of the index it replaced removed. So whatever point
a write fails or is killed at, ``<prefix>.index`` names complete data: the
previous checkpoint's until the rename, the new one's after it.

A restore reads a value when its variable exists, holding neither arrays nor
an open file meanwhile: it opens the data file again by path, and refuses
(``DataLossError``) one that is not the file it checked, as when a newer
checkpoint was written to the same prefix or a tool overwrote the file in place.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import secrets

from runtime.errors import DataLossError, NotFoundError, OpError
from runtime.saving.arrays import ArraysReader, ArraysWriter
from runtime.saving.files import open_regular_file, read_limited, sync_directory, write_new_file
from runtime.saving.format import Damage, SavedModelError, json_values_bound

FORMAT = "autograph-checkpoint"
VERSION = 1
INDEX_SUFFIX = ".index"
DATA_SUFFIX = ".data-00000-of-00001"
MAX_INDEX_BYTES = 64 << 20
MAX_DATA_BYTES = 4 << 30
MAX_NODES = 1 << 20
# Parsed, a JSON value costs 30 to 70 bytes of Python objects: the count is bounded before
# parsing, as the saved model reader bounds it (a save writes about one value per 12 bytes).
MAX_INDEX_VALUES = 1 << 22
MAX_EDGE_NAME = 1000
_SHA256 = re.compile(r"[0-9a-f]{64}")
_HASH_CHUNK = 1 << 20


def index_checksum(content) -> str:
    canonical = json.dumps(content, separators=(",", ":"), ensure_ascii=True, allow_nan=False)
    return hashlib.sha256(canonical.encode("ascii")).hexdigest()


# --- writing ----------------------------------------------------------------------------------


def write_checkpoint(prefix, nodes, arrays: ArraysWriter):
    """Writes the checkpoint ``prefix``: ``nodes`` (JSON: ``{"children": [[name, node]...],
    "value": reference}``) and the arrays they refer to, committed as the module says.

    What reading would refuse (too many nodes, too much data) raises ValueError before any
    file is touched."""
    data = arrays.to_bytes()
    directory = os.path.dirname(prefix)
    replaced = _named_data_file(prefix)
    data_name = _fresh_data_name(prefix, replaced)
    content = {
        "format": FORMAT,
        "version": VERSION,
        "data": {"file": data_name, "bytes": len(data), "sha256": hashlib.sha256(data).hexdigest()},
        "nodes": nodes,
    }
    text = json.dumps(dict(content, checksum=index_checksum(content)), indent=1).encode("ascii")
    _refuse_what_reading_refuses(prefix, len(nodes), len(data), text)
    if directory:
        os.makedirs(directory, exist_ok=True)
    data_path = os.path.join(directory, data_name)
    replace_file(data_path, data, sync=False)
    try:
        replace_file(prefix + INDEX_SUFFIX, text)  # the commit
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(data_path)  # named by no index
        raise
    if replaced is not None and replaced != data_name:
        with contextlib.suppress(OSError):  # committed already: a leftover is only litter
            os.unlink(os.path.join(directory, replaced))


def _refuse_what_reading_refuses(prefix, node_count, data_bytes, index_text):
    def refuse(problem):
        raise ValueError(f"Cannot write checkpoint {prefix}: {problem}, so it could not be read")

    if node_count > MAX_NODES:
        refuse(f"it holds {node_count} objects, over the limit of {MAX_NODES}")
    if data_bytes > MAX_DATA_BYTES:
        refuse(f"its values take {data_bytes} bytes, over the limit of {MAX_DATA_BYTES}")
    if len(index_text) > MAX_INDEX_BYTES:
        refuse(f"its index takes {len(index_text)} bytes, over the limit of {MAX_INDEX_BYTES}")
    if json_values_bound(index_text) > MAX_INDEX_VALUES:
        refuse(f"its index holds over {MAX_INDEX_VALUES} JSON values, the limit")


def check_edge_name(name, owner):
    """Refuses an edge name reading would refuse: ``owner`` is what holds it, for the error."""
    if len(name) > MAX_EDGE_NAME:
        raise ValueError(
            f"Cannot save {owner!r:.100}: its entry named {name[:40]!r}... has {len(name)} characters, "
            f"over the limit of {MAX_EDGE_NAME} that reading a checkpoint allows"
        )


def _named_data_file(prefix):
    """The data file the index at ``prefix`` names now, or None (no index, or not readable)."""
    try:  # (read as a restore reads it: a damaged or foreign index names nothing)
        _, data = _read_index(prefix + INDEX_SUFFIX)
    except (OSError, OpError):
        return None
    return data["file"]


def _fresh_data_name(prefix, in_place):
    """TensorFlow's data file name, unless the index in place names it: then a new one."""
    base = os.path.basename(prefix)
    if in_place != base + DATA_SUFFIX:
        return base + DATA_SUFFIX
    return f"{base}.{secrets.token_hex(8)}{DATA_SUFFIX}"


def replace_file(path, data: bytes, sync=True):
    """``data`` under ``path``, complete or not at all: written to a fresh temporary file in the
    same directory, synced, renamed over ``path``; ``sync``: the directory too (the rename
    survives a crash). Temporary files that killed writes left next to ``path`` are removed."""
    directory, name = os.path.split(path)
    temporary = os.path.join(directory, f".{name}.{secrets.token_hex(8)}.tmp")
    try:
        write_new_file(temporary, data)
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
    if sync:
        sync_directory(directory or ".")
    _remove_stale_temporaries(directory, name)


def _remove_stale_temporaries(directory, name):
    stale = re.compile(re.escape(f".{name}.") + r"[0-9a-f]{16}\.tmp")
    with contextlib.suppress(OSError):
        for entry in os.listdir(directory or "."):
            if stale.fullmatch(entry):
                with contextlib.suppress(OSError):
                    os.unlink(os.path.join(directory, entry))


def remove_checkpoint(prefix):
    """Deletes the files of the checkpoint ``prefix`` (those that exist): its index and data
    files (TensorFlow's ``.data-?????-of-?????`` shards, and this project's renamed ones)."""
    directory, base = os.path.split(prefix)
    with contextlib.suppress(FileNotFoundError):
        os.unlink(prefix + INDEX_SUFFIX)
    data = re.compile(re.escape(base) + r"(\.[0-9a-f]{16})?\.data-[0-9]{5}-of-[0-9]{5}")
    with contextlib.suppress(OSError):
        for entry in os.listdir(directory or "."):
            if data.fullmatch(entry):
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(os.path.join(directory, entry))


def checkpoint_exists(prefix) -> bool:
    """Whether the checkpoint ``prefix`` has an index file."""
    return os.path.isfile(os.fspath(prefix) + INDEX_SUFFIX)


def _is_data_name(name):
    return (
        type(name) is str
        and name.endswith(DATA_SUFFIX)
        and os.path.basename(name) == name
        and name not in ("", ".", "..")
    )


# --- reading ----------------------------------------------------------------------------------


class CheckpointFile:
    """A checkpoint: its nodes (checked), and each node's value read from the data file when
    asked for. No file stays open between reads (a restore waiting for its variables holds no
    descriptor): ``reading()`` opens the data file again by path, and refuses it unless it is
    the very file that was checked (device, inode, size, modification time)."""

    def __init__(self, prefix):
        index_path = prefix + INDEX_SUFFIX
        self.nodes, reference = _read_index(index_path)
        self.references = [node.get("value") for node in self.nodes]
        data_path = os.path.join(os.path.dirname(prefix), reference["file"])
        self._index_path, self._data_path = index_path, data_path
        self._size = reference["bytes"]
        with _open_data(data_path, reference) as file:
            self._check_values(file)
            self._identity = _identity(os.fstat(file.fileno()))

    def _new_reader(self, file):
        try:
            return ArraysReader(file, self._data_path, self._size, 2 * len(self.references))
        except SavedModelError as e:
            raise DataLossError(f"{self._index_path}: {e}") from None

    def _check_values(self, file):
        """Reads every value once, keeping none: a damaged one raises now, not when used."""
        arrays = self._new_reader(file)
        try:
            for reference in self.references:
                if reference is not None:
                    arrays.read(reference, "a value")
            arrays.check_all_read()
        except Damage as e:
            raise DataLossError(f"{self._index_path}: {e}") from None
        except SavedModelError as e:
            raise DataLossError(str(e)) from None

    def has_value(self, node):
        return self.references[node] is not None

    def check_unchanged(self):
        """Raises DataLossError unless the data file is still the one checked at restore."""
        with self._reopen():
            pass

    @contextlib.contextmanager
    def reading(self):
        """``value(node)``: a function reading node values from the data file, open meanwhile."""
        with self._reopen() as file:
            arrays = self._new_reader(file)

            def value(node):
                try:
                    return arrays.read(self.references[node], "a value")
                except (Damage, SavedModelError) as e:
                    raise DataLossError(f"{self._index_path}: {e}") from None

            yield value

    @contextlib.contextmanager
    def _reopen(self):
        try:
            file, _ = open_regular_file(
                self._data_path,
                MAX_DATA_BYTES,
                "the checkpoint data",
                DataLossError,
                wrap_open_errors=False,
            )
        except FileNotFoundError:
            raise DataLossError(self._changed("is gone")) from None
        with file:
            if _identity(os.fstat(file.fileno())) != self._identity:
                raise DataLossError(self._changed("was overwritten"))
            yield file

    def _changed(self, what):
        return (
            f"{self._data_path}: the checkpoint's data file {what} since it was restored "
            "(a newer checkpoint written to the same prefix, or the file replaced in place), "
            "so the values the restore still waits for cannot be read: restore the checkpoint "
            "again"
        )


def _identity(info):
    return info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns


def _read_index(path):
    try:
        file, _ = open_regular_file(
            path, MAX_INDEX_BYTES, "the checkpoint index", DataLossError, wrap_open_errors=False
        )
    except FileNotFoundError:
        prefix = path[: -len(INDEX_SUFFIX)]
        raise NotFoundError(
            "Unsuccessful TensorSliceReader constructor: Failed to find any matching files "
            f"for {prefix}"
        ) from None
    with file:
        try:
            raw = read_limited(file, MAX_INDEX_BYTES, path, "the checkpoint index")
        except SavedModelError as e:
            raise DataLossError(str(e)) from None
    values_bound = json_values_bound(raw)
    if values_bound > MAX_INDEX_VALUES:
        raise DataLossError(
            f"{path}: the index holds up to {values_bound} JSON values, over the limit of "
            f"{MAX_INDEX_VALUES}"
        )
    try:
        content = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as e:
        raise DataLossError(f"{path}: not a checkpoint index of this project ({e})") from None
    try:
        return _check_index(content)
    except Damage as e:
        raise DataLossError(f"{path}: {e}") from None


def _expect(condition, message):
    if not condition:
        raise Damage(message)


def _check_index(content):
    _expect(type(content) is dict, "not a checkpoint index of this project")
    _expect(content.get("format") == FORMAT, "not a checkpoint index of this project")
    _expect(
        content.get("version") == VERSION,
        f"checkpoint format version {content.get('version')!r:.20} is not supported "
        f"(this is {VERSION})",
    )
    _expect(
        content.keys() == {"format", "version", "data", "nodes", "checksum"},
        "the index's fields are not a checkpoint's",
    )
    checksum = content.pop("checksum")
    _expect(checksum == index_checksum(content), "the index is damaged (its SHA-256 differs)")
    data = content["data"]
    _expect(
        type(data) is dict and data.keys() == {"file", "bytes", "sha256"},
        "'data' is damaged",
    )
    _expect(_is_data_name(data["file"]), "'data' names a bad file")
    _expect(type(data["bytes"]) is int and 0 < data["bytes"] <= MAX_DATA_BYTES, "bad data size")
    _expect(type(data["sha256"]) is str and _SHA256.fullmatch(data["sha256"]), "bad SHA-256")
    nodes = content["nodes"]
    _expect(type(nodes) is list and 0 < len(nodes) <= MAX_NODES, "'nodes' is damaged")
    for node in nodes:
        _check_node(node, len(nodes))
    return nodes, data


def _check_node(node, count):
    _expect(type(node) is dict and set(node) <= {"children", "value", "slots"}, "a node is damaged")
    _expect(type(node.get("slots", [])) is list, "a node's slots are damaged")
    for slot in node.get("slots", ()):
        _expect(
            type(slot) is list
            and len(slot) == 3
            and type(slot[0]) is int
            and 0 <= slot[0] < count
            and type(slot[1]) is str
            and 0 < len(slot[1]) <= MAX_EDGE_NAME
            and type(slot[2]) is int
            and 0 <= slot[2] < count,
            f"a slot is damaged: {slot!r:.80}",
        )

    edges = node.get("children")
    _expect(type(edges) is list, "a node's children are damaged")
    names = set()
    for edge in edges:
        _expect(
            type(edge) is list
            and len(edge) == 2
            and type(edge[0]) is str
            and len(edge[0]) <= MAX_EDGE_NAME  # "" too: an empty dict key, as TensorFlow allows
            and type(edge[1]) is int
            and 0 <= edge[1] < count,
            f"an edge is damaged: {edge!r:.80}",
        )
        _expect(edge[0] not in names, f"two edges are named {edge[0]!r:.80}")
        names.add(edge[0])


def _open_data(path, reference):
    """The data file, open, checked against the index's size and SHA-256 (read a chunk at a
    time: the file is not held in memory)."""
    try:
        file, size = open_regular_file(
            path, MAX_DATA_BYTES, "the checkpoint data", DataLossError, wrap_open_errors=False
        )
    except FileNotFoundError:
        raise DataLossError(f"{path}: the checkpoint's data file is missing") from None
    try:
        if size != reference["bytes"]:
            raise DataLossError(
                f"{path}: the data file has {size} bytes, but the index says {reference['bytes']}"
            )
        digest, read = hashlib.sha256(), 0
        try:
            while chunk := file.read(_HASH_CHUNK):
                digest.update(chunk)
                read += len(chunk)
        except OSError as e:
            raise DataLossError(f"{path}: cannot read the data file: {e}") from e
        if read != size or digest.hexdigest() != reference["sha256"]:
            raise DataLossError(f"{path}: the data file is damaged (its SHA-256 differs)")
        return file
    except BaseException:
        file.close()
        raise
