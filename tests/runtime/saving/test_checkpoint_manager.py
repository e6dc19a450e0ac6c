"""rt.train.CheckpointManager, latest_checkpoint and the ``checkpoint`` state file.

Ported from TensorFlow's checkpoint_management_test.py (CheckpointManagerTest,
CheckpointStateTest), with its expected values; ``time.time`` is replaced where TensorFlow's
test mocks it.
"""

import logging
import os
import pathlib

import pytest

import runtime as rt
from runtime.saving import checkpoint_manager
from runtime.saving.checkpoint_files import checkpoint_exists as exists


def test_deletion(tmp_path):
    manager = rt.train.CheckpointManager(rt.train.Checkpoint(), str(tmp_path), max_to_keep=3)
    paths = [manager.save() for _ in range(4)]
    assert [exists(p) for p in paths] == [False, True, True, True]
    assert manager.checkpoints == paths[1:]


def test_keep_all_and_pick_up_existing(tmp_path):
    # testKeepAll
    checkpoint, directory = rt.train.Checkpoint(), str(tmp_path)
    manager = rt.train.CheckpointManager(checkpoint, directory, max_to_keep=None)
    first, second, third = manager.save(), manager.save(), manager.save()
    assert all(exists(p) for p in (first, second, third))
    assert manager.latest_checkpoint == third
    assert manager.checkpoints == [first, second, third]
    manager = rt.train.CheckpointManager(checkpoint, directory, max_to_keep=None)
    fourth = manager.save()
    assert manager.checkpoints == [first, second, third, fourth]
    manager = rt.train.CheckpointManager(checkpoint, directory, max_to_keep=3)
    assert manager.checkpoints == [first, second, third, fourth]
    assert all(exists(p) for p in (first, second, third, fourth))
    fifth = manager.save()
    assert manager.checkpoints == [third, fourth, fifth]
    assert [exists(p) for p in (first, second, third, fourth, fifth)] == [
        False,
        False,
        True,
        True,
        True,
    ]


class _Clock:
    def __init__(self, now):
        self.now = now

    def time(self):
        return self.now


@pytest.fixture
def clock(monkeypatch):
    fake = _Clock(3.0)
    monkeypatch.setattr(checkpoint_manager, "time", fake)
    return fake


def test_save_restore_state(tmp_path, clock):
    # testSaveRestoreState
    directory = str(tmp_path)
    checkpoint = rt.train.Checkpoint()
    first_manager = rt.train.CheckpointManager(checkpoint, directory, max_to_keep=2)
    name = [os.path.join(directory, f"ckpt-{n}") for n in range(7)]
    first_time = clock.now = 10000.0
    first_manager.save()
    second_time = clock.now = first_time + 3610.0
    first_manager.save()
    state = rt.train.get_checkpoint_state(directory)
    assert state.all_model_checkpoint_timestamps == [first_time, second_time]
    assert first_manager.checkpoints == [name[1], name[2]]
    assert first_manager.latest_checkpoint == name[2]

    second_manager = rt.train.CheckpointManager(
        checkpoint, directory, max_to_keep=2, keep_checkpoint_every_n_hours=1.5
    )
    assert second_manager.checkpoints == [name[1], name[2]]
    assert second_manager.latest_checkpoint == name[2]
    third_time = clock.now = second_time + 3600.0 * 0.2
    second_manager.save()
    assert exists(name[1]) and exists(name[2])
    assert second_manager.checkpoints == [name[2], name[3]]
    assert rt.train.get_checkpoint_state(directory).last_preserved_timestamp == first_time
    fourth_time = clock.now = third_time + 3600.0 * 0.5
    second_manager.save()
    assert exists(name[1]) and not exists(name[2])
    assert second_manager.checkpoints == [name[3], name[4]]
    clock.now = fourth_time + 3600.0 * 0.5
    second_manager.save()
    assert second_manager.checkpoints == [name[4], name[5]]
    assert rt.train.get_checkpoint_state(directory).last_preserved_timestamp == first_time

    third_manager = rt.train.CheckpointManager(
        checkpoint, directory, max_to_keep=2, keep_checkpoint_every_n_hours=1.5
    )
    assert third_manager.latest_checkpoint == name[5]
    clock.now += 10.0
    third_manager.save()
    assert rt.train.get_checkpoint_state(directory).last_preserved_timestamp == fourth_time
    assert [exists(name[n]) for n in range(1, 7)] == [True, False, False, True, True, True]
    assert third_manager.checkpoints == [name[5], name[6]]


def test_continue_from_unmanaged(tmp_path):
    # testContinueFromUnmanaged
    directory = str(tmp_path)
    prefix = os.path.join(directory, "unusual_prefix")
    checkpoint = rt.train.Checkpoint()
    first_path, second_path = checkpoint.save(prefix), checkpoint.save(prefix)
    checkpoint = rt.train.Checkpoint()
    manager = rt.train.CheckpointManager(checkpoint, directory, max_to_keep=2)
    checkpoint.restore(manager.latest_checkpoint)
    assert int(checkpoint.save_counter.numpy()) == 2
    third_path = manager.save()
    assert manager.checkpoints == [third_path]
    fourth_path = manager.save()
    fifth_path = manager.save()
    assert manager.checkpoints == [fourth_path, fifth_path]
    assert [exists(p) for p in (first_path, second_path, third_path, fourth_path, fifth_path)] == [
        True,
        True,
        False,
        True,
        True,
    ]


def test_clock_reset(tmp_path, clock, caplog):
    # testClockReset
    directory = str(tmp_path)
    clock.now = 10000.0
    checkpoint = rt.train.Checkpoint()
    first_manager = rt.train.CheckpointManager(
        checkpoint, directory, max_to_keep=1, keep_checkpoint_every_n_hours=1.0
    )
    first_path = first_manager.save()
    clock.now += 3600.0
    second_path = first_manager.save()
    clock.now += 3600.0
    third_path = first_manager.save()
    assert [exists(p) for p in (first_path, second_path, third_path)] == [False, True, True]
    assert first_manager.checkpoints == [third_path]
    assert rt.train.get_checkpoint_state(directory).last_preserved_timestamp == 13600.0
    clock.now = 5000.0
    with caplog.at_level(logging.WARNING, logger="runtime"):
        second_manager = rt.train.CheckpointManager(checkpoint, directory, max_to_keep=1)
    assert "behind the last preserved checkpoint timestamp" in caplog.text
    assert exists(second_path)
    assert second_manager.latest_checkpoint == third_path
    assert second_manager.checkpoints == []
    clock.now += 10.0
    fourth_path = second_manager.save()
    assert exists(second_path) and exists(third_path)
    assert second_manager.checkpoints == [fourth_path]
    clock.now += 10.0
    fifth_path = second_manager.save()
    assert exists(second_path) and exists(third_path)
    assert second_manager.checkpoints == [fifth_path]
    state = rt.train.get_checkpoint_state(directory)
    assert state.last_preserved_timestamp == 5000.0
    assert state.all_model_checkpoint_timestamps == [5020.0]


def test_custom_numbering(tmp_path):
    # testCustomNumbering
    directory = str(tmp_path)
    step = rt.Variable(0, dtype=rt.int64)
    checkpoint = rt.train.Checkpoint(step=step)
    manager = rt.train.CheckpointManager(checkpoint, directory, max_to_keep=2)
    for i in range(5):
        path = manager.save(checkpoint_number=step)
        assert path.endswith(f"-{2 * i}")
        step.assign_add(2)
    assert int(checkpoint.save_counter.numpy()) == 5
    last_path = manager.save(checkpoint_number=32)
    assert "-32" in last_path
    assert manager.latest_checkpoint == last_path == rt.train.latest_checkpoint(directory)
    assert rt.train.get_checkpoint_state(directory).all_model_checkpoint_paths == [
        path,
        last_path,
    ]


def test_custom_checkpoint_name_and_pathlib_directory(tmp_path):
    # testCustomCheckpointPrefix, testCheckpointManagerFSpathDirectory
    directory = pathlib.Path(tmp_path)
    checkpoint = rt.train.Checkpoint(v=rt.Variable(0.0))
    manager = rt.train.CheckpointManager(
        checkpoint, directory, max_to_keep=2, checkpoint_name="ckpt_name"
    )
    assert manager.save(checkpoint_number=5) == str(directory / "ckpt_name-5")
    assert rt.train.latest_checkpoint(directory) == str(directory / "ckpt_name-5")
    assert manager.restore_or_initialize() == str(directory / "ckpt_name-5")
    manager = rt.train.CheckpointManager(checkpoint, directory, max_to_keep=2)
    assert os.path.basename(manager.save(checkpoint_number=5)) == "ckpt-5"


def test_restore_or_initialize(tmp_path):
    # testRestoreOrInitialize
    init_path = rt.train.Checkpoint(v=rt.Variable(2.0)).save(str(tmp_path / "init"))
    v = rt.Variable(1.0)
    checkpoint = rt.train.Checkpoint(v=v)
    manager = rt.train.CheckpointManager(
        checkpoint,
        str(tmp_path / "ckpt"),
        max_to_keep=None,
        init_fn=lambda: checkpoint.restore(init_path),
    )
    assert manager.restore_or_initialize() is None
    assert v.numpy() == 2.0
    manager.save()
    assert manager.restore_or_initialize() is not None


def test_checkpoint_interval(tmp_path):
    # testCheckpointInterval
    step_counter = rt.Variable(0)
    manager = rt.train.CheckpointManager(
        rt.train.Checkpoint(v=rt.Variable(1.0)),
        str(tmp_path),
        max_to_keep=None,
        step_counter=step_counter,
        checkpoint_interval=2,
    )
    assert exists(manager.save(check_interval=True))
    step_counter.assign_add(1)
    assert manager.save(check_interval=True) is None
    step_counter.assign_add(1)
    assert exists(manager.save(check_interval=True))
    assert manager.save(check_interval=True) is None
    step_counter.assign_add(1)
    assert manager.save(check_interval=True) is None
    assert exists(manager.save(check_interval=False))
    with pytest.raises(ValueError, match="`step_counter` should be passed"):
        rt.train.CheckpointManager(
            rt.train.Checkpoint(), str(tmp_path), max_to_keep=1, checkpoint_interval=2
        )


def test_max_to_keep_must_be_positive(tmp_path):
    with pytest.raises(ValueError, match="Expected a positive integer or `None`"):
        rt.train.CheckpointManager(rt.train.Checkpoint(), str(tmp_path), max_to_keep=0)


# --- the state file --------------------------------------------------------------------------


def test_latest_checkpoint_of_a_directory_without_one(tmp_path):
    assert rt.train.latest_checkpoint(str(tmp_path)) is None
    assert rt.train.latest_checkpoint(str(tmp_path / "missing")) is None


def test_latest_checkpoint_whose_files_are_gone(tmp_path, caplog):
    path = rt.train.Checkpoint().save(str(tmp_path / "ckpt"))
    os.unlink(path + ".index")
    with caplog.at_level(logging.ERROR, logger="runtime"):
        assert rt.train.latest_checkpoint(str(tmp_path)) is None
    assert "Couldn't match files for checkpoint" in caplog.text


def test_relative_paths_are_stored_and_completed(tmp_path, monkeypatch):
    # testCheckPointCompletesRelativePaths: TensorFlow's own text is read.
    (tmp_path / "checkpoint").write_text(
        'model_checkpoint_path: "./model.ckpt-687529"\n'
        'all_model_checkpoint_paths: "./model.ckpt-687500"\n'
        'all_model_checkpoint_paths: "./model.ckpt-687529"\n'
    )
    state = rt.train.get_checkpoint_state(str(tmp_path))
    assert state.model_checkpoint_path == os.path.join(str(tmp_path), "./model.ckpt-687529")
    assert state.all_model_checkpoint_paths == [
        os.path.join(str(tmp_path), "./model.ckpt-687500"),
        os.path.join(str(tmp_path), "./model.ckpt-687529"),
    ]
    # A save in a relative directory stores the path relative to it.
    monkeypatch.chdir(tmp_path)
    path = rt.train.Checkpoint().save(os.path.join("train", "ckpt"))
    assert (
        (tmp_path / "train" / "checkpoint")
        .read_text()
        .startswith('model_checkpoint_path: "ckpt-1"\n')
    )
    assert rt.train.latest_checkpoint("train") == path


def test_an_empty_state_file(tmp_path):
    # testCheckPointStateFailsWhenIncomplete
    (tmp_path / "checkpoint").write_text("")
    with pytest.raises(ValueError, match="Invalid checkpoint state"):
        rt.train.get_checkpoint_state(str(tmp_path))


def test_an_unparsable_state_file_is_ignored(tmp_path, caplog):
    (tmp_path / "checkpoint").write_bytes(b"model_checkpoint_path: __import__('os')\n")
    with caplog.at_level(logging.WARNING, logger="runtime"):
        assert rt.train.latest_checkpoint(str(tmp_path)) is None
    assert "Checkpoint ignored" in caplog.text


def test_odd_characters_in_paths_round_trip(tmp_path):
    directory = tmp_path / 'quote"back\\slash \u00e9'
    path = rt.train.Checkpoint().save(str(directory / "ckpt"))
    assert rt.train.latest_checkpoint(str(directory)) == path


def test_a_state_file_cannot_make_the_manager_delete_elsewhere(tmp_path, caplog):
    directory, elsewhere = tmp_path / "run", tmp_path / "other"
    directory.mkdir()
    elsewhere.mkdir()
    (elsewhere / "important.index").write_text("keep me")
    (directory / "checkpoint").write_text(
        'model_checkpoint_path: "ckpt-9"\n'
        'all_model_checkpoint_paths: "../other/important"\n'
        "all_model_checkpoint_timestamps: 1e18\n"
    )
    with caplog.at_level(logging.WARNING, logger="runtime"):
        manager = rt.train.CheckpointManager(rt.train.Checkpoint(), str(directory), max_to_keep=1)
    assert manager.checkpoints == []
    assert "not in the directory" in caplog.text
    manager.save()
    manager.save()
    assert (elsewhere / "important.index").read_text() == "keep me"


def test_the_manager_deletes_every_data_shard(tmp_path):
    manager = rt.train.CheckpointManager(rt.train.Checkpoint(), str(tmp_path), max_to_keep=1)
    first = manager.save()
    for shard in ("data-00000-of-00002", "data-00001-of-00002"):  # as TensorFlow shards them
        pathlib.Path(f"{first}.{shard}").write_bytes(b"x")
    pathlib.Path(f"{first}0.data-00000-of-00001").write_bytes(b"another prefix's")
    manager.save()
    assert sorted(os.listdir(tmp_path)) == [
        "checkpoint",
        "ckpt-10.data-00000-of-00001",
        "ckpt-2.data-00000-of-00001",
        "ckpt-2.index",
    ]


@pytest.mark.parametrize(
    "text, latest, kept",
    [
        ('model_checkpoint_path: "a" # a comment\n', "a", []),
        ('model_checkpoint_path:"a"  all_model_checkpoint_paths: "a";', "a", ["a"]),
        ("model_checkpoint_path: 'a'\n# comment line\n", "a", []),
        ('model_checkpoint_path: "a" "b"', "ab", []),  # adjacent strings join
        ('model_checkpoint_path: "\\141\\x62\\"c"', 'ab"c', []),
        ('model_checkpoint_path: "x"\nmodel_checkpoint_path: "y"\n', "y", []),  # the last
    ],
)
def test_state_files_in_protobuf_text(tmp_path, text, latest, kept):
    (tmp_path / "checkpoint").write_text(text)
    state = rt.train.get_checkpoint_state(str(tmp_path))
    assert state.model_checkpoint_path == str(tmp_path / latest)
    assert state.all_model_checkpoint_paths == [str(tmp_path / k) for k in kept]


@pytest.mark.parametrize(
    "text, problem",
    [
        ('model_checkpoint_path: "a\\"\n', "Unterminated string"),
        ('model_checkpoint_path: "a"b"\n', "Unterminated string"),
        ('model_checkpoint_path: "a"\nlast_preserved_timestamp: nan\n', "must be finite"),
        ('model_checkpoint_path: "a" unknown: 1', 'has no field named "unknown"'),
        ('model_checkpoint_path "a"', 'Expected ":"'),
        ('model_checkpoint_path: "\\q"', "Invalid escape"),
    ],
)
def test_a_malformed_state_file_is_logged_and_ignored(tmp_path, caplog, text, problem):
    (tmp_path / "checkpoint").write_text(text)
    with caplog.at_level(logging.WARNING, logger="runtime"):
        assert rt.train.get_checkpoint_state(str(tmp_path)) is None
    assert "ParseError: " in caplog.text and problem in caplog.text
    assert f"{tmp_path / 'checkpoint'}: Checkpoint ignored" in caplog.text


def test_a_junk_state_file_fails_at_its_first_token(tmp_path, caplog, monkeypatch):
    # The parser stops at the first error, as protobuf's does: the rest of a large junk file is
    # never tokenized (it took seconds and hundreds of MB when every token was made first).
    from runtime.saving import checkpoint_state

    made = []
    tokens = checkpoint_state._tokens
    monkeypatch.setattr(
        checkpoint_state, "_tokens", lambda text: (made.append(t) or t for t in tokens(text))
    )
    (tmp_path / "checkpoint").write_text("junk " * 100_000 + "\x01")
    with caplog.at_level(logging.WARNING, logger="runtime"):
        assert rt.train.latest_checkpoint(str(tmp_path)) is None
    assert 'has no field named "junk"' in caplog.text
    assert len(made) <= 2
