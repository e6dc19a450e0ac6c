"""Checking gradients against central differences, three ways.

``check_gradient(fn, args)`` differentiates ``sum(w * fn(*args))`` (``w`` a fixed
random weight of each output, so every element of the output's gradient
counts) with respect to each float64 argument, and compares

* the numeric gradient: central differences, one element at a time, of the
  function evaluated eagerly in float64;
* an eager ``GradientTape``;
* ``rt.gradients`` in a TensorFlow 1 graph whose placeholders have the
  ``shapes`` given (``None`` dims unknown), run in a Session;
* a tape inside a traced function graph, optimised and compiled as
  ``ag.function`` does.

Other arguments (integer indices, bools) are inputs too but not differentiated.
"""

from __future__ import annotations

import numpy as np

import runtime as rt
from runtime.execution.compile import compile_function
from runtime.execution.optimize import optimize
from runtime.execution.tracing import trace


def _outputs(result):
    return list(result) if isinstance(result, (list, tuple)) else [result]


def _weights(fn, args, seed):
    outs = _outputs(fn(*[rt.constant(a) for a in args]))
    rng = np.random.default_rng(seed)
    return [rng.uniform(0.5, 1.5, np.shape(o.numpy())).astype(o.numpy().dtype) for o in outs]


def _objective(fn, args, weights):
    outs = _outputs(fn(*[rt.constant(a) for a in args]))
    return sum(float(np.sum(np.asarray(o.numpy(), np.float64) * w)) for o, w in zip(outs, weights))


def central_difference(f, x, eps=1e-6):
    """d f / d x of a scalar ``f`` of a float64 array ``x``, by central differences, one
    element at a time."""
    x = np.asarray(x, np.float64)
    grad = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        up, down = x.copy(), x.copy()
        up[i] += eps
        down[i] -= eps
        grad[i] = (f(up) - f(down)) / (2 * eps)
    return grad


def numeric_gradients(fn, args, weights, eps=1e-6):
    """Central differences of the weighted objective, for each float64 argument."""
    grads = []
    for i, a in enumerate(args):
        if not _differentiable(a):
            grads.append(None)
            continue

        def objective(value, i=i):
            changed = list(args)
            changed[i] = value
            return _objective(fn, changed, weights)

        grads.append(central_difference(objective, a, eps))
    return grads


def _differentiable(a):
    return np.asarray(a).dtype == np.float64


def tape_gradients(fn, args, weights):
    tensors = [rt.constant(a) for a in args]
    with rt.GradientTape(persistent=True) as tape:
        for t in tensors:
            tape.watch(t)
        outs = _outputs(fn(*tensors))
    grads = tape.gradient(outs, tensors, output_gradients=[rt.constant(w) for w in weights])
    return [None if g is None else g.numpy() for g in grads]


def graph_gradients(fn, args, weights, shapes=None):
    g = rt.Graph()
    with g.as_default():
        phs = [
            rt.placeholder(
                rt.as_dtype(np.asarray(a).dtype),
                np.shape(a) if shapes is None else shapes[i],
                name=f"arg{i}",
            )
            for i, a in enumerate(args)
        ]
        outs = _outputs(fn(*phs))
        grads = rt.gradients(outs, phs, grad_ys=[rt.constant(w) for w in weights])
    fetch = [x for x in grads if x is not None]
    values = iter(rt.Session(g).run(fetch, dict(zip(phs, args))) if fetch else [])
    return [None if x is None else next(values) for x in grads]


def function_gradients(fn, args, weights, shapes=None):
    """A tape inside a traced graph, optimised and compiled as ag.function does."""
    specs = [
        rt.TensorSpec(
            np.shape(a) if shapes is None else shapes[i], rt.as_dtype(np.asarray(a).dtype)
        )
        for i, a in enumerate(args)
    ]
    connected = []

    def traced(*xs):
        with rt.GradientTape() as tape:
            for x in xs:
                tape.watch(x)
            outs = _outputs(fn(*xs))
        grads = tape.gradient(outs, list(xs), output_gradients=[rt.constant(w) for w in weights])
        connected.extend(x is not None for x in grads)
        return [x for x in grads if x is not None]

    graph = trace(traced, specs, "gradient_check")
    program = compile_function(optimize(graph)[0])
    values = iter(program(*[np.asarray(a) for a in args]))
    return [next(values) if c else None for c in connected]


def check_gradient(fn, args, shapes=None, rtol=1e-5, atol=1e-7, seed=0, modes=None, eps=1e-6):
    """Every way of differentiating ``fn`` at ``args`` agrees with central differences."""
    args = [np.asarray(a) for a in args]
    weights = _weights(fn, args, seed)
    expected = numeric_gradients(fn, args, weights, eps)
    ways = {
        "tape": lambda: tape_gradients(fn, args, weights),
        "graph": lambda: graph_gradients(fn, args, weights, shapes),
        "function": lambda: function_gradients(fn, args, weights, shapes),
    }
    for way in modes or ways:
        actual = ways[way]()
        for i, (a, e) in enumerate(zip(actual, expected)):
            if e is None or (a is None and not np.any(e)):
                continue  # None is the right answer for a gradient that is zero everywhere
            assert a is not None, f"{way}: no gradient for argument {i}"
            assert np.shape(a) == np.shape(e), (
                f"{way}: argument {i}: shape {np.shape(a)} != {np.shape(e)}"
            )
            np.testing.assert_allclose(
                np.asarray(a, np.float64), e, rtol=rtol, atol=atol, err_msg=f"{way}: argument {i}"
            )
