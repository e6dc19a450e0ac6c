"""Golden tests for ``ag.to_code``: one expected output per gallery function in ``golden/``.

Regenerate the files with ``AUTOGRAPH_REGEN_GOLDEN=1``, e.g.
``AUTOGRAPH_REGEN_GOLDEN=1 .venv/bin/python -m pytest tests/autograph/test_to_code_golden.py``:
every golden test then writes its file and fails (a regenerating run never passes), so read
the diff, and run again without the variable before committing it.

The golden text is also run: the function it defines must behave as the original.
"""

import copy
import inspect
import os
import pathlib
import types

import numpy as np
import pytest

import autograph as ag
import runtime as rt
from tests.autograph.printed_code import from_printed_code

GOLDEN = pathlib.Path(__file__).parent / "golden"
REGEN = os.environ.get("AUTOGRAPH_REGEN_GOLDEN") == "1"


# --- the gallery -----------------------------------------------------------------------------


def if_else(x):
    if x > 0:
        y = x * 2
    else:
        y = -x
    return y


def elif_chain(x):
    if x < 0:
        sign = -1
    elif x == 0:
        sign = 0
    else:
        sign = 1
    return sign


def while_sum(n):
    i = 0
    total = 0
    while i < n:
        total += i
        i += 1
    return total


def for_range(n):
    total = 0
    for i in rt.range(n):
        total += i * i
    return total


def for_break(n):
    total = 0
    for i in rt.range(n):
        if total > 10:
            break
        total += i
    return total


def for_continue(n):
    total = 0
    for i in rt.range(n):
        if i % 2 == 0:
            continue
        total += i
    return total


def early_return(x):
    if x < 0:
        return -x
    x = x * 3
    return x


def return_in_loop(n):
    i = 0
    while i < n:
        if i * i >= n:
            return i
        i += 1
    return -1


def logic(x, y):
    return (x > 0 and y > 0) or not x < y


def conditional_expression(x):
    return x * 2 if x > 0 else x - 1


def list_append(n):
    items = []
    for i in rt.range(n):
        items.append(i * 10)
    return rt.stack(items)


def nested_function(x):
    def clip(v):
        if v > 5:
            v = 5
        return v

    return clip(x) + 1


class Accumulator:
    def __init__(self, threshold):
        self.threshold = threshold
        self.count = 0

    def above(self, x):
        if x > self.threshold:
            x = x - self.threshold
        else:
            x = 0 * x
        return x

    def count_up(self, n):
        for _ in rt.range(n):
            self.count += 1
        return self.count


def nested_loops(n):
    total = 0
    i = 0
    while i < n:
        for j in rt.range(i):
            total += j
        i += 1
    return total


GALLERY = {
    "if_else": (if_else, [(3,), (-4,)]),
    "elif_chain": (elif_chain, [(-2,), (0,), (5,)]),
    "while_sum": (while_sum, [(0,), (5,)]),
    "for_range": (for_range, [(0,), (4,)]),
    "for_break": (for_break, [(3,), (10,)]),
    "for_continue": (for_continue, [(0,), (7,)]),
    "early_return": (early_return, [(-3,), (4,)]),
    "return_in_loop": (return_in_loop, [(0,), (10,)]),
    "logic": (logic, [(1, 2), (-1, 2), (3, -1), (-5, -6)]),
    "conditional_expression": (conditional_expression, [(3,), (-3,)]),
    "list_append": (list_append, [(1,), (4,)]),
    "nested_function": (nested_function, [(2,), (9,)]),
    "method_above": (Accumulator(2).above, [(1,), (7,)]),
    "method_count_up": (Accumulator(0).count_up, [(0,), (3,)]),
    "nested_loops": (nested_loops, [(0,), (5,)]),
}

# What the originals give on Python values (checked against plain Python below).
EXPECTED = {
    "if_else": [6, 4],
    "elif_chain": [-1, 0, 1],
    "while_sum": [0, 10],
    "for_range": [0, 14],
    "for_break": [3, 15],
    "for_continue": [0, 9],
    "early_return": [3, 12],
    "return_in_loop": [-1, 4],
    "logic": [True, False, True, True],
    "conditional_expression": [6, -4],
    "list_append": [[0], [0, 10, 20, 30]],
    "nested_function": [3, 6],
    "method_above": [0, 5],
    "method_count_up": [0, 3],
    "nested_loops": [0, 10],
}


def _golden_path(name):
    return GOLDEN / f"{name}.txt"


def _value(v):
    if isinstance(v, (rt.Tensor, rt.Variable)):
        v = v.numpy()
    return np.asarray(v).tolist()


def check_golden(path, code, regenerate):
    """``code`` is the text of ``path``; when regenerating, writes it there and fails anyway."""
    if regenerate:
        changed = not path.exists() or path.read_text() != code
        path.parent.mkdir(exist_ok=True)
        path.write_text(code)
        pytest.fail(
            f"{'rewrote' if changed else 'unchanged:'} {path} (AUTOGRAPH_REGEN_GOLDEN=1 never "
            "passes: read the diff, then run again without it)"
        )
    assert path.exists(), f"missing {path}; run with AUTOGRAPH_REGEN_GOLDEN=1"
    assert code == path.read_text(), f"ag.to_code differs from {path}"


@pytest.mark.parametrize("name", sorted(GALLERY))
def test_to_code_matches_golden(name):
    fn, _ = GALLERY[name]
    check_golden(_golden_path(name), ag.to_code(fn), REGEN)


def test_regenerating_writes_the_file_and_fails(tmp_path):
    path = tmp_path / "golden" / "f.txt"
    with pytest.raises(pytest.fail.Exception, match="rewrote"):
        check_golden(path, "def f():\n    pass\n", regenerate=True)
    assert path.read_text() == "def f():\n    pass\n"
    with pytest.raises(pytest.fail.Exception, match="unchanged"):
        check_golden(path, "def f():\n    pass\n", regenerate=True)
    check_golden(path, "def f():\n    pass\n", regenerate=False)
    with pytest.raises(AssertionError, match="differs"):
        check_golden(path, "def f():\n    return 1\n", regenerate=False)


@pytest.mark.parametrize("name", sorted(GALLERY))
def test_golden_output_behaves_as_the_original(name):
    if REGEN:
        pytest.fail("regenerating: the golden files are being rewritten")
    fn, inputs = GALLERY[name]
    printed = from_printed_code(_fresh(fn), _golden_path(name).read_text())
    for args, expected in zip(inputs, EXPECTED[name]):
        assert _value(printed(*args)) == expected, (name, args)
        g = rt.Graph()
        with g.as_default():
            placeholders = [rt.placeholder(rt.int32, []) for _ in args]
            out = from_printed_code(_fresh(fn), _golden_path(name).read_text())(*placeholders)
        assert _value(rt.Session(g).run(out, dict(zip(placeholders, args)))) == expected


def test_every_golden_file_belongs_to_the_gallery():
    assert sorted(p.stem for p in GOLDEN.glob("*.txt")) == sorted(GALLERY)


def _fresh(fn):
    """A method bound to a copy of its instance, so that runs do not share ``self.count``."""
    if inspect.ismethod(fn):
        return types.MethodType(fn.__func__, copy.copy(fn.__self__))
    return fn


@pytest.mark.parametrize("name", sorted(GALLERY))
def test_converted_matches_original_on_python_values(name):
    fn, inputs = GALLERY[name]
    for args, expected in zip(inputs, EXPECTED[name]):
        assert _value(_fresh(fn)(*args)) == expected, (name, args)
        assert _value(ag.to_graph(_fresh(fn))(*args)) == expected, (name, args)


@pytest.mark.parametrize("name", sorted(GALLERY))
def test_converted_matches_original_in_a_graph(name):
    fn, inputs = GALLERY[name]
    for args, expected in zip(inputs, EXPECTED[name]):
        g = rt.Graph()
        with g.as_default():
            placeholders = [rt.placeholder(rt.int32, []) for _ in args]
            out = ag.to_graph(_fresh(fn))(*placeholders)
        got = rt.Session(g).run(out, dict(zip(placeholders, args)))
        assert _value(got) == expected, (name, args)
