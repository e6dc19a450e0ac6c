"""``rt.clip_by_global_norm`` and ``rt.linalg.global_norm`` against numpy's norms and the
formula TensorFlow documents: ``t * clip_norm / max(global_norm, clip_norm)``."""

from __future__ import annotations

import numpy as np
import pytest

import autograph as ag
import runtime as rt
from tests.runtime.gradients.grad_harness import check_gradient

A = np.array([[1.0, -2.0], [3.0, 0.5]], np.float32)
B = np.array([4.0, -1.5, 2.0], np.float32)


def _norm(*arrays):
    return np.sqrt(sum(np.sum(np.asarray(a, np.float64) ** 2) for a in arrays))


def test_global_norm_is_the_norm_of_all_entries_together():
    expected = np.linalg.norm(np.concatenate([A.ravel(), B]))
    np.testing.assert_allclose(rt.linalg.global_norm([A, None, B]).numpy(), expected, rtol=1e-6)


@pytest.mark.parametrize("clip_norm", [1.0, 3.0, 100.0])
def test_clip_by_global_norm_scales_every_tensor_by_one_ratio(clip_norm):
    norm = _norm(A, B)
    clipped, global_norm = rt.clip_by_global_norm([A, None, B], clip_norm)
    assert clipped[1] is None
    ratio = clip_norm / max(norm, clip_norm)
    np.testing.assert_allclose(global_norm.numpy(), norm, rtol=1e-6)
    np.testing.assert_allclose(clipped[0].numpy(), A * ratio, rtol=1e-6)
    np.testing.assert_allclose(clipped[2].numpy(), B * ratio, rtol=1e-6)
    np.testing.assert_allclose(_norm(clipped[0], clipped[2]), min(norm, clip_norm), rtol=1e-6)


def test_use_norm_replaces_the_computed_norm():
    clipped, norm = rt.clip_by_global_norm((A,), 2.0, use_norm=rt.constant(8.0))
    assert norm.numpy() == 8.0
    np.testing.assert_allclose(clipped[0].numpy(), A * 2.0 / 8.0, rtol=1e-6)


def test_an_infinite_norm_makes_every_entry_nan():
    clipped, norm = rt.clip_by_global_norm([np.float32([np.inf, 1.0]), B], 1.0)
    assert np.isinf(norm.numpy())
    assert np.isnan(clipped[0].numpy()).all() and np.isnan(clipped[1].numpy()).all()


def test_in_a_session_and_a_function():
    g = rt.Graph()
    with g.as_default():
        x = rt.placeholder(rt.float32, [None])
        (clipped,), norm = rt.clip_by_global_norm([x], 2.0)
    out, n = rt.Session(g).run([clipped, norm], {x: B})
    np.testing.assert_allclose(n, _norm(B), rtol=1e-6)
    np.testing.assert_allclose(out, B * 2.0 / _norm(B), rtol=1e-6)
    traced = ag.function(lambda t: rt.clip_by_global_norm([t], 2.0))
    (out,), n = traced(rt.constant(B))
    np.testing.assert_allclose(out.numpy(), B * 2.0 / _norm(B), rtol=1e-6)


def test_t_list_must_be_a_sequence():
    with pytest.raises(TypeError, match="`t_list` should be a sequence of tensors"):
        rt.clip_by_global_norm(rt.constant(A), 1.0)
    with pytest.raises(TypeError, match="`t_list` should be a sequence of tensors"):
        rt.linalg.global_norm(rt.constant(A))


def test_gradients_match_central_differences():
    a = np.array([[1.0, -2.0], [3.0, 0.5]])
    b = np.array([4.0, -1.5])
    check_gradient(lambda x, y: rt.clip_by_global_norm([x, y], 2.0)[0], [a, b])
    check_gradient(lambda x, y: rt.linalg.global_norm([x, y]), [a, b])
