"""Random small programs: converted code agrees with Python on ints, eagerly, and in a graph."""

from __future__ import annotations

import importlib.util
import itertools
import os
import sys

import numpy as np
import pytest
from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st

import autograph as ag
import runtime as rt

VARIABLES = ("x", "y", "z")
MAX_DEPTH = 2
_module_ids = itertools.count()


class _Generator:
    """Draws a function body statement by statement, as lines of source."""

    def __init__(self, draw):
        self.draw = draw
        self.loops = itertools.count()
        self.returns_tuple = draw(st.booleans())

    def choice(self, options):
        return self.draw(st.sampled_from(options))

    def atom(self, indices):
        kind = self.draw(st.integers(0, 3))
        if kind == 0:
            return str(self.draw(st.integers(0, 9)))
        if kind == 1 and indices:
            return self.choice(indices)
        return self.choice(VARIABLES)

    def expression(self, indices):
        u, w = self.atom(indices), self.atom(indices)
        op = self.choice(["+", "-", "*", "//", "%", "call"])
        if op == "call":
            return f"g({u}, {w})"
        if op == "//":
            return f"{u} // ({w} % 5 + 1)"
        if op == "%":
            return f"{u} % ({w} % 7 + 1)"
        return f"{u} {op} {w}"

    def comparison(self, indices):
        u, w = self.atom(indices), self.atom(indices)
        op = self.choice(["<", "<=", ">", ">=", "==", "!="])
        if self.draw(st.booleans()):
            return f"{u} % 2 {op} {self.draw(st.integers(0, 1))}"
        return f"{u} {op} {w}"

    def condition(self, indices):
        kind = self.draw(st.integers(0, 5))
        if kind == 0:
            return f"{self.comparison(indices)} and {self.comparison(indices)}"
        if kind == 1:
            return f"{self.comparison(indices)} or {self.comparison(indices)}"
        if kind == 2:
            return f"not {self.comparison(indices)}"
        if kind == 3:
            return self.choice(["flag", "not flag", f"flag and {self.comparison(indices)}"])
        return self.comparison(indices)

    def assignment(self, indices):
        target = self.choice(VARIABLES)
        kind = self.draw(st.integers(0, 5))
        if kind == 0:  # additive growth only, so that int32 never overflows
            op = self.choice(["+=", "-="])
            step = self.choice([str(self.draw(st.integers(1, 9))), *indices])
            return [f"{target} {op} {step}"]
        if kind == 1:
            return [f"{target} %= {self.draw(st.integers(2, 50))}"]
        if kind == 2:  # tuple unpacking: a swap with a new value
            other = self.choice([v for v in VARIABLES if v != target])
            return [f"{target}, {other} = {other}, ({self.expression(indices)}) % 1000"]
        if kind == 3:
            test, orelse = self.condition(indices), self.expression(indices)
            return [f"{target} = ({self.atom(indices)} if {test} else {orelse}) % 1000"]
        if kind == 4:  # the bool variable
            return [self.choice(["flag = not flag", f"flag = {self.condition(indices)}"])]
        return [f"{target} = ({self.expression(indices)}) % 1000"]

    def ret(self, indices):
        if self.returns_tuple:
            return [f"return {self.expression(indices)}, {self.atom(indices)}"]
        return [f"return {self.expression(indices)}"]

    def final_return(self):
        if self.returns_tuple:
            return "return x + 3 * y, z"
        return "return x + 3 * y - 7 * z"

    def orelse(self, depth, indices, in_loop):
        """An optional ``else:`` clause (of an ``if``, ``for`` or ``while``)."""
        if not self.draw(st.booleans()):
            return []
        return ["else:", *_indent(self.block(depth + 1, indices, in_loop))]

    def block(self, depth, indices, in_loop):
        lines = []
        for _ in range(self.draw(st.integers(1, 3))):
            lines += self.statement(depth, indices, in_loop)
        ending = self.draw(st.integers(0, 5 if in_loop else 3))
        if ending == 1:
            lines += self.ret(indices)
        elif ending == 2 and in_loop:
            lines += ["break"]
        elif ending == 3 and in_loop:
            lines += ["continue"]
        return lines

    def statement(self, depth, indices, in_loop):
        kinds = ["assign", "assign"]
        if depth < MAX_DEPTH:
            kinds += ["if", "while", "for"]
        if in_loop:
            kinds += ["jump"]
        kind = self.choice(kinds)
        if kind == "assign":
            return self.assignment(indices)
        if kind == "jump":
            jump = self.choice(["break", "continue", "return"])
            jump = self.ret(indices)[0] if jump == "return" else jump
            return [f"if {self.condition(indices)}:", f"    {jump}"]
        if kind == "if":
            lines = [f"if {self.condition(indices)}:"]
            lines += _indent(self.block(depth + 1, indices, in_loop))
            if self.draw(st.booleans()):
                lines += [f"elif {self.condition(indices)}:"]
                lines += _indent(self.block(depth + 1, indices, in_loop))
            return lines + self.orelse(depth, indices, in_loop)
        n = next(self.loops)
        if kind == "for":
            index = f"i{n}"
            bound = self.choice(
                [str(self.draw(st.integers(0, 4))), f"{self.choice(VARIABLES)} % 4"]
            )
            iterable = self.choice(["range", "rt.range"])
            lines = [f"for {index} in {iterable}({bound}):"]
            lines += _indent(self.block(depth + 1, [*indices, index], True))
            return lines + self.orelse(depth, indices, in_loop)
        counter = f"c{n}"
        limit = self.draw(st.integers(1, 4))
        form = self.draw(st.integers(0, 2))
        if form == 0:
            head = [f"while {counter} < {limit}:", f"    {counter} += 1"]
        elif form == 1:
            head = [
                f"while {counter} < {limit} and ({self.condition(indices)}):",
                f"    {counter} += 1",
            ]
        else:  # the bound is checked first, so that `continue` cannot skip it
            head = [
                "while True:",
                f"    {counter} += 1",
                f"    if {counter} > {limit}:",
                "        break",
            ]
        body = _indent(self.block(depth + 1, indices, True))
        return [f"{counter} = 0", *head, *body, *self.orelse(depth, indices, in_loop)]


def _indent(lines):
    return ["    " + line for line in lines]


HELPER = """\
def g(u, v):
    if u > v:
        return (u - v) % 1000
    return (v + 1) % 1000

"""


@st.composite
def programs(draw):
    """Source of a module defining ``f(a, b)``: ints in, an int (or a pair) out, always terminating."""
    gen = _Generator(draw)
    body = ["x = a", "y = b", "z = (a * 3 + b) % 1000", "flag = a < b"]
    body += gen.block(0, [], False)
    body += [gen.final_return()]
    return "\n".join(["import runtime as rt", "", "", HELPER, "def f(a, b):", *_indent(body), ""])


def _load(source, directory):
    name = f"random_program_{next(_module_ids)}"
    path = directory / f"{name}.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    finally:
        del sys.modules[name]
    return module.f


def _same_python(actual, expected):
    """The same value of the same Python type (tensors: the same dtype and value)."""
    if isinstance(expected, tuple):
        return (
            type(actual) is tuple
            and len(actual) == len(expected)
            and all(_same_python(a, e) for a, e in zip(actual, expected))
        )
    if isinstance(expected, rt.Tensor):
        return (
            isinstance(actual, rt.Tensor)
            and actual.dtype == expected.dtype
            and actual.numpy() == expected.numpy()
        )
    return type(actual) is type(expected) and actual == expected


def _same_number(actual, expected):
    """The same numbers, of the same kind (int or bool), in the same structure."""
    if isinstance(expected, tuple):
        return (
            isinstance(actual, (tuple, list))
            and len(actual) == len(expected)
            and all(_same_number(a, e) for a, e in zip(actual, expected))
        )
    actual, expected = (
        np.asarray(v.numpy() if isinstance(v, rt.Tensor) else v) for v in (actual, expected)
    )
    return (
        actual.shape == expected.shape
        and actual.dtype.kind == expected.dtype.kind
        and bool(actual == expected)
    )


def _run_in_graph(fn, a, b):
    """``fn`` traced on two int32 placeholders, run with ``a`` and ``b`` fed."""
    graph = rt.Graph()
    with graph.as_default():
        pa, pb = rt.placeholder(rt.int32, []), rt.placeholder(rt.int32, [])
        out = fn(pa, pb)
    with rt.Session(graph) as sess:
        return _fetch(sess, out, {pa: a, pb: b})


def _fetch(sess, out, feed):
    if isinstance(out, tuple):
        return tuple(_fetch(sess, o, feed) for o in out)
    if isinstance(out, rt.Tensor):
        return sess.run(out, feed)
    return out  # computed in Python while tracing


@settings(
    max_examples=int(os.environ.get("AUTOGRAPH_RANDOM_PROGRAMS", 40)),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(source=programs(), a=st.integers(-30, 60), b=st.integers(-30, 60))
def test_random_program(tmp_path, source, a, b):
    note(source)
    fn = _load(source, tmp_path)
    expected = fn(a, b)
    converted = ag.to_graph(fn)

    actual = converted(a, b)
    assert _same_python(actual, expected), ("python", actual, expected)

    eager = converted(rt.constant(a), rt.constant(b))
    assert _same_number(eager, expected), ("eager", eager, expected)

    graph = _run_in_graph(converted, a, b)
    assert _same_number(graph, expected), ("graph", graph, expected)


@settings(
    max_examples=int(os.environ.get("AUTOGRAPH_RANDOM_PROGRAMS", 40)),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(source=programs(), a=st.integers(-30, 60), b=st.integers(-30, 60))
def test_random_program_with_jit_compile(tmp_path, source, a, b):
    """The same programs compiled by XLA (``jit_compile=True``) give the same ints."""
    pytest.importorskip("jax")  # the optional extra
    note(source)
    fn = _load(source, tmp_path)
    expected = fn(a, b)
    compiled = ag.function(fn, jit_compile=True)(rt.constant(a), rt.constant(b))
    assert _same_number(compiled, expected), ("xla", compiled, expected)
