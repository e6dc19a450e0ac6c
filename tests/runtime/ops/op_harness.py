"""Shared helpers for the op tests: run an op eagerly and in a graph, compare with numpy.

``check_op(fn, args, expected, dtype)`` calls ``fn`` twice:

* eagerly, on ``rt.constant(arg)`` for each numpy ``arg``;
* in a fresh ``rt.Graph``, on ``rt.placeholder`` inputs (of the args' shapes, or of
  ``shapes`` when given, where ``None`` dims or a ``None`` shape are unknown), then
  ``rt.Session(g).run(out, feed_dict=...)``.

Both results must have the expected dtype, shape and value (a numpy or hand-computed
reference), and must equal each other exactly. The symbolic output's static shape is
checked too: the full shape by default, or ``static_shape`` (``None`` = unknown rank).
"""

from __future__ import annotations

import numpy as np
import pytest

import runtime as rt

_DEFAULT = object()

# Relative tolerances for comparing float results with a numpy reference.
_RTOL = {np.dtype(np.float16): 2e-3, np.dtype(np.float32): 2e-6, np.dtype(np.float64): 1e-12}


def strings(value):
    """A numpy object array of ``bytes`` (0-d for a scalar), as string tensors hold them."""
    arr = np.array(value, dtype=object)
    for idx, item in np.ndenumerate(arr):
        if isinstance(item, str):
            arr[idx] = item.encode()
    return arr


def assert_static_shape(shape, expected):
    """``shape`` (a TensorShape) is ``expected``: a list of dims, or None for unknown rank."""
    assert isinstance(shape, rt.TensorShape), f"not a TensorShape: {shape!r}"
    if expected is None:
        assert shape.rank is None, f"expected an unknown rank, got {shape}"
    else:
        assert shape.rank is not None, f"expected static shape {list(expected)}, got unknown rank"
        assert shape.as_list() == list(expected), f"static shape {shape} != {list(expected)}"


def assert_value(actual, expected, dtype, rtol=None, where=""):
    """A value from ``.numpy()`` or ``Session.run`` matches the reference in dtype, shape, value."""
    expected = np.asarray(expected) if dtype is not rt.string else strings(expected)
    if dtype is rt.string:
        if expected.ndim == 0:
            assert isinstance(actual, bytes), f"{where}: expected bytes, got {actual!r}"
            assert actual == expected[()], f"{where}: {actual!r} != {expected[()]!r}"
            return
        assert isinstance(actual, np.ndarray), f"{where}: expected an array, got {actual!r}"
        assert actual.dtype == object, f"{where}: string array of dtype {actual.dtype}"
        assert actual.shape == expected.shape, f"{where}: shape {actual.shape} != {expected.shape}"
        assert all(isinstance(v, bytes) for v in actual.flat), f"{where}: not all bytes: {actual!r}"
        assert actual.tolist() == expected.tolist(), f"{where}: {actual!r} != {expected!r}"
        return
    assert isinstance(actual, (np.ndarray, np.generic)), f"{where}: not a numpy value: {actual!r}"
    if expected.ndim == 0:
        assert not isinstance(actual, np.ndarray), f"{where}: scalar came back as 0-d array"
    act = np.asarray(actual)
    assert act.dtype == np.dtype(dtype.as_numpy_dtype), (
        f"{where}: numpy dtype {act.dtype}, expected {np.dtype(dtype.as_numpy_dtype)}"
    )
    assert act.shape == expected.shape, f"{where}: shape {act.shape} != {expected.shape}"
    if dtype.is_floating:
        tol = _RTOL[act.dtype] if rtol is None else rtol
        np.testing.assert_allclose(
            act.astype(np.float64),
            expected.astype(np.float64),
            rtol=tol,
            atol=tol,
            equal_nan=True,
            err_msg=where,
        )
    else:
        np.testing.assert_array_equal(act, expected, err_msg=where)


def _same(a, b, dtype):
    """Eager and graph results are identical (bit for bit, NaN equal to NaN)."""
    if dtype is rt.string:
        assert np.asarray(a, dtype=object).tolist() == np.asarray(b, dtype=object).tolist()
    else:
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b), err_msg="eager != graph")


def _flat(out):
    return list(out) if isinstance(out, (list, tuple)) else [out]


def run_eager(fn, args):
    return fn(*[rt.constant(a) for a in args])


def build_graph(fn, args, shapes=None):
    """A graph where ``fn`` is applied to placeholders for ``args``: (graph, placeholders, out)."""
    g = rt.Graph()
    with g.as_default():
        placeholders = [
            rt.placeholder(
                rt.as_dtype(np.asarray(a).dtype),
                np.shape(a) if shapes is None else shapes[i],
                name=f"arg{i}",
            )
            for i, a in enumerate(args)
        ]
        out = fn(*placeholders)
    return g, placeholders, out


def run_graph(fn, args, shapes=None):
    """``fn`` built on placeholders and run in a Session: (symbolic out, fetched values)."""
    g, placeholders, out = build_graph(fn, args, shapes)
    values = rt.Session(g).run(out, feed_dict=dict(zip(placeholders, args)))
    return out, values


def check_op(fn, args, expected, dtype, *, shapes=None, static_shape=_DEFAULT, rtol=None):
    """Checks ``fn(*args)`` eagerly and in a graph against ``expected`` (of rt dtype ``dtype``).

    ``fn`` may return one tensor or a list of them; then ``expected`` (and
    ``static_shape``) are lists too. ``static_shape`` is required when ``shapes``
    makes some dims unknown.
    """
    args = [a if isinstance(a, np.ndarray) else np.asarray(a) for a in args]
    eager = _flat(run_eager(fn, args))
    symbolic, values = run_graph(fn, args, shapes)
    symbolic, values = _flat(symbolic), _flat(values)
    multi = isinstance(expected, list)
    expected = expected if multi else [expected]
    if static_shape is _DEFAULT:
        assert shapes is None, "give static_shape when placeholders have unknown dims"
        static = [np.shape(e) for e in expected]
    else:
        static = static_shape if multi else [static_shape]
    assert len(eager) == len(symbolic) == len(values) == len(expected)
    for i, (e, s, v, ref, st) in enumerate(zip(eager, symbolic, values, expected, static)):
        ref_shape = np.shape(ref)
        assert isinstance(e, rt.Tensor), f"eager result {i} is not a Tensor: {e!r}"
        assert e.dtype is dtype, f"eager dtype {e.dtype} != {dtype}"
        assert e.shape == ref_shape, f"eager shape {e.shape} != {ref_shape}"
        assert_value(e.numpy(), ref, dtype, rtol, where=f"eager result {i}")
        assert isinstance(s, rt.Tensor), f"graph result {i} is not a Tensor: {s!r}"
        assert s.dtype is dtype, f"symbolic dtype {s.dtype} != {dtype}"
        assert_static_shape(s.shape, st)
        assert_value(v, ref, dtype, rtol, where=f"graph result {i}")
        _same(e.numpy(), v, dtype)


def eager_and_graph_raise(fn, args, error, match=None, shapes=None):
    """``fn`` raises ``error`` eagerly, and (at build or run time) in a graph."""
    args = [np.asarray(a) for a in args]
    with pytest.raises(error, match=match):
        run_eager(fn, args)
    with pytest.raises(error, match=match):
        run_graph(fn, args, shapes)
