"""``rt.switch_case`` as TensorFlow's ``tf.switch_case``: the branch of the index runs, an index
out of range runs ``default`` or else the last branch; eagerly, in a Session, in a function,
and differentiated against central differences."""

from __future__ import annotations

import numpy as np
import pytest

import autograph as ag
import runtime as rt
from tests.runtime.gradients.grad_harness import check_gradient

BRANCHES = [lambda: rt.constant(17), lambda: rt.constant(31), lambda: rt.constant(45)]


def _expected(index, n, default=None):
    """TensorFlow's rule, written with Python's dict.get: an unknown key falls back."""
    table = dict(enumerate([17, 31, 45][:n]))
    return table.get(index, -1 if default else table[n - 1])


@pytest.mark.parametrize("index", [-3, -1, 0, 1, 2, 3, 10])
@pytest.mark.parametrize("with_default", [False, True])
def test_eager_session_and_function_agree_with_the_rule(index, with_default):
    default = (lambda: rt.constant(-1)) if with_default else None
    expected = _expected(index, 3, with_default)
    assert rt.switch_case(rt.constant(index), BRANCHES, default).numpy() == expected
    g = rt.Graph()
    with g.as_default():
        i = rt.placeholder(rt.int32, [])
        out = rt.switch_case(i, BRANCHES, default)
    assert rt.Session(g).run(out, {i: index}) == expected
    traced = ag.function(lambda i: rt.switch_case(i, BRANCHES, default))
    assert traced(rt.constant(index)).numpy() == expected


def test_keys_from_a_dict_or_pairs_in_any_order():
    fns = {1: lambda: rt.constant(1.5), 0: lambda: rt.constant(0.5)}
    assert rt.switch_case(rt.constant(1), fns).numpy() == 1.5
    pairs = [(1, lambda: rt.constant(1.5)), (0, lambda: rt.constant(0.5))]
    assert rt.switch_case(rt.constant(0, rt.int64), pairs).numpy() == 0.5


def test_only_the_chosen_branch_runs_in_a_graph():
    def failing():
        rt.debugging.assert_equal(0, 1, message="the wrong branch ran")
        return rt.constant(0)

    traced = ag.function(lambda i: rt.switch_case(i, [failing, lambda: rt.constant(7), failing]))
    assert traced(rt.constant(1)).numpy() == 7
    with pytest.raises(rt.errors.InvalidArgumentError, match="the wrong branch ran"):
        traced(rt.constant(2))


def test_nested_structures():
    fns = [lambda: {"a": rt.constant(1.0), "b": (rt.constant(2),)}] * 2
    traced = ag.function(lambda i: rt.switch_case(i, fns))
    out = traced(rt.constant(0))
    assert out["a"].numpy() == 1.0 and out["b"][0].numpy() == 2


def test_gradients_flow_through_the_chosen_branch():
    def fn(x, i):
        return rt.switch_case(i, [lambda: x * x, lambda: rt.sin(x), lambda: 3.0 * x])

    x = np.array([0.5, -1.25])
    for index in (0, 1, 2, 7):
        check_gradient(fn, [x, np.int32(index)])


def test_tensorflow_errors():
    with pytest.raises(TypeError, match="'branch_index' must be a Tensor"):
        rt.switch_case(1, BRANCHES)
    with pytest.raises(TypeError, match="must be an integer Tensor"):
        rt.switch_case(rt.constant(1.0), BRANCHES)
    with pytest.raises(ValueError, match="at least one item"):
        rt.switch_case(rt.constant(1), [])
    with pytest.raises(TypeError, match="must be a list, tuple, or dict"):
        rt.switch_case(rt.constant(1), BRANCHES[0])
    with pytest.raises(ValueError, match=r"contiguous range of \[0 to 2\) but found \{0,2\}"):
        rt.switch_case(rt.constant(1), {0: BRANCHES[0], 2: BRANCHES[1]})
    with pytest.raises(TypeError, match="key must be a Python `int`"):
        rt.switch_case(rt.constant(1), {"0": BRANCHES[0]})
    with pytest.raises(TypeError, match="fn for key 0 must be callable"):
        rt.switch_case(rt.constant(1), [(0, 3)])


@pytest.mark.parametrize(
    "last, detail",
    [
        (lambda: rt.constant(1.5), "types of return values"),  # a dtype
        (lambda: (rt.constant(1), rt.constant(2)), "overall structure"),  # a structure
    ],
    ids=["dtype", "structure"],
)
def test_disagreeing_branches_are_named_as_switch_case_branches(last, detail):
    # TensorFlow: "branches[0] and branches[b] arguments to tf.switch_case must have the same
    # number, type, and overall structure of return values", a TypeError.
    traced = ag.function(lambda i: rt.switch_case(i, [BRANCHES[0], BRANCHES[1], last]))
    with pytest.raises(TypeError, match=detail) as caught:
        traced(rt.constant(0))
    message = str(caught.value)
    assert "branches[1] and branches[2] arguments to rt.switch_case" in message
    assert "true_fn" not in message and "false_fn" not in message and "rt.cond" not in message
