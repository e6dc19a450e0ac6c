"""How an op is written in compiled Python: the ``python_form`` column of the op table.

By default the compiler writes an op as a call of its row's kernel,
``Sum(x, axis=axis, keepdims=keepdims)``. A row may instead say how its op is
written as a Python expression: ``x + y`` for Add (numpy's operator on numpy
values is ``np.add``, without a Python call in between), ``x.reshape(shape)``
for a Reshape to a constant shape, ``a @ b.mT`` for a MatMul, ``maximum(x,
zero)`` for a Relu. ``python_form(op)`` looks at the op (its inputs' dtypes and
shapes, its attributes, which inputs are constants) and returns a ``Form``, or
None where only the kernel does what the op means.

A form is a small expression tree. Its leaves are the op's inputs (``Input``)
and values bound in the compiled function's globals (``Bound``); its nodes are
Python operators, calls of bound values, and method calls, attributes and
subscripts whose names are written here, in the library, never taken from a
graph. So a form keeps the compiler's promise that no text from a graph's data
reaches the source (``runtime.execution.compile``, which prints forms).

>>> import numpy as np
>>> form = Form(Operator("+", Input(0), Input(1)), inlinable=True, ufunc=np.add)
>>> form.expression
Operator('+', Input(0), Input(1))
"""

from __future__ import annotations

import builtins

BINARY_SYMBOLS = frozenset(
    ["+", "-", "*", "/", "//", "%", "**", "@", "<", "<=", ">", ">=", "==", "!=", "&", "|", "^"]
    + ["and", "or"]
)
UNARY_SYMBOLS = frozenset(["-", "~", "not"])

ATTRIBUTE_NAMES = frozenset(
    ["reshape", "transpose", "mT", "write", "write_growing", "write_int32", "read"]
)
"""The methods and attributes a form may name: a closed set, written here."""

KEYWORD_NAMES = frozenset(["out"])
"""Keyword arguments a form may name besides those of the op's row."""


def _checked_name(name, allowed=ATTRIBUTE_NAMES):
    if name not in allowed:
        raise ValueError(f"{name!r} is not a name compiled code may use ({sorted(allowed)})")
    return name


class Input:
    """The op's input ``index``."""

    __slots__ = ("index",)

    def __init__(self, index: int):
        self.index = index

    def __repr__(self):
        return f"Input({self.index})"


class Bound:
    """A value the compiled function reads from its globals, under a name made from ``hint``.

    ``shared``: one global for every use of this very object (a type, a function).
    """

    __slots__ = ("value", "hint", "shared")

    def __init__(self, value, hint="const", shared=False):
        self.value = value
        self.hint = hint
        self.shared = shared

    def __repr__(self):
        return f"Bound({self.hint})"


class Operator:
    """A Python operator: binary with two operands, unary with one."""

    __slots__ = ("symbol", "operands")

    def __init__(self, symbol, *operands):
        symbols = BINARY_SYMBOLS if len(operands) == 2 else UNARY_SYMBOLS
        if len(operands) not in (1, 2) or symbol not in symbols:
            raise ValueError(f"no Python operator {symbol!r} of {len(operands)} operands")
        self.symbol = symbol
        self.operands = operands

    def __repr__(self):
        return f"Operator({self.symbol!r}, {', '.join(map(repr, self.operands))})"


class Call:
    """``function(*args, **keywords)``; ``function`` is a ``Bound`` value."""

    __slots__ = ("function", "args", "keywords")

    def __init__(self, function, *args, **keywords):
        self.function = function
        self.args = args
        self.keywords = {_checked_name(k, KEYWORD_NAMES): v for k, v in keywords.items()}

    def __repr__(self):
        return f"Call({self.function!r}, ...)"


class Method:
    """``obj.name(*args, **keywords)``."""

    __slots__ = ("obj", "name", "args", "keywords")

    def __init__(self, obj, name, *args, **keywords):
        self.obj = obj
        self.name = _checked_name(name)
        self.args = args
        self.keywords = {_checked_name(k, KEYWORD_NAMES): v for k, v in keywords.items()}

    def __repr__(self):
        return f"Method({self.obj!r}, {self.name!r}, ...)"


class Attribute:
    """``obj.name``."""

    __slots__ = ("obj", "name")

    def __init__(self, obj, name):
        self.obj = obj
        self.name = _checked_name(name)

    def __repr__(self):
        return f"Attribute({self.obj!r}, {self.name!r})"


class Subscript:
    """``obj[spec]``: ``spec`` as a StridedSlice op holds it (ints, slices, None,
    ``...``, and ``("input", k)`` for the op's input ``k + 1``)."""

    __slots__ = ("obj", "spec")

    def __init__(self, obj, spec):
        self.obj = obj
        self.spec = spec

    def __repr__(self):
        return f"Subscript({self.obj!r})"


class Form:
    """How one op is written: ``expression``, and what the compiler may do with it.

    - ``inlinable``: a pure expression that cannot raise on scalars (no
      broadcasting, no index out of range): a scalar result used once may be
      written into the expression that uses it.
    - ``in_test``: the expression to write when the value is a scalar bool that
      an ``if`` or ``while`` tests (Python's ``and``/``or``/``not`` for numpy's
      ``&``/``|``/``~``).
    - ``ufunc``: the numpy ufunc the expression applies to ``ufunc_args``
      (default: the operands of the expression's operator), whose result is a
      fresh array: the compiler may have it write into a dead temporary
      (``add(x, y, out=x)``).
    """

    __slots__ = ("expression", "inlinable", "in_test", "ufunc", "ufunc_args")

    def __init__(self, expression, *, inlinable=False, in_test=None, ufunc=None, ufunc_args=None):
        self.expression = expression
        self.inlinable = inlinable
        self.in_test = in_test
        self.ufunc = ufunc
        if ufunc is not None and ufunc_args is None:
            ufunc_args = (
                expression.operands if isinstance(expression, Operator) else expression.args
            )
        self.ufunc_args = ufunc_args

    def __repr__(self):
        return f"Form({self.expression!r})"


# --- the forms most rows share ----------------------------------------------------------------


def _numeric_or_bool(dtype):
    return dtype.is_numeric or dtype.is_bool


def operator_form(symbol, ufunc, in_test=None, dtypes=_numeric_or_bool):
    """``python_form`` of an elementwise op whose kernel is ``ufunc``, Python's ``symbol`` on
    numpy values, for inputs whose dtype ``dtypes`` accepts (strings keep their kernels)."""

    made = {}  # arity -> the Form: forms are never changed, so ops share them

    def python_form(op):
        if not op.inputs or not dtypes(op.inputs[0].dtype):
            return None
        form = made.get(len(op.inputs))
        if form is None:
            inputs = [Input(k) for k in range(len(op.inputs))]
            test = Operator(in_test, *inputs) if in_test is not None else None
            form = Form(Operator(symbol, *inputs), inlinable=True, in_test=test, ufunc=ufunc)
            made[len(op.inputs)] = form
        return form

    return python_form


def division_form(symbol, ufunc, integer_divisor_ok=True):
    """``//``, ``%`` and ``**``: the operator on floats; on integers only by a constant that is
    not zero (``//`` and ``%``), since integer division by zero must raise, as its kernel makes it."""
    floats = operator_form(symbol, ufunc)

    def python_form(op):
        dtype = op.inputs[0].dtype
        if dtype.is_floating:
            return floats(op)
        if not (dtype.is_integer and integer_divisor_ok):
            return None
        divisor = op.inputs[1].op
        if not is_constant(divisor):
            return None
        value = divisor.attrs["value"]
        if not (hasattr(value, "all") and bool((value != 0).all())):
            return None
        return floats(op)

    return python_form


def ufunc_call_form(ufunc, hint):
    """``python_form`` of an op whose kernel is ``ufunc`` called on its inputs, for numeric or
    bool inputs: a call that the compiler may point at a dead temporary."""

    made = {}  # arity -> the Form

    def python_form(op):
        if not op.inputs or not _numeric_or_bool(op.inputs[0].dtype):
            return None
        form = made.get(len(op.inputs))
        if form is None:
            inputs = [Input(k) for k in range(len(op.inputs))]
            form = made[len(op.inputs)] = Form(
                Call(Bound(ufunc, hint, shared=True), *inputs), ufunc=ufunc
            )
        return form

    return python_form


def builtin_call_form(name, ufunc):
    """``python_form`` of an op written as Python's builtin ``name`` (``abs``): on numpy values
    of a numeric or bool dtype, the builtin calls ``ufunc``."""
    form = Form(
        Call(Bound(getattr(builtins, name), name, shared=True), Input(0)),
        inlinable=True,
        ufunc=ufunc,
    )

    def python_form(op):
        return form if _numeric_or_bool(op.inputs[0].dtype) else None

    return python_form


def matmul_form(op):
    """``a @ b``, with ``.mT`` (a view with the last two axes swapped) for a transposed operand."""
    ta, tb = op.attrs["transpose_a"], op.attrs["transpose_b"]
    if type(ta) is not bool or type(tb) is not bool or not op.inputs[0].dtype.is_numeric:
        return None
    a, b = (Attribute(Input(k), "mT") if t else Input(k) for k, t in enumerate((ta, tb)))
    return Form(Operator("@", a, b))


def alias_form(op):
    """``python_form`` of an op whose output is its first input (Identity, StopGradient)."""
    return _FIRST_INPUT


def constant_form(op):
    """``python_form`` of a Const: its value, bound under a name made from the op's."""
    return Form(Bound(op.attrs["value"], name_hint(op)))


def is_constant(op):
    """Whether ``op`` is a Const (its row's form is ``constant_form``)."""
    return op.opdef.python_form is constant_form


def constant_input(op, index):
    """The value of ``op``'s input ``index`` when a Const makes it, else None."""
    source = op.inputs[index].op
    return source.attrs["value"] if is_constant(source) else None


def handle_form(op):
    """``python_form`` of a variable's handle: the variable, bound."""
    return Form(Bound(op.attrs["variable"], name_hint(op)))


def name_hint(op):
    """The start of the generated names of ``op``'s values: its row's type in lower case
    (``matmul``), never its name, which a loaded file chooses; the compiler numbers names."""
    return op.opdef.type.lower()


_FIRST_INPUT = Form(Input(0))
