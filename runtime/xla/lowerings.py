"""The XLA column of the op table: each op's JAX form, keyed by its OpDef.

A lowering is called as ``rule(ctx, *input_values, **attrs)``, the way a
kernel is called as ``kernel(*input_values, **attrs)``, and returns the output
value (a tuple for several outputs, None for none). Input values are JAX
arrays (tracers), or numpy values where they are known when compiling
(constants, shapes). ``ctx`` is the ``runtime.xla.lower.Lowering`` tracing the
graph: rules that check something at run time (``ctx.check``), touch the
program's state (variables, the random key) or print go through it. A rule
raises what the kernel raises (``InvalidArgumentError``) for inputs that are
wrong whatever their values (shapes): the program then fails there when run.

A row that gives its ``implementation`` against an array namespace
(``runtime.core.op_def``) has no entry written here: its rule is that
implementation called with ``jax.numpy`` (``runtime.xla.array_namespace``),
so what it computes, its checks and their messages are the op's own. Written
here is only what XLA needs of its own: control flow, effects, variables,
TensorArrays and gradient lists, indexing (XLA clamps where numpy raises),
casts (XLA saturates), the bounds of loop counters, and the refusal of strings.
Every row of ``OPS`` is in ``LOWERINGS`` (written or so made) or in
``UNLOWERABLE`` (with the reason), and a test holds the table to that. A pure
op whose inputs are all known when compiling is not lowered at all: its numpy
kernel runs once, while tracing, so string constants and shapes still work in
a compiled function.

>>> from runtime.ops import math_ops, string_ops
>>> math_ops.ADD in LOWERINGS, UNLOWERABLE[string_ops.STRING_JOIN]
(True, 'XLA has no strings')
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np
from jax import lax

from runtime.core import graph as graph_rows
from runtime.core.op_def import OPS
from runtime.ops import (
    array_ops,
    broadcast_ops,
    constant_ops,
    control_flow_ops,
    function_ops,
    indexing_ops,
    linalg_ops,
    list_gradient_ops,
    logging_ops,
    math_ops,
    padding_ops,
    random_ops,
    script_ops,
    string_ops,
    tensor_array_ops,
)
from runtime.state import variables
from runtime.xla import casts, control_flow, effects, gradient_lists, indexing, tensor_lists
from runtime.xla.array_namespace import Checked, implemented

LOWERINGS = {}
"""OpDef -> ``rule(ctx, *values, **attrs)``."""

UNLOWERABLE = {}
"""OpDef -> why it has no XLA form; it still runs when its inputs are known when compiling."""

STATIC_OPERANDS = {}
"""OpDef -> positions of inputs XLA needs when compiling (shapes, sizes): a value known only
at run time is observed on a first run and compiled in (``runtime.xla.observe``)."""


# --- the ops every graph makes ----------------------------------------------------------------


LOWERINGS[graph_rows.CONST] = lambda ctx, value, dtype: value
LOWERINGS[graph_rows.PLACEHOLDER] = lambda ctx, **attrs: graph_rows.PLACEHOLDER.kernel(**attrs)

# --- constants, casts, ranges ------------------------------------------------------------------


# XLA's own: a float cast to an integer saturates in XLA, where numpy's value is wanted.
def _cast(ctx, x, dtype):
    target = np.dtype(dtype.as_numpy_dtype)
    if casts.needs_numpy_cast(x.dtype, target):  # NaN and out of range: numpy's values
        return casts.float_to_int(x, target)
    return lax.convert_element_type(x, target)


LOWERINGS[constant_ops.CAST] = _cast

# --- elementwise arithmetic ----------------------------------------------------------------------


# XLA's own: the bounds of a loop's counter, which XLA's indexing needs (``ctx.bound``).
def _offset(sign):
    """Add (``sign`` 1) or Sub (-1). An integer scalar with a known range, moved by a constant,
    keeps it moved: a loop's count less one (a backward loop's first index) stays bounded."""

    def rule(ctx, x, y):
        result = jnp.add(x, y) if sign > 0 else jnp.subtract(x, y)
        if effects.is_static(result):
            return result
        value, moved_by = (y, x) if sign > 0 and effects.is_static(x) else (x, y)
        known, step = ctx.bounds(value), ctx.bounds(moved_by)
        if known is not None and step is not None and step[0] == step[1]:
            ctx.bound(result, known[0] + sign * step[0], known[1] + sign * step[0])
        return result

    return rule


LOWERINGS[math_ops.ADD] = _offset(1)
LOWERINGS[math_ops.SUB] = _offset(-1)


# XLA's own: it refuses strings, which the kernels compare.
def _comparison(fn):
    def rule(ctx, x, y):
        if ctx.op.inputs[0].dtype.is_string:
            ctx.unimplemented("XLA has no strings")
        return fn(x, y)

    return rule


LOWERINGS[math_ops.EQUAL] = _comparison(jnp.equal)
LOWERINGS[math_ops.NOT_EQUAL] = _comparison(jnp.not_equal)


# XLA's own: numpy raises for a negative integer power by itself, XLA needs the check, and
# a non-negative exponent to compute.
def _pow(ctx, x, y):
    if jnp.issubdtype(x.dtype, jnp.integer):
        message = "ValueError: Integers to negative integer powers are not allowed."
        Checked(ctx).check(y < 0, message)
        y = jnp.maximum(y, jnp.zeros((), y.dtype))  # XLA's pow needs a non-negative exponent
    return jnp.power(x, y)


LOWERINGS[math_ops.POW] = _pow


# --- ops whose rule is their implementation: what XLA needs to know when compiling ------------

STATIC_OPERANDS[constant_ops.RANGE] = (0, 1, 2)
STATIC_OPERANDS[broadcast_ops.FILL] = (0,)
STATIC_OPERANDS[array_ops.RESHAPE] = (1,)
STATIC_OPERANDS[array_ops.SPLIT] = (1,)
STATIC_OPERANDS[broadcast_ops.BROADCAST_TO] = (1,)
STATIC_OPERANDS[broadcast_ops.SUM_TO_SHAPE] = (1,)
STATIC_OPERANDS[padding_ops.PAD] = (1,)
STATIC_OPERANDS[padding_ops.MIRROR_PAD] = (1,)
STATIC_OPERANDS[padding_ops.TILE] = (1,)
STATIC_OPERANDS[linalg_ops.EYE] = (0, 1)
UNLOWERABLE[broadcast_ops.WHERE] = "its result's shape depends on the values of its input"


# XLA's own: it refuses strings, which ``zeros_like`` and ``ones_like`` make under numpy.
def _refusing_strings(opdef):
    """``opdef``'s implementation, refusing the string dtype."""
    rule = implemented(opdef.implementation)

    def refusing(ctx, x, dtype):
        if dtype.is_string:
            ctx.unimplemented("XLA has no strings")
        return rule(ctx, x, dtype)

    return refusing


LOWERINGS[array_ops.ZEROS_LIKE] = _refusing_strings(array_ops.ZEROS_LIKE)
LOWERINGS[array_ops.ONES_LIKE] = _refusing_strings(array_ops.ONES_LIKE)

# --- indexing (runtime/xla/indexing.py) --------------------------------------------------------

LOWERINGS[indexing_ops.STRIDED_SLICE] = indexing.lower_strided_slice
LOWERINGS[indexing_ops.STRIDED_SLICE_GRAD] = indexing.lower_strided_slice_grad
STATIC_OPERANDS[indexing_ops.STRIDED_SLICE_GRAD] = (0,)
LOWERINGS[indexing_ops.UNSORTED_SEGMENT_SUM] = indexing.lower_segment_sum
STATIC_OPERANDS[indexing_ops.UNSORTED_SEGMENT_SUM] = (2,)
STATIC_OPERANDS[indexing_ops.ONE_HOT] = (1,)

# --- strings: no XLA form ----------------------------------------------------------------------

for _op in (math_ops.STRING_ADD, string_ops.STRING_JOIN, string_ops.STRING_LENGTH):
    UNLOWERABLE[_op] = "XLA has no strings"
UNLOWERABLE[string_ops.AS_STRING] = "XLA has no strings"
UNLOWERABLE[script_ops.PY_FUNCTION] = "it calls Python (rt.py_function), which XLA cannot compile"

# --- effects: printing, asserting, random numbers, variables ------------------------------------

LOWERINGS[logging_ops.PRINT] = effects.lower_print
LOWERINGS[logging_ops.ASSERT] = effects.lower_assert
LOWERINGS[random_ops.RANDOM_NORMAL] = effects.lower_normal
LOWERINGS[random_ops.RANDOM_UNIFORM] = effects.lower_uniform
STATIC_OPERANDS[random_ops.RANDOM_NORMAL] = (0,)
STATIC_OPERANDS[random_ops.RANDOM_UNIFORM] = (0,)
LOWERINGS[variables.VAR_HANDLE] = lambda ctx, variable: variable
LOWERINGS[variables.READ] = effects.lower_read
LOWERINGS[variables.ASSIGN] = effects.assigner(lambda old, new: new)
LOWERINGS[variables.ASSIGN_ADD] = effects.assigner(jnp.add)
LOWERINGS[variables.ASSIGN_SUB] = effects.assigner(jnp.subtract)

KEYED = frozenset({random_ops.RANDOM_NORMAL, random_ops.RANDOM_UNIFORM})
"""Ops that draw from the program's random key: a program holding one keeps a key."""

# --- control flow and TensorArrays ---------------------------------------------------------------

LOWERINGS[control_flow_ops.IF] = control_flow.lower_if
LOWERINGS[control_flow_ops.WHILE] = control_flow.lower_while
LOWERINGS[control_flow_ops.NO_OP] = lambda ctx: None
LOWERINGS[function_ops.CALL] = control_flow.lower_call

# A loop's gradient stacks what each iteration computed (a preallocated array: the loop has
# a bound), and a TensorArray's gradient is a dense gradient list (one read's: with room for
# the indices the read can have).
LOWERINGS[list_gradient_ops.STACK_GET] = gradient_lists.lower_stack_get
LOWERINGS[list_gradient_ops.GRAD_LIST_EMPTY] = gradient_lists.lower_empty
LOWERINGS[list_gradient_ops.GRAD_LIST_ELEMENT] = gradient_lists.lower_element
LOWERINGS[list_gradient_ops.GRAD_LIST_FROM_TENSOR] = gradient_lists.lower_from_tensor
LOWERINGS[list_gradient_ops.GRAD_LIST_ADD] = gradient_lists.lower_add
LOWERINGS[list_gradient_ops.GRAD_LIST_GET] = gradient_lists.lower_get
STATIC_OPERANDS[list_gradient_ops.GRAD_LIST_GET] = (2,)
LOWERINGS[list_gradient_ops.GRAD_LIST_DROP] = gradient_lists.lower_drop
LOWERINGS[list_gradient_ops.GRAD_LIST_STACK] = gradient_lists.lower_stack
STATIC_OPERANDS[list_gradient_ops.GRAD_LIST_STACK] = (1,)

LOWERINGS[tensor_array_ops.RESERVE] = tensor_lists.lower_reserve
STATIC_OPERANDS[tensor_array_ops.RESERVE] = (0,)
LOWERINGS[tensor_array_ops.WRITE] = tensor_lists.lower_write
LOWERINGS[tensor_array_ops.READ] = tensor_lists.lower_read
LOWERINGS[tensor_array_ops.STACK] = tensor_lists.lower_stack
LOWERINGS[tensor_array_ops.LENGTH] = tensor_lists.lower_length
LOWERINGS[tensor_array_ops.FROM_TENSOR] = tensor_lists.lower_from_tensor


def rule_for(opdef):
    """The XLA rule of ``opdef``: its entry here, or one made from its ``implementation``;
    None when it has neither (``UNLOWERABLE`` says why).

    >>> from runtime.ops.special_math_ops import ERF
    >>> rule_for(ERF) is LOWERINGS[ERF]  # made from Erf's implementation, once
    True
    """
    rule = LOWERINGS.get(opdef)
    if rule is None and opdef.implementation is not None:
        rule = LOWERINGS[opdef] = implemented(opdef.implementation)
    return rule


for _op in list(OPS.values()):
    rule_for(_op)
