"""Graph optimisation passes (runtime.execution.optimize): each pass alone, then all of them on the gallery.

Every test checks two things: the op counts move as the pass promises, and the
optimised graph computes exactly what the traced graph computes.
"""

import warnings

import numpy as np
import pytest

import autograph as ag
import runtime as rt
import runtime.execution.optimize as opt
from runtime.execution.compile import compile_function
from runtime.execution.graph_copy import copy_graph
from runtime.execution.tracing import trace
from runtime.ops.math_ops import MUL
from tests.autograph.gallery import GALLERY

INT = rt.TensorSpec([], rt.int32)
FLOAT = rt.TensorSpec([], rt.float32)


def traced(fn, *specs):
    return trace(fn, list(specs), getattr(fn, "__name__", "f"))


def run(graph, *args):
    return compile_function(graph)(*args)


def types(graph):
    return [op.type for op in graph.get_operations()]


def assert_same_results(a, b):
    assert len(a) == len(b)
    for x, y in zip(a, b):
        assert np.asarray(x).dtype == np.asarray(y).dtype, (x, y)
        np.testing.assert_array_equal(x, y)


def assert_same_interface(graph, optimized):
    """The same inputs (count, dtypes, shapes, placeholders) and outputs (count, dtypes).

    A pass with nothing to change returns the graph itself.
    """
    if optimized is graph:
        return
    assert len(optimized.inputs) == len(graph.inputs)
    for a, b in zip(graph.inputs, optimized.inputs):
        assert b.op.type == "Placeholder" and b.graph is optimized
        assert (a.dtype, a.shape, a.op.name) == (b.dtype, b.shape, b.op.name)
    assert [t.dtype for t in optimized.outputs] == [t.dtype for t in graph.outputs]
    assert all(t.graph is optimized for t in optimized.outputs)


# --- copying ----------------------------------------------------------------------------------


def test_copy_graph_is_op_for_op_and_leaves_the_original_alone():
    def f(x):
        return rt.cond(x > 0, lambda: x * 2, lambda: -x)

    g = traced(f, INT)
    text, ops = str(g), g.get_operations()
    c = copy_graph(g)
    assert str(c) == text and g.get_operations() == ops
    assert_same_interface(g, c)
    (if_op,) = [op for op in c.get_operations() if op.type == "If"]
    assert all(sub.outer_graph is c for sub in if_op.subgraphs())
    assert [inner.graph for _, inner in if_op.attrs["then_graph"].captures] == [
        if_op.attrs["then_graph"]
    ]
    for v in (-3, 0, 4):
        assert_same_results(run(c, np.int32(v)), run(g, np.int32(v)))


def test_passes_never_change_the_traced_graph():
    def f(x):
        rt.print("x is", x)
        return (x * 1 + (rt.constant(2) * 3)) + (x * 1 + (rt.constant(2) * 3))

    g = traced(f, INT)
    text, count = str(g), opt.count_ops(g)
    optimized, report = opt.optimize(g)
    assert str(g) == text and opt.count_ops(g) == count
    assert report[0][1] == count and report[-1][2] == opt.count_ops(optimized) < count
    assert_same_interface(g, optimized)


def test_structured_outputs_are_mapped():
    g = traced(lambda x: {"a": x + 0, "b": (x * 2, None)}, INT)
    optimized, _ = opt.optimize(g)
    s = optimized.structured_outputs
    assert s["b"][1] is None
    assert s["a"] is optimized.inputs[0]  # x + 0 is x
    assert s["b"][0].graph is optimized and s["b"][0] is optimized.outputs[1]


# --- constant folding -------------------------------------------------------------------------


def test_folding_evaluates_constant_chains():
    def f(x):
        c = (rt.constant(2) + 3) * rt.constant(4)  # 20
        return x + c, rt.reduce_sum(rt.constant([1.0, 2.5]))

    g = traced(f, INT)
    folded = opt.constant_folding(g)
    assert opt.count_ops(folded) == opt.count_ops(g)  # each op replaced by one Const
    assert types(g).count("Const") == 4 and types(folded).count("Const") == 7
    assert "Mul" not in types(folded) and "Sum" not in types(folded)
    assert folded.get_operation_by_name("mul").attrs["value"] == 20
    assert types(opt.dead_code_elimination(folded)) == ["Placeholder", "Const", "Add", "Const"]
    assert_same_results(run(folded, np.int32(1)), run(g, np.int32(1)))


def test_folding_splits_multi_output_ops():
    g = traced(lambda x: x + rt.unstack(rt.constant([5, 7]))[1], INT)
    folded = opt.dead_code_elimination(opt.constant_folding(g))
    assert types(folded) == ["Placeholder", "Const", "Add"]
    assert_same_results(run(folded, np.int32(1)), (np.int32(8),))


@pytest.mark.parametrize(
    "make",
    [
        lambda: rt.random.uniform([2], seed=3),  # stateful
        lambda: rt.TensorArray(rt.int32, size=2).write(0, 1).write(1, 2).stack(),  # TensorList
        lambda: rt.placeholder(rt.int32, []) * 0,  # a Placeholder
    ],
    ids=["random", "tensor_array", "placeholder"],
)
def test_folding_never_touches_stateful_or_impure_ops(make):
    g = trace(make, [], "f")
    folded = opt.constant_folding(g)
    impure = [op.type for op in g.get_operations() if not op.opdef.pure or op.stateful]
    assert impure and [op.type for op in folded.get_operations() if op.type in impure] == impure


def test_folding_never_reads_variables():
    v = rt.Variable(5)
    g = trace(lambda: v.read_value() * 2, [], "f")
    folded = opt.constant_folding(g)
    assert types(folded) == types(g)
    assert run(folded) == (10,)
    v.assign(6)
    assert run(folded) == (12,)


def test_folding_respects_the_size_limit(monkeypatch):
    big = traced(lambda x: x + rt.reduce_sum(rt.fill([1001, 1000], 1)), INT)
    assert "Fill" in types(opt.constant_folding(big))  # 1.001e6 elements: left alone
    fits = traced(lambda x: x + rt.reduce_sum(rt.fill([1000, 1000], 1)), INT)
    assert "Fill" not in types(opt.constant_folding(fits))
    monkeypatch.setattr(opt, "MAX_FOLDED_ELEMENTS", 10)
    g = traced(lambda x: x + rt.fill([3, 4], 2), INT)
    assert "Fill" in types(opt.constant_folding(g))
    g = traced(lambda x: x + rt.fill([2, 5], 2), INT)
    assert "Fill" not in types(opt.constant_folding(g))
    # a result of unknown static shape ([?, 1]) is measured once computed
    g = trace(lambda: rt.where(rt.constant([True] * 11)), [], "f")
    assert g.outputs[0].shape.as_tuple() == (None, 1) and "Where" in types(opt.constant_folding(g))
    g = trace(lambda: rt.where(rt.constant([True] * 10)), [], "f")
    assert "Where" not in types(opt.constant_folding(g))


def test_folding_keeps_ops_whose_kernel_fails():
    g = traced(lambda x: x + rt.constant(1) // rt.constant(0), INT)
    folded = opt.constant_folding(g)
    assert "FloorDiv" in types(folded)
    with pytest.raises(rt.errors.InvalidArgumentError, match="division by zero"):
        run(folded, np.int32(1))


def test_ops_with_control_inputs_are_neither_folded_nor_simplified():
    def f(x):
        p = rt.print("first")
        with rt.control_dependencies([p]):
            return x + (rt.constant(1) + 2), x * 1

    g = traced(f, INT)
    assert types(opt.constant_folding(g)).count("Add") == 2
    assert types(opt.arithmetic_identities(g)).count("Mul") == 1


# --- common subexpression elimination -----------------------------------------------------------


def test_cse_merges_equal_pure_ops():
    def f(x):
        return (x + 1) * (x + 1) + rt.reduce_sum(rt.stack([x, x])) + rt.reduce_sum(rt.stack([x, x]))

    g = traced(f, INT)
    merged = opt.common_subexpression_elimination(g)
    # the two 1s are one Const already (a function graph keeps one per Python number); the two
    # adds merge, so do the stacks and the sums
    assert types(g).count("Const") == 1
    assert types(g).count("Add") == 4 and types(merged).count("Add") == 3
    assert types(merged).count("Const") == 1 and types(merged).count("Pack") == 1
    assert opt.count_ops(merged) == opt.count_ops(g) - 3
    for v in (-2, 3):
        assert_same_results(run(merged, np.int32(v)), run(g, np.int32(v)))


def test_cse_needs_the_same_control_inputs(capsys):
    def f(x):
        first, second = rt.print("first"), rt.print("second")
        with rt.control_dependencies([first]):
            a, a_again = x + 1, x + 1
        with rt.control_dependencies([second]):
            b = x + 1
        return a, a_again, b

    merged = opt.common_subexpression_elimination(traced(f, INT))
    a, a_again, b = merged.outputs
    assert a is a_again and b is not a and b.op.control_inputs[0].type == "PrintV2"
    assert run(merged, np.int32(1)) == (2, 2, 2)
    assert capsys.readouterr().out == "first\nsecond\n"


def test_cse_compares_attributes_by_value():
    def f(x):
        m = rt.reshape(x, [2, 2])
        return (
            rt.reduce_sum(m, axis=0),
            rt.reduce_sum(m, axis=1),  # other axis: kept
            rt.cast(m, rt.float32),
            rt.cast(m, rt.int64),  # other dtype: kept
            m[0, 1:],
            m[0, 1:],  # equal slice spec: merged
            rt.constant(0.0),
            rt.constant(-0.0),  # other bytes: kept
            rt.constant(np.nan),
            rt.constant(np.nan),  # same bytes: merged
        )

    g = traced(f, rt.TensorSpec([4], rt.int32))
    merged = opt.common_subexpression_elimination(g)
    assert types(merged).count("Sum") == 2 and types(merged).count("Cast") == 2
    assert types(merged).count("StridedSlice") == 1
    zero, neg_zero, nan1, nan2 = merged.outputs[6:]
    assert zero is not neg_zero and nan1 is nan2
    assert_same_results(
        run(merged, np.arange(4, dtype=np.int32)), run(g, np.arange(4, dtype=np.int32))
    )


def test_attr_key():
    key = opt.attr_key
    assert key(np.float32(1)) == key(np.array(1, np.float32)) != key(np.array(1, np.float64))
    assert key(np.zeros([2, 1])) != key(np.zeros([1, 2]))
    assert key(1) != key(1.0) != key(True)
    assert key(float("nan")) == key(float("nan")) and key(0.0) != key(-0.0)
    assert key(np.array([b"a", b"b"], dtype=object)) == key(np.array([b"a", b"b"], dtype=object))
    assert key(np.array([b"a"], dtype=object)) != key(np.array(["a"], dtype=object))
    assert key((slice(1, None), Ellipsis)) == key((slice(1, None), Ellipsis))
    assert key({"axis": (0,), "keepdims": False}) == key({"keepdims": False, "axis": (0,)})
    assert key(rt.int32) == key(rt.int32) != key(rt.int64)
    with pytest.raises(opt._Incomparable):
        key({"then_graph": rt.FuncGraph("g")})


def test_cse_never_merges_impure_ops_or_sub_graphs(capsys):
    v = rt.Variable(1)

    def f(x):
        before = v.read_value()
        v.assign_add(x)
        after = v.read_value()  # same op, same (no) inputs, yet another value
        r1, r2 = rt.random.uniform([3], seed=1), rt.random.uniform([3], seed=1)
        c1 = rt.cond(x > 0, lambda: x + 1, lambda: x)
        c2 = rt.cond(x > 0, lambda: x + 1, lambda: x)
        return before, after, r1, r2, c1, c2

    g = traced(f, INT)
    merged = opt.common_subexpression_elimination(g)
    for op_type in ("ReadVariableOp", "RandomUniform", "If"):
        assert types(merged).count(op_type) == 2
    before, after, *_ = run(merged, np.int32(5))
    assert (before, after) == (1, 6)


# --- arithmetic identities ----------------------------------------------------------------------


def simplify(graph):
    """Identities after folding, which turns ``rt.ones([3])`` (a Fill) into a Const."""
    return opt.arithmetic_identities(opt.constant_folding(graph))


ARITHMETIC = ("Mul", "Add", "Sub", "RealDiv")


def arithmetic(graph):
    return [t for t in types(graph) if t in ARITHMETIC]


@pytest.mark.parametrize(
    "fn",
    [
        lambda x: x * 1.0,
        lambda x: 1.0 * x,
        lambda x: x + 0.0,
        lambda x: 0.0 + x,
        lambda x: x - 0.0,
        lambda x: x / 1.0,
        lambda x: x + (-0.0),
        lambda x: x * rt.ones([1]),
        lambda x: x * np.ones([1, 1], np.float32),
        lambda x: rt.zeros([3]) + x,
    ],
    ids=[
        "x*1",
        "1*x",
        "x+0",
        "0+x",
        "x-0",
        "x/1",
        "x+-0",
        "x*ones[1]",
        "x*ones[1,1]",
        "zeros[3]+x",
    ],
)
def test_identities_are_removed(fn):
    g = traced(lambda x: fn(x), rt.TensorSpec([1, 3], rt.float32))
    simplified = simplify(g)
    assert simplified.outputs == simplified.inputs
    assert arithmetic(simplified) == [] and len(arithmetic(g)) == 1
    x = np.array([[-0.5, 2.0, np.inf]], np.float32)
    assert_same_results(run(simplified, x), run(g, x))


def test_identities_on_integers():
    g = traced(lambda x: (1 * x * 1 + 0 - 0) // 1, INT)
    simplified = opt.arithmetic_identities(g)
    assert arithmetic(simplified) == [] and types(simplified)[-1] == "FloorDiv"  # not an identity
    assert run(simplified, np.int32(-7)) == (-7,)


@pytest.mark.parametrize(
    ("fn", "spec", "x"),
    [
        (lambda x: x * rt.ones([3]), FLOAT, 2.0),  # scalar x: the result is [3]
        (lambda x: x + rt.zeros([1]), FLOAT, 2.0),  # scalar x: the result is [1]
        (lambda x: x * rt.ones([1]), rt.TensorSpec(None, rt.float32), 2.0),  # unknown rank
        (lambda x: x * rt.ones([3]), rt.TensorSpec([None], rt.float32), [2.0]),  # x may be [1]
        (lambda x: x * rt.ones([2, 1]), rt.TensorSpec([2], rt.float32), [2.0, 3.0]),  # a new dim
        (lambda x: 0.0 - x, FLOAT, 2.0),  # not identities
        (lambda x: 1.0 / x, FLOAT, 2.0),
        (lambda x: x * 2.0, FLOAT, 2.0),
        (lambda x: x * 0.0, FLOAT, 2.0),
        (lambda x: x * rt.constant([1.0, 2.0]), rt.TensorSpec([2], rt.float32), [2.0, 3.0]),
    ],
    ids=[
        "x*ones[3]",
        "x+zeros[1]",
        "unknown-rank",
        "unknown-dim",
        "new-dim",
        "0-x",
        "1/x",
        "x*2",
        "x*0",
        "x*[1,2]",
    ],
)
def test_identities_that_would_change_the_result_stay(fn, spec, x):
    g = traced(lambda x: fn(x), spec)
    simplified = simplify(g)
    assert arithmetic(simplified) == arithmetic(g) != []
    x = np.asarray(x, np.float32)
    assert_same_results(run(simplified, x), run(g, x))
    assert run(simplified, x)[0].shape == np.broadcast_shapes(x.shape, np.shape(run(g, x)[0]))


def test_identity_with_a_broadcast_of_known_dims_is_removed():
    g = traced(lambda x: x * rt.ones([3], rt.int32), rt.TensorSpec([None, 3], rt.int32))
    assert simplify(g).outputs[0].op.type == "Placeholder"


def test_identities_never_change_the_dtype():
    g = rt.FuncGraph("f")
    with g.as_default():
        x = g.add_input(rt.int32, [], "x")
        one = rt.constant(1)
        # an op claiming a float32 result: x itself would be int32, so it must stay
        (y,) = g.create_op(MUL, [x, one], {}, "mul", [(rt.float32, x.shape)]).outputs
    g.outputs = [y]
    assert types(opt.arithmetic_identities(g)) == ["Placeholder", "Const", "Mul"]


# --- dead code elimination ----------------------------------------------------------------------


def test_dce_drops_unused_pure_ops_and_keeps_inputs():
    def f(x, unused):
        x * 3 + 4  # noqa: B018 (dead)
        return x + 1

    g = traced(f, INT, INT)
    pruned = opt.dead_code_elimination(g)
    assert types(pruned) == ["Placeholder", "Placeholder", "Const", "Add"]
    assert_same_interface(g, pruned)
    assert run(pruned, np.int32(1), np.int32(2)) == (2,)


def test_stateful_ops_are_never_removed_and_run_in_order(capsys):
    v = rt.Variable(0)

    def f(x):
        rt.print("first", x * 1)
        v.assign_add(x + 0)  # result unused
        rt.print("second", v)
        rt.group(v.assign_add(x * 10))  # a NoOp over an effect
        return x * 2

    g = traced(f, INT)
    optimized, report = opt.optimize(g)
    assert report[-1][0] == "dead_code_elimination" and report[-1][2] < report[0][1]
    stateful = [op.type for op in optimized.get_operations() if op.stateful]
    assert stateful == ["PrintV2", "AssignAddVariableOp", "PrintV2", "AssignAddVariableOp"]
    assert run(optimized, np.int32(5)) == (10,)
    assert run(optimized, np.int32(1)) == (2,)
    assert capsys.readouterr().out == "first 5\nsecond 5\nfirst 1\nsecond 56\n"
    assert v.numpy() == 66


def test_dce_keeps_what_stateful_ops_need_through_control_inputs(capsys):
    def f(x):
        check = rt.Assert(x > 0, ["x must be positive"])
        with rt.control_dependencies([check]):
            rt.print("checked")
        return x

    optimized, _ = opt.optimize(traced(f, INT))
    assert "Assert" in types(optimized) and "Greater" in types(optimized)
    with pytest.raises(rt.errors.InvalidArgumentError, match="x must be positive"):
        run(optimized, np.int32(-1))
    assert run(optimized, np.int32(2)) == (2,)
    assert capsys.readouterr().out == "checked\n"


# --- sub-graphs -----------------------------------------------------------------------------------


def _subgraphs(graph, op_type):
    (op,) = [op for op in graph.get_operations() if op.type == op_type]
    return op, op.subgraphs()


def test_cond_branches_are_optimised():
    def f(x):
        def yes():
            unused = x * 7  # noqa: F841
            return x * 1 + (rt.constant(2) * 3), x + 1

        def no():
            return (x - 0) * (x - 0), x + 1 + 0

        return rt.cond(x > 0, yes, no)

    g = traced(f, INT)
    optimized, report = opt.optimize(g)
    old_if, old_branches = _subgraphs(g, "If")
    new_if, new_branches = _subgraphs(optimized, "If")
    assert len(new_if.inputs) == len(old_if.inputs)
    for old, new in zip(old_branches, new_branches):
        assert len(new.inputs) == len(old.inputs) and len(new.outputs) == len(old.outputs)
        assert opt.count_ops(new) < opt.count_ops(old)
    assert types(new_branches[0]) == ["Placeholder", "Const", "Const", "Add", "Add"]
    assert types(new_branches[1]) == ["Placeholder", "Mul", "Const", "Add"]
    for v in (-4, 0, 5):
        assert_same_results(run(optimized, np.int32(v)), run(g, np.int32(v)))


def test_while_sub_graphs_are_optimised_and_keep_their_loop_vars():
    def f(n):
        def body(i, total):
            step = rt.constant(1) * 1
            return i + step, total * 1 + i * (rt.constant(3) - 1)  # 2 * i

        return rt.while_loop(lambda i, total: i < n + 0, body, [0, 0])

    g = traced(f, INT)
    optimized, _ = opt.optimize(g)
    old_while, (old_cond, old_body) = _subgraphs(g, "While")
    new_while, (new_cond, new_body) = _subgraphs(optimized, "While")
    assert len(new_while.inputs) == len(old_while.inputs)
    assert new_while.attrs["num_loop_vars"] == 2
    for old, new in [(old_cond, new_cond), (old_body, new_body)]:
        assert [t.dtype for t in new.inputs] == [t.dtype for t in old.inputs]
        assert len(new.outputs) == len(old.outputs)
    assert types(new_cond) == ["Placeholder"] * 3 + ["Less"]
    assert types(new_body).count("Const") == 2 and "Sub" not in types(new_body)
    for n in (0, 1, 6):
        assert_same_results(run(optimized, np.int32(n)), run(g, np.int32(n)))


def test_loop_body_may_return_its_input_unchanged():
    def f(n):
        return rt.while_loop(
            lambda i, k: i < n, lambda i, k: (i + 1, k * 1), [0, n], maximum_iterations=4
        )

    g = traced(f, INT)
    optimized, _ = opt.optimize(g)
    _, (_, body) = _subgraphs(optimized, "While")
    assert body.outputs[1] is body.inputs[1]
    for n in (2, 9):
        assert_same_results(run(optimized, np.int32(n)), run(g, np.int32(n)))


def test_effects_inside_branches_are_kept(capsys):
    def f(x):
        def yes():
            rt.print("positive", x + 0)
            return x * 1

        rt.cond(x > 0, yes, lambda: x)  # result unused: the If stays for its print
        return x

    optimized, _ = opt.optimize(traced(f, INT))
    if_op, (then_graph, _) = _subgraphs(optimized, "If")
    assert if_op.stateful and then_graph.is_stateful and "PrintV2" in types(then_graph)
    run(optimized, np.int32(3))
    run(optimized, np.int32(-3))
    assert capsys.readouterr().out == "positive 3\n"


# --- optimize and options -----------------------------------------------------------------------


def test_report_counts_sub_graph_ops():
    g = traced(lambda x: rt.cond(x > 0, lambda: x * 1, lambda: x + 0), INT)
    optimized, report = opt.optimize(g)
    names = [name for name, _, _ in report]
    assert names == [p.__name__ for p in opt.DEFAULT_PASSES]
    assert report[0][1] == opt.count_ops(g) == 10  # 4 outer ops, 3 in each branch
    for (_, _, after), (_, before, _) in zip(report, report[1:]):
        assert after == before
    assert report[-1][2] == opt.count_ops(optimized) == 6  # branches return x_capture


def test_options_switch_passes_off():
    g = traced(lambda x: x * 1 + (rt.constant(1) + 2), INT)
    with opt.options(constant_folding=False):
        optimized, report = opt.optimize(g)
        assert "constant_folding" not in [name for name, _, _ in report]
        assert types(optimized).count("Add") == 2
        with opt.options(arithmetic_identities=False):
            assert [name for name, _, _ in opt.optimize(g)[1]] == [
                "common_subexpression_elimination",
                "dead_code_elimination",
            ]
        assert not opt.is_enabled("constant_folding") and opt.is_enabled("arithmetic_identities")
    assert opt.is_enabled("constant_folding")
    with opt.options(enabled=False):
        assert opt.optimize(g) == (g, [])
    with pytest.raises(TypeError, match="unknown option"), opt.options(constant_fold=False):
        pass


def test_a_failing_pass_is_skipped_with_a_warning():
    def broken(graph):
        raise RuntimeError("boom")

    g = traced(lambda x: x + 0, INT)
    with pytest.warns(RuntimeWarning, match="broken failed") as caught:
        optimized, report = opt.optimize(g, passes=(broken, opt.arithmetic_identities))
    assert caught[0].filename == __file__  # the warning names the line that called optimize
    assert [name for name, _, _ in report] == ["arithmetic_identities"]
    assert optimized.outputs == optimized.inputs


def test_concrete_functions_run_the_optimised_graph():
    @ag.function
    def f(x):
        return x * 1 + (rt.constant(2) * 3)

    concrete = f.get_concrete_function(INT)
    assert types(concrete.graph) == ["Placeholder", "Const", "Mul", "Const", "Const", "Mul", "Add"]
    assert concrete.optimization_report[0] == ("constant_folding", 7, 7)
    assert concrete.optimization_report[-1][2] == 3  # x, the Const 6, the Add
    assert f(rt.constant(4)).numpy() == 10

    with opt.options(enabled=False):
        unoptimized = ag.function(f.python_function).get_concrete_function(INT)
    assert unoptimized.optimization_report == []
    returns = [str(c._program).splitlines()[-1].strip() for c in (concrete, unoptimized)]
    assert returns == [
        "return (placeholder + const,)",
        "return (placeholder * const + const_1 * const_2,)",
    ]


# --- the converter gallery: optimisation on and off agree ---------------------------------------


def _dtype(value):
    if isinstance(value, bool):
        return rt.bool
    if isinstance(value, float):
        return rt.float32
    return rt.int32


GRAPH_CALLS = [
    pytest.param(c.fn, args, id=f"{c.fn.__name__}({','.join(map(repr, args))})")
    for c in GALLERY
    if c.graph
    for args in c.args
]


def _outcome(program, values):
    try:
        return program(*values)
    except rt.errors.OpError as e:
        return type(e)


def assert_same_structure_and_values(a, b):
    if isinstance(a, (list, tuple, dict)):
        assert type(a) is type(b) and len(a) == len(b)
        for x, y in zip(
            a.values() if isinstance(a, dict) else a, b.values() if isinstance(b, dict) else b
        ):
            assert_same_structure_and_values(x, y)
    elif isinstance(a, rt.Tensor):
        assert isinstance(b, rt.Tensor) and a.dtype is b.dtype and a.shape == b.shape
        np.testing.assert_array_equal(a.numpy(), b.numpy())
    else:
        assert type(a) is type(b) and a == b


@pytest.mark.parametrize(("fn", "args"), GRAPH_CALLS)
def test_gallery_graphs_compute_the_same_optimised(fn, args):
    specs = [rt.TensorSpec([], _dtype(a)) for a in args]
    graph = ag.function(fn).get_concrete_function(*specs).graph
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)  # no pass may fail on the gallery
        optimized, report = opt.optimize(graph)
    assert_same_interface(graph, optimized)
    assert report[-1][2] <= report[0][1]
    values = [np.asarray(a, dtype=s.dtype.as_numpy_dtype)[()] for a, s in zip(args, specs)]
    expected = _outcome(compile_function(graph), values)
    actual = _outcome(compile_function(optimized), values)
    if isinstance(expected, type):
        assert actual is expected
    else:
        assert_same_results(actual, expected)


@pytest.mark.parametrize(("fn", "args"), GRAPH_CALLS)
def test_gallery_functions_agree_with_optimisation_off(fn, args):
    tensors = [rt.constant(a) for a in args]
    optimized = _call(ag.function(fn), tensors)
    with opt.options(enabled=False):
        plain = ag.function(fn)
        expected = _call(plain, tensors)
    assert all(c.optimization_report == [] for c in plain._cache.graphs())
    if isinstance(expected, type):
        assert optimized is expected  # the same error, optimised or not
    else:
        assert_same_structure_and_values(optimized, expected)


def _call(function, tensors):
    try:
        return function(*tensors)
    except rt.errors.OpError as e:
        return type(e)


def test_gallery_graphs_shrink():
    before = after = 0
    for c in GALLERY:
        if c.graph:
            specs = [rt.TensorSpec([], _dtype(a)) for a in c.args[0]]
            concrete = ag.function(c.fn).get_concrete_function(*specs)
            before += concrete.optimization_report[0][1]
            after += concrete.optimization_report[-1][2]
    assert after < 0.95 * before


def test_a_pass_with_nothing_to_change_returns_the_graph_without_copying():
    g = traced(lambda x: rt.cond(x > 0, lambda: x * 2, lambda: -x), INT)
    for optimization in opt.DEFAULT_PASSES:
        assert optimization(g) is g
    optimized, report = opt.optimize(g)
    assert optimized is g and [after for _, _, after in report] == [opt.count_ops(g)] * 4

    h = traced(lambda x: rt.cond(x > 0, lambda: x * 1, lambda: -x), INT)  # x * 1 in a branch
    assert opt.arithmetic_identities(h) is not h
    assert opt.constant_folding(h) is h and opt.dead_code_elimination(h) is h
