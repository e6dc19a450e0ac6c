"""Loops that would never end when their graph runs: a clear error while tracing instead.

Each program runs in a subprocess with a time limit, so that a loop that does not end
fails the test instead of stopping the suite.
"""

import os
import pathlib
import subprocess
import sys
import textwrap

import pytest

import autograph as ag
import runtime as rt

ROOT = pathlib.Path(__file__).resolve().parents[2]


def run_program(tmp_path, source, timeout=60):
    """What ``source`` prints, run as a file of its own (the converter reads its source)."""
    script = tmp_path / "program.py"
    script.write_text(textwrap.dedent(source))
    done = subprocess.run(
        [sys.executable, str(script)],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


# TensorFlow's reference (control_flow.md): "the loop below will generate an error. After the
# first iteration, `i` becomes a tf.Tensor". As plain Python, i stays below 10 for ever.
CHANGES_TYPE = """
import autograph as ag
import runtime as rt

def changes_type():
    i = 0
    while i < 10:
        i = rt.constant(1)
    return i

try:
    ag.function(changes_type)()
except NotImplementedError as error:
    message = str(error)
    print(message.startswith(
        "The condition of while loop started as non-Tensor, then changed to Tensor"
    ))
    print('program.py", line 7, in changes_type' in message)
"""


def test_a_while_whose_test_becomes_a_tensor_of_constants_is_tensorflows_error(tmp_path):
    assert run_program(tmp_path, CHANGES_TYPE).split() == ["True", "True"]


# Loops that never end beside values that change, or computed from themselves: the staged
# loop's own test and body decide, not a check of every value it carries (a first version
# of the check let each of these through to a graph loop that never ended).
NEVER_ENDING = """
import math
import autograph as ag
import runtime as rt

def with_a_counter():
    i, k = 0, 0
    while i < 10:
        i, k = rt.constant(1), k + 1
    return i, k

def with_a_list():
    i, items = 0, []
    while i < 10:
        i = rt.constant(1)
        items.append(1)
    return i

def with_an_inner_loop():
    i, j = 0, 0
    while i < 10:
        i = rt.constant(1)
        while j < 3:
            j = j + 1
    return i, j

def computed_from_itself():
    i = 0
    while i < 10:
        i = rt.constant(1) + 0 * i
    return i

def stays_nan():
    x = -1.0
    while not (x > 0):
        x = rt.constant(math.nan)
    return x

for program in (with_a_counter, with_a_list, with_an_inner_loop, computed_from_itself, stays_nan):
    try:
        ag.function(program)()
        print(program.__name__, "ran")
    except NotImplementedError as error:
        print(program.__name__, str(error).startswith("The condition of while loop started as non-Tensor"))
"""


def test_a_loop_that_never_ends_is_refused_whatever_else_it_carries(tmp_path):
    lines = run_program(tmp_path, NEVER_ENDING).splitlines()
    assert lines == [
        f"{name} True"
        for name in (
            "with_a_counter",
            "with_a_list",
            "with_an_inner_loop",
            "computed_from_itself",
            "stays_nan",
        )
    ]


def stops_on_a_tensor(x):
    i = 0
    while i < 10:
        if x > 3:
            break
        i = i + x
    return i


def test_a_while_whose_test_becomes_a_tensor_of_the_inputs_is_staged_from_there():
    for x in (2, 4):  # the break makes the test a tensor after the first iteration
        assert ag.function(stops_on_a_tensor)(rt.constant(x)).numpy() == stops_on_a_tensor(x)


def counts_to_ten(x):
    i = 0
    while i < 10:
        i = i + rt.constant(1)  # a tensor from the first iteration on, which the loop changes
    return i + x


def sums_past_a_hundred(x):
    s = 0.0
    while s < 100.0:
        s = s + rt.reduce_sum(rt.constant([1.0, 2.0]))
    return s + x


def stops_at_a_constant_flag(x):
    done = False
    while not done:
        x = x + 1
        done = rt.constant(True)
    return x


def draws_in_its_test(x):
    draws = iter(range(100))
    i = 0
    while (i < 10) & (next(draws) < 2):  # the staged test draws 2: false, the loop ends
        i = rt.constant(1)
    return i + x


def jumps_past_the_bound(x):
    i = 0
    while i < 10:
        i = rt.constant(20)  # the same constant each time, but the test is then false
    return i + x


@pytest.mark.parametrize(
    "program",
    [
        counts_to_ten,
        sums_past_a_hundred,
        stops_at_a_constant_flag,
        jumps_past_the_bound,
        draws_in_its_test,
    ],
)
def test_a_while_of_constants_that_ends_gives_pythons_answer(program):
    # The test becomes a tensor of constants, but the staged loop ends: Python's answer, not
    # TensorFlow's error (these were refused by a first version of the check).
    x = rt.constant(0.0 if program is sums_past_a_hundred else 0)
    expected = program(x).numpy()  # eager: plain Python iterations
    assert ag.function(program)(x).numpy() == expected


# A helper called in the loop's test changes an attribute of a global object: the graph's test
# would read the value it had when traced, on every iteration.
GLOBAL_COUNTER = """
import autograph as ag
import runtime as rt

class Counter:
    def __init__(self):
        self.count = 0

    def step(self):
        self.count += 1
        return self.count

COUNTER = Counter()

def counts(n):
    k = 0
    while COUNTER.step() < n:
        k += 1
    return k

print(counts(5))
COUNTER.count = 0
try:
    ag.function(counts)(rt.constant(5))
except ValueError as error:
    print(type(error).__name__, str(error).startswith("'COUNTER.count' (an attribute of a Counter)"))
"""


def test_an_attribute_of_a_global_changed_in_a_staged_test_is_an_error_not_a_hang(tmp_path):
    assert run_program(tmp_path, GLOBAL_COUNTER).split() == ["4", "HiddenChangeError", "True"]
