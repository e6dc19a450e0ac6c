"""Checkpoint files are untrusted: damage and hostile contents are refused with the file's name,
nothing in them is ever run, and a refused restore changes no variable."""

import hashlib
import io
import json
import os
import pathlib
import pickle
import zipfile

import numpy as np
import pytest

import runtime as rt
from runtime.saving.arrays import ArraysWriter
from runtime.saving.checkpoint_files import DATA_SUFFIX, INDEX_SUFFIX, index_checksum


@pytest.fixture
def saved(tmp_path):
    prefix = str(tmp_path / "ckpt")
    rt.train.Checkpoint(v=rt.Variable([1.0, 2.0]), w=rt.Variable(3.0)).write(prefix)
    return prefix


def _restore_into_fresh(prefix):
    v, w = rt.Variable([0.0, 0.0]), rt.Variable(0.0)
    try:
        rt.train.Checkpoint(v=v, w=w).read(prefix)
    finally:
        assert list(v.numpy()) == [0.0, 0.0] and w.numpy() == 0.0  # nothing half-done


def _index(prefix):
    with open(prefix + INDEX_SUFFIX) as f:
        return json.load(f)


def _write_signed(prefix, content, data=None):
    """Writes an index (and data) whose checksums match: only the content checks can refuse it."""
    content = dict(content)
    content.pop("checksum", None)
    if data is not None:
        with open(prefix + DATA_SUFFIX, "wb") as f:
            f.write(data)
        content["data"] = dict(
            content["data"], bytes=len(data), sha256=hashlib.sha256(data).hexdigest()
        )
    content["checksum"] = index_checksum(content)
    with open(prefix + INDEX_SUFFIX, "w") as f:
        json.dump(content, f)


def test_a_flipped_byte_in_the_data_file(saved):
    path = saved + DATA_SUFFIX
    data = bytearray(pathlib.Path(path).read_bytes())
    data[len(data) // 2] ^= 0x01
    pathlib.Path(path).write_bytes(bytes(data))
    with pytest.raises(rt.errors.DataLossError, match=f"{path}.*SHA-256"):
        _restore_into_fresh(saved)


def test_a_truncated_data_file(saved):
    path = saved + DATA_SUFFIX
    data = pathlib.Path(path).read_bytes()
    pathlib.Path(path).write_bytes(data[:-10])
    with pytest.raises(rt.errors.DataLossError, match=f"{path}: the data file has"):
        _restore_into_fresh(saved)


def test_a_missing_data_file(saved):
    os.unlink(saved + DATA_SUFFIX)
    with pytest.raises(rt.errors.DataLossError, match="data file is missing"):
        _restore_into_fresh(saved)


def test_an_index_that_is_not_json(saved):
    pathlib.Path(saved + INDEX_SUFFIX).write_bytes(b"\x89PNG not an index")
    with pytest.raises(rt.errors.DataLossError, match=f"{saved}{INDEX_SUFFIX}: not a checkpoint"):
        _restore_into_fresh(saved)


def test_an_edited_index(saved):
    content = _index(saved)
    content["nodes"][0]["children"].reverse()
    with open(saved + INDEX_SUFFIX, "w") as f:
        json.dump(content, f)
    with pytest.raises(rt.errors.DataLossError, match=r"\.index: the index is damaged"):
        _restore_into_fresh(saved)


@pytest.mark.parametrize(
    "damage, message",
    [
        (lambda c: c["nodes"][0]["children"].append(["x", 99]), "an edge is damaged"),
        (lambda c: c["nodes"][0]["children"].append(["v", 1]), "two edges are named 'v'"),
        (
            lambda c: c["nodes"][1].update(value={"key": "a9", "dtype": "float32", "shape": [2]}),
            "member 'a9.npy' is missing",
        ),
        (
            lambda c: c["nodes"][1]["value"].update(shape=[3]),
            "holds float32 array of shape \\(2,\\)",
        ),
        (lambda c: c["nodes"][1]["value"].update(dtype="resource"), "cannot be stored"),
        (lambda c: c["data"].update(file="../elsewhere" + DATA_SUFFIX), "names a bad file"),
        (lambda c: c.update(version=99), "version 99 is not supported"),
        (lambda c: c.update(nodes=[]), "'nodes' is damaged"),
    ],
)
def test_hostile_indexes_with_matching_checksums(saved, damage, message):
    content = _index(saved)
    damage(content)
    _write_signed(saved, content)
    with pytest.raises(rt.errors.DataLossError, match=message):
        _restore_into_fresh(saved)


def test_a_pickle_in_the_data_file_is_never_loaded(saved, tmp_path):
    marker = tmp_path / "pickle_ran"

    class Payload:
        def __reduce__(self):
            return (os.mkdir, (str(marker),))

    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        member = io.BytesIO()
        value = np.empty(2, dtype=object)
        value[:] = [Payload(), Payload()]
        np.lib.format.write_array(member, value, allow_pickle=True)
        archive.writestr("a0.npy", member.getvalue())
        archive.writestr("a1.npy", pickle.dumps(Payload()))
    _write_signed(saved, _index(saved), data=buffer.getvalue())
    with pytest.raises(rt.errors.DataLossError, match=DATA_SUFFIX):
        _restore_into_fresh(saved)
    assert not marker.exists()


def test_a_long_chain_of_nodes_is_walked_without_recursion(saved):
    # A hostile index may nest objects far deeper than Python's recursion limit.
    depth = 20000
    nodes = [{"children": [["next", i + 1]]} for i in range(depth)] + [{"children": []}]
    content = _index(saved)
    content["nodes"] = nodes
    _write_signed(saved, content, data=ArraysWriter().to_bytes())
    status = rt.train.Checkpoint().read(saved)
    with pytest.raises(AssertionError, match="Nothing to load"):
        status.assert_nontrivial_match()
    status.assert_consumed()  # nothing holds a value: nothing unresolved


def test_a_directory_where_the_index_should_be(saved):
    os.unlink(saved + INDEX_SUFFIX)
    os.mkdir(saved + INDEX_SUFFIX)
    with pytest.raises(rt.errors.DataLossError, match="not a regular file"):
        _restore_into_fresh(saved)


def test_a_failed_write_keeps_the_previous_checkpoint(saved, monkeypatch):
    import runtime.saving.checkpoint_files as files

    def fail(*args):
        raise OSError("disk full")

    monkeypatch.setattr(files.os, "fsync", fail)
    with pytest.raises(OSError, match="disk full"):
        rt.train.Checkpoint(v=rt.Variable([5.0, 6.0]), w=rt.Variable(7.0)).write(saved)
    monkeypatch.undo()
    v, w = rt.Variable([0.0, 0.0]), rt.Variable(0.0)
    rt.train.Checkpoint(v=v, w=w).read(saved).assert_consumed()
    assert list(v.numpy()) == [1.0, 2.0] and w.numpy() == 3.0
    assert sorted(os.listdir(os.path.dirname(saved))) == [
        "ckpt" + DATA_SUFFIX,
        "ckpt" + INDEX_SUFFIX,
    ]


def test_an_index_of_too_many_json_values_is_refused_before_parsing(saved, monkeypatch):
    import runtime.saving.checkpoint_files as files

    monkeypatch.setattr(files, "MAX_INDEX_VALUES", 1000)
    content = _index(saved)
    content["nodes"][0]["children"] += [[f"x{i}", 0] for i in range(1000)]
    _write_signed(saved, content)
    with pytest.raises(rt.errors.DataLossError, match="JSON values, over the limit of 1000"):
        _restore_into_fresh(saved)


# --- a rewrite commits at once ----------------------------------------------------------------


def _fail_at(monkeypatch, name, call):
    """Makes the ``call``-th ``os.<name>`` from now raise (the others run)."""
    real, calls = getattr(os, name), []

    def flaky(*args, **kwargs):
        calls.append(args)
        if len(calls) == call:
            raise OSError(f"injected failure of {name}")
        return real(*args, **kwargs)

    monkeypatch.setattr(os, name, flaky)


@pytest.mark.parametrize("rewrites_before", [0, 1])
@pytest.mark.parametrize(
    "step",
    [("fsync", 1), ("fsync", 2), ("replace", 1), ("replace", 2), ("write", 1), ("open", 2)],
    ids=["data-sync", "index-sync", "data-rename", "index-rename", "data-write", "index-open"],
)
def test_a_failed_rewrite_at_any_step_keeps_the_previous_checkpoint(
    tmp_path, monkeypatch, step, rewrites_before
):
    prefix = str(tmp_path / "ckpt")
    for _ in range(rewrites_before + 1):
        rt.train.Checkpoint(v=rt.Variable([1.0, 2.0])).write(prefix)
    before = sorted(os.listdir(tmp_path))
    _fail_at(monkeypatch, *step)
    with pytest.raises(OSError, match="injected failure"):
        rt.train.Checkpoint(v=rt.Variable([5.0, 6.0])).write(prefix)
    monkeypatch.undo()
    v = rt.Variable([0.0, 0.0])
    rt.train.Checkpoint(v=v).read(prefix).assert_consumed()
    assert list(v.numpy()) == [1.0, 2.0]
    assert sorted(os.listdir(tmp_path)) == before  # nothing left behind


def test_rewrites_leave_one_index_and_the_data_it_names(tmp_path):
    prefix = str(tmp_path / "ckpt")
    for value in (1.0, 2.0, 3.0):
        rt.train.Checkpoint(v=rt.Variable(value)).write(prefix)
        names = sorted(os.listdir(tmp_path))
        assert names == sorted(["ckpt" + INDEX_SUFFIX, _index(prefix)["data"]["file"]])
        v = rt.Variable(0.0)
        rt.train.Checkpoint(v=v).read(prefix).assert_consumed()
        assert v.numpy() == value


def test_a_write_syncs_the_directory_and_removes_stale_temporaries(tmp_path, monkeypatch):
    import runtime.saving.checkpoint_files as files

    synced = []
    monkeypatch.setattr(files, "sync_directory", synced.append)
    stale = tmp_path / ".ckpt.index.0123456789abcdef.tmp"  # a killed write's
    stale.write_bytes(b"half")
    rt.train.Checkpoint(v=rt.Variable(1.0)).write(str(tmp_path / "ckpt"))
    assert str(tmp_path) in synced
    assert not stale.exists()


# --- what reading refuses, writing refuses first ----------------------------------------------


def test_an_empty_dict_key_is_saved_and_restored(tmp_path):
    prefix = str(tmp_path / "c")
    rt.train.Checkpoint(d={"": rt.Variable(4.0)}).write(prefix)
    fresh = {"": rt.Variable(0.0)}
    rt.train.Checkpoint(d=fresh).read(prefix).assert_consumed()
    assert fresh[""].numpy() == 4.0


@pytest.mark.parametrize(
    "limit, value, message",
    [
        ("MAX_EDGE_NAME", {"k" * 1001: rt.Variable(1.0)}, "1001 characters, over the limit"),
        ("MAX_DATA_BYTES", rt.Variable(np.zeros(10_000, np.float32)), "bytes, over the limit"),
        ("MAX_NODES", [rt.Variable(1.0) for _ in range(5)], "objects, over the limit of 4"),
    ],
)
def test_a_checkpoint_reading_would_refuse_is_not_written(
    tmp_path, monkeypatch, limit, value, message
):
    import runtime.saving.checkpoint_files as files

    if limit != "MAX_EDGE_NAME":
        monkeypatch.setattr(files, limit, {"MAX_DATA_BYTES": 10_000, "MAX_NODES": 4}[limit])
    with pytest.raises(ValueError, match=message):
        rt.train.Checkpoint(x=value).write(str(tmp_path / "c"))
    assert os.listdir(tmp_path) == []


def test_a_deeply_nested_old_index_is_overwritten(tmp_path):
    # The index in place is read only to keep its data file apart: junk there, however deep
    # its nesting, is replaced as any damaged index is.
    prefix = str(tmp_path / "ck")
    pathlib.Path(prefix + INDEX_SUFFIX).write_text("[" * 1_000_000)
    m = rt.Module()
    m.v = rt.Variable([1.0, 2.0])
    rt.train.Checkpoint(model=m).write(prefix)
    m.v.assign([0.0, 0.0])
    rt.train.Checkpoint(model=m).read(prefix)
    np.testing.assert_allclose(m.v.numpy(), [1.0, 2.0])
