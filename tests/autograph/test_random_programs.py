"""Random programs: converted code agrees with Python on ints, eagerly, and in a graph.

Each program is a function ``f(a, b)`` of ints, drawn statement by statement:
assignments (tuple unpacking, conditional expressions, calls), nested ``if``/``elif``/
``else``, ``while`` and ``for`` loops over ``range``, ``rt.range``, ``enumerate`` and ``zip``,
``break``/``continue``/``return`` anywhere, a list ``xs`` and a dict ``d`` assigned
by subscript, a list ``acc`` appended to in loops, ``try``/``except``/``finally``,
a variable ``w`` first assigned inside a loop (so it has no value if the loop runs
zero times), and a call ``bump(xs)`` that changes the list it is passed. Every program runs on several inputs as Python, converted on Python
values, converted on eager tensors, and traced once into a graph that then runs
each input. Where Python raises (``w`` unassigned), every mode must raise too. Where
``bump(xs)`` runs while a staged statement is traced that does not carry ``xs[1]``, the graph
must raise the error that names ``xs``.

The suite runs the same 300 programs each time, so a run passes or fails by the code alone
(``AUTOGRAPH_RANDOM_SEED`` chooses the first seed, ``daily`` a new set each day, and a failure
names its seed); ``AUTOGRAPH_RANDOM_PROGRAMS=5000`` runs more.
"""

from __future__ import annotations

import importlib.util
import itertools
import os
import random
import sys
from datetime import date

import numpy as np
import pytest

import autograph as ag
import runtime as rt
from tests.extras import import_extra

VARIABLES = ("x", "y", "z")
MAX_DEPTH = 3
_module_ids = itertools.count()


class _Generator:
    """Draws a function body statement by statement, as lines of source."""

    def __init__(self, rng):
        self.rng = rng
        self.loops = itertools.count()
        self.returns_tuple = self.coin()
        self.creates_w = False

    def coin(self):
        return self.rng.random() < 0.5

    def choice(self, options):
        return self.rng.choice(options)

    def number(self, low=0, high=9):
        return str(self.rng.randint(low, high))

    def atom(self, indices):
        kind = self.rng.randint(0, 5)
        if kind == 0:
            return self.number()
        if kind == 1 and indices:
            return self.choice(indices)
        if kind == 2:  # an item of the list, by a constant index (a negative one too)
            return f"xs[{self.choice(['0', '1', '2', '-1'])}]"
        if kind == 3:
            return f"d[{self.choice(['p', 'q'])!r}]"
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
        if self.coin():
            return f"{u} % 2 {op} {self.rng.randint(0, 1)}"
        return f"{u} {op} {w}"

    def condition(self, indices):
        kind = self.rng.randint(0, 5)
        if kind == 0:
            return f"{self.comparison(indices)} and {self.comparison(indices)}"
        if kind == 1:
            return f"{self.comparison(indices)} or {self.comparison(indices)}"
        if kind == 2:
            return f"not {self.comparison(indices)}"
        if kind == 3:
            return self.choice(["flag", "not flag", f"flag and {self.comparison(indices)}"])
        return self.comparison(indices)

    def assignment(self, indices, where):
        target = self.choice(VARIABLES)
        kind = self.rng.randint(0, 8)
        if kind == 0:  # additive growth only, so that int32 never overflows
            op = self.choice(["+=", "-="])
            step = self.choice([self.number(1, 9), *indices])
            return [f"{target} {op} {step}"]
        if kind == 1:
            return [f"{target} %= {self.rng.randint(2, 50)}"]
        if kind == 2:  # tuple unpacking: a swap with a new value
            other = self.choice([v for v in VARIABLES if v != target])
            return [f"{target}, {other} = {other}, ({self.expression(indices)}) % 1000"]
        if kind == 3:
            test, orelse = self.condition(indices), self.expression(indices)
            return [f"{target} = ({self.atom(indices)} if {test} else {orelse}) % 1000"]
        if kind == 4:  # the bool variable
            return [self.choice(["flag = not flag", f"flag = {self.condition(indices)}"])]
        if kind == 5:  # an item of the list or of the dict: the container is the state
            item = self.choice(["xs[0]", "xs[1]", "xs[-1]", "d['p']", "d['q']"])
            if self.coin():
                return [f"{item} = ({self.expression(indices)}) % 1000"]
            return [f"{item} += {self.choice([self.number(1, 9), *indices])}"]
        if kind == 6 and where.staged:
            # A list that staged loops grow (a TensorList there). A Python list cannot get a
            # length that depends on a tensor, so only inside a loop over rt.range.
            return [f"acc.append(({self.expression(indices)}) % 1000)"]
        return [f"{target} = ({self.expression(indices)}) % 1000"]

    def ret(self, indices):
        if self.returns_tuple:
            return [f"return {self.expression(indices)}, {self.atom(indices)}"]
        return [f"return {self.expression(indices)}"]

    def final_return(self):
        total = "x + 3 * y - 7 * z + 11 * xs[0] - xs[2] + 5 * d['q'] + 13 * len(acc)"
        if self.creates_w:
            total += " + 17 * w"
        if self.returns_tuple:
            return f"return {total}, xs[1]"
        return f"return {total}"

    def orelse(self, depth, indices, where):
        """An optional ``else:`` clause (of an ``if``, ``for`` or ``while``)."""
        if not self.coin():
            return []
        return ["else:", *_indent(self.block(depth + 1, indices, where))]

    def block(self, depth, indices, where, first=()):
        lines = list(first)
        for _ in range(self.rng.choice((1, 1, 1, 2, 2, 3))):  # small blocks: programs nest deep
            lines += self.statement(depth, indices, where)
        ending = self.rng.randint(0, 5 if where.in_loop else 3) if where.jumps else 0
        if ending == 1:
            lines += self.ret(indices)
        elif ending == 2 and where.in_loop:
            lines += ["break"]
        elif ending == 3 and where.in_loop:
            lines += ["continue"]
        return lines

    def statement(self, depth, indices, where):
        kinds = ["assign"] * (4 + depth)
        if depth < MAX_DEPTH:
            kinds += ["if", "if", "try"]
        if depth < MAX_DEPTH - 1:
            kinds += ["while", "for", "for"]
        if where.in_loop and where.jumps:
            kinds += ["jump"]
        kind = self.choice(kinds)
        if kind == "assign":
            return self.assignment(indices, where)
        if kind == "jump":
            jump = self.choice(["break", "continue", "return"])
            jump = self.ret(indices)[0] if jump == "return" else jump
            return [f"if {self.condition(indices)}:", f"    {jump}"]
        if kind == "if":
            lines = [f"if {self.condition(indices)}:"]
            lines += _indent(self.block(depth + 1, indices, where))
            for _ in range(self.rng.randint(0, 2)):
                lines += [f"elif {self.condition(indices)}:"]
                lines += _indent(self.block(depth + 1, indices, where))
            return lines + self.orelse(depth, indices, where)
        if kind == "try":
            return self.try_statement(depth, indices, where)
        if kind == "for":
            return self.for_loop(depth, indices, where)
        return self.while_loop(depth, indices, where)

    def try_statement(self, depth, indices, where):
        """A ``try`` whose body may end raising a Python error, on every path through it.

        Its body has no jumps: code after one is guarded by a flag, which a graph stages, so a
        raise there would happen while tracing whatever the flag says.
        """
        body = self.block(depth + 1, indices, where.without_jumps())
        if self.coin():
            body += ["raise ValueError('always')"]
        lines = ["try:", *_indent(body), "except ValueError:"]
        lines += _indent(self.block(depth + 1, indices, where))
        if self.coin():
            lines += ["finally:", *_indent(self.assignment(indices, where))]
        return lines

    def for_loop(self, depth, indices, where):
        n = next(self.loops)
        index, other = f"i{n}", f"j{n}"
        # Up to 6 iterations: a staged loop that stops after 3 fails ~3% of programs (~1% at 4).
        bound = self.choice([self.number(0, 6), f"{self.choice(VARIABLES)} % 6"])
        form = self.rng.randint(0, 4)
        new = [index]
        staged = form in (1, 2)  # over rt.range: staged in a graph whatever the bound
        if form <= 1:
            head = f"for {index} in {('range', 'rt.range')[form]}({bound}):"
        elif form == 2:
            head = f"for {other}, {index} in enumerate(rt.range({bound})):"
            new.append(other)
        elif form == 3:
            head = f"for {index}, {other} in zip(ys, range({bound})):"
            new.append(other)
        else:
            head = f"for {index} in ys:"
        # At the top level, a loop may be what first gives ``w`` a value.
        first = []
        if depth == 0 and not self.creates_w and self.rng.randint(0, 3) == 0:
            self.creates_w = True
            first = [f"w = ({self.expression([*indices, index])}) % 1000"]
        body = self.block(depth + 1, [*indices, *new], where.loop(staged), first)
        return [head, *_indent(body), *self.orelse(depth, indices, where)]

    def while_loop(self, depth, indices, where):
        counter = f"c{next(self.loops)}"
        limit = self.rng.randint(1, 4)
        form = self.rng.randint(0, 2)
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
        body = _indent(self.block(depth + 1, indices, where.loop(False)))
        return [f"{counter} = 0", *head, *body, *self.orelse(depth, indices, where)]


class _Where:
    """Where a statement is drawn: in a loop (jumps allowed?), inside a loop over rt.range?"""

    def __init__(self, in_loop=False, jumps=True, staged=False):
        self.in_loop, self.jumps, self.staged = in_loop, jumps, staged

    def loop(self, staged):
        return _Where(True, self.jumps, self.staged or staged)

    def without_jumps(self):
        return _Where(self.in_loop, False, self.staged)


def _indent(lines):
    return ["    " + line for line in lines]


HELPER = """\
def g(u, v):
    if u > v:
        return (u - v) % 1000
    return (v + 1) % 1000


def bump(items):
    items[1] = (items[1] + 1) % 1000

"""

PROLOGUE = [
    "x = a",
    "y = b",
    "z = (a * 3 + b) % 1000",
    "flag = a < b",
    "xs = [a, b, 7]",
    "ys = [2, 5, 1]",
    "d = {'p': b, 'q': 3}",
    "acc = []",
]


def program(seed):
    """Source of a module defining ``f(a, b)`` (ints in, an int or a pair out, always terminating),
    and the inputs to run it on: the same for the same seed."""
    rng = random.Random(seed)
    gen = _Generator(rng)
    body = PROLOGUE + _with_bump(gen.block(0, [], _Where()), seed) + [gen.final_return()]
    source = "\n".join(["import runtime as rt", "", "", HELPER, "def f(a, b):", *_indent(body), ""])
    inputs = [(rng.randint(-30, 60), rng.randint(-30, 60)) for _ in range(3)] + [(0, 0)]
    return source, inputs


def _with_bump(lines, seed):
    """In a quarter of the programs, ``bump(xs)`` before one statement: a call that changes
    the list it is passed, where the converter cannot see. A staged statement that carries
    ``xs[1]`` gives Python's answer; one that does not raises, naming it (never a wrong answer).
    Drawn by a generator of its own, so that the rest of each program stays as it was."""
    rng = random.Random(seed * 7 + 1)
    if rng.random() >= 0.25:
        return lines
    places = [i for i, line in enumerate(lines) if not line.lstrip().startswith(_CLAUSES)]
    i = rng.choice(places)
    indent = lines[i][: len(lines[i]) - len(lines[i].lstrip())]
    return [*lines[:i], f"{indent}bump(xs)", *lines[i:]]


_CLAUSES = ("elif ", "else:", "except ", "finally:")


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


def _outcome(fn, *args):
    try:
        return fn(*args), None
    except Exception as e:
        return None, e


# The errors a graph raises where Python finds a variable unassigned: at run time (a loop that
# ran zero times) or, for a loop unrolled while tracing, as Python does.
_GRAPH_UNASSIGNED = (rt.errors.InvalidArgumentError, UnboundLocalError)


def check_program(source, inputs, directory):
    """Runs the program on each input in the four ways; asserts they agree."""
    fn = _load(source, directory)
    converted = ag.to_graph(fn)
    traced = ag.function(converted)
    for a, b in inputs:
        expected, error = _outcome(fn, a, b)
        actual, actual_error = _outcome(converted, a, b)
        eager, eager_error = _outcome(converted, rt.constant(a), rt.constant(b))
        graph, graph_error = _outcome(traced, rt.constant(a), rt.constant(b))
        where = f"inputs {a}, {b}"
        if error is not None:  # only an unassigned `w` may make a program fail
            assert isinstance(error, UnboundLocalError), (where, error)
            assert isinstance(actual_error, UnboundLocalError), ("python", where, actual)
            assert isinstance(eager_error, UnboundLocalError), ("eager", where, eager)
            assert isinstance(graph_error, _GRAPH_UNASSIGNED) or _is_hidden_change(
                graph_error, source
            ), ("graph", where, graph_error)
            continue
        assert actual_error is None and _same_python(actual, expected), (
            "python",
            where,
            actual,
            actual_error,
            expected,
        )
        assert eager_error is None and _same_number(eager, expected), (
            "eager",
            where,
            eager,
            eager_error,
            expected,
        )
        if _is_hidden_change(graph_error, source):
            continue
        assert graph_error is None and _same_number(graph, expected), (
            "graph",
            where,
            graph,
            graph_error,
            expected,
        )
    # int32 scalars each time: one graph runs every input (unless tracing itself failed)
    assert (
        traced.tracing_count == 1
        or isinstance(graph_error, UnboundLocalError)
        or _is_hidden_change(graph_error, source)
    )


def _is_hidden_change(error, source):
    """The error a staged statement raises when ``bump(xs)`` changed ``xs`` while it was traced
    (tracing comes before running: it may be raised where Python finds ``w`` unassigned)."""
    return (
        "bump(xs)" in source
        and isinstance(error, ValueError)
        and str(error).startswith("'xs' (a Python list) was changed by a call of bump() while")
    )


# A fixed set by default: CI's verdict must not depend on the day it runs. ``daily`` draws a
# fresh set each day, so that runs over time see more programs; a failure names its seed,
# with which ``program(seed)`` gives the same program again.
_CI_SEED = 73_994_400_000
_SEED_SETTING = os.environ.get("AUTOGRAPH_RANDOM_SEED", str(_CI_SEED))
_FIRST_SEED = date.today().toordinal() * 100_000 if _SEED_SETTING == "daily" else int(_SEED_SETTING)
_COUNT = int(os.environ.get("AUTOGRAPH_RANDOM_PROGRAMS", 300))


@pytest.mark.parametrize("seed", range(_FIRST_SEED, _FIRST_SEED + _COUNT))
def test_random_program(tmp_path, seed):
    source, inputs = program(seed)
    try:
        check_program(source, inputs, tmp_path)
    except AssertionError as e:
        raise AssertionError(f"program {seed} (AUTOGRAPH_RANDOM_SEED={seed}):\n{source}") from e


# Programs that runs of thousands found wrong, kept (while the generator draws the same ones):
# 903065, a staged if's branch whose inner ifs shared `flag` with it; 950948, a loop staged
# later whose iteration left such a shared variable unassigned; 900932, bump(xs) in an elif
# that does not carry xs[1], which the if around it does.
@pytest.mark.parametrize("seed", [903065, 950948, 900932])
def test_programs_the_large_runs_found(tmp_path, seed):
    source, inputs = program(seed)
    check_program(source, inputs, tmp_path)


def test_the_programs_use_every_construct():
    """Over a hundred programs, each construct the generator knows shows up."""
    sources = "\n".join(program(seed)[0] for seed in range(100))
    for construct in (
        "elif ", "while ", "for ", "rt.range(", "enumerate(", "zip(", "try:", "except ",
        "finally:", "break", "continue", "return ", "xs[", "d['", "acc.append(", "w = ",
        "bump(xs)",
    ):  # fmt: skip
        assert construct in sources, construct
    assert max(len(line) - len(line.lstrip()) for line in sources.splitlines()) >= 4 * 5


_JIT_COUNT = int(os.environ.get("AUTOGRAPH_RANDOM_JIT_PROGRAMS", 40))


@pytest.mark.parametrize("seed", range(_FIRST_SEED, _FIRST_SEED + _JIT_COUNT))
def test_random_program_with_jit_compile(tmp_path, seed):
    """The same programs compiled by XLA (``jit_compile=True``) give the same ints."""
    import_extra("jax")  # the optional extra
    source, inputs = program(seed)
    fn = _load(source, tmp_path)
    compiled = ag.function(fn, jit_compile=True)
    for a, b in inputs:
        expected, error = _outcome(fn, a, b)
        actual, actual_error = _outcome(compiled, rt.constant(a), rt.constant(b))
        where = f"program {seed} (AUTOGRAPH_RANDOM_SEED={seed}), inputs {a}, {b}:\n{source}"
        if _is_hidden_change(actual_error, source):
            continue
        if error is not None:
            assert isinstance(actual_error, _GRAPH_UNASSIGNED), (where, actual_error)
            continue
        assert actual_error is None and _same_number(actual, expected), (
            where,
            actual,
            actual_error,
            expected,
        )


# Programs the jit_compile runs found wrong, kept: 5000039, a zip over a range whose size
# changed from one iteration of the loop around it to the next (the range is no longer built);
# 6100207 and 6100392, a list appended to in one branch of an if and not in the other (the
# branches gave TensorArrays of two sizes).
@pytest.mark.parametrize("seed", [5000039, 6100207, 6100392])
def test_jit_programs_the_large_runs_found(tmp_path, seed):
    test_random_program_with_jit_compile(tmp_path, seed)
