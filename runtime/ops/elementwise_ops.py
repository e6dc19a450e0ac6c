"""How the elementwise rows of the op table are made: unary, binary, and integer division.

A family's row is written from the name of the ufunc it is in numpy and in every
array namespace (``"tanh"``), or from an ``implementation(xp, *values)``
(``runtime.core.op_def``), so each backend reads the one definition.

>>> from runtime.ops.math_ops import TANH
>>> TANH.kernel is np.tanh, TANH.implementation.__name__, TANH.onnx
(True, 'tanh', 'Tanh')
"""

from __future__ import annotations

import numpy as np

from runtime.core import forms
from runtime.core.array_namespace import elementwise
from runtime.core.op_def import OpDef
from runtime.core.tensor_shape import broadcast_shapes
from runtime.ops.constant_ops import convert_to_tensor, folded_value
from runtime.ops.registry import NUMERIC, DTypeMismatch, bind1, check_dtype


def binary_infer(op_type, allowed, out_dtype=None):
    """The ``infer`` rule of a binary row: two tensors of one dtype that ``allowed`` accepts
    (never promoted), broadcast together; the result of ``out_dtype`` or theirs."""

    def infer(inputs, attrs):
        x, y = inputs
        if x.dtype is not y.dtype:
            raise DTypeMismatch(
                f"Cannot compute {op_type} of a {x.dtype.name} tensor and a {y.dtype.name} tensor: "
                f"tensors of different dtypes are not converted implicitly; use rt.cast(x, rt.{y.dtype.name}) "
                f"or rt.cast(y, rt.{x.dtype.name}).",
                1, x.dtype, y.dtype,
            )  # fmt: skip
        check_dtype(op_type, x, allowed)
        return [(out_dtype or x.dtype, broadcast_shapes(x.shape, y.shape))]

    return infer


def binary(op_type, kernel, allowed, default_name, gradient, out_dtype=None, form=None,
           implementation=None):  # fmt: skip
    """A binary row. ``kernel``: the name of the ufunc it is in numpy and every array namespace
    (``"add"``), a numpy kernel of its own, or None with an ``implementation(xp, x, y)``.
    ``form``: its ``python_form``, or the symbol of the Python operator that means what its
    ufunc does; by default a ufunc is written as its call."""
    if type(kernel) is str:
        implementation, kernel = elementwise(kernel), getattr(np, kernel)
    if type(form) is str:
        python_form = forms.operator_form(form, kernel)
    elif form is None and isinstance(kernel, np.ufunc):
        python_form = forms.ufunc_call_form(kernel, op_type)
    else:
        python_form = form
    return OpDef(
        op_type,
        kernel,
        binary_infer(op_type, allowed, out_dtype),
        default_name=default_name,
        gradient=gradient,
        python_form=python_form,
        implementation=implementation,
    )


def _integer_division(name, what):
    """Integer floordiv/mod by zero is an error, as in TensorFlow, not numpy's silent 0 (nor
    XLA's -1 or x)."""

    def implementation(xp, x, y):
        if x.dtype.kind in "iu":
            xp.check(y == 0, f"Integer division by zero in {what}")
        return getattr(xp, name)(x, y)

    return implementation


def division(op_type, name, what, default_name, gradient, symbol):
    """The row of integer-safe ``//`` or ``%`` (``name``: the ufunc): written as Python's
    ``symbol`` where the compiler can tell the divisor is not zero."""
    form = forms.division_form(symbol, getattr(np, name))
    implementation = _integer_division(name, what)
    row = binary(
        op_type, None, NUMERIC, default_name, gradient, form=form, implementation=implementation
    )
    row.static_value = folded_value  # dims divided (``rt.shape(y)[0] // n``) stay known
    return row


def elementwise_unary(op_type, implementation, allowed, py_name, doc, gradient, python_form=None,
                      onnx=None):  # fmt: skip
    """A row and its function for an elementwise op; ``gradient(x, y, g)`` gives x's gradient.

    ``implementation``: the name of the ufunc the op is in numpy and every array namespace
    (``"tanh"``), or ``implementation(xp, x)``. ``onnx``: the ONNX operator that computes it.
    A ufunc is written in compiled code as its call, which may reuse a dead temporary.
    """

    def infer(inputs, attrs):
        check_dtype(op_type, inputs[0], allowed)
        return [(inputs[0].dtype, inputs[0].shape)]

    if callable(gradient):
        rule = gradient

        def gradient(op, g):
            return (rule(op.inputs[0], op.outputs[0], g),)

    kernel = None
    if type(implementation) is str:
        kernel = getattr(np, implementation)
        implementation = elementwise(implementation)
    if python_form is None and isinstance(kernel, np.ufunc):
        python_form = forms.ufunc_call_form(kernel, op_type)
    op = OpDef(
        op_type,
        kernel,
        infer,
        default_name=op_type,
        gradient=gradient,
        python_form=python_form,
        implementation=implementation,
        onnx=onnx,
    )

    def fn(x, name=None):
        return bind1(op, [convert_to_tensor(x)], name=name or op_type)

    fn.__name__ = py_name
    fn.__doc__ = doc
    return op, fn
