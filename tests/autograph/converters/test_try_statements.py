"""A ``try`` around staged code: the program's own errors reach its handlers, staging's do not.

Each program is run three ways where it can be: plain Python, ``ag.function``
(the runtime) and ``jax.jit(ag.to_graph(f))``. A staging error (a variable one
branch leaves undefined, branches or iterations that disagree on a dtype) must
surface with the message it has without the ``try``; an error the program's
own code raises while it is traced still goes to its handler.
"""

from __future__ import annotations

import sys

import pytest

import autograph as ag
import runtime as rt
from autograph.operators import staging_errors
from tests.extras import import_extra


def defined_in_one_branch(x):
    try:
        if x > 0:
            y = x
    except ValueError:
        y = -1  # the wrong answer a handler would give
    return y


def defined_in_one_branch_bare(x):
    if x > 0:
        y = x
    return y


def branch_dtypes_differ(x):
    try:
        if x > 0:
            y = 1
        else:
            y = 2.5
    except (TypeError, ValueError):
        y = -1
    return y


def branch_dtypes_differ_bare(x):
    if x > 0:
        y = 1
    else:
        y = 2.5
    return y


def loop_dtype_changes(x):
    i = 0
    try:
        while i < x:
            i = 3.5
    except Exception:  # noqa: BLE001 (what a broad handler would hide)
        i = -1
    return i


def loop_dtype_changes_bare(x):
    i = 0
    while i < x:
        i = 3.5
    return i


def calls_a_wrong_function(x):
    try:
        y = defined_in_one_branch_bare(x)  # converted when called: its staging error comes here
    except ValueError:
        y = -1
    return y


WRONG = [
    (defined_in_one_branch, defined_in_one_branch_bare),
    (branch_dtypes_differ, branch_dtypes_differ_bare),
    (loop_dtype_changes, loop_dtype_changes_bare),
    (calls_a_wrong_function, defined_in_one_branch_bare),
]


def _first_line(error):
    return str(error).split("\n")[0]


@pytest.mark.parametrize(("fn", "bare"), WRONG, ids=lambda f: f.__name__)
def test_a_handler_does_not_catch_a_staging_error_on_the_runtime(fn, bare):
    assert fn(3) == bare(3)  # plain Python: nothing raised, the handler never runs
    with pytest.raises(Exception) as expected:
        ag.function(bare)(rt.constant(3))
    with pytest.raises(type(expected.value)) as got:
        ag.function(fn)(rt.constant(3))
    assert _first_line(got.value) == _first_line(expected.value)
    assert staging_errors.is_marked(got.value)


@pytest.mark.parametrize(("fn", "bare"), WRONG, ids=lambda f: f.__name__)
def test_a_handler_does_not_catch_a_staging_error_under_jax(fn, bare):
    jax = import_extra("jax")
    import jax.numpy as jnp

    with pytest.raises(Exception) as expected:
        jax.jit(ag.to_graph(bare))(jnp.int32(3))
    with pytest.raises(type(expected.value)) as got:
        jax.jit(ag.to_graph(fn))(jnp.int32(3))
    assert _first_line(got.value) == _first_line(expected.value)


def scaled_or_zero(x, text):
    try:
        if x > 0:
            y = x * int(text)
        else:
            y = x * 2
    except ValueError:  # the program's own error, raised while the branch is traced
        y = x * 0
    return y


def test_a_handler_still_catches_the_programs_own_error():
    assert scaled_or_zero(3, "abc") == 0
    assert int(ag.function(scaled_or_zero)(rt.constant(3), "abc").numpy()) == 0
    assert int(ag.function(scaled_or_zero)(rt.constant(3), "5").numpy()) == 15
    jax = import_extra("jax")
    import jax.numpy as jnp

    compiled = jax.jit(ag.to_graph(scaled_or_zero), static_argnums=1)
    assert int(compiled(jnp.int32(3), "abc")) == 0
    assert int(compiled(jnp.int32(3), "5")) == 15


def test_each_handler_begins_by_letting_a_staging_error_through():
    code = ag.to_code(branch_dtypes_differ)
    assert (
        "    except (TypeError, ValueError):\n        if ag__.handling_staging_error():\n" in code
    )
    assert "            raise\n" in code


@pytest.mark.skipif(sys.version_info < (3, 11), reason="except* is Python 3.11's")
def test_except_star_lets_a_staging_error_through(tmp_path):
    path = tmp_path / "star.py"
    path.write_text(
        "def f(x):\n"
        "    try:\n"
        "        if x > 0:\n"
        "            y = x\n"
        "    except* ValueError:\n"
        "        y = -1\n"
        "    return y\n"
    )
    namespace = {}
    exec(compile(path.read_text(), str(path), "exec"), namespace)
    with pytest.raises(ExceptionGroup) as raised:  # noqa: F821 (3.11's builtin)
        ag.function(namespace["f"])(rt.constant(3))
    assert "'y' must also be initialized" in str(raised.value.exceptions[0])
