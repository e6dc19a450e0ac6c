"""Variables a tensor-dependent loop creates or cannot carry, under ``jax.jit``: Python's answer
where a graph can give it, else the error that says why."""

from __future__ import annotations

import numpy as np
import pytest

from tests.extras import import_extra  # noqa: E402

jax = import_extra("jax")
import jax.numpy as jnp  # noqa: E402

import autograph as ag  # noqa: E402


def jitted(fn):
    return jax.jit(ag.to_graph(fn))


# --- an optional variable the loop cannot carry ------------------------------------------------


def rebinds_a_string_read_by_a_closure(x):
    msg = "start"

    def get():
        return msg

    while x > 0:
        msg = "in the loop"
        x = x - 1.0
    return len(get()) * 1.0 + x


class Box:
    pass


def rebinds_an_object_read_by_a_closure(x):
    o = Box()
    first = o

    def get():
        return o is first

    while x > 0:
        o = Box()
        x = x - 1.0
    return jnp.float32(get()) + x


def rebinds_an_object_to_a_number(x):
    o = Box()

    def get():
        return o

    while x > 0:
        o = 2.0  # a value the loop could carry: the object before it cannot be
        x = x - 1.0
    g = get()
    return x + (100.0 if isinstance(g, Box) else g)


@pytest.mark.parametrize(
    "fn, held",
    [
        (rebinds_a_string_read_by_a_closure, "str"),
        (rebinds_an_object_read_by_a_closure, "Box"),
        (rebinds_an_object_to_a_number, "Box"),
    ],
)
def test_a_loop_rebinding_a_variable_it_cannot_carry_is_an_error(fn, held):
    # Python's answer depends on how often the staged loop runs: a graph cannot give it, and
    # keeping the value from before the loop would be silently wrong.
    assert fn(3.0) != fn(-3.0)
    with pytest.raises(TypeError, match=f"holds a {held}, which cannot be a variable"):
        jitted(fn)(3.0)


# --- a branch reading a variable the body assigns later ---------------------------------------


def reads_last_iterations_value(x, n):
    s = 0.0
    for i in range(n):
        if i > 0:
            s = s + y  # noqa: F821 (assigned below, by the previous iteration)
        y = x * i  # noqa: F841 (read by the next iteration)
    return s


@pytest.mark.parametrize("n", [0, 1, 3, 5])
def test_a_branch_may_read_what_the_previous_iteration_assigned(n):
    np.testing.assert_allclose(
        jitted(reads_last_iterations_value)(3.0, jnp.int32(n)), reads_last_iterations_value(3.0, n)
    )


# --- an item or attribute a loop creates -------------------------------------------------------


def sets_an_attribute_never_read(x, n):
    b = Box()
    for i in range(n):
        b.v = x * i
    return x


def fills_a_dict(x, n):
    d = {}
    for i in range(n):
        d["a"] = x * i
    return d


@pytest.mark.parametrize("n", [0, 3])
def test_an_attribute_a_loop_creates_is_not_checked_where_nothing_reads_it(n):
    np.testing.assert_allclose(
        jitted(sets_an_attribute_never_read)(3.0, jnp.int32(n)),
        sets_an_attribute_never_read(3.0, n),
    )


def test_a_dict_a_loop_fills_is_returned():
    compiled = jitted(fills_a_dict)
    np.testing.assert_allclose(compiled(3.0, jnp.int32(3))["a"], fills_a_dict(3.0, 3)["a"])
    # A loop that never runs: Python's dict is empty, but a jitted program's structure is
    # fixed when it is traced, so the key stays (holding the stand-in); it is not an error.
    assert set(compiled(3.0, jnp.int32(0))) <= {"a"}
