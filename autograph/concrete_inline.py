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
