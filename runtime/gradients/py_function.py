"""The gradient of an ``EagerPyFunc`` op (``rt.py_function`` in a graph), set on its row as
this module loads: another ``EagerPyFunc`` op, which differentiates the tape the forward op's
run of the function was recorded on (``ForwardRun``), as TensorFlow's gradient of
``py_function`` does. The function is not called again: a function drawing random numbers
gets the gradient of the values it returned, and its side effects happen once.

>>> import runtime as rt
>>> with rt.Graph().as_default() as g:
...     x = rt.placeholder(rt.float32, [])
...     y = rt.py_function(lambda t: t * t * t, [x], rt.float32)
...     dx, = rt.gradients(y, [x])
>>> float(rt.Session(g).run(dx, {x: 2.0}))
12.0
"""

from __future__ import annotations

import itertools
import weakref

import numpy as np

from runtime import errors
from runtime.gradients.tape import GradientTape
from runtime.ops import script_ops
from runtime.ops.script_ops import (
    NO_RUN,
    PY_FUNCTION,
    PythonFunction,
    call_converting,
    py_function,
)


class ForwardRun:
    """One run of the function under its own tape: what its gradient differentiates.

    A run in a graph is found by its id, the forward op's hidden last output, which the
    gradient op takes as an input. The run is kept while that output's value (a numpy array)
    lives: as long as whatever may still differentiate the run (a tape's record of a function
    call, a loop's stacks) holds it, for any number of gradients (persistent tapes), and
    dropped with it; a graph run whose outputs nobody keeps keeps no run.
    """

    __slots__ = ("tape", "inputs", "outputs", "__weakref__")

    _kept = {}  # run id -> ForwardRun, while the id's value lives
    _ids = itertools.count(NO_RUN + 1)

    def __init__(self, tape, inputs, outputs):
        self.tape, self.inputs, self.outputs = tape, inputs, outputs

    def id_value(self):
        """A new id for this run, as the value of the forward op's run-id output: the run is
        kept until that value is garbage."""
        run_id = next(ForwardRun._ids)
        value = np.array(run_id, np.int64)
        ForwardRun._kept[run_id] = self
        weakref.finalize(value, ForwardRun._kept.pop, run_id, None)
        return value

    @staticmethod
    def find(run_id, function):
        """The run of ``function`` whose id is ``run_id`` (a numpy value)."""
        run = ForwardRun._kept.get(int(run_id))
        if run is None:
            raise errors.InternalError(
                f"The gradient of rt.py_function {function.name} found no run of the function "
                "to differentiate: the forward op's run was not kept for a gradient."
            )
        return run

    def gradients(self, wanted, given, upstream):
        """The gradients of the inputs ``wanted`` from those (``upstream``) of the outputs
        ``given``; zeros where the function's result does not depend on an input (numpy)."""
        return self.tape.gradient(
            [self.outputs[i] for i in given],
            [self.inputs[i] for i in wanted],
            output_gradients=list(upstream),
            unconnected_gradients="zero",
        )


def run_on_tape(function, tensors, Tout):
    """Calls ``function`` (a PythonFunction) on eager ``tensors`` under a tape watching the
    floating-point ones: the run, for the op's gradient."""
    with GradientTape(persistent=True) as tape:  # persistent: asked once per gradient
        tape.watch([t for t in tensors if t.dtype.is_floating])
        outputs = call_converting(function, tensors, Tout)
    return ForwardRun(tape, tensors, outputs)


def py_function_gradient(op, *grads):
    """Gradients of the op's floating-point inputs from those of its floating-point outputs."""
    function, Tout = op.attrs["function"], op.attrs["Tout"]
    wanted = [i for i, t in enumerate(op.inputs) if t.dtype.is_floating]
    given = [i for i, g in enumerate(grads) if g is not None and Tout[i].is_floating]
    input_grads = [None] * len(op.inputs)
    if not wanted or not given:
        return input_grads
    function.differentiated = True  # from now on each run is recorded on a tape
    differentiate = PythonFunction(_differentiating(function, wanted, given))
    # The forward op's run id comes first: it names the run, and orders the gradient after it.
    results = py_function(
        differentiate,
        [op.outputs[-1], *[grads[i] for i in given]],
        [op.inputs[i].dtype for i in wanted],
        name="EagerPyFuncGrad",
    )
    for i, g in zip(wanted, results):
        # An input's gradient has the input's shape: so a loop's gradient carries it as the
        # forward loop carries the input (the op cannot know its results' shapes).
        g.set_shape(op.inputs[i].shape)
        input_grads[i] = g
    return input_grads


def _differentiating(function, wanted, given):
    """A Python function of (the forward op's run id, output gradients...) giving the
    wanted inputs' gradients from that run of ``function``."""

    def differentiate(run_id, *upstream):
        return ForwardRun.find(run_id.numpy(), function).gradients(wanted, given, upstream)

    differentiate.__qualname__ = f"gradient of {function.name}"
    return differentiate


PY_FUNCTION.gradient = py_function_gradient
script_ops.run_on_tape = run_on_tape
