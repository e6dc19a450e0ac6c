"""The array ops (pad, tile, one_hot, cumsum, clip_by_value, einsum, eye) and a packed
list survive saving: a loaded function gives what the original gave."""

from __future__ import annotations

import numpy as np

import autograph as ag
import runtime as rt


class _Uses(rt.Module):
    @ag.function(
        input_signature=[rt.TensorSpec([None, 3], rt.float32), rt.TensorSpec([None], rt.int32)]
    )
    def every_array_op(self, x, i):
        return (
            rt.pad(x, [[1, 0], [0, 1]], constant_values=2.0),
            rt.pad(x, [[0, 0], [1, 1]], mode="REFLECT"),
            rt.tile(x, [1, 2]),
            rt.one_hot(i, 3, axis=0),
            rt.cumsum(x, axis=1, exclusive=True, reverse=True),
            rt.clip_by_value(x, -1.0, 1.0),
            rt.einsum("ij,kj->ik", x, x),
            rt.eye(3, batch_shape=[2]),
            rt.concat([rt.shape(x), [i[0]]], 0),  # a list holding a symbolic tensor: packed
        )


def test_the_new_ops_give_the_same_results_after_loading(tmp_path):
    module = _Uses()
    x = np.arange(6, dtype=np.float32).reshape(2, 3) - 2
    i = np.int32([2, 0])
    expected = module.every_array_op(x, i)
    rt.saved_model.save(module, str(tmp_path))
    loaded = rt.saved_model.load(str(tmp_path))
    got = loaded.every_array_op(rt.constant(x), rt.constant(i))
    assert len(got) == len(expected)
    for want, have in zip(expected, got):
        assert want.dtype is have.dtype
        np.testing.assert_array_equal(want.numpy(), have.numpy())
