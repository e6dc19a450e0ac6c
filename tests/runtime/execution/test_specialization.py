"""Every row's ``python_form`` computes what its kernel computes.

Each row with a form (``runtime.core.forms``) has cases here: the same graph is
compiled twice, once with the forms (``x + y``, ``x.reshape(shape)``, ``a @ b``)
and once with every op as its kernel's call (``specialize=False``), and both
programs must give the same values, dtypes, shapes and kinds (numpy scalar or
array). A completeness test holds the table to the op table.
"""

from __future__ import annotations

import numpy as np
import pytest

import runtime as rt
from runtime.core.graph import CONST
from runtime.core.op_def import OPS
from runtime.execution.compile import compile_graph
from runtime.ops import array_ops, math_ops, nn_ops, tensor_array_ops
from runtime.ops.constant_ops import CAST
from runtime.ops.indexing_ops import STRIDED_SLICE
from runtime.state.variables import VAR_HANDLE
from tests.runtime.ops.op_info_rows import rows_of_registered_ops

F32, I32, B = np.float32, np.int32, np.bool_
RNG = np.random.default_rng(7)
VARIABLE = rt.Variable([1.0, 2.0])


def floats(*shape):
    return RNG.standard_normal(shape).astype(F32) if shape else F32(RNG.standard_normal())


def ints(*shape, low=-9, high=9):
    return RNG.integers(low, high, shape).astype(I32) if shape else I32(RNG.integers(low, high))


def bools(*shape):
    return RNG.integers(0, 2, shape).astype(bool) if shape else B(RNG.integers(0, 2))


def _tensor_array_squares(n):
    ta = rt.TensorArray(rt.int32, size=n)
    (_, ta) = rt.while_loop(lambda i, ta: i < n, lambda i, ta: (i + 1, ta.write(i, i * i)), (0, ta))
    return ta.stack(), ta.read(n - 1)


def _tensor_array_rows(x):
    ta = rt.TensorArray(rt.float32, size=0, dynamic_size=True)
    for k in range(3):
        ta = ta.write(k, x * float(k))
    return ta.read(1), ta.stack()


BINARY = {math_ops.ADD: "+", math_ops.SUB: "-", math_ops.MUL: "*", math_ops.LESS: "<",
          math_ops.LESS_EQUAL: "<=", math_ops.GREATER: ">", math_ops.GREATER_EQUAL: ">=",
          math_ops.EQUAL: "==", math_ops.NOT_EQUAL: "!="}  # fmt: skip
_OPERATORS = {
    "+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b,
    "<": rt.less, "<=": rt.less_equal, ">": rt.greater, ">=": rt.greater_equal,
    "==": rt.equal, "!=": rt.not_equal,
}  # fmt: skip


def _binary_cases(row, symbol):
    fn = _OPERATORS[symbol]
    return [
        (fn, [floats(), floats()]),
        (fn, [ints(4, 3), ints(3)]),
        (fn, [ints(), ints(2, 2)]),
        (fn, [floats(5), floats(5)]),
    ]


def _unary(fn, *args):
    return [(fn, [a]) for a in args]


CASES = {
    **{row: _binary_cases(row, symbol) for row, symbol in BINARY.items()},
    math_ops.REAL_DIV: [(rt.divide, [floats(3), floats(3)]), (rt.divide, [floats(), F32(0)])],
    math_ops.FLOOR_DIV: [
        (rt.floordiv, [floats(4), floats(4)]),
        (lambda x: rt.floordiv(x, 3), [ints(5)]),  # an integer by a constant that is not 0
        (lambda x: rt.floordiv(x, -2), [ints()]),
        (rt.floordiv, [ints(3), ints(3, low=1)]),  # by a tensor: the kernel, which checks for 0
    ],
    math_ops.FLOOR_MOD: [
        (rt.mod, [floats(4), floats(4)]),
        (lambda x: rt.mod(x, 3), [ints(5)]),
        (lambda x: x % -4, [ints()]),
    ],
    math_ops.POW: [(rt.pow, [np.abs(floats(3)), floats(3)]), (rt.pow, [ints(3), ints(3, low=0, high=4)])],
    math_ops.MAXIMUM: [(rt.maximum, [floats(3), floats(3)]), (rt.maximum, [ints(), ints()])],
    math_ops.MINIMUM: [(rt.minimum, [floats(2, 2), floats(2)]), (rt.minimum, [ints(), ints(3)])],
    math_ops.LOGICAL_AND: [(rt.logical_and, [bools(4), bools(4)]), (rt.logical_and, [bools(), bools()])],
    math_ops.LOGICAL_OR: [(rt.logical_or, [bools(4), bools()]), (rt.logical_or, [bools(), bools()])],
    math_ops.LOGICAL_XOR: [(lambda a, b: a ^ b, [bools(3), bools(3)]), (lambda a, b: a ^ b, [bools(), bools()])],
    math_ops.LOGICAL_NOT: _unary(rt.logical_not, bools(3), bools()),
    math_ops.NEG: _unary(rt.negative, floats(3), ints(), ints(2, 2)),
    math_ops.ABS: _unary(rt.abs, floats(3), ints(), floats()),
    math_ops.SIGN: _unary(rt.sign, floats(4), ints()),
    math_ops.SQRT: _unary(rt.sqrt, np.abs(floats(4)), np.abs(floats())),
    math_ops.SQUARE: _unary(rt.square, floats(3), ints()),
    math_ops.EXP: _unary(rt.exp, floats(3), floats()),
    math_ops.LOG: _unary(rt.log, np.abs(floats(3)), F32(-1.0)),  # log(-1) is nan, quietly
    math_ops.SIN: _unary(rt.sin, floats(3)),
    math_ops.COS: _unary(rt.cos, floats()),
    math_ops.TANH: _unary(rt.tanh, floats(2, 2)),
    math_ops.MATMUL: [
        (rt.matmul, [floats(2, 3), floats(3, 4)]),
        (lambda a, b: rt.matmul(a, b, transpose_a=True), [floats(3, 2), floats(3, 4)]),
        (lambda a, b: rt.matmul(a, b, transpose_b=True), [ints(2, 3), ints(4, 3)]),
        (lambda a, b: rt.matmul(a, b, True, True), [floats(2, 3, 2), floats(4, 3)]),
    ],
    array_ops.RESHAPE: [
        (lambda x: rt.reshape(x, [-1, 2]), [floats(2, 3, 2)]),
        (lambda x: rt.reshape(x, [1, 1]), [floats()]),  # a numpy scalar has the method too
        (lambda x: rt.reshape(x, []), [ints(1)]),
        (lambda x, s: rt.reshape(x, s), [floats(6), np.array([3, 2], I32)]),  # not constant
    ],
    array_ops.TRANSPOSE: [
        (rt.transpose, [floats(2, 3)]),
        (lambda x: rt.transpose(x, [1, 2, 0]), [ints(2, 3, 4)]),
    ],
    array_ops.IDENTITY: _unary(rt.identity, floats(3), ints()),
    array_ops.STOP_GRADIENT: _unary(rt.stop_gradient, floats(3)),
    nn_ops.RELU: _unary(rt.nn.relu, floats(5), ints(), floats(2, 2)),
    nn_ops.RELU_GRAD: [(nn_ops.relu_grad, [floats(4), floats(4)]), (nn_ops.relu_grad, [ints(), ints()])],
    STRIDED_SLICE: [
        (lambda x: x[1:, ::2], [floats(3, 4)]),
        (lambda x, i: x[i], [ints(4), I32(2)]),
        (lambda x: x[..., None], [floats(2)]),
        (lambda x: x[-1], [ints(3, 2)]),
    ],
    CAST: [
        (lambda x: rt.cast(x, rt.float64), [ints()]),
        (lambda x: rt.cast(x, rt.int8), [floats()]),
        (lambda x: rt.cast(x, rt.bool), [ints()]),
        (lambda x: rt.cast(x, rt.int32), [floats(3)]),
    ],
    CONST: [(lambda x: x * rt.constant([2.0, 3.0]), [floats(2)])],
    VAR_HANDLE: [(lambda x: x + VARIABLE.read_value(), [floats(2)])],
    tensor_array_ops.WRITE: [(_tensor_array_squares, [I32(5)]), (_tensor_array_rows, [floats(2)])],
    tensor_array_ops.READ: [(_tensor_array_squares, [I32(3)]), (_tensor_array_rows, [floats(3)])],
}  # fmt: skip
# Rows whose form needs a kind of input no case can give it here, with the reason.
NOT_COVERED = {}

PARAMS = [
    pytest.param(row, fn, args, id=f"{row.type}-{k}")
    for row, cases in CASES.items()
    for k, (fn, args) in enumerate(cases)
]


def test_every_row_with_a_form_has_a_case():
    # test_op_infos.py compares the forms of the rows its ops are made of with their kernels.
    with_forms = {row for row in OPS.values() if row.python_form is not None}
    assert with_forms - rows_of_registered_ops() <= set(CASES) | set(NOT_COVERED)
    assert set(CASES) | set(NOT_COVERED) <= with_forms


def _compile_both(fn, args, shapes=None):
    g = rt.Graph()
    with g.as_default():
        placeholders = [
            rt.placeholder(rt.as_dtype(np.asarray(a).dtype), np.shape(a) if shapes is None else s)
            for a, s in zip(args, shapes or [None] * len(args))
        ]
        outputs = rt.nest.flatten(fn(*placeholders))
    programs = [compile_graph(g, placeholders, outputs, specialize=s) for s in (True, False)]
    return g, programs


def _same(actual, expected):
    assert type(actual) is type(expected), (actual, expected)
    assert np.asarray(actual).dtype == np.asarray(expected).dtype
    np.testing.assert_array_equal(actual, expected)


@pytest.mark.parametrize(("row", "fn", "args"), PARAMS)
def test_the_form_computes_what_the_kernel_computes(row, fn, args):
    for shapes in (None, [[None] * np.ndim(a) for a in args]):  # known shapes, then unknown dims
        g, (special, plain) = _compile_both(fn, args, shapes)
        assert any(op.opdef is row for op in _all_ops(g)), f"no {row.type} op in the graph"
        with np.errstate(all="raise"):  # the programs silence numpy themselves
            results = special(*args), plain(*args)
        for actual, expected in zip(*results):
            _same(actual, expected)


@pytest.mark.parametrize("row", list(CASES), ids=lambda row: row.type)
def test_some_case_of_each_row_is_written_by_its_form(row):
    written = False
    for fn, args in CASES[row]:
        g, _ = _compile_both(fn, args)
        written |= any(row.python_form(op) is not None for op in _all_ops(g) if op.opdef is row)
    assert written


def test_forms_change_the_source_and_no_form_is_a_kernel_call():
    _, (special, plain) = _compile_both(
        lambda a, b: rt.nn.relu(rt.matmul(a, b)), [floats(2, 2)] * 2
    )
    assert "a @ b" not in plain.source and "MatMul(" in plain.source
    assert "@" in special.source and "MatMul(" not in special.source


def _all_ops(graph):
    for op in graph.get_operations():
        yield op
        for sub in op.subgraphs():
            yield from _all_ops(sub)
