"""The ONNX forms of the ops gradients are made of, so a function computing gradients exports.

``AddN`` is a chain of ``Add``, ``BroadcastTo`` an ``Expand``, ``SumToShape``
(with its axes known when the graph was built) a ``ReduceSum`` and a
``Reshape``, ``SplitV`` a ``Split``, ``UnsortedSegmentSum`` a ``ScatterND``
adding into zeros, ``ReluGrad`` a ``Where``, ``StopGradient`` nothing.

The values only the backward pass of loops and TensorArrays passes around
(gradient lists, a loop's stacks) and calls of traced functions have no ONNX
form: ``UNEXPORTABLE_GRADIENT_OPS`` says why for each.
"""

from __future__ import annotations

import numpy as np

from runtime.export import onnx_types as types
from runtime.export.onnx_types import work_dtype
from runtime.ops import array_ops, broadcast_ops, indexing_ops, list_gradient_ops, math_ops, nn_ops
from runtime.ops.function_ops import CALL


def _add_n(b, op, inputs):
    dtype = op.outputs[0].dtype
    work = work_dtype(dtype, types.ARITHMETIC)
    operands = [x if work is dtype else b.cast(x, work) for x in inputs]
    total = operands[0]
    for x in operands[1:]:
        total = b.node1("Add", [total, x])
    return [total if work is dtype else b.cast(total, dtype)]


def _broadcast_to(b, op, inputs):
    x, shape = inputs
    return [b.node1("Expand", [x, b.as_int64(shape, op.inputs[1])])]


def _sum_to_shape(b, op, inputs):
    grad, shape = inputs
    dtype = op.outputs[0].dtype
    work = work_dtype(dtype, types.MATMUL)
    total = grad if work is dtype else b.cast(grad, work)
    axes = op.attrs["axes"]
    if axes is not None:  # known when the graph was built
        total = b.node1("ReduceSum", [total, b.int64s(axes)], keepdims=1, noop_with_empty_axes=1)
        total = b.node1("Reshape", [total, b.as_int64(shape, op.inputs[1])], allowzero=1)
    else:
        total = _sum_to_unknown_shape(b, op, total, b.as_int64(shape, op.inputs[1]))
    return [total if work is dtype else b.cast(total, dtype)]


def _sum_to_unknown_shape(b, op, total, shape):
    """Summing where the target's dims are known only when the model runs: each axis that may
    be 1 is summed and spread back where it is (``Where``), and a final ``Slice`` keeps the
    target's extent of every axis (one element of a summed one)."""
    in_rank, out_rank = op.inputs[0].shape.rank, op.outputs[0].shape.rank
    if in_rank is None or out_rank is None:
        raise b.unsupported("SumToShape needs tensors of known rank")
    if in_rank > out_rank:
        total = b.node1("ReduceSum", [total, b.int64s(range(in_rank - out_rank))], keepdims=0)
    one = b.int64s([1])
    for axis, dim in enumerate(op.outputs[0].shape.as_list()):
        if dim is not None and dim != 1:
            continue
        summed = b.node1("ReduceSum", [total, b.int64s([axis])], keepdims=1)
        if dim == 1:
            total = summed
            continue
        is_one = b.node1("Equal", [b.node1("Gather", [shape, b.int64s([axis])]), one])
        spread = b.node1("Expand", [summed, b.node1("Shape", [total])])
        total = b.node1("Where", [is_one, spread, total])
    starts = b.int64s([0] * out_rank)
    return b.node1("Slice", [total, starts, shape, b.int64s(range(out_rank))])


def _split(b, op, inputs):
    value, sizes = inputs
    split = b.as_int64(sizes, op.inputs[1])
    return b.node("Split", [value, split], len(op.outputs), axis=op.attrs["axis"])


def _segment_sum(b, op, inputs):
    """``ScatterND`` adding each row at its id into zeros (ids are assumed in range)."""
    data, ids, num = inputs
    id_rank = op.inputs[1].shape.rank
    if id_rank is None:
        raise b.unsupported("UnsortedSegmentSum needs segment ids of known rank")
    rows = b.node1("Reshape", [b.as_int64(num, op.inputs[2]), b.int64s([1])])
    row_shape = b.node1("Shape", [data], start=id_rank)
    shape = b.node1("Concat", [rows, row_shape], axis=0)
    dtype = op.outputs[0].dtype
    zeros = b.node1("Expand", [b.const(np.zeros((), dtype.as_numpy_dtype), dtype), shape])
    indices = b.node1("Unsqueeze", [b.as_int64(ids, op.inputs[1]), b.int64s([-1])])
    return [b.node1("ScatterND", [zeros, indices, data], reduction="add")]


def _relu_grad(b, op, inputs):
    grad, output = inputs
    dtype = op.outputs[0].dtype
    zero = b.const(np.zeros((), dtype.as_numpy_dtype), dtype)
    positive = b.node1("Greater", [output, zero])
    return [b.node1("Where", [positive, grad, b.node1("Mul", [grad, zero])])]


GRADIENT_LOWERINGS = {
    math_ops.ADD_N: _add_n,
    broadcast_ops.BROADCAST_TO: _broadcast_to,
    broadcast_ops.SUM_TO_SHAPE: _sum_to_shape,
    array_ops.SPLIT: _split,
    array_ops.STOP_GRADIENT: lambda b, op, inputs: [inputs[0]],
    indexing_ops.UNSORTED_SEGMENT_SUM: _segment_sum,
    nn_ops.RELU_GRAD: _relu_grad,
}

_LISTS = "gradient lists are Python dicts by index, which have no ONNX form"
UNEXPORTABLE_GRADIENT_OPS = {
    list_gradient_ops.STACK_GET: "a loop's stack is a Python list of values, which has no ONNX form",
    list_gradient_ops.GRAD_LIST_EMPTY: _LISTS,
    list_gradient_ops.GRAD_LIST_ELEMENT: _LISTS,
    list_gradient_ops.GRAD_LIST_FROM_TENSOR: _LISTS,
    list_gradient_ops.GRAD_LIST_ADD: _LISTS,
    list_gradient_ops.GRAD_LIST_GET: _LISTS,
    list_gradient_ops.GRAD_LIST_DROP: _LISTS,
    list_gradient_ops.GRAD_LIST_STACK: _LISTS,
    indexing_ops.STRIDED_SLICE_GRAD: "no ONNX op writes a strided slice into zeros",
    CALL: "a call of a traced function is made inline when functions are traced into one graph",
}
