"""Saves are atomic, take turns, and keep what is not theirs; string variables save and load.

The killed and concurrent saves run in real processes: a child is SIGKILLed at
every file-system step of a save and at random times, and savers and readers
run side by side; after each, the path must hold one complete model.
"""

import hashlib
import json
import os
import subprocess
import sys
import textwrap
import types

import numpy as np
import pytest

import autograph as ag
import runtime as rt
from runtime.saved_model import SavedModelError
from tests.runtime.saving.model_files import arrays_path, files_of

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))

# A model whose parts all say `value`: its variables, and a constant in its function's graph.
# Each load checks they agree, so a mix of two saves would show.
MODEL = textwrap.dedent(
    """
    import json, os, random, signal, sys, time
    import numpy as np
    import autograph as ag
    import runtime as rt


    class Model(rt.Module):
        def __init__(self, value):
            super().__init__()
            self.values = rt.Variable(np.full([256], value, np.float32))
            self.label = rt.Variable(str(value))
            factor = float(value)

            @ag.function(input_signature=[rt.TensorSpec([], rt.float32)], autograph=False)
            def scaled(x):
                return x * factor

            self.scaled = scaled
            scaled.get_concrete_function()  # traced now: a save then only writes files


    def check(path, allowed):
        loaded = rt.saved_model.load(path)
        value = float(loaded.values.numpy()[0])
        assert value in allowed, value
        assert (loaded.values.numpy() == value).all()
        assert float(loaded.scaled(rt.constant(1.0)).numpy()) == value
        assert loaded.label.numpy() == str(value).encode()
        return value
    """
)

KILLED = MODEL + textwrap.dedent(
    """
    path = sys.argv[1]
    STEPS = ("open", "write", "fsync", "replace", "unlink", "close", "listdir", "makedirs")


    def save_killed_at(model, step):
        # Kills this process at the step-th file-system call of the save; a write is cut in two.
        calls = [0]
        real = {name: getattr(os, name) for name in STEPS}

        def hooked(name):
            def call(*args, **kwargs):
                calls[0] += 1
                if calls[0] == step:
                    if name == "write":
                        real["write"](args[0], bytes(args[1])[: len(args[1]) // 2])
                    os.kill(os.getpid(), signal.SIGKILL)
                return real[name](*args, **kwargs)
            return call

        for name in STEPS:
            setattr(os, name, hooked(name))
        rt.saved_model.save(model, path)


    old, new = Model(1.0), Model(2.0)
    rt.saved_model.save(old, path)
    outcomes = []
    step = 0
    while True:
        step += 1
        pid = os.fork()
        if pid == 0:
            save_killed_at(new, step)
            os._exit(0)
        _, status = os.waitpid(pid, 0)
        outcomes.append((os.WIFSIGNALED(status), check(path, {1.0, 2.0})))
        if not os.WIFSIGNALED(status):
            break
        rt.saved_model.save(old, path)  # the next kill starts from the old model again
    models = [Model(3.0), Model(4.0)]
    for _ in range(15):  # and killed at random times, saving in a loop
        pid = os.fork()
        if pid == 0:
            for i in range(1000):
                rt.saved_model.save(models[i % 2], path)
            os._exit(0)
        time.sleep(random.uniform(0, 0.05))
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        outcomes.append((True, check(path, {1.0, 2.0, 3.0, 4.0})))
    print(json.dumps(outcomes))
    """
)

CONCURRENT = MODEL + textwrap.dedent(
    """
    path, stop = sys.argv[1], sys.argv[2]
    SAVERS, SAVES, READERS = 4, 12, 2


    def child(work):
        pid = os.fork()
        if pid == 0:
            try:
                work()
            except BaseException as e:
                print(f"{type(e).__name__}: {e}", flush=True)
                os._exit(1)
            os._exit(0)
        return pid


    def saver(i):
        model = Model(float(i))
        for _ in range(SAVES):
            rt.saved_model.save(model, path)


    def reader():
        loads = 0
        while not os.path.exists(stop) or loads == 0:
            check(path, {float(i) for i in range(SAVERS + 1)})
            loads += 1


    rt.saved_model.save(Model(float(SAVERS)), path)
    readers = [child(reader) for _ in range(READERS)]
    savers = [child(lambda i=i: saver(i)) for i in range(SAVERS)]
    failed = sum(os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]) != 0 for pid in savers)
    open(stop, "w").close()
    failed += sum(os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]) != 0 for pid in readers)
    print(failed, check(path, {float(i) for i in range(SAVERS)}))
    """
)


def _run(script, *args):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([REPO, os.environ.get("PYTHONPATH", "")]))
    result = subprocess.run(
        [sys.executable, "-c", script, *args], capture_output=True, text=True, env=env, timeout=120
    )
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout


def test_a_save_killed_at_any_step_leaves_the_old_model_or_the_new_one(tmp_path):
    path = tmp_path / "model"
    path.mkdir()
    (path / "notes.txt").write_text("mine")
    outcomes = json.loads(_run(KILLED, str(path)))  # a list of [killed, value loaded after]
    killed_steps = [value for killed, value in outcomes[:-16] if killed]
    assert len(killed_steps) >= 10  # every file-system step of a save was a kill point
    # Killed before its commit, a save leaves the old model; after it, the new one.
    first_new = killed_steps.index(2.0)
    assert set(killed_steps[:first_new]) == {1.0} and set(killed_steps[first_new:]) == {2.0}
    assert outcomes[-16] == [False, 2.0]  # the first save that ran to its end
    assert (path / "notes.txt").read_text() == "mine"
    rt.saved_model.save(rt.Module(), str(path), signatures=_double)  # cleans up after kills
    assert sorted(n.split("-")[0] for n in os.listdir(path)) == [
        "arrays",
        "notes.txt",
        "saved_model.json",
    ]


def test_concurrent_saves_end_with_one_complete_model_and_readers_always_load_one(tmp_path):
    path = tmp_path / "model"
    path.mkdir()
    (path / "notes.txt").write_text("mine")
    failed, final = _run(CONCURRENT, str(path), str(tmp_path / "stop")).split()
    assert failed == "0"  # no saver raised (no OSError), no reader failed to load
    assert float(final) in {0.0, 1.0, 2.0, 3.0}
    assert (path / "notes.txt").read_text() == "mine"
    assert len([n for n in os.listdir(path) if n.startswith("arrays-")]) == 1


# --- in this process ----------------------------------------------------------------------


@ag.function(input_signature=[rt.TensorSpec([], rt.float32)], autograph=False)
def _double(x):
    return x * 2.0


def test_files_and_folders_that_are_not_the_models_stay(tmp_path):
    path = tmp_path / "model"
    (path / "sub").mkdir(parents=True)
    (path / "notes.txt").write_text("mine")
    (path / "sub" / "data.bin").write_bytes(b"\x00")
    (path / "arrays.npz").write_bytes(b"not ours: the name of an old format")
    for _ in range(3):
        rt.saved_model.save(rt.Module(), str(path), signatures=_double)
    assert (path / "notes.txt").read_text() == "mine"
    assert (path / "sub" / "data.bin").read_bytes() == b"\x00"
    assert (path / "arrays.npz").exists()
    loaded = rt.saved_model.load(str(path))
    (result,) = rt.nest.flatten(loaded.signatures["serving_default"](x=rt.constant(2.0)))
    assert result.numpy() == 4.0


def test_string_variables_save_and_load_as_bytes(tmp_path):
    module = rt.Module()
    module.word = rt.Variable("héllo")
    module.table = rt.Variable(np.array([[b"", b"\xff\xfe"], [b"a\x00b", "é".encode()]], object))

    @ag.function(input_signature=[rt.TensorSpec([], rt.string)], autograph=False)
    def greet(name):
        module.word.assign(rt.strings.join([module.word, name], separator=" "))
        return module.word.read_value()

    module.greet = greet
    path = str(tmp_path / "strings")
    rt.saved_model.save(module, path)
    arrays = [n for n in os.listdir(path) if n.startswith("arrays-")]
    with open(os.path.join(path, arrays[0]), "rb") as f:
        assert b"\x80" not in f.read()[:2]  # not a pickle (protocol 2+ starts with \x80)
    loaded = rt.saved_model.load(path)
    assert loaded.word.numpy() == "héllo".encode()
    assert loaded.table.numpy().tolist() == module.table.numpy().tolist()
    assert loaded.greet(rt.constant("you")).numpy() == "héllo you".encode()
    assert loaded.word.numpy() == "héllo you".encode()


def test_a_value_that_cannot_be_saved_is_refused_before_anything_is_touched(tmp_path):
    path = str(tmp_path / "model")
    rt.saved_model.save(rt.Module(), path, signatures=_double)
    before = files_of(path)
    module = rt.Module()
    module.bad = rt.Variable("x")
    module.bad._value = np.array([b"ok", 7], dtype=object)  # not all bytes: would need a pickle
    with pytest.raises(SavedModelError, match="Cannot save variable 'Variable:0'.*array of bytes"):
        rt.saved_model.save(module, path, signatures=_double)
    assert files_of(path) == before
    assert rt.saved_model.load(path).signatures["serving_default"] is not None


def test_a_failed_commit_keeps_the_old_model_and_leaves_nothing_behind(tmp_path, monkeypatch):
    path = str(tmp_path / "model")
    old = rt.Module()
    old.v = rt.Variable(1.0)
    rt.saved_model.save(old, path, signatures=_double)
    before = files_of(path)

    def refuse(*args):
        raise OSError(30, "Read-only file system")

    monkeypatch.setattr(os, "replace", refuse)
    new = rt.Module()
    new.v = rt.Variable(2.0)
    with pytest.raises(SavedModelError, match="Cannot save to .*Read-only file system"):
        rt.saved_model.save(new, path, signatures=_double)
    monkeypatch.undo()
    assert files_of(path) == before
    assert rt.saved_model.load(path).v.numpy() == 1.0


def test_a_path_that_is_a_file_is_refused(tmp_path):
    target = tmp_path / "file"
    target.write_text("mine")
    with pytest.raises(SavedModelError, match="exists and is not a directory"):
        rt.saved_model.save(rt.Module(), str(target), signatures=_double)
    assert target.read_text() == "mine"


class _Weights(rt.Module):
    def __init__(self, count):
        super().__init__()
        self.weights = [rt.Variable(float(i)) for i in range(count)]

    @ag.function(input_signature=[], autograph=False)
    def first(self):
        return self.weights[0] * 1.0


def test_a_description_that_load_would_refuse_for_its_size_is_not_saved(tmp_path, monkeypatch):
    import runtime.saving.writer as writer

    path = str(tmp_path / "model")
    rt.saved_model.save(_Weights(1), path)
    before = files_of(path)
    monkeypatch.setattr(writer, "MAX_DESCRIPTION_VALUES", 300)
    with pytest.raises(SavedModelError, match="over 300 JSON values, the limit that loading"):
        rt.saved_model.save(_Weights(50), path)
    monkeypatch.setattr(writer, "MAX_DESCRIPTION_BYTES", 3000)
    with pytest.raises(SavedModelError, match="over the limit of 3000 bytes that loading"):
        rt.saved_model.save(_Weights(50), path)
    assert files_of(path) == before
    assert rt.saved_model.load(path).first().numpy() == 0.0


class _Scaled(rt.Module):
    def __init__(self, scale):
        super().__init__()
        self.scale = rt.Variable(scale)

    @ag.function(input_signature=[rt.TensorSpec([], rt.float32)], autograph=False)
    def __call__(self, x):
        return x * self.scale


def test_the_arrays_loaded_are_the_bytes_whose_sha256_was_checked(tmp_path, monkeypatch):
    import runtime.saving.reader as reader

    path, other = str(tmp_path / "model"), str(tmp_path / "other")
    rt.saved_model.save(_Scaled(2.0), path)
    rt.saved_model.save(_Scaled(3.0), other)
    arrays_file, rewritten = arrays_path(path), files_of(other)
    (replacement,) = (data for name, data in rewritten.items() if name.startswith("arrays-"))
    assert len(replacement) == os.path.getsize(arrays_file)

    class RewrittenWhenChecked:
        """SHA-256 that, once the digest is taken, rewrites the file in place: as a writer
        racing the load would, between the check and the parse."""

        def __init__(self, data=b""):
            self._sha = hashlib.sha256(data)

        def update(self, data):
            self._sha.update(data)

        def hexdigest(self):
            digest = self._sha.hexdigest()
            with open(arrays_file, "r+b") as f:
                f.write(replacement)
            return digest

    monkeypatch.setattr(reader, "hashlib", types.SimpleNamespace(sha256=RewrittenWhenChecked))
    assert rt.saved_model.load(path).scale.numpy() == 2.0  # the checked bytes, not 3.0


def test_an_arrays_file_that_grows_while_it_is_read_is_refused_naming_it(tmp_path, monkeypatch):
    import runtime.saving.reader as reader

    path = str(tmp_path / "model")
    rt.saved_model.save(_Scaled(2.0), path)
    arrays_file = arrays_path(path)
    opened = reader.open_regular_file

    def open_then_grow(name, *args):
        file, size = opened(name, *args)
        if name == arrays_file:
            with open(arrays_file, "ab") as f:
                f.write(b"\0")  # after its size was taken, before it is read
        return file, size

    monkeypatch.setattr(reader, "open_regular_file", open_then_grow)
    with pytest.raises(SavedModelError, match="the arrays file changed size while it was read"):
        rt.saved_model.load(path)
