"""Hostile arrays files: zip layouts a save never writes are refused before they cost memory.

Each arrays file is crafted small and signed, so only the loader's checks of the
zip's layout and members stand between it and memory or time out of proportion
to its size: overlapping members, directories listing more entries than the
description names, zip features a save does not write, string lengths that wrap
around int64.
"""

import io
import os
import struct
import zipfile
import zlib

import numpy as np
import pytest

import autograph as ag
import runtime as rt
from runtime.saved_model import SavedModelError
from runtime.saving.format import Damage
from runtime.saving.zip_layout import check_layout
from tests.runtime.saving.model_files import arrays_path, description, write_signed


class Holder(rt.Module):
    def __init__(self):
        super().__init__()
        self.scale = rt.Variable([1.0, 2.0])
        self.words = rt.Variable(np.array([b"tea", b"cake"], dtype=object))

    @ag.function(input_signature=[rt.TensorSpec([2], rt.float32)], autograph=False)
    def look(self, x):
        return self.scale * x, self.words


@pytest.fixture
def model(tmp_path):
    path = str(tmp_path / "model")
    rt.saved_model.save(Holder(), path)
    return path


def _load_error(path):
    with pytest.raises(SavedModelError) as caught:
        rt.saved_model.load(path)
    return str(caught.value)


def _npy_header(array_or_size):
    member = io.BytesIO()
    np.lib.format.write_array_header_1_0(
        member, {"descr": "|u1", "fortran_order": False, "shape": (array_or_size,)}
    )
    return member.getvalue()


def _local_header(name, data):
    return struct.pack(
        "<4sHHHHHIIIHH", b"PK\x03\x04", 20, 0, 0, 0, 0x21, zlib.crc32(data), len(data),
        len(data), len(name), 0,
    ) + name  # fmt: skip


def _directory_entry(name, data, offset):
    return struct.pack(
        "<4sHHHHHHIIIHHHHHII", b"PK\x01\x02", 20, 20, 0, 0, 0, 0x21, zlib.crc32(data),
        len(data), len(data), len(name), 0, 0, 0, 0, 0, offset,
    ) + name  # fmt: skip


def _end_record(entries, directory, start):
    return struct.pack(
        "<4sHHHHIIH", b"PK\x05\x06", 0, 0, entries, entries, len(directory), start, 0
    )


def _overlapping_zip(count, data):
    """``count`` well-formed uint8 .npy members, each one's data holding the next members'
    headers and the shared ``data``: together they declare about ``count`` times the file."""
    tail, members = data, []
    for i in reversed(range(count)):
        name = f"a{i}.npy".encode()
        member = _npy_header(len(tail)) + tail
        members.insert(0, (name, member, len(tail)))
        tail = _local_header(name, member) + member
    directory, offset = b"", 0
    for name, member, size in members:
        directory += _directory_entry(name, member, offset)
        offset += len(_local_header(name, member)) + len(member) - size
    arrays = tail + directory + _end_record(count, directory, len(tail))
    return arrays, [size for _, _, size in members]


def test_members_that_overlap_are_refused_before_they_are_read(model):
    arrays, sizes = _overlapping_zip(3, b"\x07" * 4096)
    document = description(model)
    document["variables"] = [
        {
            "key": f"v{i}",
            "name": f"big{i}:0",
            "trainable": False,
            "value": {"key": f"a{i}", "dtype": "uint8", "shape": [size]},
        }
        for i, size in enumerate(sizes)
    ]
    write_signed(model, document, arrays)
    # A check that the crafted file is what it claims: zipfile reads every member in full.
    with zipfile.ZipFile(io.BytesIO(arrays)) as archive:
        assert sum(len(archive.read(i)) for i in archive.infolist()) > 2.5 * len(arrays)
    message = _load_error(model)
    assert message.startswith(arrays_path(model))
    assert "'a1.npy' overlaps the member before it" in message


def test_a_zip_directory_listing_more_members_than_the_description_names_is_refused(model):
    document = description(model)
    with open(arrays_path(model), "rb") as f:
        original = f.read()
    start = original.index(b"PK\x01\x02")
    directory = original[start : original.index(b"PK\x05\x06")]
    entries = len(zipfile.ZipFile(io.BytesIO(original)).infolist())
    extra = b"".join(_directory_entry(b"z%d" % i, b"", 0) for i in range(200))
    directory += extra
    write_signed(
        model, document, original[:start] + directory + _end_record(entries + 200, directory, start)
    )
    message = _load_error(model)
    assert message.startswith(arrays_path(model))
    assert f"its zip directory lists {entries + 200} members, more than the" in message


def test_zip64_end_records_are_read_for_the_member_count():
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name in ("a0.npy", "a1.npy"):
            archive.writestr(name, b"12345")
    data = buffer.getvalue()
    size, start = struct.unpack_from("<II", data, len(data) - 10)
    zip64_end = struct.pack(
        "<4sQHHIIQQQQ", b"PK\x06\x06", 44, 45, 45, 0, 0, 2, 2, size, start
    )  # fmt: skip
    locator = struct.pack("<4sIQI", b"PK\x06\x07", 0, start + size, 1)
    end = struct.pack("<4sHHHHIIH", b"PK\x05\x06", 0, 0, 0xFFFF, 0xFFFF, size, 0xFFFFFFFF, 0)
    data = data[: start + size] + zip64_end + locator + end
    _, members = check_layout(io.BytesIO(data), len(data), max_members=2)
    assert sorted(members) == ["a0.npy", "a1.npy"]
    with pytest.raises(Damage, match="lists 2 members, more than the 1 the description can name"):
        check_layout(io.BytesIO(data), len(data), max_members=1)
    moved = data[:-34] + struct.pack("<Q", start + size - 1) + data[-26:]  # the locator lies
    with pytest.raises(Damage, match="its zip64 locator is damaged"):
        check_layout(io.BytesIO(moved), len(moved), max_members=2)


@pytest.mark.parametrize(
    ("flag", "problem"),
    [
        (0x1, "is encrypted"),
        (0x20, "holds compressed patched data"),
        (0x40, "uses strong encryption"),
        (0x2, "has zip flags 0x2 that a save does not write"),
    ],
)
def test_zip_features_a_save_does_not_write_are_refused_by_name(model, flag, problem):
    with open(arrays_path(model), "rb") as f:
        data = bytearray(f.read())
    at = data.index(b"PK\x01\x02")
    struct.pack_into("<H", data, at + 8, flag)
    name = data[at + 46 : at + 46 + struct.unpack_from("<H", data, at + 28)[0]].decode()
    write_signed(model, description(model), bytes(data))
    message = _load_error(model)
    assert message == f"{arrays_path(model)}: member {name!r} {problem}" + (
        "; a save writes none such" if flag != 0x2 else ""
    )


def test_a_zip_comment_or_a_fortran_ordered_member_is_refused_by_name(model):
    document = description(model)
    with open(arrays_path(model), "rb") as f:
        original = f.read()
    write_signed(model, document, original[:-2] + struct.pack("<H", 5) + b"hello")
    assert _load_error(model).endswith("not a readable zip file (no end record at its end)")

    buffer = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(original)) as source, zipfile.ZipFile(buffer, "w") as out:
        for info in source.infolist():
            array = np.lib.format.read_array(io.BytesIO(source.read(info)))
            header = {"descr": array.dtype.str, "fortran_order": True, "shape": array.shape}
            member = io.BytesIO()
            np.lib.format.write_array_header_1_0(member, header)
            member.write(array.tobytes(order="F"))
            out.writestr(info, member.getvalue())
    write_signed(model, document, buffer.getvalue())
    assert "is in Fortran order; a save writes C order" in _load_error(model)


def test_an_array_reference_of_unknown_shape_is_refused_by_name(model):
    document = description(model)
    document["variables"][0]["value"]["shape"] = [None]
    write_signed(model, document)
    assert _load_error(model) == (
        f"{os.path.join(model, 'saved_model.json')}: variable 'Variable:0': its value: the "
        "shape of a stored array must be known"
    )


def test_string_lengths_that_wrap_around_int64_are_refused(model):
    # Lengths 2**63 - 1, 2**63 - 1 and 5 over 3 bytes of data: their int64 sum wraps to 3.
    members = {
        "a0.npy": np.array([1.0, 2.0], np.float32),
        "a1.npy": np.array([2**63 - 1, 2**63 - 1, 5], np.int64),
        "a1.bytes.npy": np.frombuffer(b"abc", np.uint8),
    }
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, array in members.items():
            member = io.BytesIO()
            np.lib.format.write_array(member, array)
            archive.writestr(name, member.getvalue())
    document = description(model)
    document["variables"][0]["value"] = {"key": "a0", "dtype": "float32", "shape": [2]}
    document["variables"][1]["value"] = {"key": "a1", "dtype": "string", "shape": [3]}
    write_signed(model, document, buffer.getvalue())
    assert f"lengths add up to {2 * (2**63 - 1) + 5} bytes, more than member 'a1.bytes.npy'" in (
        _load_error(model)
    )


@pytest.mark.skipif(not os.path.exists("/proc/self/mem"), reason="needs Linux's /proc")
def test_a_description_that_cannot_be_read_is_refused_by_name(model):
    target = os.path.join(model, "saved_model.json")
    os.remove(target)
    os.symlink("/proc/self/mem", target)  # a regular file whose reads fail with EIO
    assert _load_error(model).startswith(f"{target}: cannot read the description: ")
