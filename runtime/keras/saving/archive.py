"""The ``.keras`` zip: ``metadata.json``, ``config.json`` and ``model.weights.h5``, read within limits.

Keras 3 stores the three members uncompressed. A file is read only as far as its
members say, within limits: at most ``MAX_MEMBERS`` members, ``config.json`` at most
``MAX_CONFIG_BYTES``, ``model.weights.h5`` at most ``MAX_WEIGHTS_BYTES`` and never
expanding more than ``MAX_EXPANSION`` times the bytes it takes in the zip (a
"decompression bomb" is refused before it is inflated); a member whose name leaves
the archive (``../x``, ``/etc/x``) makes the whole file refused. Nothing is extracted
to disk.
"""

from __future__ import annotations

import datetime
import io
import json
import posixpath
import zipfile

from runtime.saving.files import open_regular_file, read_limited
from runtime.saving.format import SavedModelError

CONFIG_FILE = "config.json"
METADATA_FILE = "metadata.json"
WEIGHTS_FILE = "model.weights.h5"

MAX_FILE_BYTES = 16 << 30
MAX_MEMBERS = 64
MAX_CONFIG_BYTES = 64 << 20
MAX_METADATA_BYTES = 1 << 20
MAX_WEIGHTS_BYTES = 8 << 30
MAX_EXPANSION = 100  # deflate cannot pass ~1032:1; Keras's own files are stored (1:1)
_SMALL_MEMBER = 1 << 20  # below this any ratio is harmless
KERAS_VERSION = "3.15.1"  # the Keras whose format this writes (its metadata names it)


class KerasFileError(SavedModelError):
    """A ``.keras`` file that is not a zip, lacks a member, or breaks a limit (a ValueError)."""


def write_keras_file(path, config, weights_bytes):
    """Writes the ``.keras`` zip at ``path`` (a path or a binary file object)."""
    metadata = {
        "keras_version": KERAS_VERSION,
        "date_saved": datetime.datetime.now().strftime("%Y-%m-%d@%H:%M:%S"),
    }
    with zipfile.ZipFile(path, "w") as archive:  # stored, as Keras stores them
        archive.writestr(METADATA_FILE, json.dumps(metadata))
        archive.writestr(CONFIG_FILE, json.dumps(config))
        archive.writestr(WEIGHTS_FILE, weights_bytes)


def read_weights_file(path):
    """A ``.weights.h5`` file's bytes (at most ``MAX_WEIGHTS_BYTES``) as an in-memory file."""
    file, _ = open_regular_file(path, MAX_WEIGHTS_BYTES, "the weights file", KerasFileError)
    with file:
        return io.BytesIO(read_limited(file, MAX_WEIGHTS_BYTES, path, "the weights file"))


class KerasArchive:
    """An open ``.keras`` file: ``config()``, ``metadata()``, ``weights_bytes()``."""

    def __init__(self, path):
        self.path = path
        file, _ = open_regular_file(path, MAX_FILE_BYTES, "the .keras file", KerasFileError)
        self._file = file
        try:
            self._archive = zipfile.ZipFile(file)
        except (zipfile.BadZipFile, zipfile.LargeZipFile, ValueError, EOFError, OSError) as e:
            file.close()
            raise KerasFileError(f"{path}: not a .keras file (a zip archive): {e}") from None
        try:
            self._members = self._checked_members()
        except BaseException:
            self.close()
            raise

    def _checked_members(self):
        infos = self._archive.infolist()
        if len(infos) > MAX_MEMBERS:
            self._refuse(f"it holds {len(infos)} members, over the limit of {MAX_MEMBERS}")
        for info in infos:
            name = info.filename
            normal = posixpath.normpath(name)
            if name.startswith(("/", "\\")) or normal.split("/")[0] == ".." or "\\" in name:
                self._refuse(f"member {name!r} has a path that leaves the archive")
        return {info.filename: info for info in infos}

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
