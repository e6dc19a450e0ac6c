"""rt.train.Checkpoint restores: what a restore holds, how it matches, what it costs.

Expected values are hand-computed from Keras' update rules (Adam: ``m = 0.9 m + 0.1 g``).
"""

import gc
import logging
import os
import tracemalloc

import numpy as np
import pytest

import runtime as rt
from runtime.saving import checkpoint_files
from runtime.state import deferred


def _saved_with_adam(tmp_path, shape):
    model = rt.Module()
    model.w = rt.Variable(np.zeros(shape, np.float32))
    adam = rt.keras.optimizers.Adam()
    adam.apply_gradients([(rt.ones(shape), model.w)])
    path = rt.train.Checkpoint(model=model, optimizer=adam).save(str(tmp_path / "ckpt"))
    return path


def test_partial_restores_hold_no_arrays(tmp_path):
    # The evaluator has no optimizer: each restore leaves the slots waiting. 20 restores of a
    # 160 kB weight with 320 kB of slots held 6.4 MB before; now neither values nor waits pile.
    path = _saved_with_adam(tmp_path, (200, 200))
    model = rt.Module()
    model.w = rt.Variable(np.zeros((200, 200), np.float32))
    checkpoint = rt.train.Checkpoint(model=model)
    checkpoint.restore(path).expect_partial()
    gc.collect()
    tracemalloc.start()
    try:
        for _ in range(20):
            checkpoint.restore(path).expect_partial()
        gc.collect()
        held, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert held < 400_000  # the weight's new value (160 kB), no slot (2 x 160 kB) per restore
    _, edges = deferred._waiting[id(checkpoint)]
    assert sum(len(callbacks) for callbacks in edges.values()) == 1  # the newest restore's


def test_a_partial_restore_still_restores_what_is_created_later(tmp_path):
    path = _saved_with_adam(tmp_path, (3,))
    checkpoint = rt.train.Checkpoint(model=rt.Module())
    checkpoint.restore(path).expect_partial()
    gc.collect()
    checkpoint.model.w = rt.Variable(np.full(3, 5.0, np.float32))
    np.testing.assert_allclose(checkpoint.model.w.numpy(), [-0.001] * 3, rtol=1e-5)


def test_a_long_chain_of_names_costs_memory_in_proportion(tmp_path):
    # Names were built for every node eagerly: O(depth^2) characters (here 122 MB).
    prefix = str(tmp_path / "chain")
    rt.train.Checkpoint(v=rt.Variable(1.0)).write(prefix)
    content = _index(prefix)
    depth, name = 2000, "n" * 60
    base = len(content["nodes"])
    content["nodes"][0]["children"].append(["z", base])
    content["nodes"] += [
        {"children": [[name, base + i + 1]] if i < depth - 1 else []} for i in range(depth)
    ]
    _write_signed(prefix, content)
    tracemalloc.start()
    try:
        rt.train.Checkpoint(v=rt.Variable(0.0)).read(prefix).assert_consumed()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 20_000_000


def _index(prefix):
    import json

    with open(prefix + checkpoint_files.INDEX_SUFFIX) as f:
        content = json.load(f)
    content.pop("checksum")
    return content


def _write_signed(prefix, content):
    import json

    content = dict(content, checksum=checkpoint_files.index_checksum(content))
    with open(prefix + checkpoint_files.INDEX_SUFFIX, "w") as f:
        json.dump(content, f)


# --- matching ---------------------------------------------------------------------------------


def test_a_learning_rate_set_after_the_restore_stays(tmp_path):
    v = rt.Variable([1.0])
    sgd = rt.keras.optimizers.SGD(0.5)
    sgd.apply_gradients([(rt.constant([1.0]), v)])
    path = rt.train.Checkpoint(v=v, opt=sgd).write(str(tmp_path / "c"))
    v2, sgd2 = rt.Variable([0.0]), rt.keras.optimizers.SGD(0.5)
    rt.train.Checkpoint(v=v2, opt=sgd2).read(path).assert_consumed()
    sgd2.learning_rate = 0.01
    sgd2.apply_gradients([(rt.constant([1.0]), v2)])
    np.testing.assert_allclose(v2.numpy(), [0.5 - 0.01], rtol=1e-6)  # w - lr * g
    assert int(sgd2.iterations.numpy()) == 2


class _TwoWeights(rt.keras.layers.Layer):
    def __init__(self, order):
        super().__init__()
        self.order = order

    def build(self, shape):
        shapes = {"kernel": (3, 2), "bias": (2,)}
        for name in self.order:
            setattr(self, name, self.add_weight(name=name, shape=shapes[name], initializer="zeros"))

    def call(self, x):
        return x @ self.kernel + self.bias


@pytest.mark.parametrize("built", [True, False])
def test_weights_are_matched_by_name_not_by_creation_order(tmp_path, built, caplog):
    saved = _TwoWeights(["kernel", "bias"])
    saved(rt.ones([1, 3]))
    saved.kernel.assign(np.arange(6, dtype=np.float32).reshape(3, 2))
    saved.bias.assign([7.0, 8.0])
    path = rt.train.Checkpoint(l=saved).write(str(tmp_path / "c"))
    layer = _TwoWeights(["bias", "kernel"])  # the other order
    if built:
        layer(rt.ones([1, 3]))
    with caplog.at_level(logging.WARNING, logger="runtime"):
        status = rt.train.Checkpoint(l=layer).read(path)
        layer(rt.ones([1, 3]))
    np.testing.assert_array_equal(layer.kernel.numpy(), np.arange(6).reshape(3, 2))
    np.testing.assert_array_equal(layer.bias.numpy(), [7.0, 8.0])
    status.assert_consumed()
    assert "Inconsistent references" not in caplog.text


def test_slots_follow_their_variable_not_the_update_order(tmp_path):
    a, b = rt.Variable([1.0, 2.0]), rt.Variable([3.0, 4.0])
    adam = rt.keras.optimizers.Adam(0.1)
    adam.apply_gradients([(rt.constant([1.0, 1.0]), a)])  # m of a: 0.1 * 1
    adam.apply_gradients([(rt.constant([5.0, 5.0]), b)])  # m of b: 0.1 * 5
    path = rt.train.Checkpoint(a=a, b=b, opt=adam).write(str(tmp_path / "x"))
    a2, b2 = rt.Variable([0.0, 0.0]), rt.Variable([0.0, 0.0])
    adam2 = rt.keras.optimizers.Adam(0.1)
    status = rt.train.Checkpoint(a=a2, b=b2, opt=adam2).read(path)
    adam2.apply_gradients([(rt.constant([0.0, 0.0]), b2)])  # b first this time
    np.testing.assert_allclose(adam2.get_slot(b2, "m").numpy(), [0.45, 0.45], rtol=1e-6)
    adam2.apply_gradients([(rt.constant([0.0, 0.0]), a2)])
    np.testing.assert_allclose(adam2.get_slot(a2, "m").numpy(), [0.09, 0.09], rtol=1e-6)
    status.assert_consumed()


def test_slots_are_restored_at_once_into_an_optimizer_that_has_them(tmp_path):
    w = rt.Variable([1.0])
    adam = rt.keras.optimizers.Adam(0.1)
    adam.apply_gradients([(rt.constant([2.0]), w)])
    path = rt.train.Checkpoint(w=w, opt=adam).write(str(tmp_path / "x"))
    adam.apply_gradients([(rt.constant([4.0]), w)])
    rt.train.Checkpoint(w=w, opt=adam).read(path).assert_consumed()
    np.testing.assert_allclose(adam.get_slot(w, "m").numpy(), [0.2], rtol=1e-6)


def test_a_step_that_does_not_fit_assigns_none_of_its_values(tmp_path):
    saved = rt.Module()
    saved.a = rt.Variable([1.0, 2.0])
    saved.b = rt.Variable([3.0, 4.0])
    path = rt.train.Checkpoint(m=saved).write(str(tmp_path / "c"))
    checkpoint = rt.train.Checkpoint()
    checkpoint.read(path).expect_partial()
    later = rt.Module()
    later.a = rt.Variable([0.0, 0.0])
    later.b = rt.Variable([0.0, 0.0, 0.0])  # does not fit
    with pytest.raises(ValueError, match="incompatible tensor with shape"):
        checkpoint.m = later
    np.testing.assert_array_equal(later.a.numpy(), [0.0, 0.0])


def test_a_failed_restore_does_not_say_values_could_not_be_found(tmp_path, caplog):
    path = rt.train.Checkpoint(v=rt.Variable([1.0, 2.0])).write(str(tmp_path / "c"))
    with caplog.at_level(logging.WARNING, logger="runtime"):
        with pytest.raises(ValueError, match="incompatible tensor"):
            rt.train.Checkpoint(v=rt.Variable([1.0])).read(path)
        gc.collect()
    assert "could not be found" not in caplog.text


def test_a_write_and_a_restore_format_no_object(tmp_path, monkeypatch):
    # repr of each matched variable (its values) took most of a restore's time.
    formatted = []
    original = rt.Variable.__repr__
    monkeypatch.setattr(rt.Variable, "__repr__", lambda v: formatted.append(v) or original(v))
    values = [rt.Variable(np.full(10, float(i), np.float32)) for i in range(30)]
    path = rt.train.Checkpoint(vs=values).write(str(tmp_path / "c"))
    fresh = [rt.Variable(np.zeros(10, np.float32)) for _ in range(30)]
    rt.train.Checkpoint(vs=fresh).read(path).assert_consumed()
    assert formatted == []
    np.testing.assert_array_equal(fresh[29].numpy(), np.full(10, 29.0))


def test_an_attribute_set_calls_no_restore_hook_unless_one_waits_on_that_object(
    tmp_path, monkeypatch
):
    path = rt.train.Checkpoint(a=rt.Variable(1.0)).write(str(tmp_path / "c"))
    waiting = rt.train.Checkpoint()
    status = waiting.read(path)  # waits for "a" on that checkpoint, not on any module
    calls = []
    original = deferred.attached
    monkeypatch.setattr(deferred, "attached", lambda *a: calls.append(a) or original(*a))
    module = rt.Module()
    for i in range(10):
        module.x = i
    assert calls == []
    waiting.a = rt.Variable(0.0)
    assert waiting.a.numpy() == 1.0 and len(calls) == 1
    status.assert_consumed()


def test_root_is_the_root_object():
    model = rt.Module()
    assert rt.train.Checkpoint(model).root is model
    checkpoint = rt.train.Checkpoint(model=model)
    assert checkpoint.root is checkpoint
    assert "checkpoint_exists" not in dir(rt.train)
    assert os.path is not None


def test_module_attribute_sets_are_python_s_own_while_no_restore_waits(tmp_path):
    # The hook made every module attribute set 20 times slower, restore or not.
    gc.collect()
    assert deferred._waiting == {}
    assert "__setattr__" not in vars(rt.Module)
    path = rt.train.Checkpoint(m=_module_with_v(2.0)).write(str(tmp_path / "c"))
    later = rt.Module()
    rt.train.Checkpoint(m=later).read(path)
    assert "__setattr__" in vars(rt.Module)  # reporting while the restore waits
    later.v = rt.Variable(0.0)
    assert later.v.numpy() == 2.0
    assert "__setattr__" not in vars(rt.Module)


def _module_with_v(value):
    module = rt.Module()
    module.v = rt.Variable(value)
    return module
