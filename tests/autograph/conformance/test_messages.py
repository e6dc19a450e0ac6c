"""Errors of staged code lead with TensorFlow's words, which people search for, then say what to
do; they have TensorFlow's kind and point at the user's line.

TensorFlow's wording (``tensorflow/python/autograph/operators/control_flow.py``):
``'x' must also be initialized in the else branch``, ``the else branch must also have a return
statement``, ``'x' has dtype int32 in the main branch, but dtype float32 in the else branch``,
``'x' must have the same nested structure in the main and else branches``, ``'x' must be
defined before the loop``, ``'x' has dtype int32 before the loop, but dtype float32 after one
iteration``, ``'x' has shape (1,) before the loop, but shape (2,) after one iteration``,
``'x' does not have the same nested structure after one iteration``.
"""

from __future__ import annotations

import re

import pytest

import autograph as ag
import runtime as rt
from tests.autograph.conformance._harness_builtins import (
    assert_same_value,
    converted,
    python,
    traced,
)

# --- the programs (modelled on TensorFlow's cond_basic, loop_with_variable_type_illegal ...) ---


def only_if_creates(c):
    if c:
        r = 1
    return r


def only_else_creates(c):
    if c:
        pass
    else:
        r = 2
    return r


def return_maybe_missing(x):
    if x > 0:
        if x < 5:
            return x
    else:
        return x * x * x


def branches_give_different_dtypes(c):
    if c:
        y = rt.constant(1)
    else:
        y = rt.constant(1.0)
    return y


def branches_give_different_structures(c):
    if c:
        y = (1, 2)
    else:
        y = 3
    return y


def loop_reads_var_it_creates(n):
    for i in range(n):
        if i == 0:
            a = 1
        else:
            a = a + 1
    return a


def while_dtype_changes():
    n = rt.constant(0, dtype=rt.int32)
    while rt.constant(True):
        n = rt.constant(0, dtype=rt.float32)
    return n


def while_dtype_changes_then_break():
    n = rt.constant(0, dtype=rt.int32)
    while rt.constant(True):
        n = rt.constant(0, dtype=rt.float32)
        break
    return n


def for_dtype_changes(values):
    n = rt.constant(0, dtype=rt.int32)
    for _ in values:
        n = rt.constant(0, dtype=rt.float32)
    return n


def while_shape_changes():
    t = rt.constant([1])
    while rt.constant(True):
        t = rt.constant([1, 1])
    return t


def for_shape_changes(values):
    t = rt.constant([1])
    for _ in values:
        t = rt.constant([1, 1])
    return t


def for_shape_erased(values):
    t = rt.constant([1])
    for x in values:
        t = rt.range(rt.maximum(x, 2))
    return t


def while_structure_changes():
    s = {"a": rt.constant(0)}
    while rt.constant(True):
        s = rt.constant(7.0)
    return s


def ifexp_imbalanced_structure(x):
    parts = rt.unstack(x) if rt.size(x) > 0 else []
    return len(parts)


def ifexp_different_dtypes(x):
    return rt.constant(1) if x > 0 else rt.constant(1.5)


# TensorFlow's sentence for each program, and the error kind it raises. The traced function gets
# tensors for its arguments, so its statements are staged.
CASES = [
    (only_if_creates, (True,), ValueError, "'r' must also be initialized in the else branch"),
    (only_else_creates, (False,), ValueError, "'r' must also be initialized in the main branch"),
    (return_maybe_missing, (3,), ValueError, "the else branch must also have a return statement"),
    (
        branches_give_different_dtypes,
        (True,),
        TypeError,
        "'y' has dtype int32 in the main branch, but dtype float32 in the else branch",
    ),
    (
        branches_give_different_structures,
        (True,),
        TypeError,
        "'y' must have the same nested structure in the main and else branches",
    ),
    (loop_reads_var_it_creates, (2,), ValueError, "'a' must be defined before the loop"),
    (
        while_dtype_changes,
        (),
        TypeError,
        "'n' has dtype int32 before the loop, but dtype float32 after one iteration",
    ),
    (
        while_dtype_changes_then_break,
        (),
        TypeError,
        "'n' has dtype int32 before the loop, but dtype float32 after one iteration",
    ),
    (
        for_dtype_changes,
        ([1, 2, 3],),
        TypeError,
        "'n' has dtype int32 before the loop, but dtype float32 after one iteration",
    ),
    (
        while_shape_changes,
        (),
        ValueError,
        "'t' has shape (1,) before the loop, but shape (2,) after one iteration",
    ),
    (
        for_shape_changes,
        ([1, 2, 3],),
        ValueError,
        "'t' has shape (1,) before the loop, but shape (2,) after one iteration",
    ),
    (
        for_shape_erased,
        ([1, 2, 3],),
        ValueError,
        "'t' has shape (1,) before the loop, but shape (None,) after one iteration",
    ),
    (
        while_structure_changes,
        (),
        TypeError,
        "'s' does not have the same nested structure after one iteration",
    ),
    (
        ifexp_imbalanced_structure,
        ([1.0],),
        ValueError,
        "must return the same nested structure in both branches",
    ),
    (
        ifexp_different_dtypes,
        (1,),
        TypeError,
        "has dtype int32 in the main branch, but dtype float32 in the else branch",
    ),
]


def _line_of(fn, text):
    import inspect

    lines, first = inspect.getsourcelines(fn)
    return first + next(i for i, line in enumerate(lines) if text in line)


@pytest.mark.parametrize(
    "fn, args, kind, sentence", CASES, ids=[case[0].__name__ for case in CASES]
)
def test_a_staged_mistake_gets_tensorflows_words_then_ours(fn, args, kind, sentence):
    error = traced(fn, *args).error
    assert isinstance(error, kind), repr(error)
    message = str(error)
    assert sentence in message, message
    first_line = message.split("\n")[0]
    assert len(first_line) > len(sentence) + 20, f"no advice after TensorFlow's words: {message}"
    # the error names the user's own file
    assert re.search(rf'File "{re.escape(__file__)}", line \d+, in {fn.__name__}', message), message


def test_a_structure_mismatch_is_also_a_value_error_as_before():
    error = traced(branches_give_different_structures, True).error
    assert isinstance(error, TypeError) and isinstance(error, ValueError)
    assert isinstance(error, rt.errors.NestedStructureError)
    error = traced(while_structure_changes).error
    assert isinstance(error, TypeError) and isinstance(error, ValueError)


def test_the_error_points_at_the_statement():
    message = str(traced(only_if_creates, True).error)
    line = _line_of(only_if_creates, "if c:")
    assert f'File "{__file__}", line {line}, in only_if_creates' in message


@pytest.mark.parametrize(
    "fn, args",
    [
        (only_if_creates, (True,)),
        (only_if_creates, (False,)),
        (branches_give_different_dtypes, (False,)),
        (loop_reads_var_it_creates, (2,)),
        (for_dtype_changes, ([1, 2],)),
        (for_shape_changes, ([1, 2],)),
    ],
)
def test_the_same_programs_on_python_values_behave_as_python(fn, args):
    reference, got = python(fn, *args), converted(fn, *args)
    if reference.error is not None:
        assert type(got.error) is type(reference.error)
    else:
        assert got.error is None
        assert_same_value(got.value, reference.value)


def test_rt_while_loop_and_rt_cond_keep_their_own_words():
    # Called directly (no AutoGraph names), the runtime speaks of loop variables and true_fn.
    with rt.Graph().as_default():
        x = rt.placeholder(rt.int32, [])
        with pytest.raises(TypeError, match="true_fn and false_fn"):
            rt.cond(x > 0, lambda: x, lambda: rt.constant(1.5))
        with pytest.raises(ValueError, match="enters the loop with shape"):
            rt.while_loop(lambda v: rt.constant(True), lambda v: [rt.concat([v, v], 0)], [x[None]])
        with pytest.raises(ValueError, match="must return the same structure"):
            rt.while_loop(lambda v: rt.constant(True), lambda v: [(v, v)], [x])


def test_the_shape_advice_names_the_directive_that_fixes_it():
    message = str(traced(while_shape_changes).error)
    assert "set_loop_options" in message and "shape_invariants" in message


def test_converted_code_shows_no_generated_names_in_these_messages():
    for fn, args, _, _ in CASES:
        message = str(traced(fn, *args).error).split("\n\nin user code")[0]
        assert "ag__" not in message and "loop_var_" not in message, message
        assert "retval" not in message, message


def test_to_graph_in_a_tf1_graph_gets_the_same_words():
    with rt.Graph().as_default():
        c = rt.placeholder(rt.bool, [])
        with pytest.raises(ValueError, match="must also be initialized in the else branch"):
            ag.to_graph(only_if_creates)(c)
