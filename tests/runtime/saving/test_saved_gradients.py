"""Functions that compute gradients save and load like any other, and a damaged one is refused.

Differentiating a loop grows its While op (an iteration count and stacks,
declared by its ``stacked`` attribute) and differentiating a cond grows its If
op: the loader checks those outputs against the rows' inference, as it checks
every op.
"""

import numpy as np
import pytest

import autograph as ag
import runtime as rt
from runtime.execution.tracing import trace
from runtime.functions.graph_function import GraphFunction
from runtime.saving.format import MAX_CALL_NESTING, SavedModelError
from tests.runtime.saving.model_files import description, write_signed


class Trained(rt.Module):
    def __init__(self):
        super().__init__()
        self.scale = rt.Variable([0.5, -1.0, 2.0])

    @ag.function(
        input_signature=[rt.TensorSpec([3], rt.float32), rt.TensorSpec([], rt.int32)],
        autograph=False,
    )
    def gradients(self, x, n):
        """First and second derivatives through a loop holding a cond, and a variable's."""
        with rt.GradientTape() as outer:
            outer.watch(x)
            with rt.GradientTape() as inner:
                inner.watch(x)

                def body(i, v, ta):
                    v = rt.cond(rt.reduce_sum(v) > 0.0, lambda: rt.sin(v) * v, lambda: v * x)
                    return i + 1, v, ta.write(i, v * self.scale)

                _, y, ta = rt.while_loop(
                    lambda i, v, ta: i < n,
                    body,
                    (0, x, rt.TensorArray(rt.float32, size=0, dynamic_size=True)),
                )
                loss = rt.reduce_sum(y * y) + rt.reduce_sum(ta.stack())
            dx, dscale = inner.gradient(loss, [x, self.scale])
        return {"loss": loss, "dx": dx, "dscale": dscale, "ddx": outer.gradient(dx, x)}


def _saved(tmp_path):
    module = Trained()
    path = str(tmp_path / "trained")
    rt.saved_model.save(module, path)
    return module, path


def _ops(graph):
    for op in graph["ops"]:
        yield op
        for value in op["attrs"].values():
            if "graph" in value:
                yield from _ops(value["graph"])


@pytest.mark.parametrize(
    "x, n", [([0.3, -0.2, 0.9], 3), ([-1.0, -0.5, -0.1], 2), ([0.5, 0.5, 0.5], 0)]
)
def test_a_function_computing_gradients_saves_and_loads_with_the_same_results(tmp_path, x, n):
    module, path = _saved(tmp_path)
    loaded = rt.saved_model.load(path)
    x = np.array(x, np.float32)
    original, copy = module.gradients(x, n), loaded.gradients(x, n)
    assert original.keys() == copy.keys()
    for key in original:
        np.testing.assert_array_equal(original[key].numpy(), copy[key].numpy(), err_msg=key)


def test_the_saved_loops_declare_their_stacks(tmp_path):
    _, path = _saved(tmp_path)
    loops = [
        op
        for op in _ops(description(path)["functions"]["gradients"]["graph"])
        if op["type"] == "While"
    ]
    stacked = [op["attrs"]["stacked"]["value"] for op in loops]
    assert any(s for s in stacked)  # the forward loop stacks what its gradient reads
    for op, count in zip(loops, stacked):
        n = op["attrs"]["num_loop_vars"]["value"]
        extra = 0 if count is None else 1 + count  # the iteration count, then the stacks
        assert len(op["outputs"]) == n + extra
        assert len(op["attrs"]["body_graph"]["graph"]["outputs"]) == n + (count or 0)


def _forward_loop(document):
    graph = document["functions"]["gradients"]["graph"]
    return next(
        op for op in _ops(graph) if op["type"] == "While" and op["attrs"]["stacked"]["value"]
    )


def _claims_one_stack_more(op):
    op["attrs"]["stacked"]["value"] += 1


def _claims_no_stacks(op):
    op["attrs"]["stacked"]["value"] = None


def _drops_the_iteration_count(op):
    n = op["attrs"]["num_loop_vars"]["value"]
    del op["outputs"][n]


@pytest.mark.parametrize(
    "edit", [_claims_one_stack_more, _claims_no_stacks, _drops_the_iteration_count]
)
def test_a_loop_whose_stacks_disagree_with_its_body_is_refused(tmp_path, edit):
    _, path = _saved(tmp_path)
    document = description(path)
    edit(_forward_loop(document))
    write_signed(path, document)
    with pytest.raises(SavedModelError, match="While"):
        rt.saved_model.load(path)


_TWICE = GraphFunction(trace(lambda x: x * x * 2.0, [rt.TensorSpec([None], rt.float32)], "twice"))


class Calling(rt.Module):
    @ag.function(input_signature=[rt.TensorSpec([None], rt.float32)], autograph=False)
    def call(self, x):
        with rt.GradientTape() as tape:
            tape.watch(x)
            (y,) = _TWICE([x])
        return y, tape.gradient(y, x)


def test_a_called_function_is_saved_with_its_graph_and_a_damaged_call_is_refused(tmp_path):
    module, path = Calling(), str(tmp_path / "calling")
    rt.saved_model.save(module, path)
    x = np.array([1.0, -3.0], np.float32)
    for original, copy in zip(module.call(x), rt.saved_model.load(path).call(x)):
        np.testing.assert_array_equal(original.numpy(), copy.numpy())
    document = description(path)
    graph = document["functions"]["call"]["graph"]
    call = next(op for op in _ops(graph) if op["type"] == "PartitionedCall")
    for depth in (2, 10**6):  # as many orders of backward functions built when loading
        call["attrs"]["depth"]["value"] = depth
        write_signed(path, document)
        with pytest.raises(SavedModelError, match="a call in a graph must have depth 1"):
            rt.saved_model.load(path)


def _nested_calls(levels):
    """A function calling a function ... ``levels`` calls deep, the innermost sin(x) * x * x."""
    function = GraphFunction(trace(lambda x: rt.sin(x) * x * x, [_VECTOR], "f0"))
    for i in range(levels - 1):
        inner = function
        function = GraphFunction(trace(lambda x, f=inner: f([x])[0] * x, [_VECTOR], f"f{i + 1}"))
    return ag.function(lambda x: function([x])[0] + 1.0, input_signature=[_VECTOR], autograph=False)


_VECTOR = rt.TensorSpec([3], rt.float32)


def test_calls_nest_up_to_the_limit_and_a_deeper_nesting_is_refused_before_it_is_checked(
    tmp_path,
):
    # Each level of nesting is one more order of backward functions built when a call is
    # checked: their size grows geometrically, so a small file could take hours to check.
    x = np.array([0.5, -1.0, 2.0], np.float32)
    within = _nested_calls(MAX_CALL_NESTING)
    path = str(tmp_path / "within")
    rt.saved_model.save(rt.Module(), path, signatures={"f": within})
    expected = np.sin(x) * x**2 * x ** (MAX_CALL_NESTING - 1) + 1.0
    np.testing.assert_allclose(
        rt.saved_model.load(path).signatures["f"](x=x)["output_0"].numpy(), expected
    )

    path = str(tmp_path / "beyond")
    rt.saved_model.save(rt.Module(), path, signatures={"f": _nested_calls(MAX_CALL_NESTING + 1)})
    with pytest.raises(
        SavedModelError, match=f"called functions are nested over {MAX_CALL_NESTING}"
    ):
        rt.saved_model.load(path)


def _two_shapes(pred, x, w):
    """A cond whose branches return (3,) and (1,): its output is (None,), and the gradient's
    branches read it as the shape each branch made (a placeholder refined beyond its input)."""
    return rt.cond(
        pred,
        lambda: rt.exp(x * w),
        lambda: rt.exp(rt.reduce_sum(x * w, axis=0, keepdims=True)),
    )


_SIGNATURE = [rt.TensorSpec([], rt.bool), rt.TensorSpec([3], rt.float32)]


class BranchesOfTwoShapes(rt.Module):
    def __init__(self):
        super().__init__()
        self.w = rt.Variable(np.ones(3, np.float32))

    @ag.function(input_signature=_SIGNATURE, autograph=False)
    def gradient(self, pred, x):
        with rt.GradientTape() as tape:
            y = _two_shapes(pred, x, self.w)
            loss = rt.reduce_sum(y * y)
        return tape.gradient(loss, self.w)


class BranchesOfTwoShapesInALoop(rt.Module):
    """The same cond on each of two iterations: its gradient reads the forward cond's output
    from the loop's stack."""

    def __init__(self):
        super().__init__()
        self.w = rt.Variable(np.ones(3, np.float32))

    @ag.function(input_signature=_SIGNATURE, autograph=False)
    def gradient(self, pred, x):
        def body(i, total):
            y = _two_shapes(pred, x, self.w)
            return [i + 1, total + rt.reduce_sum(y * y)]

        with rt.GradientTape() as tape:
            _, loss = rt.while_loop(
                lambda i, total: i < 2, body, [rt.constant(0), rt.constant(0.0)]
            )
        return tape.gradient(loss, self.w)


class BranchesOfTwoShapesInACond(rt.Module):
    """The same cond in one branch of another (on a constant true predicate): the gradient's
    inner cond reads the forward cond's output through the outer gradient's branch."""

    def __init__(self):
        super().__init__()
        self.w = rt.Variable(np.ones(3, np.float32))

    @ag.function(input_signature=_SIGNATURE, autograph=False)
    def gradient(self, pred, x):
        with rt.GradientTape() as tape:
            outer = rt.logical_or(pred, rt.logical_not(pred))  # true, not known when traced
            y = rt.cond(outer, lambda: _two_shapes(pred, x, self.w), lambda: x * self.w)
            loss = rt.reduce_sum(y * y)
        return tape.gradient(loss, self.w)


@pytest.mark.parametrize(
    "module, times",
    [(BranchesOfTwoShapes, 1), (BranchesOfTwoShapesInALoop, 2), (BranchesOfTwoShapesInACond, 1)],
)
def test_a_cond_gradient_whose_branches_differ_in_shape_loads_and_computes_the_same(
    tmp_path, module, times
):
    path = str(tmp_path / "model")
    rt.saved_model.save(module(), path)
    loaded = rt.saved_model.load(path)
    x = np.array([0.0, 1.0, 2.0], np.float32)
    # d/dw sum(exp(x * w) ** 2) = 2 x exp(2 x w); d/dw exp(sum(x * w)) ** 2 = 2 x exp(2 sum(x w))
    expected = times * 2 * x * np.exp(2 * x)
    np.testing.assert_allclose(loaded.gradient(True, x).numpy(), expected, rtol=1e-5)
    expected = times * 2 * x * np.exp(2 * x.sum())
    np.testing.assert_allclose(loaded.gradient(False, x).numpy(), expected, rtol=1e-5)
