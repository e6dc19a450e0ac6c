"""What a lowered program threads from op to op besides tensors: its state.

XLA programs are pure functions, so what the default executor does by side
effect becomes a value passed along in program order:

- each variable's value (``Variable`` -> array): read by ``ReadVariableOp``,
  replaced by the assign ops, passed in and returned by the whole program;
- ``KEY``, the random key (drawn from by the random ops, then advanced);
- ``ERROR``, the code of the first run-time failure (0: none yet), and
  ``DETAIL``, a number the failure's message shows (the bad index).

An entry missing from a ProgramState has its value from before the program: a
variable its input, ``ERROR`` the static 0 (no failure possible yet). Inside a
``lax.cond`` branch or a ``lax.while_loop`` body, a fork of the ProgramState is used,
and the entries the branch or body changed are carried out of it.

>>> state = ProgramState({"v": 1})
>>> inner = state.fork()
>>> inner["v"] = 2
>>> inner.changed_from(state), state["v"]
({'v'}, 1)
"""

from __future__ import annotations

KEY = "random key"
ERROR = "error code"
DETAIL = "error detail"


class ProgramState:
    """The state entries of a program at one point of its trace (see the module docstring)."""

    __slots__ = ("values",)

    def __init__(self, values=None):
        self.values = dict(values or {})

    def __getitem__(self, key):
        return self.values[key]

    def __setitem__(self, key, value):
        self.values[key] = value

    def __contains__(self, key):
        return key in self.values

    def get(self, key, default=None):
        return self.values.get(key, default)

    def fork(self, overrides=None):
        """A copy to trace a branch or loop body with; ``overrides`` are the carried entries."""
        inner = ProgramState(self.values)
        if overrides:
            inner.values.update(overrides)
        return inner

    def changed_from(self, before):
        """The keys whose value is not the very value they have in ``before``."""
        return {k for k, v in self.values.items() if before.values.get(k, _MISSING) is not v}


_MISSING = object()


class Redo(Exception):  # noqa: N818 (a signal, not an error)
    """Raised while tracing a branch or loop body: trace the op again, knowing ``learned``.

    ``learned`` maps what the op learned to its value: ``"carry"`` -> state keys
    to carry, ``"rotate"`` -> True (the loop test has effects), ``"allocate"`` ->
    {output position: element spec} for TensorArrays first written inside.
    """

    def __init__(self, **learned):
        super().__init__(learned)
        self.learned = learned


class NeedsObservation(Exception):  # noqa: N818 (a signal, not an error)
    """A value XLA needs when compiling (a shape, a TensorArray's size) is known only at run time.

    The program learns it by running the call on the default executor once
    (``runtime.xla.observe``), then compiles for that value. When the value is
    an input of the program (``input_index``), no run is needed: the program is
    compiled for each value of that input it is called with.
    """

    def __init__(self, op, input_index=None):
        super().__init__(op.name)
        self.op = op
        self.input_index = input_index
