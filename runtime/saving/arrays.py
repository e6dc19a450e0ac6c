"""The arrays file: numpy arrays as ``.npy`` members of a zip, never pickled, read within bounds.

Numbers and bools are stored as they are; strings (object arrays of ``bytes``)
as two members, every element's bytes one after another and each element's
length, so no object is ever pickled. Reading takes only the members the
description names, each once, and checks a member's declared size and header
against the dtype and shape the description gives before reading its data.

>>> writer = ArraysWriter()
>>> ref = writer.add(np.array([b"ab", b""], dtype=object))
>>> ref
{'key': 'a0', 'dtype': 'string', 'shape': [2]}
>>> import io
>>> data = writer.to_bytes()
>>> ArraysReader(io.BytesIO(data), "arrays.npz", len(data), max_members=2).read(ref)
array([b'ab', b''], dtype=object)
"""

from __future__ import annotations

import io
import math
import re
import zipfile

import numpy as np

from runtime.core import dtypes
from runtime.saving.format import (
    ArraysFileError,
    Damage,
    SavedModelError,
    expect,
    expect_object,
    read_dtype,
    read_shape,
)
from runtime.saving.zip_layout import check_layout

_KEY = re.compile(r"[a-z][0-9]{1,9}")
_MAX_HEADER_BYTES = 4096  # a member's .npy header (numpy writes 128 bytes)
_BYTES_SUFFIX = ".bytes"
_CHUNK_BYTES = 1 << 20  # read at a time into a member's array


def dtype_of(value):
    """The runtime dtype of a numpy value; object arrays hold strings."""
    return dtypes.string if value.dtype == object else dtypes.as_dtype(value.dtype)


def _is_storable(value, dtype) -> bool:
    if dtype.is_opaque:
        return False
    if dtype is dtypes.string:
        return value.dtype == object and all(type(item) is bytes for item in value.flat)
    return value.dtype == dtype.as_numpy_dtype and value.dtype.kind in "biuf"


class ArraysWriter:
    """Collects arrays under fresh keys; ``to_bytes`` is the arrays file."""

    def __init__(self):
        self._members = {}
        self._count = 0

    def add(self, value, dtype=None, what="an array"):
        """Stores ``value`` (a numpy array); returns its reference for the description."""
        value = np.asarray(value)
        dtype = dtype or dtype_of(value)
        if not _is_storable(value, dtype):
            raise SavedModelError(
                f"Cannot save {what}: a {dtype.name} value must be "
                + ("an array of bytes" if dtype is dtypes.string else "numbers or bools")
                + f", found a numpy {value.dtype} array"
            )
        key = f"a{self._count}"
        self._count += 1
        if dtype is dtypes.string:
            items = list(value.flat)
            lengths = np.array([len(item) for item in items], dtype=np.int64)
            self._members[key] = lengths.reshape(value.shape)
            self._members[key + _BYTES_SUFFIX] = np.frombuffer(b"".join(items), dtype=np.uint8)
        else:
            self._members[key] = value.copy(order="C")  # a Fortran-ordered header is refused
        return {"key": key, "dtype": dtype.name, "shape": list(value.shape)}

    def to_bytes(self) -> bytes:
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w", zipfile.ZIP_STORED, allowZip64=True) as archive:
            for name, value in self._members.items():
                member = io.BytesIO()
                np.lib.format.write_array(member, value, allow_pickle=False)
                info = zipfile.ZipInfo(name + ".npy", date_time=(1980, 1, 1, 0, 0, 0))
                archive.writestr(info, member.getvalue())
        return buffer.getvalue()


class ArraysReader:
    """Reads the arrays a description refers to from ``file``, a seekable zip of ``size`` bytes.

    The zip's layout is checked first (``zip_layout``): its members do not
    overlap and number at most ``max_members``. Each member is read once at
    most, so a load reads at most the file. Errors are SavedModelError naming
    ``name``, the arrays file.
    """

    def __init__(self, file, name, size, max_members):
        self.name = name
        self._read_keys = set()
        try:
            self._archive, self._members = check_layout(file, size, max_members)
        except Damage as e:
            raise self._damage(e) from None
        except OSError as e:
            raise self._damage(f"cannot be read ({e})") from None
        self._unread = set(self._members)

    def check_all_read(self):
        """Every member was read: the description names them all."""
        if self._unread:
            raise self._damage(f"member {min(self._unread)!r} is not named by the description")

    def read(self, reference, what="an array"):
        """The array ``reference`` (``{"key", "dtype", "shape"}``) names, checked against it."""
        expect_object(reference, f"{what}'s reference", keys=("key", "dtype", "shape"))
        key = reference["key"]
        expect(type(key) is str and _KEY.fullmatch(key), f"{what}: bad array key {key!r:.40}")
        expect(key not in self._read_keys, f"{what}: array {key!r} is referred to twice")
        self._read_keys.add(key)
        dtype = read_dtype(reference["dtype"], f"{what}'s dtype")
        expect(not dtype.is_opaque, f"{what}: a {dtype.name} value cannot be stored")
        shape = read_shape(reference["shape"], f"{what}'s shape")
        expect(shape.is_fully_defined(), f"{what}: the shape of a stored array must be known")
        dims = tuple(shape.as_list())
        if dtype is not dtypes.string:
            return self._member(key, np.dtype(dtype.as_numpy_dtype), dims)
        lengths = self._member(key, np.dtype(np.int64), dims)
        if lengths.size and lengths.min() < 0:
            raise self._damage(f"member {key!r}: a string has a negative length")
        total = sum(lengths.reshape(-1).tolist())  # Python ints: int64 would wrap around
        stored = self._members.get(key + _BYTES_SUFFIX + ".npy")
        if stored is not None and total > stored.size:
            raise self._damage(
                f"member {key!r}: its strings' lengths add up to {total} bytes, more than "
                f"member {stored.name!r} holds ({stored.size} bytes)"
            )
        data = self._member(key + _BYTES_SUFFIX, np.dtype(np.uint8), (total,))
        ends = np.cumsum(lengths.reshape(-1))
        blob = data.tobytes()
        strings = np.empty(lengths.size, dtype=object)
        strings[:] = [blob[end - n : end] for end, n in zip(ends.tolist(), lengths.flat)]
        return strings.reshape(dims)

    def _damage(self, problem):
        return ArraysFileError(f"{self.name}: {problem}")

    def _member(self, key, dtype, dims):
        name = key + ".npy"
        member = self._members.get(name)
        if member is None:
            raise self._damage(f"member {name!r} is missing")
        self._unread.discard(name)
        nbytes = math.prod(dims) * dtype.itemsize
        limit = nbytes + _MAX_HEADER_BYTES
        if member.size > limit:
            raise self._damage(
                f"member {name!r} declares {member.size} bytes, over the limit of {limit} "
                f"bytes that a {dtype} array of shape {dims} allows"
            )
        array = np.empty(dims, dtype)
        try:
            with self._archive.open(member.info) as stream:
                stored_dims, fortran_order, stored_dtype = _read_header(stream)
                if fortran_order:
                    raise self._damage(
                        f"member {name!r} is in Fortran order; a save writes C order"
                    )
                if (stored_dims, stored_dtype) != (dims, dtype):
                    raise self._damage(
                        f"member {name!r} holds {_array_text(stored_dtype, stored_dims)}, but "
                        f"the description says {_array_text(dtype, dims)}"
                    )
                read = _read_into(stream, memoryview(array.reshape(-1).view(np.uint8)))
                read += len(stream.read(1))  # at the end: zipfile checks the member's CRC-32
        except (zipfile.BadZipFile, OSError, ValueError, EOFError, Damage) as e:
            raise self._damage(f"member {name!r} is damaged ({e})") from None
        if read != nbytes:
            raise self._damage(f"member {name!r} has {read} bytes of data, not {nbytes}")
        if dtype == np.bool_ and array.view(np.uint8).max(initial=0) > 1:
            raise self._damage(f"member {name!r} holds bools other than 0 and 1")
        return array


def _read_into(stream, buffer):
    """Fills ``buffer`` from ``stream`` a chunk at a time; returns the bytes read.

    The arrays file is held in memory while it is loaded (the bytes hashed are
    the bytes parsed), so a member is read straight into its array: reading it
    whole first would hold a third copy of a large variable at once.
    """
    filled = 0
    while filled < len(buffer):
        chunk = stream.read(min(_CHUNK_BYTES, len(buffer) - filled))
        if not chunk:
            break
        buffer[filled : filled + len(chunk)] = chunk
        filled += len(chunk)
    return filled


def _array_text(dtype, dims):
    """``dtype`` with its byte order when it is not the machine's: '>f4' is not float32."""
    return f"{dtype.str if dtype.byteorder not in '=|' else dtype} array of shape {dims}"


def _read_header(member):
    """``(shape, fortran_order, dtype)`` from a .npy header, read within its limit."""
    version = np.lib.format.read_magic(member)
    if version == (1, 0):
        return np.lib.format.read_array_header_1_0(member, max_header_size=_MAX_HEADER_BYTES)
    if version == (2, 0):
        return np.lib.format.read_array_header_2_0(member, max_header_size=_MAX_HEADER_BYTES)
    raise Damage(f"unsupported .npy version {version}")
