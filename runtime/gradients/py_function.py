"""The gradient of an ``EagerPyFunc`` op (``rt.py_function`` in a graph), set on its row as
this module loads: another ``EagerPyFunc`` op, which calls the function again under a tape
when the gradient runs and differentiates that call, as TensorFlow's gradient of
``py_function`` differentiates the function's eager ops.

>>> import runtime as rt
>>> with rt.Graph().as_default() as g:
...     x = rt.placeholder(rt.float32, [])
...     y = rt.py_function(lambda t: t * t * t, [x], rt.float32)
...     dx, = rt.gradients(y, [x])
>>> float(rt.Session(g).run(dx, {x: 2.0}))
12.0
"""

from __future__ import annotations

from runtime.gradients.tape import GradientTape
from runtime.ops.script_ops import PY_FUNCTION, PythonFunction, call_converting, py_function


def py_function_gradient(op, *grads):
    """Gradients of the op's floating-point inputs from those of its floating-point outputs."""
    function, Tout = op.attrs["function"], op.attrs["Tout"]
    wanted = [i for i, t in enumerate(op.inputs) if t.dtype.is_floating]
    given = [i for i, g in enumerate(grads) if g is not None and Tout[i].is_floating]
    input_grads = [None] * len(op.inputs)
    if not wanted or not given:
        return input_grads
    differentiate = PythonFunction(_differentiating(function, Tout, len(op.inputs), wanted, given))
    results = py_function(
        differentiate,
        [*op.inputs, *[grads[i] for i in given]],
        [op.inputs[i].dtype for i in wanted],
        name="EagerPyFuncGrad",
    )
    for i, g in zip(wanted, results):
        input_grads[i] = g
    return input_grads


def _differentiating(function, Tout, count, wanted, given):
    """A Python function of (inputs..., output gradients...) giving the wanted inputs'
    gradients: ``function`` called again under a tape."""

    def differentiate(*values):
        inputs, upstream = list(values[:count]), list(values[count:])
        sources = [inputs[i] for i in wanted]
        with GradientTape() as tape:
            tape.watch(sources)
            outputs = call_converting(function, inputs, Tout)
        targets = [outputs[i] for i in given]
        return tape.gradient(
            targets, sources, output_gradients=upstream, unconnected_gradients="zero"
        )

    differentiate.__qualname__ = f"gradient of {function.name}"
    return differentiate


PY_FUNCTION.gradient = py_function_gradient
