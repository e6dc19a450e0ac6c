"""Converted code under ``jax.jit``: Python control flow on tracers becomes lax control flow.

Each program is checked against plain Python (the same function, unconverted, on
Python numbers) and against the same computation written by hand with ``lax``;
the jaxpr shows which lax primitive the statement became.
"""

from __future__ import annotations

import inspect
import os
import pathlib
import subprocess
import sys

import numpy as np
import pytest

from tests.extras import import_extra  # noqa: E402

jax = import_extra("jax")
import jax.numpy as jnp  # noqa: E402
from jax import lax  # noqa: E402

import autograph as ag  # noqa: E402


def jitted(fn):
    return jax.jit(ag.to_graph(fn))


def primitives(fn, *args):
    """The names of the primitives in ``fn``'s jaxpr, sub-jaxprs included."""
    names = set()

    def visit(jaxpr):
        for eqn in jaxpr.eqns:
            names.add(eqn.primitive.name)
            for param in eqn.params.values():
                for sub in param if isinstance(param, (tuple, list)) else [param]:
                    inner = getattr(sub, "jaxpr", sub)  # a ClosedJaxpr's, or a Jaxpr
                    if hasattr(inner, "eqns"):
                        visit(inner)

    visit(jax.make_jaxpr(ag.to_graph(fn))(*args).jaxpr)
    return names


def line_of(fn, text):
    """The line number of the first line of ``fn``'s source that contains ``text``."""
    lines, first = inspect.getsourcelines(fn)
    return first + next(i for i, line in enumerate(lines) if text in line)


# --- if / elif / else --------------------------------------------------------------------------


def piecewise(x):
    if x > 1.0:
        y = x * x
    elif x < -1.0:
        y = -x
    else:
        y = 0.5 * x + 0.5
    return y


def piecewise_lax(x):
    return lax.cond(
        x > 1.0, lambda: x * x, lambda: lax.cond(x < -1.0, lambda: -x, lambda: 0.5 * x + 0.5)
    )


@pytest.mark.parametrize("x", [-3.0, -1.0, 0.25, 1.0, 2.5])
def test_if_elif_else(x):
    got = jitted(piecewise)(x)
    assert float(got) == pytest.approx(piecewise(x))
    assert float(got) == float(jax.jit(piecewise_lax)(x))
    assert "cond" in primitives(piecewise, x)


def test_if_on_python_values_stays_python():
    assert ag.to_graph(piecewise)(2.0) == 4.0
    assert "cond" not in primitives(lambda x: ag.to_graph(piecewise)(2.0) + x, 1.0)


def sign_exp(x):
    return 1 if x > 0 else (-1 if x < 0 else 0)


@pytest.mark.parametrize("x", [-2, 0, 5])
def test_conditional_expression(x):
    assert int(jitted(sign_exp)(x)) == sign_exp(x)


def in_band(x, lo, hi):
    return x >= lo and x <= hi or x == 100


@pytest.mark.parametrize("x", [-5, 0, 3, 7, 100])
def test_and_or(x):
    got = jitted(in_band)(x, 0, 5)
    assert bool(got) == in_band(x, 0, 5)
    assert bool(got) == bool(jnp.logical_or(jnp.logical_and(x >= 0, x <= 5), x == 100))


def guarded_log(x):
    if x > 0 and jnp.log(x) > 1.0:
        return 1.0
    return 0.0


@pytest.mark.parametrize("x", [-1.0, 1.0, 5.0])
def test_and_short_circuits(x):
    # the second operand runs (in lax.cond) only where the first is true
    assert float(jitted(guarded_log)(x)) == (1.0 if x > 0 and np.log(x) > 1 else 0.0)
    assert "cond" in primitives(guarded_log, x)


# --- while -------------------------------------------------------------------------------------


def collatz(n):
    steps = 0
    while n > 1:
        n = n // 2 if n % 2 == 0 else 3 * n + 1
        steps += 1
    return steps


def collatz_lax(n):
    def body(carry):
        n, steps = carry
        return jnp.where(n % 2 == 0, n // 2, 3 * n + 1), steps + 1

    return lax.while_loop(lambda c: c[0] > 1, body, (n, 0))[1]


@pytest.mark.parametrize("n", [1, 6, 27, 97])
def test_while(n):
    got = jitted(collatz)(n)
    assert int(got) == collatz(n) == int(jax.jit(collatz_lax)(n))
    assert got.dtype == jnp.int32
    assert "while" in primitives(collatz, n)


def first_power_above(x, limit):
    p = 1.0
    while True:
        p = p * x
        if p > limit:
            break
    return p


@pytest.mark.parametrize(("x", "limit"), [(2.0, 100.0), (3.0, 10.0), (1.5, 1.0)])
def test_while_true_with_break(x, limit):
    assert float(jitted(first_power_above)(x, limit)) == first_power_above(x, limit)


# --- for ---------------------------------------------------------------------------------------


def sum_of_squares(n):
    total = 0
    for i in range(n):
        total += i * i
    return total


@pytest.mark.parametrize("n", [0, 1, 10])
def test_for_over_range_with_traced_bound(n):
    got = jitted(sum_of_squares)(n)
    expected = lax.fori_loop(0, n, lambda i, t: t + i * i, 0)
    assert int(got) == sum_of_squares(n) == int(expected)
    assert "while" in primitives(sum_of_squares, n)  # a fori_loop of unknown length


def stepped(start, stop, step):
    out = 0
    for i in range(start, stop, step):
        out = out * 3 + i
    return out


@pytest.mark.parametrize(
    ("start", "stop", "step"), [(0, 10, 3), (10, 0, -3), (5, 5, 1), (-4, 9, 2), (7, 2, 1)]
)
def test_for_over_range_with_start_and_step(start, stop, step):
    assert int(jitted(stepped)(start, stop, step)) == stepped(start, stop, step)


def running_max(xs):
    best = xs[0]
    for x in xs:
        if x > best:
            best = x
    return best


def test_for_over_an_array_is_a_scan():
    xs = jnp.array([3.0, -1.0, 7.5, 2.0])
    assert float(jitted(running_max)(xs)) == running_max([3.0, -1.0, 7.5, 2.0])
    assert "scan" in primitives(running_max, xs)  # fori_loop of known length


def weighted(xs, ws):
    total = 0.0
    for i, (x, w) in enumerate(zip(xs, ws)):
        total += (i + 1) * x * w
    return total


def test_enumerate_zip_of_arrays():
    xs, ws = [1.0, 2.0, 3.0], [0.5, -1.0, 2.0]
    got = jitted(weighted)(jnp.array(xs), jnp.array(ws))
    assert float(got) == pytest.approx(weighted(xs, ws))


# --- break, continue, return -------------------------------------------------------------------


def positive_prefix_sum(xs, n):
    total = 0.0
    for i in range(n):
        if xs[i] < 0:
            break
        if xs[i] > 5:
            continue
        total += xs[i]
    return total


@pytest.mark.parametrize("n", [0, 2, 6])
def test_break_and_continue(n):
    xs = [1.0, 6.0, 2.0, 3.0, -1.0, 4.0]
    assert float(jitted(positive_prefix_sum)(jnp.array(xs), n)) == positive_prefix_sum(xs, n)


def index_of_first_above(xs, t):
    for i in range(xs.shape[0]):
        if xs[i] > t:
            return i
    return -1


def index_of_first_above_in_while(xs, t):
    i = 0
    while i < xs.shape[0]:
        if xs[i] > t:
            return i
        i += 1
    return -1


@pytest.mark.parametrize("fn", [index_of_first_above, index_of_first_above_in_while])
@pytest.mark.parametrize("t", [0.0, 2.5, 10.0])
def test_return_in_loop(fn, t):
    xs = np.array([1.0, 2.0, 3.0, 4.0])
    assert int(jitted(fn)(jnp.asarray(xs), t)) == fn(xs, t)


def count_coprime_pairs(n):
    count = 0
    for a in range(1, n):
        for b in range(1, n):
            if b > a:
                break
            x, y = a, b
            while y != 0:
                x, y = y, x % y
            if x != 1:
                continue
            count += 1
    return count


@pytest.mark.parametrize("n", [1, 2, 9])
def test_nested_loops(n):
    assert int(jitted(count_coprime_pairs)(n)) == count_coprime_pairs(n)


# --- differentiation ---------------------------------------------------------------------------


@pytest.mark.parametrize("x", [-3.0, 0.25, 2.5])
def test_grad_through_if(x):
    slope = 2 * x if x > 1 else (-1.0 if x < -1 else 0.5)
    assert float(jax.grad(jitted(piecewise))(x)) == pytest.approx(slope)
    assert float(jax.jit(jax.grad(ag.to_graph(piecewise)))(x)) == pytest.approx(slope)
    assert float(jax.grad(piecewise_lax)(x)) == pytest.approx(slope)


def polynomial(x, coefficients):
    total = 0.0
    for c in coefficients:
        total = total * x + c
    return total


def test_grad_through_a_loop_of_known_length():
    c = jnp.array([2.0, -3.0, 0.5, 1.0])  # 2x^3 - 3x^2 + 0.5x + 1
    grad = jax.grad(jitted(polynomial))(1.5, c)
    assert float(grad) == pytest.approx(6 * 1.5**2 - 6 * 1.5 + 0.5)


def repeated_halving(x, n):
    i = 0
    while i < n:
        x = x * 0.5 + 1.0
        i += 1
    return x


def test_forward_mode_through_while():
    # y = x / 8 + 1.75 after three steps
    assert float(jax.jacfwd(jitted(repeated_halving))(3.0, 3)) == pytest.approx(0.125)


def test_reverse_mode_through_while_is_jax_own_error():
    with pytest.raises(ValueError, match="Reverse-mode differentiation does not work"):
        jax.grad(jitted(repeated_halving))(3.0, 3)


def test_vmap_of_an_if():
    xs = jnp.array([-3.0, 0.25, 2.5])
    got = jax.vmap(ag.to_graph(piecewise))(xs)
    np.testing.assert_allclose(got, [piecewise(float(x)) for x in xs])


# --- errors at the user's line -----------------------------------------------------------------


def defined_in_one_branch(x):
    if x > 0:
        y = x
    return y


def dtype_changes(x):
    i = 0
    while i < x:
        i = i + 0.5
    return i


def shape_changes(x):
    v = jnp.zeros(1)
    while v.sum() < x:
        v = jnp.concatenate([v, v + 1])
    return v


def branch_dtypes_differ(x):
    if x > 0:
        y = 1
    else:
        y = 2.5
    return y


def list_grows(n):
    items = []
    for i in range(n):
        items.append(i)
    return items


@pytest.mark.parametrize(
    ("fn", "error", "message", "at"),
    [
        (defined_in_one_branch, ValueError, "'y' must also be initialized in the else", "if x"),
        (dtype_changes, TypeError, "'i' has dtype int32 before the loop, but dtype float32", "while"),
        (shape_changes, ValueError, "'v' has shape (1,) before the loop, but shape (2,)", "while"),
        (branch_dtypes_differ, TypeError, "'y' has dtype int32 in the main branch, but dtype float32", "if x"),
        (list_grows, TypeError, "'items' is a Python list whose length changes", "for i"),
    ],
)  # fmt: skip
def test_errors_name_the_variable_and_the_line(fn, error, message, at):
    with pytest.raises(error) as raised:
        jitted(fn)(3)
    text = str(raised.value)
    assert message in text
    assert f'File "{__file__}", line {line_of(fn, at)}, in {fn.__name__}' in text


def test_the_default_executor_says_the_same():
    import runtime as rt

    for fn in (defined_in_one_branch, branch_dtypes_differ):
        with pytest.raises(Exception) as jax_error:
            jitted(fn)(3)
        with pytest.raises(Exception) as rt_error:
            ag.function(fn)(rt.constant(3))
        assert type(jax_error.value) is type(rt_error.value)
        first = str(rt_error.value).split("\n")[0]
        if fn is defined_in_one_branch:
            assert str(jax_error.value).split("\n")[0] == first
        else:  # what to do differs: .astype(jnp.int32) for JAX, rt.cast for the runtime
            assert str(jax_error.value).split(" A variable")[0] == first.split(" A variable")[0]


# --- JAX stays optional ------------------------------------------------------------------------


def test_autograph_does_not_import_jax(tmp_path):
    script = tmp_path / "no_jax.py"
    script.write_text(
        "import sys\n"
        "import autograph as ag\n"
        "import runtime as rt\n"
        "def f(x):\n"
        "    while x > 1:\n"
        "        x = x // 2\n"
        "    return x\n"
        "assert ag.to_graph(f)(40) == 1 and ag.function(f)(rt.constant(40)).numpy() == 1\n"
        "print('jax' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_nested_statements_are_nested_lax():
    assert {"cond", "while"} <= primitives(count_coprime_pairs, 5)


# --- the conversion adds nothing to the program ------------------------------------------------


def scaled_sum(x, n):
    acc = jnp.zeros_like(x)
    for i in range(n):
        acc = acc + x * i
    return acc


def recurrence(xs, w):
    h = jnp.zeros(w.shape[0])
    for x in xs:
        h = jnp.tanh(x + h @ w)
    return h


def test_a_converted_loop_is_the_hand_written_one():
    x, xs, w = np.ones(4, np.float32), np.ones((5, 3), np.float32), np.eye(3, dtype=np.float32)

    def scaled_sum_lax(x, n):
        return lax.fori_loop(0, n, lambda i, acc: acc + x * i, jnp.zeros_like(x))

    def recurrence_lax(xs, w):
        step = lambda i, h: jnp.tanh(xs[i] + h @ w)  # noqa: E731
        return lax.fori_loop(0, xs.shape[0], step, jnp.zeros(w.shape[0]))

    for fn, by_hand, args in (
        (scaled_sum, scaled_sum_lax, (x, 7)),
        (recurrence, recurrence_lax, (xs, w)),
    ):
        converted = str(jax.make_jaxpr(ag.to_graph(fn))(*args))
        assert converted == str(jax.make_jaxpr(by_hand)(*args))
        np.testing.assert_allclose(jitted(fn)(*args), jax.jit(by_hand)(*args), rtol=1e-6)


def test_vmap_of_a_while():
    ns = jnp.array([1, 6, 27, 97])
    np.testing.assert_array_equal(jax.vmap(ag.to_graph(collatz))(ns), [collatz(int(n)) for n in ns])


def test_which_tracers_are_staged():
    from autograph.operators import backends

    seen = []

    def record(x):
        seen.append(backends.staging(x))
        return x * x

    jax.jit(record)(1.0)  # a tracer of unknown value: staged, by the JAX backend
    jax.grad(record)(1.0)  # its value is known while differentiating: a Python value
    assert seen[0].name == "jax" and seen[1] is None
    assert backends.staging(jnp.array(1.0)) is None  # a concrete array: Python


def last_double(n, skip):
    for i in range(n):
        w = i * 2
    if skip:
        return -1
    return w


def test_a_variable_a_loop_creates_is_checked_where_it_is_read():
    compiled = jitted(last_double)
    assert int(compiled(3, False)) == last_double(3, False) == 4
    assert int(compiled(0, True)) == last_double(0, True) == -1  # never read: no error
    with pytest.raises(UnboundLocalError):
        last_double(0, False)
    with pytest.raises(
        jax.errors.JaxRuntimeError, match="loop must iterate at least once to initialize w"
    ):
        compiled(0, False)


def early_return_or_unset(x):
    for i in range(0):
        w = i
    if x > 0:
        return 1
    return w


def test_a_branch_that_cannot_run_fails_only_when_taken():
    compiled = jitted(early_return_or_unset)
    assert int(compiled(3)) == early_return_or_unset(3) == 1
    with pytest.raises(UnboundLocalError):
        early_return_or_unset(-3)
    with pytest.raises(jax.errors.JaxRuntimeError, match="cannot access local variable 'w'"):
        compiled(-3)


def log_and_count(x):
    log = []
    count = 0
    for i in range(3):  # a Python loop: each iteration's `if` is staged on its own
        if x > i:
            log.append(i)  # the branches change `log` unalike; nothing reads it after the loop
            count += 1
    return count


def test_a_list_the_branches_change_unalike_stays_a_list():
    # Its contents are dead, but the next iteration's staged `if` appends to it again.
    compiled = jitted(log_and_count)
    for x in (-1, 1, 5):
        assert int(compiled(x)) == log_and_count(x)


# --- print and assert --------------------------------------------------------------------------


def doubling(x, n):
    i = 0
    while i < n:
        print("step", i, x)
        x = x * 2
        i += 1
    assert x < 100, "x too large"
    return x


def test_print_and_assert_run_with_the_program(capsys):
    expected_result = doubling(1.0, 3)
    expected = capsys.readouterr().out  # plain Python's
    assert expected == "step 0 1.0\nstep 1 2.0\nstep 2 4.0\n"
    # print is converted only when asked (TensorFlow's optional feature BUILTIN_FUNCTIONS)
    builtins = ag.experimental.Feature.BUILTIN_FUNCTIONS
    compiled = jax.jit(ag.to_graph(doubling, experimental_optional_features=builtins))
    for _ in range(2):  # printed each time the program runs, not when it is traced
        assert float(compiled(1.0, 3)) == expected_result
        jax.effects_barrier()
        assert capsys.readouterr().out == expected
    with pytest.raises(jax.errors.JaxRuntimeError, match="x too large"):
        compiled(50.0, 2)


# --- a recursion that a tensor decides -------------------------------------------------------

_RECURSIVE_FIB = """
import jax, jax.numpy as jnp
import autograph as ag
import runtime as rt

def fib(n):
    if n < 2:
        return n
    return fib(n - 1) + fib(n - 2)

try:
    if {jax!r}:
        jax.jit(ag.to_graph(fib))(jnp.int32(5))
    else:
        ag.function(fib)(rt.constant(5))
except RecursionError as error:
    print("RecursionError", "in fib" in str(error))
"""


@pytest.mark.parametrize("under_jax", [True, False], ids=["jax", "runtime"])
def test_a_recursion_a_tensor_decides_is_a_recursion_error(under_jax, tmp_path):
    # Tracing takes both branches of `if n < 2`, so the recursion never stops, in TensorFlow too
    # (RecursionError). Nested JAX branches raise Python's recursion limit: with no cap, the C
    # stack overflowed after a minute and the process died of SIGSEGV. (The runtime case
    # raised before; it is here so that both backends keep saying the same.) The fixed JAX case
    # takes about 10 s; the limit leaves room for a loaded machine.
    script = tmp_path / "recursive_fib.py"
    script.write_text(_RECURSIVE_FIB.format(jax=under_jax))
    root = pathlib.Path(__file__).resolve().parents[3]
    done = subprocess.run(
        [sys.executable, str(script)],
        env={**os.environ, "PYTHONPATH": str(root)},
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["RecursionError", "True"]
