"""rt.train.Checkpoint restores that wait for objects created later: several side by side,
no open file each, and a data file changed meanwhile refused before the attribute is set.

Expected values are those written (TensorFlow keeps every deferred restoration; the newest
with a value for an object gives it its value).
"""

import errno
import gc
import os
import shutil

import numpy as np
import pytest

import runtime as rt
from runtime.saving import checkpoint_files, files
from runtime.state import deferred


def _written(path, **values):
    module = rt.Module()
    for name, value in values.items():
        setattr(module, name, rt.Variable(value))
    return rt.train.Checkpoint(model=module).write(str(path))


def _open_files():
    return len(os.listdir("/proc/self/fd"))


def test_a_second_restore_keeps_the_first_one_s_other_waits(tmp_path):
    first = _written(tmp_path / "one", a=1.0, b=[1.0, 2.0])
    second = _written(tmp_path / "two", a=3.0)
    fresh = rt.Module()
    fresh.a = rt.Variable(0.0)
    checkpoint = rt.train.Checkpoint(model=fresh)
    checkpoint.restore(first).expect_partial()
    checkpoint.restore(second).expect_partial()
    fresh.b = rt.Variable([0.0, 0.0])  # only the first restore has b
    np.testing.assert_allclose(fresh.a.numpy(), 3.0)
    np.testing.assert_allclose(fresh.b.numpy(), [1.0, 2.0])


def test_of_two_waiting_restores_the_newest_gives_the_value(tmp_path):
    first = _written(tmp_path / "one", b=[1.0, 2.0])
    second = _written(tmp_path / "two", b=[5.0, 6.0])
    fresh = rt.Module()
    checkpoint = rt.train.Checkpoint(model=fresh)
    checkpoint.restore(first).expect_partial()
    rt.train.Checkpoint(model=fresh).restore(second).expect_partial()
    fresh.b = rt.Variable([0.0, 0.0])
    np.testing.assert_allclose(fresh.b.numpy(), [5.0, 6.0])


def test_waiting_restores_hold_no_open_file(tmp_path):
    # An evaluator: a new Checkpoint per checkpoint, an optimizer that never makes its slots.
    model = rt.Module()
    model.w = rt.Variable([1.0, 2.0])
    adam = rt.keras.optimizers.Adam(0.1)
    adam.apply_gradients([(rt.ones([2]), model.w)])
    path = rt.train.Checkpoint(model=model, optimizer=adam).save(str(tmp_path / "ck"))
    evaluated = rt.Module()
    evaluated.w = rt.Variable([0.0, 0.0])
    idle = rt.keras.optimizers.Adam(0.1)
    rt.train.Checkpoint(model=evaluated, optimizer=idle).restore(path).expect_partial()
    gc.collect()
    before = _open_files()
    for _ in range(30):
        rt.train.Checkpoint(model=evaluated, optimizer=idle).restore(path).expect_partial()
    gc.collect()
    assert _open_files() <= before
    # Adam's first step moves each weight by the learning rate: w - 0.1 * g / |g|.
    np.testing.assert_allclose(evaluated.w.numpy(), [0.9, 1.9], rtol=1e-5)


def test_too_many_open_files_is_no_damage(tmp_path, monkeypatch):
    path = _written(tmp_path / "ck", a=1.0)
    real_open = os.open

    def failing_open(name, *args, **kwargs):
        if os.fspath(name).endswith(checkpoint_files.DATA_SUFFIX):
            raise OSError(errno.EMFILE, "Too many open files", name)
        return real_open(name, *args, **kwargs)

    monkeypatch.setattr(files.os, "open", failing_open)
    with pytest.raises(OSError) as raised:
        rt.train.Checkpoint(model=rt.Module()).restore(path)
    assert raised.value.errno == errno.EMFILE
    assert not isinstance(raised.value, rt.errors.DataLossError)


def test_a_data_file_overwritten_in_place_is_refused_before_the_attribute_is_set(tmp_path):
    first = _written(tmp_path / "one", a=1.0, b=[1.0, 2.0])
    second = _written(tmp_path / "two", a=1.0, b=[7.0, 8.0])
    fresh = rt.Module()
    fresh.a = rt.Variable(0.0)
    status = rt.train.Checkpoint(model=fresh).restore(first)
    status.expect_partial()
    for suffix in (checkpoint_files.DATA_SUFFIX, checkpoint_files.INDEX_SUFFIX):
        shutil.copyfile(second + suffix, first + suffix)  # as cp or rsync --inplace do
    with pytest.raises(rt.errors.DataLossError, match="overwritten since it was restored"):
        fresh.b = rt.Variable([0.0, 0.0])
    assert "b" not in vars(fresh)
    fresh.b = rt.Variable([0.0, 0.0])  # refused once: the restore no longer waits
    np.testing.assert_allclose(fresh.b.numpy(), [0.0, 0.0])


class _Recorder:
    calls = []

    def __setattr__(self, name, value):
        _Recorder.calls.append(name)
        object.__setattr__(self, name, value)


class _LayerWithMixin(rt.keras.layers.Layer, _Recorder):
    def __init__(self):
        super().__init__()
        self.z = 1


def test_a_waiting_restore_changes_no_class_s_setattr(tmp_path):
    # Module reports attribute sets only while a restore waits: the classes whose __setattr__
    # runs are the same either way.
    gc.collect()
    assert not deferred._waiting
    _Recorder.calls = []
    _LayerWithMixin()
    without_hook = list(_Recorder.calls)
    fresh = rt.Module()
    status = rt.train.Checkpoint(model=fresh).restore(_written(tmp_path / "ck", b=1.0))
    assert "__setattr__" in vars(rt.Module)
    _Recorder.calls = []
    _LayerWithMixin()
    assert _Recorder.calls == without_hook
    assert "z" in without_hook  # Keras' Layer passes a set on to the next class
    status.expect_partial()
