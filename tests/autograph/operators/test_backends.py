"""The backend protocol: converted statements go to the backend whose staged value they see."""

from __future__ import annotations

import autograph as ag
import runtime as rt
from autograph.operators import backends
from autograph.operators.runtime_backend import RUNTIME


class Later:
    """A value of a toy framework: a number known only later (here: at once, to check)."""

    def __init__(self, value):
        self.value = value


class ToyBackend(backends.Backend):
    """Stages an ``if`` on a ``Later`` by running the branch its value picks, and logs it."""

    name = "toy"

    def __init__(self):
        self.log = []

    def is_staged(self, value):
        return isinstance(value, Later)

    def stage_if(self, cond, if_true, if_false, state):
        self.log.append(("if", state.names, state.get()))
        (if_true if cond.value else if_false)()

    def logical_not(self, value):
        return Later(not value.value)


def clamp(x, flag):
    y = x
    if flag:
        y = 0
    if not flag:
        y = y + 1
    return y


def test_a_third_backend_is_one_class():
    toy = ToyBackend()
    backends.register(toy)
    try:
        assert ag.to_graph(clamp)(5, Later(True)) == 0
        assert ag.to_graph(clamp)(5, Later(False)) == 6
    finally:
        backends.unregister(toy)
    assert backends.staging(Later(True)) is None  # unregistered: a Python value again
    # each `if` on a Later went to the toy backend, with the variable it carries and its value
    assert [entry[:2] for entry in toy.log] == [("if", ("y",))] * 4
    assert [entry[2] for entry in toy.log] == [(5,), (0,), (5,), (5,)]


def test_the_runtime_is_the_default():
    assert backends._registered[0] is RUNTIME
    with rt.Graph().as_default():
        assert backends.staging(rt.placeholder(rt.int32, [])) is RUNTIME
    assert backends.staging(rt.constant(1)) is None  # eager: a Python value
    assert backends.staging(3) is None
