"""A saved model's files on disk: saves that commit atomically, and reads within limits.

A save writes its arrays file under a fresh generation name
(``arrays-<16 hex digits>.npz``) and syncs it, then writes the description,
which names that file, to a temporary file, syncs it, and renames it over
``saved_model.json``: the commit. Only after the commit are older arrays files
removed. So at every instant ``saved_model.json`` names a complete arrays
file: the previous model until the rename, the new one after it, whatever
point a save fails or is killed at. Saves to one directory take turns under an
exclusive ``flock`` of the directory; a save touches only the description, its
own temporary file and arrays files, so other files in the directory stay.

A reader reads the description, then opens the arrays file it names. If a save
removed that file in between, a newer description has been committed, and the
reader starts again with it (``ModelChanged``).
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import re
import secrets
import stat

from runtime.saving.format import ARRAYS_FILE, DESCRIPTION_FILE, SavedModelError

_READ_CHUNK = 1 << 20
_TEMPORARY_FILE = re.compile(r"\.saved_model-[0-9a-f]{16}\.json\.tmp")


class ModelChanged(Exception):
    """The arrays file a description named is gone: a save committed since it was read."""


def new_arrays_name():
    """A fresh name for a save's arrays file: no other save, earlier or concurrent, has it."""
    return f"arrays-{secrets.token_hex(8)}.npz"


def save_files(path, arrays_name, arrays_bytes, description_text):
    """Commits a model to the directory ``path``: see the module docstring.

    Raises SavedModelError, never a bare OSError, when the directory cannot be written.
    """
    if "\0" in os.fsdecode(path):
        raise SavedModelError(f"Cannot save to {path!r}: a path cannot hold a NUL character")
    created = False
    try:
        if os.path.lexists(path) and not os.path.isdir(path):
            raise SavedModelError(f"Cannot save to {path}: it exists and is not a directory")
        if not os.path.isdir(path):
            os.makedirs(path, exist_ok=True)
            created = True
            sync_directory(os.path.dirname(os.path.abspath(path)))
        with _locked(path) as directory:
            _commit(path, directory, arrays_name, arrays_bytes, description_text)
    except OSError as e:
        if created:
            with contextlib.suppress(OSError):
                os.rmdir(path)  # only if still empty: a directory this save made for nothing
        raise SavedModelError(f"Cannot save to {path}: {e}") from e


@contextlib.contextmanager
def _locked(path):
    """An exclusive lock on the directory, held while a save writes to it."""
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)  # released when fd closes, or when the process dies
        yield fd
    finally:
        os.close(fd)


def _commit(path, directory, arrays_name, arrays_bytes, description_text):
    arrays_path = os.path.join(path, arrays_name)
    generation = ARRAYS_FILE.fullmatch(arrays_name).group(1)
    temporary = os.path.join(path, f".saved_model-{generation}.json.tmp")
    try:
        write_new_file(arrays_path, arrays_bytes)
        write_new_file(temporary, description_text.encode("ascii"))
        os.replace(temporary, os.path.join(path, DESCRIPTION_FILE))
    except BaseException:
        for leftover in (temporary, arrays_path):
            with contextlib.suppress(OSError):
                os.unlink(leftover)
        raise
    os.fsync(directory)
    _remove_older_files(path, arrays_name)


def write_new_file(path, data):
    """Creates ``path`` (it must not exist) holding ``data``, synced to disk."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o644)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
        os.fsync(fd)
    finally:
        os.close(fd)


def _remove_older_files(path, keep):
    """Removes the arrays files of earlier saves and temporary files of killed ones."""
    for name in os.listdir(path):
        if name != keep and (ARRAYS_FILE.fullmatch(name) or _TEMPORARY_FILE.fullmatch(name)):
            with contextlib.suppress(OSError):  # committed already: a leftover is only litter
                os.unlink(os.path.join(path, name))


def sync_directory(path):
    """Syncs the directory ``path`` (its entries: a rename in it survives a crash)."""
    with contextlib.suppress(OSError):
        fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def open_regular_file(path, limit, what, error=SavedModelError, wrap_open_errors=True):
    """``path`` opened for reading, checked to be a regular file of at most ``limit`` bytes.

    Returns ``(file, size)``. Opening does not block (a FIFO is refused, not
    waited on). FileNotFoundError propagates; other failures raise ``error``, a
    SavedModelError class, except, with ``wrap_open_errors=False``, those of
    opening (a permission refused, too many open files: no damage), which propagate.
    """
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except FileNotFoundError:
        raise
    except OSError as e:
        if not wrap_open_errors:
            raise
        raise error(f"{path}: cannot open {what}: {e}") from e
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise error(f"{path}: {what} is not a regular file")
        if info.st_size > limit:
            raise error(f"{path}: {what} has {info.st_size} bytes, over the limit of {limit} bytes")
        return os.fdopen(fd, "rb"), info.st_size
    except BaseException:
        os.close(fd)
        raise


def read_limited(file, limit, path, what):
    """All of ``file``, refusing more than ``limit`` bytes (it may have grown since opened).

    Read a chunk at a time: ``read(limit + 1)`` would allocate the limit up front."""
    chunks, total = [], 0
    try:
        while total <= limit:
            chunk = file.read(min(_READ_CHUNK, limit + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
    except OSError as e:
        raise SavedModelError(f"{path}: cannot read {what}: {e}") from e
    if total > limit:
        raise SavedModelError(f"{path}: {what} grew over the limit of {limit} bytes")
    return b"".join(chunks)
