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

from runtime import errors
from runtime.gradients.tape import GradientTape
from runtime.ops import script_ops
from runtime.ops.script_ops import PY_FUNCTION, PythonFunction, call_converting, py_function


class ForwardRun:
    """One run of the function under its own tape: what its gradient differentiates."""

    __slots__ = ("tape", "inputs", "outputs")

    def __init__(self, tape, inputs, outputs):
        self.tape, self.inputs, self.outputs = tape, inputs, outputs

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
    floating-point ones; the run is kept as the thread's last, for the op's gradient."""
    with GradientTape(persistent=True) as tape:  # persistent: asked once per gradient
        tape.watch([t for t in tensors if t.dtype.is_floating])
        outputs = call_converting(function, tensors, Tout)
    run = ForwardRun(tape, tensors, outputs)
    function.keep(run)
    return run


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
    # The forward op's first output comes first: it orders the gradient after the forward run.
    results = py_function(
        differentiate,
        [op.outputs[0], *[grads[i] for i in given]],
        [op.inputs[i].dtype for i in wanted],
        name="EagerPyFuncGrad",
    )
    for i, g in zip(wanted, results):
        input_grads[i] = g
    return input_grads


def _differentiating(function, wanted, given):
    """A Python function of (the forward op's first output, output gradients...) giving the
    wanted inputs' gradients from this thread's last run of ``function``."""

    def differentiate(_, *upstream):
        run = function.last_run()
        if run is None:
            raise errors.InternalError(
                f"The gradient of rt.py_function {function.name} found no run of the function "
                "to differentiate: the forward op runs first, in the same thread."
            )
        return run.gradients(wanted, given, upstream)

    differentiate.__qualname__ = f"gradient of {function.name}"
    return differentiate


PY_FUNCTION.gradient = py_function_gradient
script_ops.run_on_tape = run_on_tape
