"""TensorArray: a list of same-typed tensors that works eagerly and as a loop variable.

Its state is one ``variant`` tensor (the "flow") holding its elements, in one
preallocated numpy array where they share a dtype and shape
(``runtime.ops.tensor_array_buffer``). Writes update it in place and return a
new TensorArray over the same flow, so a TensorArray must be used linearly, as
in TensorFlow: keep the array that ``write`` returns.

>>> import runtime as rt
>>> ta = rt.TensorArray(rt.int32, size=3)
>>> for i in range(3):
...     ta = ta.write(i, i * i)
>>> ta.stack().numpy()
array([0, 1, 4], dtype=int32)
"""

from __future__ import annotations

import numpy as np

from runtime.core import attr_kinds as kinds
from runtime.core import dtypes
from runtime.core.forms import Bound, Form, Input, Method
from runtime.core.op_def import INTEGER_OUTPUT, NotDifferentiable, OpDef
from runtime.core.tensor_shape import TensorShape, as_shape
from runtime.ops.array_ops import shape_of
from runtime.ops.constant_ops import constant_value, convert_to_tensor
from runtime.ops.list_gradient_ops import (
    grad_list_drop,
    grad_list_element,
    grad_list_from_tensor,
    grad_list_get,
    grad_list_stack,
)
from runtime.ops.registry import bind1
from runtime.ops.tensor_array_buffer import ElementBuffer

_FLOW = (dtypes.variant, TensorShape([]))


def _reserve_kernel(size, dynamic_size):
    return ElementBuffer(size)


def _write_kernel(items, index, value, dynamic_size):
    return items.write_growing(index, value) if dynamic_size else items.write(index, value)


def _read_kernel(items, index, element_dtype, element_shape):
    return items.read(index, element_dtype, element_shape)


def _stack_kernel(items, element_dtype, element_shape, static_size):
    return items.stack(element_dtype, element_shape)


def _write_form(op):
    """``flow.write(index, value)``: the buffer's own method, no kernel in between."""
    growing = op.attrs["dynamic_size"]
    if type(growing) is not bool:
        return None
    return Form(Method(Input(0), "write_growing" if growing else "write", Input(1), Input(2)))


def _read_form(op):
    dtype, shape = op.attrs["element_dtype"], op.attrs["element_shape"]
    return Form(Method(Input(0), "read", Input(1), Bound(dtype, "dtype"), Bound(shape, "shape")))


def _element_spec(inputs, attrs):
    return [(attrs["element_dtype"], _shape_attr(attrs["element_shape"]))]


def _shape_attr(dims):
    return TensorShape(None) if dims is None else TensorShape(dims)


def _stack_spec(inputs, attrs):
    rows = attrs.get("static_size")
    return [
        (
            attrs["element_dtype"],
            TensorShape([rows]).concatenate(_shape_attr(attrs["element_shape"])),
        )
    ]


def _on_flow(spec):
    """``spec`` for an op whose first input is an array's flow, which it checks is one."""

    def infer(inputs, attrs):
        if inputs[0].dtype is not dtypes.variant:
            raise TypeError(f"a TensorArray op needs a flow (variant), got {inputs[0].dtype.name}")
        return spec(inputs, attrs)

    return infer


# --- gradients ------------------------------------------------------------------------------------
# The gradient of a flow is a gradient list (runtime.ops.list_gradient_ops): the gradient of each
# element by index. The rules read only the ops' dense inputs and indices, never the array itself.


def _write_gradient(op, grads):
    _, index, value = op.inputs
    value_grad = None
    if value.dtype.is_floating:
        value_grad = grad_list_get(grads, index, shape_of(value), value.dtype)
    # The value this write replaced got no further: its gradient is dropped.
    return grad_list_drop(grads, index), None, value_grad


def _stack_gradient(op, grad):
    return (grad_list_from_tensor(grad),)


def _from_tensor_gradient(op, grads):
    value = op.inputs[0]
    return (grad_list_stack(grads, shape_of(value), value.dtype),)


_ELEMENT = {"element_dtype": kinds.DTYPE, "element_shape": kinds.DIMS}
_GROWS = {"dynamic_size": kinds.BOOL}
RESERVE = OpDef(
    "TensorListReserve",
    _reserve_kernel,
    lambda i, a: [_FLOW],
    pure=False,
    attrs=_GROWS,
    gradient=NotDifferentiable("its only input is an integer size"),
)
WRITE = OpDef(
    "TensorListSetItem",
    _write_kernel,
    _on_flow(lambda i, a: [_FLOW]),
    pure=False,
    attrs=_GROWS,
    gradient=_write_gradient,
    python_form=_write_form,
)
READ = OpDef(
    "TensorListGetItem",
    _read_kernel,
    _on_flow(_element_spec),
    pure=False,
    attrs=_ELEMENT,
    gradient=lambda op, grad: (grad_list_element(op.inputs[1], grad), None),
    python_form=_read_form,
)
STACK = OpDef(
    "TensorListStack",
    _stack_kernel,
    _on_flow(_stack_spec),
    pure=False,
    attrs={**_ELEMENT, "static_size": kinds.OPTIONAL_INT},
    gradient=_stack_gradient,
)
LENGTH = OpDef(
    "TensorListLength",
    lambda items: np.int32(len(items)),
    _on_flow(lambda i, a: [(dtypes.int32, TensorShape([]))]),
    pure=False,
    gradient=INTEGER_OUTPUT,
)
FROM_TENSOR = OpDef(
    "TensorListFromTensor",
    ElementBuffer.of_rows,
    lambda i, a: [_FLOW],
    pure=False,
    gradient=_from_tensor_gradient,
)


class TensorArray:
    """A growable or fixed-size array of tensors of one dtype.

    ``write(i, v)`` returns the updated array; ``read(i)``, ``stack()``,
    ``unstack(t)`` and ``size()`` work eagerly and inside graphs and loops.
    """

    def __init__(
        self,
        dtype,
        size=0,
        dynamic_size=False,
        element_shape=None,
        flow=None,
        clear_after_read=None,
        infer_shape=True,
        name=None,
    ):
        # dtype None: fixed by the first write (AutoGraph turns appended-to lists into arrays).
        self.dtype = dtypes.as_dtype(dtype) if dtype is not None else None
        self.dynamic_size = bool(dynamic_size)
        self.element_shape = as_shape(element_shape)
        if flow is None:
            size_t = convert_to_tensor(size, dtypes.int32)
            flow = bind1(
                RESERVE, [size_t], {"dynamic_size": self.dynamic_size}, name or "TensorArray"
            )
            known = constant_value(size_t)
            self._static_size = None if self.dynamic_size or known is None else int(known)
        else:
            self._static_size = None
        self.flow = flow

    # nest protocol: a TensorArray flattens into its flow, so it can be a loop variable
    def _nest_components(self):
        return [self.flow]

    def _nest_rebuild(self, components):
        return self._with_flow(components[0])

    def _nest_join(self, other):
        """This array, claiming only what holds for it and ``other`` too (the other branch of a
        cond, or the array as it entered a loop): a size both have, and the most specific
        element shape both are compatible with.

        An element shape of unknown rank is one no write has fixed yet (as the first write
        fixes it, ``infer_shape``): it takes the other's, so an empty list still stacks.
        """
        joined = self._with_flow(self.flow)
        if not isinstance(other, TensorArray):
            return joined
        joined.dtype = self.dtype or other.dtype  # None: never written
        mine, theirs = self.element_shape, other.element_shape
        if mine.rank is None or theirs.rank is None:
            joined.element_shape = theirs if mine.rank is None else mine
        else:
            joined.element_shape = mine.most_specific_compatible_shape(theirs)
        if self._static_size != other._static_size:
            joined._static_size = None
        return joined

    def _with_flow(self, flow, element_shape=None):
        new = type(self).__new__(type(self))  # a subclass stays one
        new.dtype, new.dynamic_size = self.dtype, self.dynamic_size
        new.element_shape = self.element_shape if element_shape is None else element_shape
        new._static_size = self._static_size
        new.flow = flow
        return new

    def _shape_attr(self):
        rank_known = self.element_shape.rank is not None
        return tuple(self.element_shape.as_list()) if rank_known else None

    def write(self, index, value, name=None):
        """Returns the array with ``value`` at ``index``."""
        value = convert_to_tensor(value, dtype=self.dtype)
        dtype = self.dtype or value.dtype
        if not self.element_shape.is_compatible_with(value.shape):
            raise ValueError(
                f"TensorArray: element shape {value.shape} does not match the array's {self.element_shape}"
            )
        index = convert_to_tensor(index, dtypes.int32)
        flow = bind1(
            WRITE,
            [self.flow, index, value],
            {"dynamic_size": self.dynamic_size},
            name or "TensorArrayWrite",
        )
        new = self._with_flow(flow, self.element_shape.merge_with(value.shape))
        new.dtype = dtype
        return new

    def _element_dtype(self):
        if self.dtype is None:
            raise ValueError(
                "This TensorArray was never written, so the dtype of its elements is unknown"
            )
        return self.dtype

    def read(self, index, name=None):
        """The element at ``index``."""
        attrs = {"element_dtype": self._element_dtype(), "element_shape": self._shape_attr()}
        return bind1(
            READ,
            [self.flow, convert_to_tensor(index, dtypes.int32)],
            attrs,
            name or "TensorArrayRead",
        )

    def stack(self, name=None):
        """All elements stacked along a new first axis."""
        attrs = {
            "element_dtype": self._element_dtype(),
            "element_shape": self._shape_attr(),
            "static_size": self._static_size,
        }
        return bind1(STACK, [self.flow], attrs, name or "TensorArrayStack")

    def unstack(self, value, name=None):
        """An array holding the rows of ``value``."""
        value = convert_to_tensor(value, dtype=self.dtype)
        flow = bind1(FROM_TENSOR, [value], name=name or "TensorArrayUnstack")
        element_shape = value.shape[1:] if value.shape.rank else TensorShape(None)
        new = self._with_flow(flow, self.element_shape.merge_with(element_shape))
        new._static_size = value.shape[0] if value.shape.rank else None
        return new

    def size(self, name=None):
        """The number of elements, as an int32 tensor."""
        return bind1(LENGTH, [self.flow], name=name or "TensorArraySize")

    def __repr__(self):
        dtype = self.dtype.name if self.dtype is not None else "unknown"
        return f"<rt.TensorArray dtype={dtype} element_shape={self.element_shape}>"
