"""Operators on eager tensors that skip the op table when the answer is already certain.

``a + b`` on two eager tensors normally goes through ``bind``: convert the
operands, infer dtype and shape, call the numpy kernel under ``np.errstate``,
wrap the result. For scalar code that costs ~10x the arithmetic itself. Here,
when both operands are eager tensors of the same numeric dtype (or one is a
Python number that numpy keeps at the tensor's dtype, NEP 50), the operator
applies numpy's own operator to the values, which has exactly the kernel's
dtype and broadcasting rules. Anything else, and any failure, falls back to the
full op, so errors and their wording are the op table's.

>>> import runtime as rt
>>> x = rt.constant(7)
>>> (3 * x + 1, x // 2, x % 2 == 1)
(<rt.Tensor: shape=(), dtype=int32, numpy=22>, <rt.Tensor: shape=(), dtype=int32, numpy=3>, \
<rt.Tensor: shape=(), dtype=bool, numpy=True>)
"""

from __future__ import annotations

import operator

import numpy as np

from runtime.core import context, dtypes, floating_point
from runtime.core.tensor import EagerTensor
from runtime.ops import math_ops

_ALL = set(dtypes._BY_NAME.values())
_NUMERIC = frozenset(d for d in _ALL if d.is_numeric)
_FLOATING = frozenset(d for d in _ALL if d.is_floating)
_INTEGER = frozenset(d for d in _ALL if d.is_integer)
_BOOL = frozenset([dtypes.bool_])
# The Python ints each dtype holds. Arithmetic with a bigger one raises OverflowError in numpy
# (NEP 50) and so takes the op; a comparison needs the check, since numpy compares 2**40 with
# an int32 where the op rejects the constant.
_INT_RANGES = {
    d: (int(np.iinfo(d._np).min), int(np.iinfo(d._np).max)) for d in _ALL if d.is_integer
}
_INT_RANGES.update({d: (-float("inf"), float("inf")) for d in _FLOATING})


def _fast(fn, allowed, slow, swapped=False, comparison=False, nonzero_divisor=False):
    """The method for one operator: ``fn`` on the values when it is certain, else ``slow``.

    ``swapped``: a reflected operator (``3 * x`` calls ``x.__rmul__(3)``).
    ``comparison``: the result is bool, and no floating-point error can occur.
    ``nonzero_divisor``: integer // and % by zero raise in the op (numpy gives 0).
    """
    eager, new_tensor, state = EagerTensor, EagerTensor.__new__, context._context
    bool_dtype = dtypes.bool_
    ignore_errors, restore_errors = floating_point.ignore, floating_point.restore

    def method(a, b):
        dtype = a.dtype
        # A tape records through bind; ``context.active`` is zero when no thread builds or records.
        if dtype not in allowed or (context.active and (state.graphs or state.tapes)):
            return slow(a, b)
        kind = type(b)
        if kind is eager:
            if b.dtype is not dtype:
                return slow(a, b)
            other = b._value
        elif kind is int:
            if comparison:
                low, high = _INT_RANGES[dtype]
                if not low <= b <= high:
                    return slow(a, b)
            elif dtype is bool_dtype:  # numpy would make True & 1 an int64
                return slow(a, b)
            other = b
        elif (kind is float and dtype in _FLOATING) or (kind is bool and dtype is bool_dtype):
            other = b
        else:
            return slow(a, b)
        x, y = a._value, other
        if swapped:
            x, y = y, x
        if nonzero_divisor and dtype in _INTEGER and (isinstance(y, np.ndarray) or not y):
            return slow(a, b)
        result = new_tensor(eager)
        # numpy's error is left for the op to word, outside the except: a user sees the op's
        # error alone, not it "during handling of" numpy's.
        if comparison:
            try:
                result._value = fn(x, y)
            except Exception:  # shapes that don't broadcast
                result = None
            else:
                result.dtype = bool_dtype
        else:
            token = ignore_errors()  # x/0 is inf and overflow wraps, as in the op
            try:
                result._value = fn(x, y)
            except Exception:  # the op's own checks
                result = None
            else:
                result.dtype = dtype
            finally:
                restore_errors(token)
        if result is None:
            return slow(a, b)
        result._shape = None
        result._keras_mask = None
        return result

    return method


def _operators():
    ops = math_ops.OPERATORS
    table = {}
    for name, fn, allowed, extra in [
        ("add", operator.add, _NUMERIC, {}),
        ("sub", operator.sub, _NUMERIC, {}),
        ("mul", operator.mul, _NUMERIC, {}),
        ("truediv", operator.truediv, _FLOATING, {}),
        ("floordiv", operator.floordiv, _NUMERIC, {"nonzero_divisor": True}),
        ("mod", operator.mod, _NUMERIC, {"nonzero_divisor": True}),
        ("pow", np.power, _FLOATING, {}),  # Python ** on numpy scalars rounds differently
        ("and", operator.and_, _BOOL, {}),
        ("or", operator.or_, _BOOL, {}),
        ("xor", operator.xor, _BOOL, {}),
    ]:
        forward, reflected = f"__{name}__", f"__r{name}__"
        table[forward] = _fast(fn, allowed, ops[forward], **extra)
        table[reflected] = _fast(fn, allowed, ops[reflected], swapped=True, **extra)
    for name, fn in [
        ("lt", operator.lt),
        ("le", operator.le),
        ("gt", operator.gt),
        ("ge", operator.ge),
        ("eq", operator.eq),
        ("ne", operator.ne),
    ]:
        table[f"__{name}__"] = _fast(fn, _NUMERIC, ops[f"__{name}__"], comparison=True)
    return table


def install_eager_operators():
    """Gives ``EagerTensor`` the fast operators; ``Tensor``'s own remain the fallback."""
    for name, method in _operators().items():
        setattr(EagerTensor, name, method)


install_eager_operators()
