"""Differential checks: a program in plain Python, converted, and traced must agree.

``outcome`` runs a program and keeps what it returned, printed and raised.
``python``, ``converted``, ``eager`` and ``traced`` run a function four ways:
plain Python on Python values (the reference), ``ag.to_graph`` on the same
values, ``ag.to_graph`` on eager tensors, and ``ag.function`` on tensors (a
graph, run ``runs`` times, so that what prints when the graph runs prints
each time). ``assert_agree`` checks all three against the reference. ``features``: the
optional features converting with (``ag.experimental.Feature``; None: TensorFlow's default).
"""

from __future__ import annotations

import contextlib
import copy
import io
from dataclasses import dataclass

import numpy as np

import autograph as ag
import runtime as rt


@dataclass
class Outcome:
    value: object
    stdout: str
    error: BaseException | None


def outcome(thunk) -> Outcome:
    out = io.StringIO()
    value = error = None
    with contextlib.redirect_stdout(out):
        try:
            value = thunk()
        except Exception as e:  # noqa: BLE001 - the error is the outcome
            error = e
    return Outcome(value, out.getvalue(), error)


def as_tensor(value):
    """A number, bool, list of numbers or numpy value as a tensor; anything else as it is."""
    if isinstance(value, (bool, int, float, np.ndarray, np.generic)):
        return rt.constant(value)
    if isinstance(value, list) and all(isinstance(v, (int, float)) for v in value) and value:
        return rt.constant(value)
    return value


def python(fn, *args) -> Outcome:
    return outcome(lambda: fn(*copy.deepcopy(args)))


def converted(fn, *args, features=None) -> Outcome:
    convert = ag.to_graph(fn, experimental_optional_features=features)
    return outcome(lambda: convert(*copy.deepcopy(args)))


def eager(fn, *args, features=None) -> Outcome:
    convert = ag.to_graph(fn, experimental_optional_features=features)
    return outcome(lambda: convert(*[as_tensor(a) for a in args]))


def traced(fn, *args, runs=1, features=None) -> Outcome:
    """``ag.function(fn)`` called ``runs`` times on the tensors made of ``args``."""
    function = ag.function(fn, experimental_autograph_options=features)
    tensors = [as_tensor(a) for a in args]

    def call():
        result = None
        for _ in range(runs):
            result = function(*tensors)
        return result

    return outcome(call)


def plain(value):
    """Tensors as numpy values, inside lists, tuples and dicts too."""
    if isinstance(value, rt.Tensor):
        return np.asarray(value.numpy())
    if isinstance(value, (list, tuple)):
        return type(value)(plain(v) for v in value)
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    return value


def assert_same_value(got, want, where=""):
    """Equal values of the same shape; floats within float32's precision."""
    got, want = plain(got), plain(want)
    if isinstance(want, (list, tuple)) and not isinstance(got, np.ndarray):
        assert isinstance(got, (list, tuple)) and len(got) == len(want), (
            f"{where}: {got!r} != {want!r}"
        )
        for g, w in zip(got, want):
            assert_same_value(g, w, where)
        return
    if isinstance(want, dict):
        assert isinstance(got, dict) and got.keys() == want.keys(), f"{where}: {got!r} != {want!r}"
        for k in want:
            assert_same_value(got[k], want[k], where)
        return
    if want is None:
        assert got is None, f"{where}: {got!r} is not None"
        return
    g, w = np.asarray(got), np.asarray(want)
    assert g.shape == w.shape, f"{where}: shape {g.shape} != {w.shape} ({got!r} vs {want!r})"
    if w.dtype.kind == "f" or g.dtype.kind == "f":
        np.testing.assert_allclose(g.astype(float), w.astype(float), rtol=1e-6, err_msg=where)
    else:
        np.testing.assert_array_equal(g, w, err_msg=where)


def assert_agree(fn, *args, runs=2, stdout=True, features=None):
    """``fn`` converted (on Python values and on eager tensors) and traced (on tensors, run
    ``runs`` times) gives what plain Python gives: the same value or the same kind of
    error; printed output too (``stdout``), once per run for the graph."""
    reference = python(fn, *args)
    ways = {
        "converted": converted(fn, *args, features=features),
        "eager": eager(fn, *args, features=features),
        "traced": traced(fn, *args, runs=runs, features=features),
    }
    for way, got in ways.items():
        where = f"{fn.__name__}{args} {way}"
        if reference.error is not None:
            assert got.error is not None, (
                f"{where}: expected {reference.error!r}, got {got.value!r}"
            )
            assert isinstance(got.error, type(reference.error)), f"{where}: {got.error!r}"
            continue
        assert got.error is None, f"{where}: raised {got.error!r}"
        assert_same_value(got.value, reference.value, where)
        if stdout and way != "eager":  # eager tensors print as tensors, not as numbers
            expected = reference.stdout * (runs if way == "traced" else 1)
            assert got.stdout == expected, f"{where}: printed {got.stdout!r}, not {expected!r}"
    return reference
