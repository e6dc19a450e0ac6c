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

Each file is written to a temporary name, synced, and renamed into place, data
first: a save that fails or is killed leaves no half-written file under a
checkpoint's names (the index of an earlier save at the same prefix may then
name data it does not match; its checksum says so).
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import os
import re
import secrets

from runtime.errors import DataLossError, NotFoundError
from runtime.saving.arrays import ArraysReader, ArraysWriter
from runtime.saving.files import open_regular_file, read_limited
from runtime.saving.format import Damage, SavedModelError

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


def index_checksum(content) -> str:
    canonical = json.dumps(content, separators=(",", ":"), ensure_ascii=True, allow_nan=False)
    return hashlib.sha256(canonical.encode("ascii")).hexdigest()


def write_checkpoint(prefix, nodes, arrays: ArraysWriter):
    """Writes the checkpoint ``prefix``: ``nodes`` (JSON: ``{"children": [[name, node]...],
    "value": reference}``) and the arrays they refer to."""
    data = arrays.to_bytes()
    data_name = os.path.basename(prefix) + DATA_SUFFIX
    content = {
        "format": FORMAT,
        "version": VERSION,
        "data": {"file": data_name, "bytes": len(data), "sha256": hashlib.sha256(data).hexdigest()},
        "nodes": nodes,
    }
    index = dict(content, checksum=index_checksum(content))
    directory = os.path.dirname(prefix)
    if directory:
        os.makedirs(directory, exist_ok=True)
    write_atomically(prefix + DATA_SUFFIX, data)
    write_atomically(prefix + INDEX_SUFFIX, json.dumps(index, indent=1).encode("ascii"))


def write_atomically(path, data: bytes):
    """``data`` under ``path``, complete or not at all: written to a fresh temporary file in the
    same directory, synced, renamed over ``path``."""
    temporary = f"{path}.tmp-{secrets.token_hex(8)}"
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o644)
    try:
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


def read_checkpoint(prefix):
    """``(nodes, values)`` of the checkpoint ``prefix``: the nodes as written (checked), and
    ``values[i]``, node ``i``'s numpy value or None."""
    index_path = prefix + INDEX_SUFFIX
    raw = _read_index(index_path)
    values_bound = 1 + sum(raw.count(mark) for mark in (b",", b":", b"[", b"{"))
    if values_bound > MAX_INDEX_VALUES:
        raise DataLossError(
            f"{index_path}: the index holds up to {values_bound} JSON values, over the limit of "
            f"{MAX_INDEX_VALUES}"
        )
    try:
        content = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as e:
        raise DataLossError(f"{index_path}: not a checkpoint index of this project ({e})") from None
    try:
        nodes, data_reference = _check_index(content)
    except Damage as e:
        raise DataLossError(f"{index_path}: {e}") from None
    data_path = os.path.join(os.path.dirname(prefix), data_reference["file"])
    data = _read_data(data_path, data_reference)
    references = [node.get("value") for node in nodes]
    try:
        arrays = ArraysReader(
            io.BytesIO(data), data_path, len(data), max_members=2 * len(references)
        )
        values = [None if ref is None else arrays.read(ref, "a value") for ref in references]
        arrays.check_all_read()
    except Damage as e:
        raise DataLossError(f"{index_path}: {e}") from None
    except SavedModelError as e:
        raise DataLossError(str(e)) from None
    return nodes, values


def _read_index(path):
    try:
        file, _ = open_regular_file(path, MAX_INDEX_BYTES, "the checkpoint index", DataLossError)
    except FileNotFoundError:
        prefix = path[: -len(INDEX_SUFFIX)]
        raise NotFoundError(
            "Unsuccessful TensorSliceReader constructor: Failed to find any matching files "
            f"for {prefix}"
        ) from None
    with file:
        try:
            return read_limited(file, MAX_INDEX_BYTES, path, "the checkpoint index")
        except SavedModelError as e:
            raise DataLossError(str(e)) from None


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
    _expect(
        type(data["file"]) is str
        and data["file"].endswith(DATA_SUFFIX)
        and os.path.basename(data["file"]) == data["file"]
        and data["file"] not in ("", ".", ".."),
        "'data' names a bad file",
    )
    _expect(type(data["bytes"]) is int and 0 < data["bytes"] <= MAX_DATA_BYTES, "bad data size")
    _expect(type(data["sha256"]) is str and _SHA256.fullmatch(data["sha256"]), "bad SHA-256")
    nodes = content["nodes"]
    _expect(type(nodes) is list and 0 < len(nodes) <= MAX_NODES, "'nodes' is damaged")
    for node in nodes:
        _check_node(node, len(nodes))
    return nodes, data


def _check_node(node, count):
    _expect(type(node) is dict and set(node) <= {"children", "value"}, "a node is damaged")
    edges = node.get("children")
    _expect(type(edges) is list, "a node's children are damaged")
    names = set()
    for edge in edges:
        _expect(
            type(edge) is list
            and len(edge) == 2
            and type(edge[0]) is str
            and 0 < len(edge[0]) <= MAX_EDGE_NAME
            and type(edge[1]) is int
            and 0 <= edge[1] < count,
            f"an edge is damaged: {edge!r:.80}",
        )
        _expect(edge[0] not in names, f"two edges are named {edge[0]!r:.80}")
        names.add(edge[0])


def _read_data(path, reference):
    try:
        file, size = open_regular_file(path, MAX_DATA_BYTES, "the checkpoint data", DataLossError)
    except FileNotFoundError:
        raise DataLossError(f"{path}: the checkpoint's data file is missing") from None
    with file:
        if size != reference["bytes"]:
            raise DataLossError(
                f"{path}: the data file has {size} bytes, but the index says {reference['bytes']}"
            )
        try:
            data = file.read(size + 1)
        except OSError as e:
            raise DataLossError(f"{path}: cannot read the data file: {e}") from e
    # The bytes hashed are the bytes parsed.
    if len(data) != size or hashlib.sha256(data).hexdigest() != reference["sha256"]:
        raise DataLossError(f"{path}: the data file is damaged (its SHA-256 differs)")
    return data


def remove_checkpoint(prefix):
    """Deletes the files of the checkpoint ``prefix`` (those that exist)."""
    for path in (prefix + INDEX_SUFFIX, prefix + DATA_SUFFIX):
        with contextlib.suppress(FileNotFoundError):
            os.unlink(path)


def checkpoint_exists(prefix) -> bool:
    return os.path.isfile(os.fspath(prefix) + INDEX_SUFFIX)
