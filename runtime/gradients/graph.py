"""``rt.gradients``: symbolic gradients in a graph built TensorFlow 1 style.

>>> import runtime as rt
>>> g = rt.Graph()
>>> with g.as_default():
...     x = rt.placeholder(rt.float32, [None], name="x")
...     y = rt.reduce_sum(x * x)
...     dx, = rt.gradients(y, [x])
>>> rt.Session(g).run(dx, {x: [1.0, 2.0]})
array([2., 4.], dtype=float32)
"""

from __future__ import annotations

import contextlib

from runtime.core import context, nest
from runtime.core.graph import name_scope
from runtime.core.tensor import SymbolicTensor
from runtime.gradients.backprop import backward, is_trainable, seed
from runtime.gradients.control_flow import is_within
from runtime.gradients.sources import as_source_key
from runtime.ops.constant_ops import convert_to_tensor


def gradients(ys, xs, grad_ys=None, name="gradients"):
    """The gradients of ``sum(ys)`` with respect to each of ``xs``, as ops of the graph of ``ys``.

    ``ys`` and ``xs`` are tensors (or variables, for ``xs``) or lists of them;
    ``grad_ys`` weighs each y (ones by default). Returns a list with one
    tensor per x, None where the ys do not depend on it.
    """
    ys = [convert_to_tensor(y) for y in nest.flatten(ys)]
    xs = nest.flatten(xs)
    if not ys or not all(isinstance(y, SymbolicTensor) for y in ys):
        raise RuntimeError(
            "rt.gradients is not supported when eager execution is enabled: use rt.GradientTape "
            "(or call it inside a graph or an ag.function)"
        )
    graph = ys[0].graph
    for x in xs:
        if isinstance(x, SymbolicTensor) and not is_within(graph, x.graph):
            raise ValueError(f"{x.name!r} must be from the same graph as {ys[0].name!r}")
    weights = [None] * len(ys) if grad_ys is None else nest.flatten(grad_ys)
    if len(weights) != len(ys):
        raise ValueError(f"grad_ys has {len(weights)} tensors for {len(ys)} ys")
    building = context.building_graph()
    with (
        graph.as_default() if building is not graph else contextlib.nullcontext(),
        name_scope(name),
    ):
        pairs = [
            (y, seed(y) if w is None else convert_to_tensor(w, y.dtype))
            for y, w in zip(ys, weights)
            if is_trainable(y.dtype)
        ]
        keys = [as_source_key(x, graph) for x in xs]
        return backward(graph.get_operations(), [y for y, _ in pairs], [w for _, w in pairs], keys)
