"""A ConcreteFunction called while another graph is being built: its graph's ops are copied
into that graph, reading the call's tensors for its inputs.

So the call sees its arguments' static shapes, as a nested ``ag.function`` call does (it is
inlined too), and TensorFlow infers the shapes of a call through the function's body: a
graph traced for unknown shapes gives static ones here when the arguments have them.

>>> import autograph as ag
>>> import runtime as rt
>>> double = ag.function(lambda x: x * 2.0, autograph=False).get_concrete_function(rt.TensorSpec(None))
>>> @ag.function
... def outer(x):
...     y = double(x)
...     print(y.shape)
...     return y
>>> outer(rt.constant([1.0, 2.0]))
(2,)
<rt.Tensor: shape=(2,), dtype=float32, numpy=array([2., 4.], dtype=float32)>
"""

from __future__ import annotations

import runtime as rt
from runtime.core import context
from runtime.core.graph import FuncGraph
from runtime.state.variables import VAR_HANDLE, handle_in_graph


def inline(concrete, tensors):
    """``concrete``'s outputs, nested as traced, computed in the graph being built from
    ``tensors`` (its tensor inputs: tensors, or variables for its variable arguments)."""
    graph = context.building_graph()
    inner = concrete.graph
    mapped = {}
    for placeholder, given in zip(concrete.inputs, tensors):
        mapped[id(placeholder)] = _input_for(graph, given)
    for outer, placeholder in inner.captures:
        mapped[id(placeholder)] = graph.prepare_input(outer)
    ops = {}
    for op in inner.get_operations():
        if id(op.outputs[0]) in mapped if op.outputs else False:
            continue  # an input: the call's tensor stands for it
        if op.opdef is VAR_HANDLE:
            mapped[id(op.outputs[0])] = handle_in_graph(graph, op.attrs["variable"])
            continue
        new = _copy(graph, op, mapped, ops)
        ops[id(op)] = new
        for old, made in zip(op.outputs, new.outputs):
            mapped[id(old)] = made
    return concrete._structured([mapped[id(t)] for t in concrete.outputs])


def specific(arguments, constraints):
    """``[(name, value)]`` with each symbolic tensor given the shape of its input_signature
    entry where that is more specific (an identity of it, the caller's tensor unchanged), as
    TensorFlow casts the arguments of a nested call to the callee's signature."""
    return [(name, _specific(value, constraints.get(name))) for name, value in arguments]


def _specific(value, spec):
    if isinstance(spec, rt.TensorSpec):
        if isinstance(value, rt.SymbolicTensor) and value.shape != spec.shape:
            refined = value.shape.merge_with(spec.shape)  # (they fit: the call was checked)
            if refined != value.shape:
                value = rt.identity(value)
                value.set_shape(refined)
        return value
    if isinstance(spec, (list, tuple)) and isinstance(value, (list, tuple)):
        items = [_specific(v, s) for v, s in zip(value, spec)]
        return type(value)(*items) if hasattr(value, "_fields") else type(value)(items)
    if isinstance(spec, dict) and isinstance(value, dict):
        return {k: _specific(v, spec.get(k)) for k, v in value.items()}
    return value


def _input_for(graph, given):
    if isinstance(given, rt.Variable):  # a variable argument: the graph reads its handle
        return handle_in_graph(graph, given)
    return graph.prepare_input(rt.convert_to_tensor(given))


def _copy(graph, op, mapped, ops):
    """``op`` made again in ``graph`` on the mapped inputs, its shapes inferred from them."""
    inputs = [mapped[id(t)] for t in op.inputs]
    controls = [ops[id(c)] for c in op.control_inputs if id(c) in ops] or None
    specs = op.opdef.infer(inputs, op.attrs)
    new = graph.create_op(
        op.opdef, inputs, op.attrs, op.name, specs, control_inputs=controls, source=op._source
    )
    new.device = op.device
    return new


def call_with_effects(graph, call):
    """Runs ``call()``, which inlines a function into ``graph``; its results bring its effects.

    A FuncGraph needs nothing more: it runs all its stateful ops. A Session's graph runs only
    what is fetched, so, as tf.function's call op does, each tensor of the result waits on the
    prints, asserts, assignments and draws that the call added (automatic control
    dependencies), and a result of None becomes an op that runs them.
    """
    if isinstance(graph, FuncGraph):
        return call()
    first = graph.num_operations  # (not a copy of every op: a graph may inline many calls)
    result = call()
    effects = [op for op in graph.operations_from(first) if op.stateful]
    if not effects:
        return result
    if result is None:
        return rt.group(*effects)
    with graph.control_dependencies(effects):
        return rt.nest.map_structure(lambda x: _after_effects(graph, x), result)


def _after_effects(graph, x):
    # Only this graph's own tensors: a variable or a Python value has nothing to wait for.
    return rt.identity(x) if isinstance(x, rt.SymbolicTensor) and x.graph is graph else x
