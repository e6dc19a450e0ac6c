"""The zip layout of an arrays file, checked before ``zipfile`` reads it: no member overlaps another.

Python's ``zipfile`` trusts the central directory: two entries may point into the
same bytes, so a file of a few MiB whose entries overlap declares gigabytes of
members, and entries it lists cost memory before any is read. A save writes a
plain layout (PKWARE's APPNOTE: local header, data, ..., central directory, end
record; no comment, no encryption, nothing compressed), and only that layout is
read: the end record is the file's last 22 bytes (after zip64 records, where the
sizes need them), it counts no more entries than the description can name, the
central directory fills the bytes between the last member and the end records,
and the members, each a local header then its data, lie one after another
without overlapping. Reading each member once then reads at most the file.

>>> import io, zipfile
>>> buffer = io.BytesIO()
>>> with zipfile.ZipFile(buffer, "w") as archive:
...     archive.writestr("a0.npy", b"12345")
>>> archive, members = check_layout(buffer, len(buffer.getvalue()), max_members=4)
>>> members["a0.npy"].data_offset, members["a0.npy"].size
(36, 5)
"""

from __future__ import annotations

import struct
import zipfile
from typing import NamedTuple

from runtime.saving.format import Damage, expect

_END = struct.Struct("<4sHHHHIIH")  # end of central directory record
_ZIP64_LOCATOR = struct.Struct("<4sIQI")
_ZIP64_END = struct.Struct("<4sQHHIIQQQQ")
_LOCAL_HEADER = struct.Struct("<4sHHHHHIIIHH")
_UTF8_NAMES = 0x800  # the one general-purpose flag a reader may meet without a save writing it
_FLAG_PROBLEMS = {
    0x1: "is encrypted",
    0x8: "has a data descriptor after its data",
    0x20: "holds compressed patched data",
    0x40: "uses strong encryption",
}


class Member(NamedTuple):
    name: str
    info: zipfile.ZipInfo
    data_offset: int  # where its data starts, after its local header
    size: int


def check_layout(file, size, max_members):
    """``(zipfile.ZipFile, {name: Member})`` for ``file`` (``size`` bytes), checked as said above.

    Raises Damage naming the problem; OSError from reading propagates.
    """
    entries, directory_start = _end_records(file, size)
    expect(
        entries <= max_members,
        f"its zip directory lists {entries} members, more than the {max_members} the "
        "description can name",
    )
    file.seek(0)
    try:
        archive = zipfile.ZipFile(file)
    except (zipfile.BadZipFile, zipfile.LargeZipFile, ValueError, EOFError) as e:
        raise Damage(f"not a readable zip file ({e})") from None
    infos = archive.infolist()
    expect(
        len(infos) == entries, "its zip directory holds other entries than its end record counts"
    )
    members, names = [], set()
    for info in infos:
        expect(info.filename not in names, f"member {info.filename!r} is listed twice")
        names.add(info.filename)
        members.append(_member(file, info))
    end = 0
    for member in sorted(members, key=lambda m: m.info.header_offset):
        expect(
            member.info.header_offset >= end,
            f"member {member.name!r} overlaps the member before it",
        )
        end = member.data_offset + member.size
    expect(end <= directory_start, "a member overlaps the zip directory")
    return archive, {member.name: member for member in members}


def _end_records(file, size):
    """``(entries, directory start)`` from the end record(s) of a save's layout."""
    expect(size >= _END.size, "not a readable zip file (too short)")
    file.seek(size - _END.size)
    end = _END.unpack(file.read(_END.size))
    signature, disk, directory_disk, disk_entries, entries, directory_size, start, comment = end
    expect(signature == b"PK\x05\x06", "not a readable zip file (no end record at its end)")
    expect(comment == 0, "not a readable zip file (it has a comment)")  # a save writes none
    expect(disk == directory_disk == 0 and disk_entries == entries, "it spans several disks")
    end_start = size - _END.size
    if entries == 0xFFFF or 0xFFFFFFFF in (directory_size, start):  # the zip64 records count
        # Where zipfile reads them: the zip64 end record, its locator, then the end record.
        end_start -= _ZIP64_LOCATOR.size + _ZIP64_END.size
        expect(end_start >= 0, "its zip64 records are missing")
        file.seek(end_start + _ZIP64_END.size)
        signature, disk, zip64_start, disks = _ZIP64_LOCATOR.unpack(file.read(_ZIP64_LOCATOR.size))
        expect(
            signature == b"PK\x06\x07" and (disk, zip64_start, disks) == (0, end_start, 1),
            "its zip64 locator is damaged",
        )
        file.seek(end_start)
        zip64_end = _ZIP64_END.unpack(file.read(_ZIP64_END.size))
        signature, _, _, _, disk, directory_disk, disk_entries, entries, directory_size, start = (
            zip64_end
        )
        expect(
            signature == b"PK\x06\x06" and disk == directory_disk == 0 and disk_entries == entries,
            "its zip64 end record is damaged",
        )
    expect(
        start + directory_size == end_start,
        "its zip directory does not end where its end records start",
    )
    return entries, start


def _member(file, info):
    name = info.filename
    expect(
        info.compress_type == zipfile.ZIP_STORED,
        f"member {name!r} is compressed; members are stored as they are",
    )
    for bit, problem in _FLAG_PROBLEMS.items():
        expect(not info.flag_bits & bit, f"member {name!r} {problem}; a save writes none such")
    expect(
        not info.flag_bits & ~_UTF8_NAMES,
        f"member {name!r} has zip flags {info.flag_bits:#x} that a save does not write",
    )
    expect(
        info.compress_size == info.file_size,
        f"member {name!r} declares {info.file_size} bytes but stores {info.compress_size}",
    )
    file.seek(info.header_offset)
    header = file.read(_LOCAL_HEADER.size)
    expect(
        len(header) == _LOCAL_HEADER.size and header[:4] == b"PK\x03\x04",
        f"member {name!r}: no local header where the zip directory says",
    )
    *_, name_length, extra_length = _LOCAL_HEADER.unpack(header)
    data_offset = info.header_offset + _LOCAL_HEADER.size + name_length + extra_length
    return Member(name, info, data_offset, info.compress_size)
