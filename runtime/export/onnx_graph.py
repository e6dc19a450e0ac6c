"""Lowering a FuncGraph to ONNX graphs: scopes, names, initializers, variables, sub-graphs.

A ``Scope`` builds one ONNX graph: the model's main graph, an ``If`` branch or
a ``Loop`` body. It is a walk (``runtime.execution.interpreter``) over a
FuncGraph's ops in creation order (the order the runtime runs them in), whose
values are ONNX names; it lowers each op with its rule from
``runtime.export.onnx_ops.LOWERINGS``: ``rule(scope, op, inputs)`` gets the
ONNX names of the op's inputs, adds nodes through the scope
(``scope.node("Add", [x, y])``) and returns the ONNX names of the op's outputs.

Names: a node is named after the op it lowers, name scopes included
(``demo_module/AssignAddVariableOp``); nodes of a sub-graph are named under
their op (``while/body/add``); a value is named after its node (``add:0``).
Every name is unique in the whole model, sub-graphs included.

Variables: each becomes an initializer holding its value at export time. A
read gives the variable's current value in program order; an assignment gives
it a new one, which later reads see. Sub-graphs that assign a variable return
its new value as an extra output of their ``If`` or as an extra loop-carried
value of their ``Loop``. So one run of the model computes what one call of the
function does; the model itself keeps no state between runs.

Nothing here imports ``onnx``: the module is passed in (``ModelParts(onnx)``).
"""

from __future__ import annotations

import numpy as np

from runtime import errors
from runtime.core import dtypes
from runtime.core.graph import Graph
from runtime.execution.interpreter import Interpreter
from runtime.execution.schedule import ops_to_run
from runtime.export import onnx_control_flow
from runtime.export.onnx_ops import DROPPED, LOWERINGS, UNEXPORTABLE
from runtime.export.onnx_sequences import FlowTypes
from runtime.export.onnx_types import ONNX_TYPES, ValueType
from runtime.state.variables import ASSIGN, ASSIGN_ADD, ASSIGN_SUB

_ASSIGNMENTS = (ASSIGN, ASSIGN_ADD, ASSIGN_SUB)


class ModelParts:
    """What the whole model shares: the ``onnx`` module, names, initializers, variables."""

    def __init__(self, onnx, graph):
        self.onnx = onnx
        self.helper = onnx.helper
        self._node_names = Graph("onnx nodes")  # the runtime's one owner of unique names
        self._value_names = Graph("onnx values")
        self._claimed = set()  # the model's input and output names, exactly as written
        self.initializers = []
        self._constants = {}  # (dtype, shape, bytes) -> the initializer holding that constant
        self._variables = {}  # id(variable) -> its initializer
        self.flow_types = FlowTypes(graph)

    def node_name(self, base):
        return self._node_names.unique_name(base)

    def value_name(self, base):
        return self._value_names.unique_name(base)

    def claim(self, base):
        """The name of a model input or output: ``base`` itself unless an earlier input or
        output has it (then ``base_1``, ``base_2``...), whatever the user called the arguments.

        Claimed before any other value is named, so those keep clear of it.
        """
        name, i = base, 0
        while name in self._claimed:
            i += 1
            name = f"{base}_{i}"
        self._claimed.add(name)
        self._value_names.unique_name(name)  # marks it taken for the names made later
        return name

    def initializer(self, value, dtype, base, shared=False):
        """An initializer holding ``value`` (numpy, of ``dtype``); ``shared``: one per value."""
        value = np.asarray(value, dtype=dtype.as_numpy_dtype)
        key = None
        if shared and dtype is not dtypes.string and value.size <= 16:
            key = (dtype, value.shape, value.tobytes())
            if key in self._constants:
                return self._constants[key]
        name = self.value_name(base)
        if dtype is dtypes.string:
            items = [bytes(v) for v in value.reshape(-1)]
            tensor = self.helper.make_tensor(name, ONNX_TYPES[dtype], value.shape, items)
        else:
            tensor = self.onnx.numpy_helper.from_array(value, name)
        self.initializers.append(tensor)
        if key is not None:
            self._constants[key] = name
        return name

    def variable(self, variable):
        """The initializer holding ``variable``'s value now, named as the variable is."""
        name = self._variables.get(id(variable))
        if name is None:
            name = self.initializer(variable.numpy(), variable.dtype, variable.name)
            self._variables[id(variable)] = name
        return name

    def value_info(self, name, value_type, dims=None):
        """The declared type of a value; ``dims`` names the unknown dimensions (or None)."""
        elem = ONNX_TYPES[value_type.dtype]
        if value_type.sequence:
            return self.helper.make_tensor_sequence_value_info(name, elem, None)
        shape = value_type.shape.as_list() if value_type.shape.rank is not None else None
        if shape is not None and dims is not None:
            shape = [d if d is not None else dims(i) for i, d in enumerate(shape)]
        return self.helper.make_tensor_value_info(name, elem, shape)


def unimplemented(op, reason) -> errors.UnimplementedError:
    """The error for an op that cannot be exported, naming it and the user's line that made it."""
    where = op.source
    made = f" The op was made at {where}." if where else ""
    return errors.UnimplementedError(
        f"Cannot export op {op.name!r} ({op.type}) to ONNX: {reason}.{made}", op
    )


class Scope(Interpreter):
    """One ONNX graph being built: its nodes, inputs, value types, and the values in scope."""

    def __init__(self, parts, prefix="", parent=None):
        self.parts = parts
        self.prefix = prefix  # names of this graph's nodes start with it
        self.nodes = []
        self.inputs = []
        self.value_infos = []
        self._made = set()  # the values this graph's nodes make
        self._declared = set()  # those whose type is declared
        self._tensors = {}  # id(runtime tensor) -> its ONNX name (or a Handle)
        # id(variable) -> the ONNX name of its current value; a copy of the enclosing scope's
        self._variables = dict(parent._variables) if parent is not None else {}
        self.op = parent.op if parent is not None else None  # the op being lowered names nodes
        self._op_named = False  # whether a node already took the op's own name

    # --- walking a graph -------------------------------------------------------------------

    def emit(self, graph, bindings, label=""):
        """Lowers the ops of ``graph`` that its outputs and its stateful ops need, its inputs
        bound to ``bindings`` (ONNX names); returns the ONNX names of its outputs.

        ``label`` goes into the names of its nodes (a loop's test inlined twice)."""
        for placeholder, name in zip(graph.inputs, bindings):
            self._tensors[id(placeholder)] = name
        fed = {id(t) for t in graph.inputs}
        # What the outputs need, and every op with an effect the model keeps (an assignment),
        # as the runtime runs function graphs; not what only a dropped op (a print) needs.
        effects = [op for op in graph.get_operations() if op.stateful and op.opdef not in DROPPED]
        ops = ops_to_run(graph, [*graph.outputs, *effects], fed, run_all_stateful=False)
        saved_prefix, self.prefix = self.prefix, self.prefix + label
        try:
            self.run_ops([op for op in ops if op.opdef not in DROPPED], self._tensors)
        finally:
            self.prefix = saved_prefix
        return [self._tensors[id(t)] for t in graph.outputs]

    def rule_for(self, op):
        """The op's rule from ``runtime.export.onnx_ops.LOWERINGS``; UnimplementedError if none."""
        if op.opdef in UNEXPORTABLE:
            raise unimplemented(op, UNEXPORTABLE[op.opdef])
        rule = LOWERINGS.get(op.opdef)
        if rule is None:
            raise unimplemented(op, "the exporter knows no ONNX form for this op")
        return rule

    def run_op(self, op, inputs):
        saved, self._op_named = self._op_named, False  # the op's first node takes its name
        try:
            return super().run_op(op, inputs)
        finally:
            self._op_named = saved

    def branch(self, op, cond):
        return onnx_control_flow.branch(self, op, cond)  # an ONNX If

    def loop(self, op, loop):
        return onnx_control_flow.loop(self, op, loop)  # an ONNX Loop

    def store(self, op, outputs, env):
        """Records the ONNX names of ``op``'s outputs, and declares their types."""
        for t, name in zip(op.outputs, outputs, strict=True):
            env[id(t)] = name
            kind = self.type_of(t)
            if kind is not None and isinstance(name, str):
                self.declare(name, kind)

    def declare(self, name, kind):
        """Records the type of a value this graph's nodes make (once per name; an input's,
        an initializer's or an enclosing graph's value is declared where it is made)."""
        if name in self._made and name not in self._declared:
            self._declared.add(name)
            self.value_infos.append(self.parts.value_info(name, kind))

    def unsupported(self, reason) -> errors.UnimplementedError:
        """The error to raise when the op being lowered cannot be exported as it is."""
        return unimplemented(self.op, reason)

    # --- nodes and constants ---------------------------------------------------------------

    def node(self, op_type, inputs, outputs=1, **attributes):
        """Adds an ONNX node; returns the names of its ``outputs`` new values."""
        # The first node an op makes takes the op's own name; its helpers are named under it.
        base = self.prefix + self.op.name
        name = self.parts.node_name(f"{base}/{op_type}" if self._op_named else base)
        self._op_named = True
        results = [self.parts.value_name(f"{name}:{i}") for i in range(outputs)]
        self._made.update(results)
        self.nodes.append(
            self.parts.helper.make_node(op_type, list(inputs), results, name=name, **attributes)
        )
        return results

    def node1(self, op_type, inputs, **attributes):
        """``node`` for one output: returns its name."""
        return self.node(op_type, inputs, 1, **attributes)[0]

    def const(self, value, dtype=None, hint="const"):
        """A constant (an initializer of the model, shared by equal small constants)."""
        value = np.asarray(value)
        dtype = dtype or dtypes.as_dtype(value.dtype)
        base = f"{self.prefix}{self.op.name}/{hint}" if self.op is not None else hint
        return self.parts.initializer(value, dtype, base, shared=True)

    def int64s(self, values):
        """A 1-D int64 constant (axes, shapes, slice bounds)."""
        return self.const(np.asarray(values, dtype=np.int64).reshape(-1), dtypes.int64)

    def cast(self, name, dtype):
        """``name`` converted to ``dtype`` (a runtime DType)."""
        return self.node1("Cast", [name], to=ONNX_TYPES[dtype])

    def as_int64(self, name, t):
        """``name``, the value of the runtime tensor ``t``, as int64 (cast unless it is):
        the type ONNX takes shapes, axes, counts and indices in."""
        return name if t.dtype is dtypes.int64 else self.cast(name, dtypes.int64)

    def onnx_type(self, dtype):
        return ONNX_TYPES[dtype]

    def constant_initializer(self, op):
        """The initializer of a Const op, named after it."""
        base = f"{self.prefix}{op.name}:0"
        return self.parts.initializer(op.attrs["value"], op.attrs["dtype"], base)

    # --- variables -------------------------------------------------------------------------

    def read_variable(self, variable):
        """The ONNX name of ``variable``'s current value."""
        name = self._variables.get(id(variable))
        return name if name is not None else self.parts.variable(variable)

    def assign_variable(self, variable, name):
        """From here on, ``variable`` holds the value ``name``."""
        self._variables[id(variable)] = name

    @staticmethod
    def assigned_variables(graphs):
        """The variables that running ``graphs`` may assign (sub-graphs included), in order."""
        found = {}
        stack = list(reversed(graphs))
        while stack:
            graph = stack.pop()
            for op in graph.get_operations():
                if op.opdef in _ASSIGNMENTS:
                    found.setdefault(id(op.attrs["variable"]), op.attrs["variable"])
                stack.extend(reversed(op.subgraphs()))
        return list(found.values())

    # --- sub-graphs ------------------------------------------------------------------------

    def child(self, label):
        """A scope for a sub-graph of the op being lowered (``cond/then``, ``while/body``)."""
        return Scope(self.parts, f"{self.prefix}{self.op.name}/{label}/", parent=self)

    def add_input(self, base, kind):
        """A formal input of this (sub-)graph."""
        name = self.parts.value_name(self.prefix + base)
        self.inputs.append(self.parts.value_info(name, kind))
        return name

    def graph_proto(self, name, outputs):
        """This scope as a sub-graph; ``outputs`` are ``(name, ValueType)`` pairs.

        Each output is a new value made here (an Identity where needed): an output
        may not be a value of an enclosing graph, nor appear twice.
        """
        declared = []
        for value, kind in outputs:
            out = self.parts.value_name(f"{self.prefix}output")
            self.nodes.append(
                self.parts.helper.make_node(
                    "Identity", [value], [out], name=self.parts.node_name(out)
                )
            )
            declared.append(self.parts.value_info(out, kind))
        return self.parts.helper.make_graph(
            self.nodes, name, self.inputs, declared, value_info=self.value_infos
        )

    # --- facts about runtime tensors ------------------------------------------------------

    def type_of(self, t) -> ValueType | None:
        """The ONNX type of runtime tensor ``t``: a TensorArray's flow is a sequence of its
        elements; a variable's handle has none (None)."""
        if t.dtype is dtypes.resource:
            return None
        if t.dtype is dtypes.variant:
            dtype, shape = self.flow_element(t)
            return ValueType(dtype, shape, sequence=True)
        return ValueType(t.dtype, t.shape)

    @staticmethod
    def type_of_variable(variable) -> ValueType:
        return ValueType(variable.dtype, variable.shape)

    def flow_element(self, flow):
        """The element dtype and shape of the TensorArray whose flow is ``flow``."""
        return self.parts.flow_types.element(flow)


__all__ = ["ModelParts", "Scope", "unimplemented"]
