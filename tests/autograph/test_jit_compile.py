"""``ag.function(jit_compile=True)``: the graphs run on XLA with the default executor's results.

The differential gallery runs through XLA and must give what the default
executor gives; printing, variables and retracing behave the same; without
JAX the keyword raises ImportError naming the extra to install.
"""

from __future__ import annotations

import sys

import numpy as np
import pytest

import autograph as ag
import runtime as rt
from tests.autograph.gallery import GALLERY
from tests.autograph.test_gallery import assert_matches
from tests.extras import import_extra

jax = import_extra("jax")

JIT_CALLS = [pytest.param(c.fn, c.args, id=c.fn.__name__) for c in GALLERY if c.graph]


@pytest.mark.parametrize(("fn", "calls"), JIT_CALLS)
def test_gallery_on_xla_matches_the_default_executor(fn, calls):
    default, compiled = ag.function(fn), ag.function(fn, jit_compile=True)
    for args in calls:  # one Function for all calls: later calls may need a new size observed
        tensors = [rt.constant(a) for a in args]
        expected = default(*tensors)
        assert_matches(compiled(*tensors), expected)


def test_without_jax_jit_compile_names_the_extra_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "jax", None)  # import jax now raises ImportError

    def f(x):
        return x

    with pytest.raises(
        ImportError, match=r'jit_compile=True needs .*pip install "autograph-numpy\[jax\]"'
    ):
        ag.function(f, jit_compile=True)
    with pytest.raises(ImportError, match="needs the jax package"):
        ag.function(jit_compile=True)
    assert ag.function(f)(rt.constant(2)).numpy() == 2  # the default executor needs no JAX


def test_the_decorator_form_and_retracing_rules_are_those_of_ag_function():
    @ag.function(jit_compile=True)
    def scale(x, factor):
        return x * factor

    assert scale(rt.constant([1.0, 2.0]), 3.0).numpy().tolist() == [3.0, 6.0]
    assert scale(rt.constant([5.0, 1.0]), 3.0).numpy().tolist() == [15.0, 3.0]
    assert scale.tracing_count == 1
    assert scale(rt.constant([1.0, 2.0]), 4.0).numpy().tolist() == [4.0, 8.0]
    assert scale.tracing_count == 2
    result = scale(rt.constant(2), 5)
    assert result.dtype == rt.int32 and result.numpy() == 10


def test_variable_updates_persist_across_calls(capsys):
    class Counter(rt.Module):
        def __init__(self):
            super().__init__()
            self.count = rt.Variable(0)
            self.total = rt.Variable(np.zeros(2, np.float32))

        @ag.function(jit_compile=True)
        def add(self, x):
            self.count.assign_add(1)
            self.total.assign_add(x)
            rt.print("call", self.count, self.total)
            return self.total.read_value()

    counter = Counter()
    for k in range(1, 4):
        out = counter.add(rt.constant([1.0, 0.5]))
        np.testing.assert_allclose(out.numpy(), [k, k / 2])
    assert counter.count.numpy() == 3
    assert capsys.readouterr().out == "call 1 [1 0.5]\ncall 2 [2 1]\ncall 3 [3 1.5]\n"
    counter.count.assign(10)  # an eager write between calls is what the next call reads
    counter.add(rt.constant([0.0, 0.0]))
    assert counter.count.numpy() == 11


def test_printing_matches_the_default_executor(capsys):
    def report(x, n):
        for i in rt.range(n):
            if i % 2 == 0:
                rt.print("even step", i, "value", x * rt.cast(i, rt.float32))
        rt.print({"done": n, "x": x})
        return n

    args = (rt.constant([0.25, -1.0]), rt.constant(5))
    ag.function(report)(*args)
    expected = capsys.readouterr().out
    ag.function(report, jit_compile=True)(*args)
    assert capsys.readouterr().out == expected
    assert expected.startswith("even step 0 value [0 -0]\neven step 2 value [0.5 -2]\n")


def test_an_input_signature_with_unknown_dims_runs_each_shape():
    @ag.function(input_signature=[rt.TensorSpec([None], rt.float32)], jit_compile=True)
    def total(x):
        s = 0.0
        for v in x:
            s += v * v
        return s

    assert total(rt.constant([1.0, 2.0])).numpy() == 5.0
    assert total(rt.constant([1.0, 2.0, 3.0])).numpy() == 14.0
    assert total.tracing_count == 1


def test_an_error_names_the_users_line():
    @ag.function(jit_compile=True)
    def safe_div(a, b):
        return a // b  # the line named

    assert safe_div(rt.constant(7), rt.constant(2)).numpy() == 3
    with pytest.raises(rt.errors.InvalidArgumentError) as info:
        safe_div(rt.constant(7), rt.constant(0))
    assert "Integer division by zero" in str(info.value)
    assert "test_jit_compile.py" in str(info.value) and "in safe_div" in str(info.value)


def _training_step(w, b):
    def step(x, y):
        with rt.GradientTape() as tape:
            hidden = rt.nn.relu(rt.matmul(x, w) + b)
            loss = rt.reduce_mean(rt.square(rt.reduce_sum(hidden, axis=1) - y))
        grad_w, grad_b = tape.gradient(loss, [w, b])
        w.assign_sub(0.05 * grad_w)
        b.assign_sub(0.05 * grad_b)
        return loss

    return step


def test_a_training_step_runs_on_xla_as_on_the_default_executor():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((8, 3)).astype(np.float32)
    y = rng.standard_normal(8).astype(np.float32)
    w0 = rng.standard_normal((3, 4)).astype(np.float32)
    runs = {}
    for jit in (False, True):
        w, b = rt.Variable(w0), rt.Variable(np.full(4, 0.1, np.float32))
        step = ag.function(_training_step(w, b), jit_compile=jit)
        losses = [float(step(rt.constant(x), rt.constant(y))) for _ in range(5)]
        runs[jit] = losses, w.numpy(), b.numpy()
    np.testing.assert_allclose(runs[True][0], runs[False][0], rtol=1e-5)
    assert runs[True][0][-1] < runs[True][0][0]  # it learns
    np.testing.assert_allclose(runs[True][1], runs[False][1], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(runs[True][2], runs[False][2], rtol=1e-5, atol=1e-6)


def test_the_gradient_of_a_loop_over_a_range_of_an_argument_compiles_it_in():
    @ag.function(jit_compile=True)
    def loop_gradient(x, n):
        with rt.GradientTape() as tape:
            tape.watch(x)
            y = x
            for _ in rt.range(n):  # n bounds the loop's stacks: compiled in, for each value
                y = y * x
        return tape.gradient(y, x)

    assert [float(loop_gradient(rt.constant(2.0), rt.constant(n))) for n in (3, 1, 3)] == [
        32.0,  # 4 x ** 3
        4.0,  # 2 x
        32.0,
    ]


def test_the_gradient_of_a_loop_with_no_bound_is_unimplemented_on_xla_naming_the_line():
    @ag.function(jit_compile=True)
    def loop_gradient(x):
        with rt.GradientTape() as tape:
            tape.watch(x)
            y = x
            while y < 100.0:  # the count is known only when it runs: no size for its stacks
                y = y * x
        return tape.gradient(y, x)

    with pytest.raises(rt.errors.UnimplementedError, match="maximum_iterations") as info:
        loop_gradient(rt.constant(2.0))
    assert "in loop_gradient" in str(info.value)


def test_a_zip_or_enumerate_over_a_range_whose_size_changes_in_a_loop_compiles():
    """A range zipped or enumerated is never built (its items are computed), so its size may
    change from one iteration of an outer loop to the next, which XLA could not compile."""

    def f(a, n, rounds):
        weights = [2, 5, 1]
        total = 0
        k = 0
        while k < rounds:  # a staged loop: one range op, run with another size each time
            for w, j in zip(weights, range(n % 6)):
                total += w * j + a
            for i, j in enumerate(range(1, n % 5)):
                total += i * j
            n = n * 3 + 1
            k += 1
        return total

    default, compiled = ag.function(f), ag.function(f, jit_compile=True)
    for a, n, rounds in [(1, 4, 4), (-3, 7, 3), (2, 0, 5)]:
        expected = f(a, n, rounds)  # plain Python
        args = [rt.constant(a), rt.constant(n), rt.constant(rounds)]
        assert default(*args).numpy() == expected
        assert compiled(*args).numpy() == expected


def _general_path_calls(fn, *args):
    """The names of the general path's Python functions called while ``fn(*args)`` runs."""
    general = {"_call_flat", "_call", "run", "_fast_call"}
    calls = []

    def profile(frame, event, arg):
        if event == "call" and frame.f_code.co_name in general:
            calls.append(frame.f_code.co_name)

    sys.setprofile(profile)
    try:
        return fn(*args), calls
    finally:
        sys.setprofile(None)


def test_repeated_calls_take_the_entry_function_straight_to_the_jitted_program():
    def collatz(n):
        steps = 0
        while n > 1:
            n = n // 2 if n % 2 == 0 else 3 * n + 1
            steps += 1
        return steps, n

    default, compiled = ag.function(collatz), ag.function(collatz, jit_compile=True)
    for start in (27, 27, 27, 6, 6, 1):
        n = rt.constant(start)
        expected = default(n)
        result, general = _general_path_calls(compiled, n)
        assert_matches(result, expected)
        assert isinstance(result, tuple) and result[0].shape == () and result[0].dtype == rt.int32
        assert isinstance(result[0].numpy(), np.int32)  # a numpy scalar, as the default gives
    assert general == []  # the last call: Function.__call__, its entry function, then XLA
    # Another dtype misses the entry and takes the general path (a new trace).
    result, general = _general_path_calls(compiled, rt.constant(7, rt.int64))
    assert result[0].numpy() == 16 and result[1].dtype == rt.int64
    assert general and compiled.tracing_count == 2


def test_the_entry_of_a_program_compiled_per_input_value_finds_each_values_program():
    def squares(n):  # XLA needs the TensorArray's size when compiling: n is compiled in
        ta = rt.TensorArray(rt.int32, size=n)
        for i in rt.range(n):
            ta = ta.write(i, i * i)
        return ta.stack()

    default, compiled = ag.function(squares), ag.function(squares, jit_compile=True)
    compiled_sizes = set()
    for call, size in enumerate((3, 5, 3, 5, 5, 7, 3, 2, 7)):
        n = rt.constant(size)
        result, general = _general_path_calls(compiled, n)
        np.testing.assert_array_equal(result.numpy(), default(n).numpy())
        assert result.shape == (size,)
        if call >= 2:  # the entry function exists: it takes the sizes compiled before only
            assert (general == []) == (size in compiled_sizes), (call, size, general)
        compiled_sizes.add(size)


@pytest.mark.parametrize(
    "body",
    [
        lambda x: rt.cast(x, rt.int64) * 3,  # 64-bit types: the general path turns them on
        lambda x: (rt.print("x is", x), x + 1)[1],  # printing
        lambda x: rt.gather(rt.constant([5, 6, 7, 8]), x),  # an index checked at run time
    ],
    ids=["int64", "print", "checked"],
)
def test_programs_that_need_more_than_the_jitted_call_give_the_default_results(body, capsys):
    default, compiled = ag.function(body), ag.function(body, jit_compile=True)
    for k in range(4):
        x = rt.constant(k)
        expected, expected_out = default(x), capsys.readouterr().out
        result = compiled(x)
        assert capsys.readouterr().out == expected_out
        np.testing.assert_allclose(result.numpy(), expected.numpy(), rtol=1e-6)
        assert result.dtype == expected.dtype


def test_a_size_known_only_when_called_gives_each_shape_its_own_results():
    # jax.jit traces once per shape: what the trace of one shape finds static (the shape
    # returned) is not what a call of another shape returns.
    @ag.function(input_signature=[rt.TensorSpec([None], rt.float32)], jit_compile=True)
    def shape_and_double(x):
        return rt.shape(x), x * 2.0

    for n in [3, 4, 3, 3, 4, 5, 3]:
        values = np.arange(n, dtype=np.float32)
        size, doubled = shape_and_double(rt.constant(values))
        assert size.numpy().tolist() == [n]
        np.testing.assert_array_equal(doubled.numpy(), values * 2.0)


def test_loops_compiled_for_each_size_allocate_for_that_size():
    # What a loop allocates (a TensorArray's elements, an inner loop's stacks) has the size
    # of the call it was compiled for, not of the first call's.
    def rows(x, n):
        ta = rt.TensorArray(rt.float32, size=3)
        for i in rt.range(3):
            ta = ta.write(i, rt.ones(rt.reshape(n, [1])) * x + rt.cast(i, rt.float32))
        return ta.stack()

    def nested(x, n):
        with rt.GradientTape() as tape:
            tape.watch(x)
            ta = rt.TensorArray(rt.float64, size=n)  # its size: n is compiled in
            y = x
            for _ in rt.range(3):
                for j in rt.range(n):  # its stacks have n rows, stacked by the outer loop
                    ta = ta.write(j, y)
                    y = rt.sin(y) * x
        return y, tape.gradient(y, x)

    for fn, x in [(rows, np.float32(0.5)), (nested, np.float64(0.6))]:
        default, compiled = ag.function(fn), ag.function(fn, jit_compile=True)
        for n in (2, 3, 2, 4):
            args = [rt.constant(x), rt.constant(np.int32(n))]
            assert_matches(compiled(*args), default(*args))


def test_an_if_between_arrays_of_two_sizes_matches_the_default_executor():
    from tests.autograph.test_gradients import arrays_of_two_sizes

    default, compiled = (
        ag.function(arrays_of_two_sizes),
        ag.function(arrays_of_two_sizes, jit_compile=True),
    )
    for flag in (1, 0, 1):
        args = [rt.constant(1.5, rt.float64), rt.constant(flag)]
        for got, want in zip(compiled(*args), default(*args)):
            np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-12)


def test_an_array_stacked_at_several_lengths_in_one_call_is_unimplemented():
    from tests.autograph.test_gradients import arrays_made_in_a_loop_and_written_in_an_if

    compiled = ag.function(arrays_made_in_a_loop_and_written_in_an_if, jit_compile=True)
    with pytest.raises(rt.errors.UnimplementedError, match="TensorListStack: XLA needs this"):
        compiled(rt.constant(1.3, rt.float64))


def test_a_function_that_only_reads_variables_passes_their_current_values_on_every_call():
    # A program with nothing around its jitted call but variable reads took the fast path
    # without the variables: its second call raised KeyError naming the variable.
    w = rt.Variable(np.ones((4, 8), np.float32), name="w")

    def mlp(x):
        return rt.nn.softmax(rt.matmul(x, w))

    default, compiled = ag.function(mlp), ag.function(mlp, jit_compile=True)
    for step, rows in enumerate((2, 2, 5, 2, 5, 5)):
        x = np.arange(rows * 4, dtype=np.float32).reshape(rows, 4) / 10
        logits = x @ w.numpy()
        expected = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
        np.testing.assert_allclose(compiled(rt.constant(x)).numpy(), expected, rtol=1e-5)
        np.testing.assert_allclose(default(rt.constant(x)).numpy(), expected, rtol=1e-5)
        w.assign(np.random.default_rng(step).normal(size=(4, 8)).astype(np.float32))


def test_a_string_argument_is_unimplemented_naming_it_and_the_callers_line():
    def shout(s):
        return rt.strings.join([s, "!"])

    compiled = ag.function(shout, jit_compile=True)
    with pytest.raises(rt.errors.UnimplementedError, match="argument 's' is a string") as info:
        compiled(rt.constant("hi"))  # JAX's own TypeError before
    assert f'File "{__file__}"' in str(info.value)
    # What the message suggests: a Python string is compiled in, as the default executor does.
    assert compiled("hi").numpy() == ag.function(shout)("hi").numpy() == b"hi!"


CAST_VALUES = [np.nan, np.inf, -np.inf, 1e10, -1e10, 3.7, -3.7, 300.0, -300.0, 7e4, -0.5]
CAST_VALUES += [2.0**31, -(2.0**31), -(2.0**31) - 1e3, 2.0**63, -(2.0**63), 1e19, 1e30]


@pytest.mark.parametrize("source", [rt.float16, rt.float32, rt.float64], ids=lambda d: d.name)
@pytest.mark.parametrize(
    "target", [rt.int8, rt.int16, rt.int32, rt.int64, rt.uint8], ids=lambda d: d.name
)
def test_casting_nan_and_out_of_range_floats_to_integers_gives_numpys_values(source, target):
    from runtime.xla.casts import needs_numpy_cast

    if not needs_numpy_cast(np.dtype(source.as_numpy_dtype), np.dtype(target.as_numpy_dtype)):
        pytest.skip(f"numpy does not cast floats to {target.name} through int32 on this CPU")
    with np.errstate(invalid="ignore", over="ignore"):
        x = np.array(CAST_VALUES, source.as_numpy_dtype)  # (float16: the large ones are inf)
        expected = x.astype(target.as_numpy_dtype)  # what the default executor computes

    def cast(x):
        return rt.cast(x, target)

    np.testing.assert_array_equal(ag.function(cast, jit_compile=True)(x).numpy(), expected)
    np.testing.assert_array_equal(ag.function(cast)(x).numpy(), expected)


# 10**18 float32s: more than any address space holds (57-bit ones too), so no allocator can
# give them, whatever the machine's overcommit setting.
HUGE = [10**6, 10**6, 10**6]


def _huge_fill():
    return rt.zeros(HUGE)


def _huge_fill_of(x):
    return rt.fill(HUGE, x)  # lowered to XLA: XLA's allocation fails


@pytest.mark.parametrize(("fn", "args"), [(_huge_fill, ()), (_huge_fill_of, (1.0,))])
def test_an_allocation_failure_is_the_default_executors_invalid_argument_error(fn, args):
    tensors = [rt.constant(a) for a in args]
    with pytest.raises(rt.errors.InvalidArgumentError, match="MemoryError: Unable to allocate"):
        ag.function(fn)(*tensors)
    with pytest.raises(rt.errors.InvalidArgumentError, match="MemoryError: ") as info:
        ag.function(fn, jit_compile=True)(*tensors)  # a bare MemoryError before
    assert fn.__name__ in str(info.value)
