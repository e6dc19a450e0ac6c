"""TensorArrays in ONNX: a TensorArray's flow becomes an ONNX sequence of its elements.

The sequence always holds ``size()`` tensors: an array reserved with room for
``n`` elements starts as ``n`` zeros of its element shape (what reading an
element never written gives). ``write(i, v)`` replaces element ``i``
(``SequenceErase`` then ``SequenceInsert``), or appends when ``i`` is the
array's size (AutoGraph's ``lst.append``); a growable array written past its
end first grows with zeros, as the runtime's does. ``stack()`` is
``ConcatFromSequence``, and of an empty array, an empty tensor.

ONNX types a sequence by its elements' dtype where it is made, but a
TensorArray may learn its dtype only at its first write, later in the graph,
or inside a loop. ``FlowTypes`` reads the whole graph first and gives every
flow (a ``variant`` tensor) the element dtype and shape of the array it
carries, following it through loops, branches and sub-graph captures.
"""

from __future__ import annotations

import numpy as np

from runtime.core import dtypes
from runtime.core.graph import CONST
from runtime.core.tensor_shape import TensorShape
from runtime.export.onnx_types import ValueType
from runtime.ops.array_ops import IDENTITY
from runtime.ops.control_flow_ops import IF, WHILE
from runtime.ops.tensor_array_ops import FROM_TENSOR, LENGTH, READ, RESERVE, STACK, WRITE

_SCALAR = TensorShape([])


class FlowTypes:
    """The element dtype and shape of each TensorArray flow of a graph (sub-graphs included).

    Flows that carry the same array (a write's input and output, a loop
    variable inside and outside its loop) are joined in one set (union-find);
    each set collects what its writes, reads and stacks say about the elements.
    """

    def __init__(self, graph):
        self._parent = {}
        self._dtype = {}
        self._shape = {}
        self._walk(graph)

    def element(self, flow):
        """``(dtype, TensorShape)`` of ``flow``'s elements (float32 of unknown shape when no
        op says: an array that is never written nor read)."""
        root = self._find(id(flow))
        return self._dtype.get(root, dtypes.float32), self._shape.get(root, TensorShape(None))

    def _find(self, key):
        parent = self._parent.setdefault(key, key)
        while parent != key:
            grand = self._parent.setdefault(parent, parent)
            self._parent[key] = grand
            key, parent = parent, grand
        return key

    def _join(self, *tensors):
        flows = [t for t in tensors if t.dtype is dtypes.variant]
        if not flows:
            return
        first = self._find(id(flows[0]))
        for t in flows[1:]:
            root = self._find(id(t))
            if root == first:
                continue
            self._parent[root] = first
            if root in self._dtype:
                self._note_root(first, self._dtype.pop(root), self._shape.pop(root))

    def _note(self, flow, dtype, shape):
        self._note_root(self._find(id(flow)), dtype, shape)

    def _note_root(self, root, dtype, shape):
        self._dtype.setdefault(root, dtype)
        known = self._shape.get(root)
        if known is None:
            self._shape[root] = shape
        elif known.is_compatible_with(shape):
            self._shape[root] = known.merge_with(shape)
        else:  # elements of different shapes: only what they share is known
            self._shape[root] = known.most_specific_compatible_shape(shape)

    def _walk(self, graph):
        for op in graph.get_operations():
            self._visit(op)
            for sub in op.subgraphs():
                self._walk(sub)

    def _visit(self, op):
        if op.opdef is WRITE:
            self._join(op.inputs[0], op.outputs[0])
            self._note(op.outputs[0], op.inputs[2].dtype, op.inputs[2].shape)
        elif op.opdef in (READ, STACK):
            self._note(op.inputs[0], op.attrs["element_dtype"], _shape(op.attrs["element_shape"]))
        elif op.opdef is FROM_TENSOR:
            value = op.inputs[0]
            rows = value.shape[1:] if value.shape.rank else TensorShape(None)
            self._note(op.outputs[0], value.dtype, rows)
        elif op.opdef is IDENTITY:
            self._join(op.inputs[0], op.outputs[0])
        elif op.opdef is IF:
            branches = (op.attrs["then_graph"], op.attrs["else_graph"])
            for i, out in enumerate(op.outputs):
                self._join(out, *(g.outputs[i] for g in branches))
            for i, outer in enumerate(op.inputs[1:]):
                self._join(outer, *(g.inputs[i] for g in branches))
        elif op.opdef is WHILE:
            cond, body = op.attrs["cond_graph"], op.attrs["body_graph"]
            for i, outer in enumerate(op.inputs[: len(cond.inputs)]):
                self._join(outer, cond.inputs[i], body.inputs[i])
            for i, out in enumerate(op.outputs[: op.attrs["num_loop_vars"]]):  # not its stacks
                self._join(out, op.inputs[i], body.outputs[i])


def _shape(dims):
    return TensorShape(None) if dims is None else TensorShape(dims)


# --- the rules ----------------------------------------------------------------------------------


def _filler(b, flow):
    """What an element never written holds: zeros of the element shape when it is known
    (as the runtime reads it), else an empty tensor."""
    dtype, shape = b.flow_element(flow)
    dims = shape.as_list() if shape.is_fully_defined() else [0]
    zero = b"" if dtype is dtypes.string else 0
    return b.const(np.full(dims, zero, dtype=dtype.as_numpy_dtype), dtype, "filler")


def _sequence_type(b, flow):
    dtype, shape = b.flow_element(flow)
    return ValueType(dtype, shape, sequence=True)


def _append_repeatedly(b, flow, sequence, count, element):
    """``sequence`` with ``count`` (an int64 scalar) elements appended, each made by
    ``element(body_scope, i)`` in a Loop's body (``i``: the int64 iteration number)."""
    body = b.child("append")
    i = body.add_input("i", ValueType(dtypes.int64, _SCALAR))
    keep_going = body.add_input("cond", ValueType(dtypes.bool_, _SCALAR))
    items = body.add_input("items", _sequence_type(b, flow))
    grown = body.node1("SequenceInsert", [items, element(body, i)])
    graph = body.graph_proto(
        "append",
        [(keep_going, ValueType(dtypes.bool_, _SCALAR)), (grown, _sequence_type(b, flow))],
    )
    return b.node1("Loop", [count, "", sequence], body=graph)


def _empty(b, flow):
    dtype, _ = b.flow_element(flow)
    return b.node1("SequenceEmpty", [], dtype=b.onnx_type(dtype))


def _reserve(b, op, inputs):
    flow = op.outputs[0]
    size = op.inputs[0]
    if size.op.opdef is CONST and int(size.op.attrs["value"]) == 0:
        return [_empty(b, flow)]
    filler = _filler(b, flow)
    count = b.cast(inputs[0], dtypes.int64)
    return [_append_repeatedly(b, flow, _empty(b, flow), count, lambda body, i: filler)]


def _replace(b, sequence, index, value):
    """``sequence`` with element ``index`` replaced by ``value``."""
    return b.node1("SequenceInsert", [b.node1("SequenceErase", [sequence, index]), value, index])


def _appends(op):
    """Whether a write is at the array's size (``ta.write(ta.size(), v)``): an append."""
    index = op.inputs[1]
    return index.op.opdef is LENGTH and index.op.inputs[0] is op.inputs[0]


def _write(b, op, inputs):
    sequence, index, value = inputs
    flow = op.outputs[0]
    if _appends(op):
        return [b.node1("SequenceInsert", [sequence, value])]
    index = b.cast(index, dtypes.int64)
    if not op.attrs["dynamic_size"]:
        return [_replace(b, sequence, index, value)]
    # A growable array: replace inside it, or grow it with zeros up to the index, then append.
    length = b.node1("SequenceLength", [sequence])
    inside = b.node1("Less", [index, length])
    replace = b.child("replace")
    replaced = _replace(replace, sequence, index, value)
    grow = b.child("grow")
    filler = _filler(b, flow)
    gap = grow.node1("Sub", [index, length])
    padded = _append_repeatedly(grow, flow, sequence, gap, lambda body, i: filler)
    appended = grow.node1("SequenceInsert", [padded, value])
    kind = _sequence_type(b, flow)
    return [
        b.node1(
            "If",
            [inside],
            then_branch=replace.graph_proto("replace", [(replaced, kind)]),
            else_branch=grow.graph_proto("grow", [(appended, kind)]),
        )
    ]


def _read(b, op, inputs):
    return [b.node1("SequenceAt", inputs)]


def _length(b, op, inputs):
    return [b.cast(b.node1("SequenceLength", inputs), dtypes.int32)]


def _stack(b, op, inputs):
    (sequence,) = inputs
    if op.attrs["static_size"]:
        return [b.node1("ConcatFromSequence", [sequence], axis=0, new_axis=1)]
    # ConcatFromSequence needs one element at least: an empty array stacks to an empty tensor.
    dtype, shape = op.attrs["element_dtype"], _shape(op.attrs["element_shape"])
    if not shape.is_fully_defined():
        shape = b.flow_element(op.inputs[0])[1]
    dims = [0] + ([d or 0 for d in shape.as_list()] if shape.rank is not None else [])
    empty = b.const(np.zeros(dims, dtype=dtype.as_numpy_dtype), dtype, "empty")
    is_empty = b.node1("Equal", [b.node1("SequenceLength", [sequence]), b.const(np.int64(0))])
    when_empty, otherwise = b.child("empty"), b.child("concat")
    stacked = otherwise.node1("ConcatFromSequence", [sequence], axis=0, new_axis=1)
    kind = b.type_of(op.outputs[0])
    return [
        b.node1(
            "If",
            [is_empty],
            then_branch=when_empty.graph_proto("empty", [(empty, kind)]),
            else_branch=otherwise.graph_proto("concat", [(stacked, kind)]),
        )
    ]


def _from_tensor(b, op, inputs):
    (value,) = inputs
    flow = op.outputs[0]
    rows = b.node1("Gather", [b.node1("Shape", [value]), b.const(np.int64(0))], axis=0)
    return [
        _append_repeatedly(
            b,
            flow,
            _empty(b, flow),
            rows,
            lambda body, i: body.node1("Gather", [value, i], axis=0),
        )
    ]


SEQUENCE_LOWERINGS = {
    RESERVE: _reserve,
    WRITE: _write,
    READ: _read,
    LENGTH: _length,
    STACK: _stack,
    FROM_TENSOR: _from_tensor,
}
