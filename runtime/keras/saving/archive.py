"""The ``.keras`` zip: ``metadata.json``, ``config.json`` and ``model.weights.h5``, read within limits.

Keras 3 stores the three members uncompressed. A file is read only as far as its
members say, within limits: at most ``MAX_MEMBERS`` members, checked in the zip's
end record before its directory is parsed (which may take at most
``MAX_DIRECTORY_BYTES``); ``config.json`` at most ``MAX_CONFIG_BYTES``,
``model.weights.h5`` at most ``MAX_WEIGHTS_BYTES`` and never expanding more than
``MAX_EXPANSION`` times the bytes it takes in the zip (a "decompression bomb" is
refused before it is inflated). Members must be stored or deflated: bzip2 and lzma
decompress a whole block at once, whatever size the member declares, so they are
refused, as are encrypted members, two members of one name, and a member whose name
leaves the archive (``../x``, ``/etc/x``): each refuses the whole file. Nothing is
extracted to disk.

While a file's model is built, ``bounded_weights`` bounds the weights its layers make
by what its ``model.weights.h5`` can fill: ``Layer.add_weight`` calls ``reserve_weight``
before it allocates, so a small file declaring a huge layer is refused before the memory
is taken, not after.

A file is written beside its target under a temporary name and renamed over it
(``replace_atomically``): the target is the old file or the new one, never half of one.
"""

from __future__ import annotations

import contextlib
import contextvars
import datetime
import io
import json
import math
import operator
import os
import posixpath
import secrets
import struct
import zipfile

import numpy as np

from runtime.saving.files import open_regular_file, read_limited, sync_directory
from runtime.saving.format import SavedModelError

CONFIG_FILE = "config.json"
METADATA_FILE = "metadata.json"
WEIGHTS_FILE = "model.weights.h5"

MAX_FILE_BYTES = 16 << 30
MAX_MEMBERS = 64
MAX_DIRECTORY_BYTES = MAX_MEMBERS << 10  # a directory entry is ~100 bytes for Keras's names
MAX_CONFIG_BYTES = 64 << 20
MAX_METADATA_BYTES = 1 << 20
MAX_WEIGHTS_BYTES = 8 << 30
MAX_EXPANSION = 100  # deflate cannot pass ~1032:1; Keras's own files are stored (1:1)
_SMALL_MEMBER = 1 << 20  # below this any ratio is harmless
_READABLE_METHODS = (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED)
_METHOD_NAMES = {zipfile.ZIP_BZIP2: "bzip2", zipfile.ZIP_LZMA: "lzma"}
KERAS_VERSION = "3.15.1"  # the Keras whose format this writes (its metadata names it)

# The zip's end records (APPNOTE.TXT 4.3.14-4.3.16): where zipfile learns the directory's size.
_END = struct.Struct("<4s4H2LH")  # signature, disks, entries here, entries, size, offset, comment
_END_SIGNATURE = b"PK\x05\x06"
_ZIP64_LOCATOR = struct.Struct("<4sLQL")
_ZIP64_LOCATOR_SIGNATURE = b"PK\x06\x07"
_ZIP64_END = struct.Struct("<4sQ2H2L4Q")  # ..., entries here, entries, size, offset
_ZIP64_END_SIGNATURE = b"PK\x06\x06"
_SEARCHED = 1 << 16  # zipfile looks for the end record in the last 64 KiB (a comment's room)


class KerasFileError(SavedModelError):
    """A ``.keras`` file that is not a zip, lacks a member, or breaks a limit (a ValueError)."""


def write_keras_file(path, config, weights_bytes):
    """Writes the ``.keras`` zip at ``path`` (a path, replaced atomically, or a binary file
    object)."""
    if hasattr(path, "write"):
        _write_zip(path, config, weights_bytes)
    else:
        replace_atomically(path, lambda file: _write_zip(file, config, weights_bytes))


def _write_zip(file, config, weights_bytes):
    metadata = {
        "keras_version": KERAS_VERSION,
        "date_saved": datetime.datetime.now().strftime("%Y-%m-%d@%H:%M:%S"),
    }
    with zipfile.ZipFile(file, "w") as archive:  # stored, as Keras stores them
        archive.writestr(METADATA_FILE, json.dumps(metadata))
        archive.writestr(CONFIG_FILE, json.dumps(config))
        archive.writestr(WEIGHTS_FILE, weights_bytes)


def replace_atomically(path, write):
    """Calls ``write(file)`` on a new temporary file beside ``path``, syncs it and renames it
    over ``path``: a reader, or a crash at any point, finds the old file or the new one whole.
    A failed write leaves the old file and no temporary one.

    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "best.keras")
    >>> replace_atomically(path, lambda file: file.write(b"new"))
    >>> open(path, "rb").read()
    b'new'
    """
    target = os.path.realpath(path)  # a link's target is replaced, as writing through it would
    directory, name = os.path.split(target)
    temporary = os.path.join(directory, f".{name}.{secrets.token_hex(8)}.tmp")
    try:
        with open(temporary, "xb") as file:
            write(file)
            file.flush()
            os.fsync(file.fileno())
        os.replace(temporary, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
    sync_directory(directory)


# Keras's files hold every weight uncompressed, so a model's weights never take more bytes
# than its weights file; an HDF5 file of deflated datasets may hold ~1000 times its size.
WEIGHTS_EXPANSION = 1024
_SMALL_MODEL = 16 << 20  # weights this small are harmless, whatever file declares them
_allowance = contextvars.ContextVar("keras_weights_allowance", default=None)


class _Allowance:
    def __init__(self, limit, where, weights_bytes):
        self.limit, self.where, self.weights_bytes = limit, where, weights_bytes
        self.used = 0


@contextlib.contextmanager
def bounded_weights(weights_bytes, where):
    """Within it, layers may make weights of at most ``WEIGHTS_EXPANSION`` times
    ``weights_bytes`` (the size of the weights file that will fill them) in all, or
    ``_SMALL_MODEL``; past it ``reserve_weight`` raises KerasFileError naming ``where``.

    >>> import runtime as rt
    >>> with bounded_weights(6000, "m.keras"):  # a 256 MiB kernel from a 6 KB weights file
    ...     rt.keras.layers.Dense(8192).build((None, 8192))
    Traceback (most recent call last):
        ...
    runtime.keras.saving.archive.KerasFileError: m.keras: refused to load this .keras file: ...
    """
    limit = max(_SMALL_MODEL, WEIGHTS_EXPANSION * weights_bytes)
    token = _allowance.set(_Allowance(limit, where, weights_bytes))
    try:
        yield
    finally:
        _allowance.reset(token)


def reserve_weight(layer_name, weight_name, shape, dtype):
    """Counts a weight about to be made against the load in progress, if any; refuses it,
    before it is allocated, when the load's weights would pass their bound."""
    allowance = _allowance.get()
    if allowance is None:
        return
    try:
        count = math.prod(operator.index(d) for d in shape)
    except TypeError:
        return  # an unknown dimension: add_weight refuses the shape itself
    allowance.used += max(count, 0) * np.dtype(dtype.as_numpy_dtype).itemsize
    if allowance.used > allowance.limit:
        raise KerasFileError(
            f"{allowance.where}: refused to load this .keras file: its config declares "
            f"weights of at least {allowance.used} bytes (up to '{layer_name}/{weight_name}', "
            f"shape {shape}), far more than its model.weights.h5 of "
            f"{allowance.weights_bytes} bytes can fill (at most {allowance.limit} bytes)"
        )


def read_weights_file(path):
    """A ``.weights.h5`` file's bytes (at most ``MAX_WEIGHTS_BYTES``) as an in-memory file."""
    file, _ = open_regular_file(path, MAX_WEIGHTS_BYTES, "the weights file", KerasFileError)
    with file:
        return io.BytesIO(read_limited(file, MAX_WEIGHTS_BYTES, path, "the weights file"))


def _directory_extent(file, size):
    """``(entries, bytes)`` of the zip's central directory as its end record declares them,
    found as zipfile finds it (the last 22 bytes, else the last record signature in the last
    64 KiB), with a zip64 end record's values where one precedes it; None without a record."""
    tail_start = max(0, size - _END.size - _SEARCHED)
    file.seek(tail_start)
    tail = file.read()
    start = len(tail) - _END.size
    if not (start >= 0 and tail[start:].startswith(_END_SIGNATURE) and tail.endswith(b"\0\0")):
        start = tail.rfind(_END_SIGNATURE)
        if start < 0 or len(tail) - start < _END.size:
            return None
    record = _END.unpack_from(tail, start)
    entries, directory_bytes = record[4], record[5]
    zip64 = _zip64_end(file, tail_start + start)
    if zip64 is not None:
        entries, directory_bytes = zip64[7], zip64[8]
    return entries, directory_bytes


def _zip64_end(file, end_offset):
    """The zip64 end record zipfile would take: just before its locator, just before the end
    record at ``end_offset``."""
    record_offset = end_offset - _ZIP64_LOCATOR.size - _ZIP64_END.size
    if record_offset < 0:
        return None
    file.seek(record_offset)
    data = file.read(_ZIP64_END.size + _ZIP64_LOCATOR.size)
    if not data[_ZIP64_END.size :].startswith(_ZIP64_LOCATOR_SIGNATURE):
        return None
    if not data.startswith(_ZIP64_END_SIGNATURE):
        return None
    return _ZIP64_END.unpack_from(data)


class KerasArchive:
    """An open ``.keras`` file: ``config()``, ``metadata()``, ``weights_bytes()``."""

    def __init__(self, path):
        self.path = path
        file, size = open_regular_file(path, MAX_FILE_BYTES, "the .keras file", KerasFileError)
        self._file = file
        try:
            self._check_directory_size(file, size)
            self._archive = self._open_zip(file)
        except BaseException:
            file.close()
            raise
        try:
            self._members = self._checked_members()
        except BaseException:
            self.close()
            raise

    def _open_zip(self, file):
        try:
            return zipfile.ZipFile(file)
        except (zipfile.BadZipFile, zipfile.LargeZipFile, ValueError, EOFError, OSError) as e:
            raise KerasFileError(f"{self.path}: not a .keras file (a zip archive): {e}") from None

    def _check_directory_size(self, file, size):
        """Refuses a zip whose end record declares too many members or too large a directory,
        before zipfile reads the directory whole and makes an object per entry."""
        extent = _directory_extent(file, size)
        if extent is None:
            return  # no end record: zipfile refuses the file
        entries, directory_bytes = extent
        if entries > MAX_MEMBERS:
            self._refuse(f"it declares {entries} members, over the limit of {MAX_MEMBERS}")
        if directory_bytes > MAX_DIRECTORY_BYTES:
            self._refuse(
                f"its directory declares {directory_bytes} bytes, "
                f"over the limit of {MAX_DIRECTORY_BYTES}"
            )

    def _checked_members(self):
        infos = self._archive.infolist()
        if len(infos) > MAX_MEMBERS:
            self._refuse(f"it holds {len(infos)} members, over the limit of {MAX_MEMBERS}")
        members = {}
        for info in infos:
            self._check_member(info)
            if info.filename in members:
                self._refuse(f"it holds two members named {info.filename!r}")
            members[info.filename] = info
        return members

    def _check_member(self, info):
        name = info.filename
        normal = posixpath.normpath(name)
        if name.startswith(("/", "\\")) or normal.split("/")[0] == ".." or "\\" in name:
            self._refuse(f"member {name!r} has a path that leaves the archive")
        if info.flag_bits & 0x1:
            self._refuse(f"member {name!r} is encrypted")
        if info.compress_type not in _READABLE_METHODS:
            method = _METHOD_NAMES.get(info.compress_type, f"method {info.compress_type}")
            self._refuse(
                f"member {name!r} is compressed with {method}; only stored and deflated "
                "members are read"
            )

    def _refuse(self, problem):
        raise KerasFileError(f"{self.path}: refused to load this .keras file: {problem}")

    def has(self, name):
        return name in self._members

    def read(self, name, limit):
        """The bytes of member ``name``, refused above ``limit`` or ``MAX_EXPANSION``."""
        info = self._members.get(name)
        if info is None:
            self._refuse(f"it has no {name} (members: {sorted(self._members)})")
        if info.file_size > limit:
            self._refuse(f"{name} declares {info.file_size} bytes, over the limit of {limit}")
        if info.file_size > _SMALL_MEMBER and info.file_size > MAX_EXPANSION * info.compress_size:
            self._refuse(
                f"{name} would expand {info.file_size} bytes from {info.compress_size}: "
                "a decompression bomb"
            )
        try:
            with self._archive.open(info) as member:
                return read_limited(member, min(limit, info.file_size), self.path, name)
        except (zipfile.BadZipFile, NotImplementedError, EOFError, OSError) as e:
            self._refuse(f"{name} cannot be read: {e}")

    def json(self, name, limit):
        text = self.read(name, limit)
        try:
            return json.loads(text)
        except (ValueError, RecursionError) as e:
            self._refuse(f"{name} is not valid JSON: {e}")

    def config(self):
        return self.json(CONFIG_FILE, MAX_CONFIG_BYTES)

    def metadata(self):
        return self.json(METADATA_FILE, MAX_METADATA_BYTES) if self.has(METADATA_FILE) else {}

    def weights_file(self):
        """``model.weights.h5`` as an in-memory file."""
        return io.BytesIO(self.read(WEIGHTS_FILE, MAX_WEIGHTS_BYTES))

    def close(self):
        self._archive.close()
        self._file.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self.close()
