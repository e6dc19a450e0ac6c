"""rt.train.Checkpoint: saved and restored by object graph, deferred restoration, load status.

Most cases are TensorFlow's own (tensorflow/python/checkpoint/checkpoint_test.py), translated:
``autotrackable.AutoTrackable()`` is ``rt.Module()``, ``add_variable(obj, "v", ...)`` is
``obj.v = rt.Variable(...)``; the expected values are TensorFlow's.
"""

import gc
import logging
import os
import pathlib
import weakref

import numpy as np
import pytest

import runtime as rt
from runtime.state import deferred


def _waiting_names(parent):
    """The edge names of ``parent`` that restorations wait for (the pending table, read)."""
    entry = deferred._waiting.get(id(parent))
    return [] if entry is None or entry[0]() is not parent else sorted(entry[1])


def _module(**variables):
    module = rt.Module()
    for name, value in variables.items():
        setattr(module, name, value)
    return module


def test_save_restore_values(tmp_path):
    v = rt.Variable(42.0)
    checkpoint = rt.train.Checkpoint(v=v)
    save_path = checkpoint.save(str(tmp_path / "ckpt"))
    v.assign(43.0)
    checkpoint.restore(save_path).assert_consumed()
    assert v.numpy() == 42.0
    v.assign(44.0)
    save_path = checkpoint.save(str(tmp_path / "ckpt"))
    v.assign(45.0)
    checkpoint.restore(save_path).assert_consumed()
    assert v.numpy() == 44.0


def test_numbered_prefixes_and_tensorflow_file_names(tmp_path):
    # testCheckpointState: no checkpoint is deleted by save(); the state file lists the last.
    prefix = str(tmp_path / "ckpt")
    checkpoint = rt.train.Checkpoint(obj=_module(var=rt.Variable(0.0)))
    paths = [checkpoint.save(prefix) for _ in range(10)]
    assert paths == [f"{prefix}-{n}" for n in range(1, 11)]
    expected = {"checkpoint"} | {f"ckpt-{n}.index" for n in range(1, 11)}
    expected |= {f"ckpt-{n}.data-00000-of-00001" for n in range(1, 11)}
    assert set(os.listdir(tmp_path)) == expected
    assert rt.train.latest_checkpoint(str(tmp_path)) == prefix + "-10"
    assert rt.train.get_checkpoint_state(str(tmp_path)).all_model_checkpoint_paths == [
        prefix + "-10"
    ]
    assert int(checkpoint.save_counter.numpy()) == 10


def test_changing_variable_list(tmp_path):
    # testCheckpointStateChangingVarList
    prefix = str(tmp_path / "ckpt")
    checkpoint = rt.train.Checkpoint(obj=_module(var=rt.Variable(0.0)))
    looped = []
    for iteration in range(10):
        variable = rt.Variable(iteration)
        setattr(checkpoint, f"var_{iteration}", variable)
        checkpoint.save(prefix)
        looped.append(variable)
    assert rt.train.latest_checkpoint(str(tmp_path)) == prefix + "-10"
    for v in looped:
        v.assign(314)
    checkpoint.restore(prefix + "-6")
    assert [int(getattr(checkpoint, f"var_{i}").numpy()) for i in (9, 8, 6, 5, 1, 0)] == [
        314,
        314,
        314,
        5,
        1,
        0,
    ]
    checkpoint.restore(prefix + "-10")
    assert [int(getattr(checkpoint, f"var_{i}").numpy()) for i in (9, 8, 1, 0)] == [9, 8, 1, 0]


def test_write_takes_the_path_as_given(tmp_path):
    # testCustomNumbering
    prefix = str(tmp_path / "ckpt")
    step = rt.Variable(0, dtype=rt.int64)
    checkpoint = rt.train.Checkpoint(step=step)
    for i in range(5):
        path = checkpoint.write(f"{prefix}-{int(step.numpy())}")
        assert path.endswith(f"-{2 * i}")
        step.assign_add(2)
    assert not os.path.exists(tmp_path / "checkpoint")  # write() records no state
    assert checkpoint._save_counter is None


def test_write_then_read_is_consumed(tmp_path):
    # test_write_checkpoint_path_str_from_function, eagerly
    prefix = str(tmp_path / "ckpt")
    save = rt.train.Checkpoint(v=rt.Variable(1.0))
    save.write(prefix)
    load = rt.train.Checkpoint(v=rt.Variable(0.0))
    load.read(prefix).assert_existing_objects_matched().assert_consumed()
    assert load.v.numpy() == 1.0
    save.v.assign(3.0)
    save.write(prefix)
    load.read(prefix).assert_consumed()
    assert load.v.numpy() == 3.0


def test_pathlib_paths(tmp_path):
    # test_save_restore_fspath, test_read_write_fspath
    v, w = rt.Variable(1.0), rt.Variable(0.0)
    save_path = rt.train.Checkpoint(v=v).save(pathlib.Path(tmp_path) / "ckpt")
    rt.train.Checkpoint(v=w).restore(pathlib.Path(save_path))
    assert w.numpy() == 1.0
    w.assign(0.0)
    rt.train.Checkpoint(v=v).write(pathlib.Path(tmp_path) / "w")
    rt.train.Checkpoint(v=w).read(pathlib.Path(tmp_path) / "w")
    assert w.numpy() == 1.0


def test_restore_into_a_fresh_object_by_path_not_name(tmp_path):
    class Net(rt.Module):
        def __init__(self, name):
            super().__init__(name=name)
            self.layers = [_module(w=rt.Variable([1.0, 2.0], name="first"))]
            self.table = {"scale": rt.Variable(3.0, name="second")}

    saved = Net("saved")
    path = rt.train.Checkpoint(net=saved).save(str(tmp_path / "ckpt"))
    fresh = Net("other_name")
    fresh.layers[0].w.assign([0.0, 0.0])
    fresh.table["scale"].assign(0.0)
    rt.train.Checkpoint(net=fresh).restore(path).assert_consumed()
    np.testing.assert_array_equal(fresh.layers[0].w.numpy(), [1.0, 2.0])
    assert fresh.table["scale"].numpy() == 3.0


def test_data_structures(tmp_path):
    # test_inititialize_with_data_structures
    checkpoint = rt.train.Checkpoint(
        a=[rt.Variable(0.0), rt.Variable(1.0)], b={"a": rt.Variable(2.0), "b": rt.Variable(3.0)}
    )
    path = checkpoint.save(str(tmp_path / "ckpt"))
    load = rt.train.Checkpoint(
        a=[rt.Variable(4.0), rt.Variable(5.0)], b={"a": rt.Variable(6.0), "b": rt.Variable(7.0)}
    )
    load.restore(path).assert_consumed()
    assert [v.numpy() for v in load.a] == [0.0, 1.0]
    assert {k: v.numpy() for k, v in load.b.items()} == {"a": 2.0, "b": 3.0}


def test_strings_and_integers_round_trip(tmp_path):
    words = rt.Variable([b"ab", b"", b"\x00c"], dtype=rt.string)
    counts = rt.Variable([[1, 2]], dtype=rt.int64)
    path = rt.train.Checkpoint(words=words, counts=counts).write(str(tmp_path / "c"))
    load = rt.train.Checkpoint(
        words=rt.Variable([b"", b"", b""], dtype=rt.string),
        counts=rt.Variable([[0, 0]], dtype=rt.int64),
    )
    load.read(path).assert_consumed()
    assert list(load.words.numpy()) == [b"ab", b"", b"\x00c"]
    np.testing.assert_array_equal(load.counts.numpy(), [[1, 2]])


# --- deferred restoration --------------------------------------------------------------------


def test_late_dependency_tracking(tmp_path):
    # testLateDependencyTracking
    class Dependency(rt.Module):
        def build(self):
            self.var = rt.Variable(0.0)

    class LateDependencies(rt.train.Checkpoint):
        def add_dep(self):
            self.dep = Dependency()
            self.dep.build()

    original = LateDependencies()
    original.add_dep()
    original.dep.var.assign(123.0)
    save_path = original.save(str(tmp_path / "ckpt"))
    load_into = LateDependencies()
    status = load_into.restore(save_path)
    status.assert_existing_objects_matched()
    with pytest.raises(AssertionError, match=r"Unresolved object in checkpoint \(root\)\.dep"):
        status.assert_consumed()
    load_into.add_dep()
    status.assert_consumed()
    status.assert_existing_objects_matched()
    assert load_into.dep.var.numpy() == 123.0


def test_dependency_attached_after_its_variable(tmp_path):
    # testDepAfterVar
    class Dependency(rt.Module):
        def build(self):
            self.var = rt.Variable(0.0)

    class DepAfterVar(rt.train.Checkpoint):
        def add_dep(self):
            dep = Dependency()
            dep.build()
            self.dep = dep

    original = DepAfterVar()
    original.add_dep()
    original.dep.var.assign(-14.0)
    save_path = original.save(str(tmp_path / "ckpt"))
    loaded = DepAfterVar()
    status = loaded.restore(save_path)
    loaded.add_dep()
    status.assert_consumed()
    assert loaded.dep.var.numpy() == -14.0


def test_overlapping_restores(tmp_path):
    # testOverlappingRestores: the last restore to reach the variable decides its value.
    save_root = rt.train.Checkpoint()
    save_root.dep = rt.Module()
    save_root.dep.var = rt.Variable(12.0)
    first_path = save_root.save(str(tmp_path / "first"))
    save_root.dep.var.assign(13.0)
    second_path = save_root.save(str(tmp_path / "second"))

    first_root, second_root = rt.train.Checkpoint(), rt.train.Checkpoint()
    first_status = first_root.restore(first_path)
    second_status = second_root.restore(second_path)
    load_dep = _module(var=rt.Variable(0.0))
    first_root.dep = load_dep
    first_status.assert_consumed()
    assert load_dep.var.numpy() == 12.0
    second_root.dep = load_dep
    second_status.assert_consumed()
    assert load_dep.var.numpy() == 13.0


def test_ambiguous_load(tmp_path):
    # testAmbiguousLoad: one saved object cannot become two.
    save_root = rt.train.Checkpoint()
    save_root.dep_one, save_root.dep_two = rt.Module(), rt.Module()
    dep_three = _module(var=rt.Variable(0.0))
    save_root.dep_one.dep_three = dep_three
    save_root.dep_two.dep_three = dep_three
    save_path = save_root.save(str(tmp_path / "ckpt"))
    load_root = rt.train.Checkpoint()
    status = load_root.restore(save_path)
    load_root.dep_one, load_root.dep_two = rt.Module(), rt.Module()
    load_root.dep_one.dep_three = _module(var=rt.Variable(0.0))
    load_root.dep_two.dep_three = _module(var=rt.Variable(0.0))
    with pytest.raises(AssertionError):
        status.assert_consumed()
    with pytest.raises(AssertionError, match="not bound to checkpointed values"):
        status.assert_existing_objects_matched()


def test_objects_combined(tmp_path):
    # testObjectsCombined: two saved objects may load into one.
    save_root = rt.train.Checkpoint()
    save_root.dep_one = _module(var1=rt.Variable(32.0, dtype=rt.float64))
    save_root.dep_two = _module(var2=rt.Variable(64.0, dtype=rt.float64))
    save_path = save_root.save(str(tmp_path / "ckpt"))
    load_root = rt.train.Checkpoint()
    load_root.dep_one = rt.Module()
    load_root.dep_two = load_root.dep_one
    v1 = load_root.dep_one.var1 = rt.Variable(0.0, dtype=rt.float64)
    v2 = load_root.dep_one.var2 = rt.Variable(0.0, dtype=rt.float64)
    load_root.restore(save_path).assert_consumed().assert_existing_objects_matched()
    assert (v1.numpy(), v2.numpy()) == (32.0, 64.0)


def test_empty_containers_ignored(tmp_path):
    # testEmptyContainersIgnored
    path = rt.train.Checkpoint(a=[]).save(str(tmp_path))
    load_root = rt.train.Checkpoint(b=[])
    load_root.dep = [[]]
    status = load_root.restore(path)
    status.assert_consumed()
    status.assert_existing_objects_matched()
    status.assert_nontrivial_match()


def test_dependency_loop(tmp_path):
    # testDependencyLoop
    first, second = rt.train.Checkpoint(), rt.train.Checkpoint()
    first.second = second
    second.first = first
    first.v = rt.Variable([3.0, 1.0, 4.0])
    second.v = rt.Variable([1.0, 1.0, 2.0, 3.0])
    save_path = first.save(str(tmp_path / "ckpt"))

    first_load = rt.train.Checkpoint()
    status = first_load.restore(save_path)
    second_load = rt.Module()
    first_load.second = second_load
    second_load.first = first_load
    with pytest.raises(AssertionError):
        status.assert_consumed()
    first_load.v = rt.Variable([0.0, 0.0, 0.0])
    second_load.v = rt.Variable([0.0, 0.0, 0.0, 0.0])
    status.assert_consumed()
    np.testing.assert_array_equal(first_load.v.numpy(), [3.0, 1.0, 4.0])
    np.testing.assert_array_equal(second_load.v.numpy(), [1.0, 1.0, 2.0, 3.0])

    first_load.v.assign([2.0, 7.0, 1.0])
    second_load.v.assign([2.0, 7.0, 1.0, 8.0])
    first_load.restore(save_path).assert_consumed()
    np.testing.assert_array_equal(first_load.v.numpy(), [3.0, 1.0, 4.0])
    np.testing.assert_array_equal(second_load.v.numpy(), [1.0, 1.0, 2.0, 3.0])


def test_restore_on_assign(tmp_path):
    # testRestoreOnAssign: a variable that existed before the restore, attached after it.
    first = rt.train.Checkpoint()
    first.var1 = rt.Variable(4.0, name="outside_var")
    first.var2 = rt.Variable(8.0, name="blah")
    save_path = first.save(str(tmp_path / "ckpt"))
    second = rt.train.Checkpoint()
    second.var2 = rt.Variable(0.0, name="blah")
    second.restore(save_path)
    recreated_var1 = rt.Variable(0.0, name="outside_var")
    assert second.var2.numpy() == 8.0
    recreated_var1.assign(-2.0)
    assert recreated_var1.numpy() == -2.0
    second.var1 = recreated_var1
    assert recreated_var1.numpy() == 4.0


def test_restore_into_an_empty_checkpoint_then_attach(tmp_path):
    # testFreezing, its last part: the save counter is restored at once, v when attached.
    v = rt.Variable(3, dtype=rt.int64)
    checkpoint = rt.train.Checkpoint(v=v)
    checkpoint.save_counter.assign(12)
    prefix = str(tmp_path / "ckpt")
    checkpoint.write(prefix)
    checkpoint = rt.train.Checkpoint()
    status = checkpoint.restore(prefix)
    v = rt.Variable(0, dtype=rt.int64)
    assert int(checkpoint.save_counter.numpy()) == 12
    assert int(v.numpy()) == 0
    checkpoint.v = v
    status.assert_consumed()
    assert int(v.numpy()) == 3


def test_deferred_only_for_branches_with_values(tmp_path):
    # test_defer_objects_with_values_only
    root = rt.Module()
    root.branch_with_value = _module(v=rt.Variable(5.0))
    root.branch_no_value = _module(child=rt.Module())
    root.v = rt.Variable(1.0)
    save_path = rt.train.Checkpoint(model=root).save(str(tmp_path / "ckpt"))
    new_root = rt.Module()
    rt.train.Checkpoint(model=new_root).restore(save_path)
    assert _waiting_names(new_root) == ["branch_with_value", "v"]
    new_root.branch_no_value = rt.Module()
    assert len(_waiting_names(new_root)) == 2
    new_root.branch_with_value = rt.Module()
    assert _waiting_names(new_root) == ["v"]
    new_root.v = rt.Variable(0.0)
    assert _waiting_names(new_root) == []
    assert new_root.v.numpy() == 1.0


def test_a_value_that_is_not_trackable_keeps_the_restoration_waiting(tmp_path):
    save_path = rt.train.Checkpoint(v=rt.Variable(7.0)).write(str(tmp_path / "c"))
    load = rt.train.Checkpoint()
    load.read(save_path)
    load.v = 1.0  # not a trackable: nothing to restore into yet
    load.v = rt.Variable(0.0)
    assert load.v.numpy() == 7.0


def test_pending_restorations_keep_nothing_alive(tmp_path):
    # test_deferred_dependency_avoids_reference_cycles
    deleted = []

    class WithDel(rt.Module):
        def __del__(self):
            deleted.append(True)

    x = _module(v=rt.Variable(100.0), has_del=WithDel())
    save_path = rt.train.Checkpoint(x).save(str(tmp_path / "ckpt"))
    no_v = _module(has_del=WithDel())
    checkpoint = rt.train.Checkpoint(no_v)
    checkpoint.restore(save_path).expect_partial()
    alive = weakref.ref(no_v)
    del checkpoint, no_v
    gc.collect()
    assert alive() is None
    assert deferred._waiting == {} or all(
        ref() is not None for ref, _ in deferred._waiting.values()
    )


# --- the root argument -----------------------------------------------------------------------


def _trackable():
    return _module(v=rt.Variable(2.0))


def test_root_object(tmp_path):
    # test_initialize_with_root_object
    model = _trackable()
    model.deferred_variable = rt.Variable(5.0)
    save_path = rt.train.Checkpoint(model).save(str(tmp_path / "ckpt"))
    new_model = _module(v=rt.Variable(0.0))
    rt.train.Checkpoint(new_model).restore(save_path)
    assert new_model.v.numpy() == 2.0
    new_model.deferred_variable = rt.Variable(1.0)
    assert new_model.deferred_variable.numpy() == 5.0


def test_root_object_and_keywords(tmp_path):
    # test_initialize_with_root_object_and_kwargs
    model = _trackable()
    model.v.assign(3.0)
    separate_variable = rt.Variable(5.0)
    with pytest.raises(ValueError, match="root.v already exists"):
        rt.train.Checkpoint(model, v=separate_variable)
    save_path = rt.train.Checkpoint(model, separate_variable=separate_variable).save(
        str(tmp_path / "ckpt")
    )
    # The same configuration.
    new_model, separate = _module(v=rt.Variable(0.0)), rt.Variable(1.0)
    load = rt.train.Checkpoint(new_model, separate_variable=separate)
    load.restore(save_path).assert_consumed()
    assert (new_model.v.numpy(), separate.numpy(), int(load.save_counter.numpy())) == (3, 5, 1)
    # v and separate_variable swapped between the root and the keywords.
    new_model = _module(separate_variable=rt.Variable(200.0))
    v = rt.Variable(100.0)
    load = rt.train.Checkpoint(new_model, v=v)
    load.restore(save_path).assert_consumed()
    assert (v.numpy(), new_model.separate_variable.numpy()) == (3.0, 5.0)
    # No root.
    separate, v = rt.Variable(200.0), rt.Variable(100.0)
    load = rt.train.Checkpoint(v=v, separate_variable=separate)
    load.restore(save_path).assert_consumed()
    assert (v.numpy(), separate.numpy(), int(load.save_counter.numpy())) == (3.0, 5.0, 1)


def test_root_keyword(tmp_path):
    # test_root_arg
    root = _module(v=rt.Variable(1))
    w, y = rt.Variable(2), rt.Variable(3)
    root_ckpt = rt.train.Checkpoint(root=root, w=w, y=y)
    root2 = _module(w=rt.Variable(4))
    v2, z = rt.Variable(5), rt.Variable(6)
    root2_ckpt = rt.train.Checkpoint(root=root2, v=v2, z=z)
    root_path = root_ckpt.save(str(tmp_path / "root_ckpt"))
    root2_path = root2_ckpt.save(str(tmp_path / "root2_ckpt"))
    root_ckpt.restore(root2_path)
    root2_ckpt.restore(root_path)
    assert [int(t.numpy()) for t in (root.v, w, y)] == [5, 4, 3]
    assert [int(t.numpy()) for t in (root2.w, v2, z)] == [2, 1, 6]


# --- status and errors -----------------------------------------------------------------------


def test_unused_attribute(tmp_path):
    # testAttributeException: a saved variable at a path that holds no variable here.
    save_path = rt.train.Checkpoint(v1=rt.Variable(2.0), v2=rt.Variable(3.0)).save(
        str(tmp_path / "ckpt")
    )
    partial_root = rt.train.Checkpoint(v1=rt.Module(), v2=rt.Variable(0.0))
    status = partial_root.restore(save_path)
    assert partial_root.v2.numpy() == 3.0
    with pytest.raises(AssertionError, match=r"Unused attributes(.|\n)*\(root\).v1"):
        status.assert_consumed()


def test_partial_restore_is_expected(tmp_path):
    # testSilencePartialWarning
    save_path = rt.train.Checkpoint(v1=rt.Variable(2.0), v2=rt.Variable(3.0)).save(
        str(tmp_path / "ckpt")
    )
    partial_root = rt.train.Checkpoint(v1=rt.Variable(0.0))
    status = partial_root.restore(save_path).expect_partial()
    assert partial_root.v1.numpy() == 2.0
    status.assert_existing_objects_matched()
    with pytest.raises(AssertionError, match=r"Unresolved object in checkpoint \(root\).v2"):
        status.assert_consumed()


def test_assert_existing_objects_matched_names_the_unmatched_variable(tmp_path):
    save_path = rt.train.Checkpoint(a=rt.Variable(1.0)).save(str(tmp_path / "ckpt"))
    extra = rt.Variable(0.0, name="extra")
    status = rt.train.Checkpoint(a=rt.Variable(0.0), b=extra).restore(save_path)
    with pytest.raises(AssertionError, match="Found 1 Python objects.*extra:0"):
        status.assert_existing_objects_matched()


def test_nontrivial_match(tmp_path):
    save_path = rt.train.Checkpoint(a=rt.Variable(1.0)).write(str(tmp_path / "ckpt"))
    with pytest.raises(AssertionError, match="Nothing except the root object matched"):
        rt.train.Checkpoint(b=rt.Variable(0.0)).read(save_path).assert_nontrivial_match()
    with pytest.raises(AssertionError, match="Nothing to load"):
        rt.train.Checkpoint().read(save_path).assert_nontrivial_match()
    rt.train.Checkpoint(a=rt.Variable(0.0)).read(save_path).assert_nontrivial_match()


def test_restore_none_restores_nothing():
    status = rt.train.Checkpoint(v=rt.Variable(1.0)).restore(None)
    assert status.expect_partial() is status
    for check in (
        status.assert_consumed,
        status.assert_existing_objects_matched,
        status.assert_nontrivial_match,
    ):
        with pytest.raises(AssertionError, match=r"No checkpoint specified \(save_path=None\)"):
            check()


def test_missing_checkpoint_is_not_found(tmp_path):
    # test_checkpoint_saved_model_compatibility, its error
    checkpoint = rt.train.Checkpoint(v=rt.Variable(1.0))
    missing = str(tmp_path / "ckpt-1")
    with pytest.raises(rt.errors.NotFoundError, match="Error when restoring from checkpoint") as e:
        checkpoint.restore(missing)
    assert missing in str(e.value) and "checkpoint suffix" in str(e.value)
    with pytest.raises(rt.errors.NotFoundError, match="Failed to find any matching files"):
        checkpoint.read(missing)


def test_incompatible_shape(tmp_path):
    # test_restore_incompatible_shape
    save_path = rt.train.Checkpoint(v=rt.Variable([1.0, 1.0])).save(str(tmp_path / "ckpt"))
    with pytest.raises(ValueError, match="incompatible tensor with shape"):
        rt.train.Checkpoint(v=rt.Variable([1.0])).restore(save_path)


def test_a_refused_restore_assigns_nothing(tmp_path):
    save_path = rt.train.Checkpoint(a=rt.Variable(1.0), b=rt.Variable(2.0)).write(
        str(tmp_path / "c")
    )
    a, b = rt.Variable(0.0), rt.Variable(0.0, dtype=rt.float64)
    with pytest.raises(rt.errors.InvalidArgumentError, match="float64 does not equal .*float32"):
        rt.train.Checkpoint(a=a, b=b).read(save_path)
    assert (a.numpy(), b.numpy()) == (0.0, 0.0)


def test_a_value_that_is_not_trackable_is_refused():
    with pytest.raises(ValueError, match="was expecting v to be a trackable object"):
        rt.train.Checkpoint(v=3.0)


def test_save_inside_a_function_is_refused(tmp_path):
    import autograph as ag

    checkpoint = rt.train.Checkpoint(v=rt.Variable(1.0))

    @ag.function
    def save():
        checkpoint.save(str(tmp_path / "ckpt"))
        return rt.constant(0)

    with pytest.raises(NotImplementedError, match="from a function is not supported"):
        save()


def test_partial_restore_warning(tmp_path, caplog):
    # testPartialRestoreWarningAttribute: logged once the restoration is over (nothing waits).
    save_path = rt.train.Checkpoint(v1=rt.Variable(2.0), v2=rt.Variable(3.0)).save(
        str(tmp_path / "ckpt")
    )
    partial_root = rt.train.Checkpoint(v1=rt.Module(), v2=rt.Variable(0.0))
    with caplog.at_level(logging.WARNING, logger="runtime"):
        partial_root.restore(save_path)
        gc.collect()
    assert partial_root.v2.numpy() == 3.0
    assert "(root).v1" in caplog.text and "(root).v2" not in caplog.text
    assert "expect_partial()" in caplog.text


def test_expect_partial_silences_the_warning(tmp_path, caplog):
    # testSilencePartialWarning
    save_path = rt.train.Checkpoint(v1=rt.Variable(2.0), v2=rt.Variable(3.0)).save(
        str(tmp_path / "ckpt")
    )
    partial_root = rt.train.Checkpoint(v1=rt.Variable(0.0))
    with caplog.at_level(logging.WARNING, logger="runtime"):
        partial_root.restore(save_path).expect_partial()
        gc.collect()
    assert partial_root.v1.numpy() == 2.0
    assert caplog.text == ""


def test_a_function_is_accepted_as_in_tensorflow(tmp_path):
    import autograph as ag

    v = rt.Variable(2.0)
    checkpoint = rt.train.Checkpoint(v=v, double=ag.function(lambda x: x * 2.0))
    path = checkpoint.write(str(tmp_path / "c"))
    w = rt.Variable(0.0)
    rt.train.Checkpoint(v=w).read(path).assert_consumed()
    assert w.numpy() == 2.0


def test_a_weak_root(tmp_path):
    # test_weakref_root: the checkpoint does not keep its root alive.
    root = _module(v=rt.Variable(1))
    checkpoint = rt.train.Checkpoint(root=weakref.ref(root))
    save_path = checkpoint.save(str(tmp_path / "ckpt"))
    root.v.assign(2)
    checkpoint.restore(save_path)
    assert int(root.v.numpy()) == 1
    alive = weakref.ref(root.v)
    del root
    gc.collect()
    assert alive() is None


def test_a_list_filled_after_the_restore_and_reported_again(tmp_path):
    saved = _module(items=[rt.Variable(1.0), rt.Variable(2.0)])
    path = rt.train.Checkpoint(m=saved).write(str(tmp_path / "c"))
    fresh = _module(items=[])
    status = rt.train.Checkpoint(m=fresh).read(path)
    fresh.items.append(rt.Variable(0.0))
    fresh.items = fresh.items  # the owner reports its list: the new entry is matched
    fresh.items.append(rt.Variable(0.0))
    fresh.items = fresh.items
    assert [v.numpy() for v in fresh.items] == [1.0, 2.0]
    status.assert_consumed()
