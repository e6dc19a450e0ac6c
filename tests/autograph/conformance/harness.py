"""Differential tests of the converter: each program runs as plain Python and in four converted ways.

A test module registers small functions with ``@programs.case(inputs, ...)``
and exposes ``test_program = programs.test()``, a test per program, input and
mode. The reference is the plain function on Python values; the modes are

  a  ``ag.to_graph(f)`` on the Python values: must behave exactly as Python;
  b  ``ag.to_graph(f)`` on eager tensors: runs as Python, on tensors;
  c  ``ag.function(f)`` on tensors: traced into a graph, so control flow on
     them is staged;
  d  ``ag.function(f)`` on the Python values: traced, so Python loops unroll
     while ``rt.range`` still stages.

Each mode must give the reference's value (floats within a tolerance; tensors
compare by value; an exception of the same type where the reference raises),
and print what it prints (modes ``stdout``). Where TensorFlow documents an
error for staged code, the case says so instead: ``expect={"c": Raises(kind,
regex)}``; ``OneOf`` accepts any of several outcomes (``REF`` is the
reference's). The programs are modelled on TensorFlow's own AutoGraph tests
(``tensorflow/python/autograph/tests``), written for this project.
"""

from __future__ import annotations

import contextlib
import copy
import io
import re
import warnings

import numpy as np
import pytest

import autograph as ag
import runtime as rt

MODES = "abcd"
REF = "ref"


class Raises:
    """The mode must raise ``kind``, with a message that ``match`` (a regex) finds, if given."""

    def __init__(self, kind, match=None):
        self.kind, self.match = kind, match

    def __repr__(self):
        kinds = self.kind if isinstance(self.kind, tuple) else (self.kind,)
        names = "/".join(k.__name__ for k in kinds)
        return f"raises {names}" + (f" /{self.match}/" if self.match else "")


class Value:
    """The mode must return ``value``."""

    def __init__(self, value):
        self.value = value

    def __repr__(self):
        return f"value {self.value!r}"


class OneOf:
    """Any of the ``alternatives`` (``REF``, ``Raises``, ``Value``) will do."""

    def __init__(self, *alternatives):
        self.alternatives = alternatives

    def __repr__(self):
        return " or ".join(map(repr, self.alternatives))


class Program:
    def __init__(self, fn, inputs, tensors, expect, modes, stdout, twice, ref_raises, eager_ref):
        self.fn, self.inputs, self.tensors, self.expect = fn, inputs, tensors, expect
        self.modes, self.stdout, self.twice = modes, stdout, twice
        self.ref_raises, self.eager_ref = ref_raises, eager_ref

    def expectation(self, mode, args):
        expect = self.expect(*args) if callable(self.expect) else self.expect
        for modes, expected in (expect or {}).items():
            if mode in modes:
                return expected
        return REF

    def tensor_args(self, args):
        args = copy.deepcopy(args)
        if callable(self.tensors):
            return tuple(self.tensors(*args))
        mask = self.tensors if self.tensors is not None else (True,) * len(args)
        return tuple(_to_tensor(a) if m else a for a, m in zip(args, mask))


class Programs:
    """The programs of one test module."""

    def __init__(self):
        self.programs = []

    def case(
        self,
        inputs=((),),
        theme=None,
        tensors=None,
        expect=None,
        modes=MODES,
        stdout="ad",
        twice=False,
        ref_raises=(),
        eager_ref=False,
        note=None,
    ):
        """Registers the decorated function, to run on each tuple of ``inputs``.

        ``theme``: the TensorFlow test it is modelled on; ``note``: why an
        expectation differs from Python. ``tensors``: which arguments become
        tensors in modes b and c (a tuple of booleans, or a function of the
        Python arguments giving the tensor arguments); by default every number,
        bool and list of numbers. ``expect``: ``{modes: expectation}`` or a
        function of the arguments giving one. ``twice``: mode c calls twice (what
        the graph prints appears twice). ``ref_raises``: the exceptions the
        reference itself may raise. ``eager_ref``: modes b and c compare with the
        plain function on the eager tensors (a list and a tensor differ).
        """

        def register(fn):
            self.programs.append(
                Program(
                    fn, list(inputs), tensors, expect, modes, stdout, twice, ref_raises, eager_ref
                )
            )
            return fn

        return register

    def checks(self):
        return [
            pytest.param(p, args, mode, id=f"{p.fn.__name__}-{_short(args)}-{mode}")
            for p in self.programs
            for args in p.inputs
            for mode in p.modes
        ]

    def test(self):
        """The module's test: one per program, input and mode."""

        @pytest.mark.parametrize("program, args, mode", self.checks())
        def test_program(program, args, mode):
            check(program, args, mode)

        return test_program


def check(program, args, mode):
    expected = program.expectation(mode, args)
    got = _outcome(_runner(program, args, mode))
    want_stdout = mode in program.stdout
    reference = None
    if expected == REF or (isinstance(expected, OneOf) and REF in expected.alternatives):
        eager = program.eager_ref and mode in "bc"
        arguments = program.tensor_args(args) if eager else copy.deepcopy(args)
        reference = _outcome(lambda: program.fn(*arguments))
        if reference[2] is not None and not isinstance(reference[2], program.ref_raises or ()):
            raise AssertionError(f"the program itself fails: {reference[2]!r}")
        if mode == "c" and program.twice:
            reference = (reference[0], reference[1] * 2, reference[2])
    failure = _judge(expected, reference, got, want_stdout)
    assert failure is None, (
        f"mode {mode}, args {args!r}: expected {_describe_expected(expected, reference)}, "
        f"got {_describe_outcome(got)}: {failure}"
    )


def _runner(program, args, mode):
    fn = program.fn
    if mode == "a":
        return lambda: ag.to_graph(fn)(*copy.deepcopy(args))
    if mode == "b":
        return lambda: ag.to_graph(fn)(*program.tensor_args(args))
    if mode == "c":

        def run():
            function = ag.function(fn)
            tensors = program.tensor_args(args)
            result = function(*tensors)
            return function(*tensors) if program.twice else result

        return run
    return lambda: ag.function(fn)(*copy.deepcopy(args))


def _outcome(thunk):
    """(value, printed, exception) of ``thunk()``; nothing may be left half-built."""
    out = io.StringIO()
    value = error = None
    try:
        with contextlib.redirect_stdout(out), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            value = thunk()
    except Exception as e:
        error = e
    assert rt.executing_eagerly(), "a graph is still being built after the call"
    return value, out.getvalue(), error


def _judge(expected, reference, got, want_stdout):
    """None if ``got`` is what ``expected`` asks for, else why not."""
    if isinstance(expected, OneOf):
        reasons = [_judge(e, reference, got, want_stdout) for e in expected.alternatives]
        return None if None in reasons else "; ".join(reasons)
    value, printed, error = got
    if expected == REF:
        ref_value, ref_printed, ref_error = reference
        if ref_error is not None:
            if isinstance(error, type(ref_error)):
                return None
            return f"Python raises {type(ref_error).__name__}"
        if error is not None:
            return "it raised"
        if not deep_equal(ref_value, value):
            return "another value"
        if want_stdout and printed != ref_printed:
            return f"it printed {printed!r}, Python {ref_printed!r}"
        return None
    if isinstance(expected, Raises):
        if not isinstance(error, expected.kind):
            return "not that error"
        if expected.match and not re.search(expected.match, str(error), re.S):
            return "not those words"
        return None
    if error is not None or not deep_equal(expected.value, value):
        return "another value"
    return None


def _describe_expected(expected, reference):
    if expected == REF:
        return f"Python's {_describe_outcome(reference)}"
    return repr(expected)


def _describe_outcome(outcome):
    value, printed, error = outcome
    if error is not None:
        return f"{type(error).__name__}: {str(error)[:300]}"
    text = repr(_normalize(value))
    return text[:200] + (f" (printing {printed!r})" if printed else "")


def _short(args):
    text = re.sub(r"\W+", "_", repr(args)).strip("_")
    return text[:30] or "none"


# --- values --------------------------------------------------------------------------------------


def _to_tensor(value):
    if isinstance(value, (bool, int, float, np.ndarray)):
        return rt.constant(value)
    if isinstance(value, list) and _numeric(value):
        if not value or (isinstance(value[0], list) and not value[0]):
            return rt.constant(np.zeros(np.shape(value), np.int32))
        return rt.constant(value)
    return value


def _numeric(value):
    if isinstance(value, (bool, int, float)):
        return True
    return isinstance(value, list) and all(_numeric(v) for v in value)


class _Opaque:
    def __init__(self, what):
        self.what = what

    def __repr__(self):
        return f"<{self.what}>"


def _normalize(x):
    if isinstance(x, (rt.Tensor, rt.Variable)):
        try:
            return np.asarray(x.numpy())
        except Exception:  # a symbolic tensor escaped
            return _Opaque(f"symbolic {x!r}")
    if isinstance(x, rt.TensorArray):
        return _Opaque("TensorArray")
    if isinstance(x, np.generic):
        return np.asarray(x)
    if isinstance(x, dict):
        return {k: _normalize(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        items = [_normalize(v) for v in x]
        return items if isinstance(x, list) else tuple(items)
    return x


def deep_equal(expected, actual):
    """Equal values, as TensorFlow's reference tests compare them (floats within a tolerance).

    >>> deep_equal([1, (2.0, {"a": 3})], [np.int32(1), (2.0000001, {"a": rt.constant(3)})])
    True
    >>> deep_equal({"a": 1}, {"a": 1, "b": 2}), deep_equal(1, "1")
    (False, False)
    """
    return _equal(_normalize(expected), _normalize(actual))


def _equal(a, b):
    if isinstance(a, _Opaque) or isinstance(b, _Opaque):
        return False
    if isinstance(a, dict) or isinstance(b, dict):
        return (
            isinstance(a, dict)
            and isinstance(b, dict)
            and a.keys() == b.keys()
            and all(_equal(a[k], b[k]) for k in a)
        )
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return _arrays_equal(a, b)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(_equal(x, y) for x, y in zip(a, b))
    if a is None or b is None:
        return a is None and b is None
    if isinstance(a, (str, bytes)) or isinstance(b, (str, bytes)):
        return _text(a) == _text(b)
    if isinstance(a, float) or isinstance(b, float):
        try:
            return abs(float(a) - float(b)) <= 1e-6 + 1e-5 * abs(float(a))
        except (TypeError, ValueError):
            return False
    try:
        return bool(a == b)
    except Exception:
        return False


def _arrays_equal(a, b):
    try:
        x, y = np.asarray(a), np.asarray(b)
    except Exception:
        return False
    if x.shape != y.shape:
        return False
    if x.dtype.kind in "SUO" or y.dtype.kind in "SUO":
        return [_text(v) for v in x.ravel().tolist()] == [_text(v) for v in y.ravel().tolist()]
    try:
        return bool(np.allclose(x.astype(float), y.astype(float), rtol=1e-5, atol=1e-6))
    except (TypeError, ValueError):
        return False


def _text(value):
    return value.decode() if isinstance(value, bytes) else value
