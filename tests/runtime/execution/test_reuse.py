"""Writing into dead temporaries (``runtime.execution.reuse``) changes no result and no input.

Each graph is compiled with reuse on and off; both must compute the same, the
arrays given to the program must come back unchanged, and a temporary that
anything else may still read (a kernel, a view, a TensorArray, a branch, a
result) must never be written into.
"""

from __future__ import annotations

import hypothesis.strategies as st
import numpy as np
from hypothesis import given, settings

import runtime as rt
from runtime.execution.compile import compile_graph
from runtime.execution.reuse import MIN_BYTES

N = MIN_BYTES // 4  # float32 elements: just large enough to be reused
RNG = np.random.default_rng(3)


def _programs(build, n_inputs=1, n=N):
    g = rt.Graph()
    with g.as_default():
        xs = [rt.placeholder(rt.float32, [n], name=f"x{k}") for k in range(n_inputs)]
        outputs = rt.nest.flatten(build(*xs))
    return [compile_graph(g, xs, outputs, reuse=r) for r in (True, False)]


def _run_both(build, n_inputs=1, n=N):
    reusing, plain = _programs(build, n_inputs, n)
    args = [RNG.standard_normal(n).astype(np.float32) for _ in range(n_inputs)]
    copies = [a.copy() for a in args]
    got, expected = reusing(*args), plain(*args)
    for a, c in zip(args, copies):
        np.testing.assert_array_equal(a, c)  # the inputs are never written
    for actual, wanted in zip(got, expected):
        np.testing.assert_array_equal(actual, wanted)
    return reusing.source, got


def test_a_chain_of_elementwise_ops_writes_into_its_own_temporaries():
    source, _ = _run_both(lambda x: rt.exp(x * 2.0 + 1.0) - x)
    assert source.count("out=") == 3  # +, exp and - into the product's array; * makes it


def test_small_arrays_and_scalars_are_left_to_numpy():
    source, _ = _run_both(lambda x: rt.exp(x * 2.0 + 1.0) - x, n=N // 2)
    assert "out=" not in source


def test_a_temporary_a_kernel_reads_later_is_not_written():
    source, (total, shifted) = _run_both(lambda x: _use_after(x, rt.reduce_sum))
    assert "out=mul" not in source


def _use_after(x, reader):
    t = x * 2.0
    read = reader(t)
    return read, t + 1.0


def test_a_temporary_with_a_view_on_it_is_not_written():
    for view in (lambda t: t[: N // 2], lambda t: rt.reshape(t, [2, -1]), rt.identity):
        source, (seen, _) = _run_both(lambda x, view=view: _use_after(x, view))
        assert "out=mul" not in source


def test_a_result_is_never_written_into():
    source, (product, total) = _run_both(lambda x: (x * 2.0, (x * 2.0) + 1.0))
    reusing, _ = _programs(lambda x: [(t := x * 2.0), t + 1.0])
    x = np.ones(N, np.float32)
    product, plus_one = reusing(x)
    assert product[0] == 2.0 and plus_one[0] == 3.0


def test_a_temporary_used_twice_by_one_op_is_written_by_it():
    def build(x):
        t = x + 1.0
        return t * t - 3.0

    source, _ = _run_both(build)
    assert "np_multiply(add, add, out=add)" in source


def test_a_temporary_read_by_a_branch_or_a_loop_is_not_written():
    def branch(x):
        t = x * 2.0
        chosen = rt.cond(rt.reduce_sum(x) > 0, lambda: t + 1.0, lambda: t - 1.0)
        return chosen, t * 3.0

    def loop(x):
        t = x * 2.0
        (i, acc) = rt.while_loop(lambda i, acc: i < 3, lambda i, acc: (i + 1, acc + t), (0, x))
        return acc, t * 3.0

    for build in (branch, loop):
        source, _ = _run_both(build)
        assert "out=mul)" not in source.replace(" ", "")


def test_a_temporary_written_to_a_tensor_array_is_not_written():
    def build(x):
        t = x * 2.0
        ta = rt.TensorArray(rt.float32, size=1).write(0, t)
        return ta.stack(), t + 1.0

    source, (stacked, _) = _run_both(build)
    assert "out=mul" not in source


def test_a_loop_over_large_arrays_reuses_its_product_on_every_iteration():
    def build(x):
        def body(i, acc):
            return i + 1, acc + x * rt.cast(i, rt.float32)

        return rt.while_loop(lambda i, acc: i < 5, body, (0, rt.zeros_like(x)))[1]

    source, _ = _run_both(build)
    assert "out=mul" in source
    reusing, _ = _programs(build)
    x = RNG.standard_normal(N).astype(np.float32)
    np.testing.assert_allclose(reusing(x)[0], x * 10.0, rtol=1e-6)  # 0 + 1 + 2 + 3 + 4


# Random elementwise graphs over large arrays, with shared temporaries.
_OPS = st.sampled_from(["+", "-", "*", "max", "neg", "exp", "relu"])
_BUILD = {
    "+": lambda a, b: a + b,
    "-": lambda a, b: a - b,
    "*": lambda a, b: a * b,
    "max": rt.maximum,
    "neg": lambda a, b: -a,
    "exp": lambda a, b: rt.exp(rt.minimum(a, 5.0)),
    "relu": lambda a, b: rt.nn.relu(a),
}


@settings(max_examples=60, deadline=None)
@given(
    steps=st.lists(
        st.tuples(_OPS, st.integers(0, 30), st.integers(0, 30)), min_size=1, max_size=12
    ),
    outputs=st.lists(st.integers(0, 30), min_size=1, max_size=3),
)
def test_random_elementwise_graphs_agree_with_reuse_off(steps, outputs):
    def build(x, y):
        values = [x, y]
        for op, a, b in steps:
            values.append(_BUILD[op](values[a % len(values)], values[b % len(values)]))
        return [values[k % len(values)] for k in outputs]

    _run_both(build, n_inputs=2)
