"""A held-out set: programs written apart from the exporter's development (not from the gallery
nor the op cases), exported and run by onnxruntime against the runtime on several inputs."""

from __future__ import annotations

import numpy as np
import pytest

import runtime as rt
from tests.runtime.export.onnx_harness import check_export, spec

F32, I32, STR = rt.float32, rt.int32, rt.string
HELD_OUT = []


def held_out(signature, *calls):
    def register(fn):
        HELD_OUT.append(pytest.param(fn, signature, list(calls), id=fn.__name__))
        return fn

    return register


@held_out([spec([None], I32)], ([5, 1, 4, 2, 3],), ([],), ([7],), ([2, 2, -1],))
def bubble_sort(x):
    n = rt.size(x)
    i = 0
    while i < n:
        j = 0
        while j < n - i - 1:
            a, b = x[j], x[j + 1]
            if a > b:
                x = rt.concat([x[:j], rt.stack([b, a]), x[j + 2 :]], axis=0)
            j += 1
        i += 1
    return x


@held_out([spec([], F32)], (2.0,), (0.0,), (1e6,), (0.25,))
def newton_sqrt(a):
    guess = rt.maximum(a, 1.0)
    steps = 0
    while rt.abs(guess * guess - a) > 1e-4 * rt.maximum(a, 1.0) and steps < 50:
        guess = 0.5 * (guess + a / guess)
        steps += 1
    return guess, steps


@held_out([spec([], I32)], (30,), (2,), (0,), (1,))
def primes_below(n):
    found = []
    for k in rt.range(2, n):
        d = 2
        prime = True
        while d * d <= k:
            if k % d == 0:
                prime = False
                break
            d += 1
        if prime:
            found.append(k)
    return rt.stack(found)


@held_out([spec([], I32)], (15,), (0,), (5,))
def fizzbuzz(n):
    words = []
    for i in rt.range(1, n + 1):
        if i % 15 == 0:
            word = rt.constant("FizzBuzz")
        elif i % 3 == 0:
            word = rt.constant("Fizz")
        elif i % 5 == 0:
            word = rt.constant("Buzz")
        else:
            word = rt.strings.as_string(i)
        words.append(word)
    return rt.stack(words)


@held_out([spec([None], F32), spec([], F32)], ([1.0, -2.0, 3.0], 2.0), ([], 5.0), ([4.0], -1.5))
def horner(coefficients, x):
    total = 0.0
    for c in coefficients:
        total = total * x + c
    return total


@held_out([spec([2, 2], I32), spec([], I32)], ([[1, 1], [1, 0]], 10), ([[2, 0], [0, 3]], 0))
def matrix_power(m, n):
    result = rt.constant([[1, 0], [0, 1]])
    base = m
    while n > 0:
        if n % 2 == 1:
            result = rt.matmul(result, base)
        base = rt.matmul(base, base)
        n = n // 2
    return result


@held_out([spec([None], I32), spec([None], I32)], ([12, 7, 0, 81], [18, 21, 5, 27]), ([], []))
def elementwise_gcd(a, b):
    while rt.reduce_any(b != 0):
        safe = rt.where(b != 0, b, rt.ones_like(b))
        a, b = rt.where(b != 0, b, a), rt.where(b != 0, a % safe, b)
    return a


_w1 = rt.Variable(np.linspace(-1, 1, 12).reshape(4, 3).astype(np.float32), name="w1")
_b1 = rt.Variable([0.1, -0.2, 0.3], name="b1")
_w2 = rt.Variable(np.linspace(0.5, -0.5, 6).reshape(3, 2).astype(np.float32), name="w2")


@held_out(
    [spec([None, 4], F32)], (np.arange(8, dtype=np.float32).reshape(2, 4) / 7,), ([[0.0] * 4],)
)
def mlp(x):
    with rt.name_scope("hidden"):
        h = rt.nn.relu(x @ _w1 + _b1)
        h = rt.tanh(h) + rt.sigmoid(h)
    with rt.name_scope("output"):
        logits = h @ _w2
        probs = rt.nn.softmax(logits)
    return probs, rt.argmax(logits, axis=1, output_type=rt.int32)


@held_out([spec([None, 3], F32)], ([[1.0, 2.0, 3.0], [4.0, 4.0, 4.0]],), ([[0.5, -0.5, 9.0]],))
def normalize_rows(x):
    mean = rt.reduce_mean(x, axis=1, keepdims=True)
    variance = rt.reduce_mean(rt.square(x - mean), axis=1, keepdims=True)
    return (x - mean) / rt.sqrt(variance + 1e-5)


@held_out(
    [spec([None, 3], F32), spec([None], rt.int64)],
    ([[0.1, 0.7, 0.2], [0.9, 0.05, 0.05], [0.2, 0.2, 0.6]], [1, 2, 2]),
)
def accuracy_and_loss(probs, labels):
    predicted = rt.argmax(probs, axis=1)
    accuracy = rt.reduce_mean(rt.cast(rt.equal(predicted, labels), rt.float32))
    picked = rt.gather(
        rt.reshape(probs, [-1]), rt.range(rt.size(labels, out_type=rt.int64)) * 3 + labels
    )
    return accuracy, -rt.reduce_mean(rt.log(picked))


@held_out([spec([], F32)], (-5.0,), (-0.5,), (0.5,), (5.0,), (0.0,))
def piecewise(x):
    if x < -1.0:
        y = -1.0 - rt.exp(x + 1.0) * 0.0
    elif x < 1.0:
        y = x * x * rt.sign(x)
    else:
        y = rt.minimum(x, 3.0) + rt.log(x)
    return y


@held_out([spec([None], F32), spec([], I32)], ([1.0, 2.0, 3.0, 4.0, 5.0], 2), ([1.0, 2.0], 3))
def sliding_sums(x, k):
    sums = []
    i = 0
    while i + k <= rt.size(x):
        sums.append(rt.reduce_sum(x[i : i + k]))
        i += 1
    return rt.stack(sums), x[::-1], x[-k:]


@held_out([spec([], I32)], (10,), (1,), (2,))
def fibonacci(n):
    fib = rt.TensorArray(rt.int32, size=n, element_shape=[])
    fib = fib.write(0, 0)
    if n > 1:
        fib = fib.write(1, 1)
    for i in rt.range(2, n):
        fib = fib.write(i, fib.read(i - 1) + fib.read(i - 2))
    return fib.stack()


@held_out([spec([None], F32), spec([], F32)], ([1.5, 2.0, 4.0, 0.5], 10.0), ([3.0], 1.0), ([], 2.0))
def product_until(x, limit):
    product = 1.0
    used = 0
    for v in x:
        if product * v > limit:
            break
        product *= v
        used += 1
    return product, used


@held_out([spec([None], STR), spec([], rt.bool)], (["a", "b", "c"], True), (["solo"], False))
def join_words(words, loud):
    first = words[0]
    pairs = rt.strings.join([words, words[::-1]], separator="+")
    if loud:
        first = first + "!"
    return first, pairs, rt.equal(words, words[-1])


@held_out([spec([None, None], I32)], ([[1, 2, 3], [4, 5, 6]],), ([[7]],))
def shapes_and_transposes(m):
    t = rt.transpose(m)
    flat = rt.reshape(t, [-1])
    return t, flat, rt.shape(m), rt.expand_dims(flat, 0)[:, 1:], rt.reduce_sum(m, axis=0)


@pytest.mark.parametrize(("fn", "signature", "calls"), HELD_OUT)
def test_held_out_function_exports_and_runs_identically(fn, signature, calls, tmp_path):
    check_export(fn, signature, calls, tmp_path / "model.onnx")
