"""The lists the backward pass of loops and TensorArrays passes around.

A differentiated ``while_loop`` stacks, on each iteration, the values its
backward loop needs: one of the While op's extra outputs is a *stack* (a
Python list, dtype ``variant``), which ``StackGet`` reads by iteration.

The gradient of a ``variant`` value (a TensorArray's flow, a stack) is a
*gradient list*: a ``variant`` holding a dict from index to the gradient of the
element there; a missing index stands for zeros. An element may itself be a gradient list
(the gradient of an inner loop's stack that an outer loop stacked). These ops never change a
list they are given (each returns a new one when something changes), so a
gradient list may be read from several places.

>>> import runtime as rt
>>> g = grad_list_add(grad_list_element(2, rt.constant([1.0])), grad_list_element(2, rt.constant([2.0])))
>>> grad_list_get(g, 2, [1], rt.float32).numpy(), grad_list_get(g, 0, [1], rt.float32).numpy()
(array([3.], dtype=float32), array([0.], dtype=float32))
"""

from __future__ import annotations

import numpy as np

from runtime import errors
from runtime.core import attr_kinds as kinds
from runtime.core import dtypes
from runtime.core.op_def import NO_INPUTS, OpDef
from runtime.core.tensor_shape import TensorShape
from runtime.ops.array_ops import shape_of, shape_operand
from runtime.ops.constant_ops import convert_to_tensor
from runtime.ops.registry import bind1
from runtime.ops.shape_ops import shape_from_tensor

_LIST = (dtypes.variant, TensorShape([]))


def _checked(op_type, lists, indices, spec):
    """``spec``, for an op whose inputs ``lists`` are lists (variant) and ``indices`` int32."""

    def infer(inputs, attrs):
        for i in lists:
            if inputs[i].dtype is not dtypes.variant:
                raise TypeError(f"{op_type}: input {i} must be a list (variant)")
        for i in indices:
            if inputs[i].dtype is not dtypes.int32 or inputs[i].shape.rank not in (0, None):
                raise TypeError(f"{op_type}: input {i} must be an int32 scalar index")
        return spec(inputs, attrs)

    return infer


def _list_spec(inputs, attrs):
    return [_LIST]


def _element_spec(inputs, attrs):
    return [(attrs["element_dtype"], shape_from_tensor(inputs[-1]))]


_ELEMENT_DTYPE = {"element_dtype": kinds.DTYPE}


# --- stacks: what a forward loop recorded, one entry per iteration ------------------------------


def _stack_get_kernel(stack, index, element_dtype, element_shape):
    index = int(index)
    if not 0 <= index < len(stack):
        raise errors.InvalidArgumentError(
            f"StackGet: iteration {index} is not in [0, {len(stack)})"
        )
    return stack[index]


def _stack_get_spec(inputs, attrs):
    return [(attrs["element_dtype"], attrs["element_shape"])]


def _stack_get_gradient(op, grad):
    return grad_list_element(op.inputs[1], grad), None


STACK_GET = OpDef(
    "StackGet",
    _stack_get_kernel,
    _checked("StackGet", [0], [1], _stack_get_spec),
    pure=False,
    attrs={"element_dtype": kinds.DTYPE, "element_shape": kinds.SHAPE},
    gradient=_stack_get_gradient,
)


def stack_get(stack, index, element_dtype, element_shape, name=None):
    """The value a loop stacked on iteration ``index`` (its static shape: ``element_shape``)."""
    attrs = {"element_dtype": element_dtype, "element_shape": TensorShape(element_shape)}
    index = convert_to_tensor(index, dtypes.int32)
    return bind1(STACK_GET, [stack, index], attrs, name or "StackGet")


# --- gradient lists ------------------------------------------------------------------------------


def _empty_kernel():
    return {}


def _element_kernel(index, value):
    return {int(index): value}


def _from_tensor_kernel(value):
    return {i: row for i, row in enumerate(value)}


def _add_kernel(a, b):
    if len(a) < len(b):
        a, b = b, a
    if not b:
        return a
    total = dict(a)
    for i, value in b.items():
        total[i] = _add_element(total[i], value) if i in total else value
    return total


def _add_element(a, b):
    """Two gradients of one element: arrays, or lists (a list of lists: the gradient of the
    stacks of a loop inside a loop, in a second-order gradient)."""
    return _add_kernel(a, b) if isinstance(a, dict) else np.add(a, b)


def _get_kernel(items, index, shape, element_dtype):
    value = items.get(int(index))
    if value is None:
        if element_dtype is dtypes.variant:  # a list of lists: an empty list is zeros
            return {}
        return np.zeros(tuple(shape), element_dtype.as_numpy_dtype)[()]
    return value


def _drop_kernel(items, index):
    index = int(index)
    if index not in items:
        return items
    return {i: v for i, v in items.items() if i != index}


def _stack_kernel(items, shape, element_dtype):
    out = np.zeros(tuple(shape), element_dtype.as_numpy_dtype)
    for i, value in items.items():
        if i < len(out):
            out[i] = value
    return out


GRAD_LIST_EMPTY = OpDef(
    "GradientListEmpty", _empty_kernel, _list_spec, pure=False, gradient=NO_INPUTS
)
GRAD_LIST_ELEMENT = OpDef(
    "GradientListElement",
    _element_kernel,
    _checked("GradientListElement", [], [0], _list_spec),
    pure=False,
    gradient=lambda op, g: (
        None,
        grad_list_get(g, op.inputs[0], shape_of(op.inputs[1]), op.inputs[1].dtype),
    ),
)
GRAD_LIST_FROM_TENSOR = OpDef(
    "GradientListFromTensor",
    _from_tensor_kernel,
    _list_spec,
    pure=False,
    gradient=lambda op, g: (grad_list_stack(g, shape_of(op.inputs[0]), op.inputs[0].dtype),),
)
GRAD_LIST_ADD = OpDef(
    "GradientListAdd",
    _add_kernel,
    _checked("GradientListAdd", [0, 1], [], _list_spec),
    pure=False,
    gradient=lambda op, g: (g, g),
)
GRAD_LIST_GET = OpDef(
    "GradientListGet",
    _get_kernel,
    _checked("GradientListGet", [0], [1], _element_spec),
    pure=False,
    attrs=_ELEMENT_DTYPE,
    gradient=lambda op, g: (grad_list_element(op.inputs[1], g), None, None),
)
GRAD_LIST_DROP = OpDef(
    "GradientListDrop",
    _drop_kernel,
    _checked("GradientListDrop", [0], [1], _list_spec),
    pure=False,
    gradient=lambda op, g: (grad_list_drop(g, op.inputs[1]), None),
)
GRAD_LIST_STACK = OpDef(
    "GradientListStack",
    _stack_kernel,
    _checked("GradientListStack", [0], [], _element_spec),
    pure=False,
    attrs=_ELEMENT_DTYPE,
    gradient=lambda op, g: (grad_list_from_tensor(g), None),
)


def grad_list_empty():
    """A gradient list of zeros: the gradient of a list nothing depends on."""
    return bind1(GRAD_LIST_EMPTY, [], name="GradientListEmpty")


def grad_list_element(index, value):
    """The gradient list holding ``value`` at ``index``, zeros elsewhere."""
    index = convert_to_tensor(index, dtypes.int32)
    return bind1(GRAD_LIST_ELEMENT, [index, convert_to_tensor(value)], name="GradientListElement")


def grad_list_from_tensor(value):
    """The gradient list of the rows of ``value``."""
    return bind1(GRAD_LIST_FROM_TENSOR, [value], name="GradientListFromTensor")


def grad_list_add(a, b):
    """The elementwise sum of two gradient lists."""
    return bind1(GRAD_LIST_ADD, [a, b], name="GradientListAdd")


def grad_list_get(items, index, shape, dtype):
    """The gradient at ``index`` (zeros of ``shape`` and ``dtype`` if there is none)."""
    index = convert_to_tensor(index, dtypes.int32)
    attrs = {"element_dtype": dtype}
    return bind1(GRAD_LIST_GET, [items, index, shape_operand(shape)], attrs, "GradientListGet")


def grad_list_drop(items, index):
    """The gradient list without its entry at ``index`` (a value overwritten there had none)."""
    index = convert_to_tensor(index, dtypes.int32)
    return bind1(GRAD_LIST_DROP, [items, index], name="GradientListDrop")


def grad_list_stack(items, shape, dtype):
    """The gradient list as one dense tensor of ``shape`` (rows not in the list are zeros)."""
    attrs = {"element_dtype": dtype}
    return bind1(GRAD_LIST_STACK, [items, shape_operand(shape)], attrs, "GradientListStack")
