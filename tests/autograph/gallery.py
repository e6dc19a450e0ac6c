"""Plain Python functions that exercise every construct AutoGraph converts.

Each is registered in ``GALLERY`` as a ``Case``: the function, the argument
tuples to call it with, and whether it can also be traced on placeholders.
"""

from __future__ import annotations

from typing import NamedTuple

import runtime as rt

LIMIT = 50


class Case(NamedTuple):
    fn: object
    args: list
    graph: bool = True  # False: inherently Python-only, not traced on placeholders


GALLERY: list[Case] = []


def case(*args, graph=True):
    """Registers the decorated function with the given argument tuples."""

    def register(fn):
        GALLERY.append(Case(fn, list(args), graph))
        return fn

    return register


# --- helpers (converted recursively when called from converted code) -----------------------------


def _sign(x):
    if x > 0:
        return 1
    elif x < 0:
        return -1
    return 0


def _gcd(a, b):
    while b != 0:
        a, b = b, a % b
    return a


def _is_prime(n):
    if n < 2:
        return False
    d = 2
    while d * d <= n:
        if n % d == 0:
            return False
        d += 1
    return True


def _square(x):
    return x * x


class Counter:
    def __init__(self):
        self.count = 0
        self.total = 0

    def bump(self, by):
        self.count += 1
        self.total += by


# --- if / elif / else ----------------------------------------------------------------------------


@case((5,), (-7,), (0,))
def absolute(x):
    if x < 0:
        x = -x
    return x


@case((9,), (-3,), (0,))
def sign_of(x):
    if x > 0:
        return 1
    elif x < 0:
        return -1
    else:
        return 0


@case((5, 0, 10), (-4, 0, 10), (42, 0, 10))
def clamp(x, lo, hi):
    if x < lo:
        x = lo
    elif x > hi:
        x = hi
    return x


@case((1, 2, 3), (3, 2, 1), (2, 3, 1), (4, 4, 4), (-1, -5, -3))
def max_of_three(a, b, c):
    if a >= b:
        if a >= c:
            m = a
        else:
            m = c
    else:
        if b >= c:
            m = b
        else:
            m = c
    return m


@case((4,), (7,), (0,), (-6,))
def classify(x):
    if x > 0:
        if x % 2 == 0:
            r = 2
        else:
            r = 1
    else:
        if x == 0:
            r = 0
        else:
            r = -1
    return r


@case((95,), (85,), (72,), (61,), (10,))
def grade(score):
    if score >= 90:
        g = 4
    elif score >= 80:
        g = 3
    elif score >= 70:
        g = 2
    elif score >= 60:
        g = 1
    else:
        g = 0
    return g


@case((3, 8), (9, 2), (5, 5))
def both_branches_define(a, b):
    if a > b:
        big = a
        diff = a - b
    else:
        big = b
        diff = b - a
    return big * 10 + diff


@case((2,), (4,), (8,))
def sequential_ifs(x):
    y = 0
    if x > 3:
        y += x
    if x > 6:
        y *= 2
    if y == 0:
        y = -1
    return y


@case((150,), (20,), (-5,))
def early_return_then_code(x):
    if x > 100:
        return 0
    y = x * 2
    y += 1
    if y < 0:
        y = -y
    return y


@case((3,), (9,))
def return_in_else_only(x):
    if x < 5:
        y = x + 1
    else:
        return -x
    return y * 2


@case((3, 7), (7, 3), (4, 4))
def swap_if_needed(a, b):
    if a > b:
        a, b = b, a
    return a * 100 + b


@case((6,), (7,), (-2,))
def is_even(x):
    return x % 2 == 0


@case((True, 3, 4), (False, 3, 4))
def select(flag, a, b):
    if flag:
        return a
    return b


@case((True, False), (False, True), (True, True), (False, False))
def bool_logic(p, q):
    if p and not q:
        r = 1
    elif q or p:
        r = 2
    else:
        r = 3
    return r


@case((2.5,), (-1.5,), (0.0,))
def piecewise_float(x):
    if x < 0.0:
        y = -2.0 * x
    elif x < 1.0:
        y = x
    else:
        y = 0.5 * x + 0.5
    return y


# --- conditional expressions ---------------------------------------------------------------------


@case((5,), (-5,))
def ternary_abs(x):
    return x if x >= 0 else -x


@case((12,), (7,), (1,))
def nested_ternary(x):
    return 1 if x > 10 else (2 if x > 5 else 3)


@case((4, 0), (9, 3), (-9, 2))
def ternary_guarded_division(a, b):
    return a // b if b != 0 else 0


@case((5,), (6,))
def ternary_in_assignment(x):
    y = x * 3 if x % 2 == 1 else x // 2
    y += 1 if y > 8 else 2
    return y


# --- and / or / not ------------------------------------------------------------------------------


@case((9, 2), (9, 0), (3, 2), (-9, 2))
def safe_ratio(a, b):
    if b != 0 and a // b > 1:
        return a // b
    return 0


@case((0, 9), (2, 9), (4, 9))
def or_short_circuit(a, b):
    if a == 0 or b // a > 2:
        r = 1
    else:
        r = 2
    return r


@case((2,), (5,))
def not_comparison(x):
    if not x > 3:
        return 1
    return 2


@case((5, 0, 10), (-1, 0, 10), (11, 0, 10))
def in_range_and(x, lo, hi):
    return lo <= x and x <= hi


@case((5, 0, 10), (-1, 0, 10), (11, 0, 10))
def in_range_chained(x, lo, hi):
    return lo <= x <= hi


@case((3, 4), (-3, 4), (-3, -4), (0, 1))
def signs_differ(a, b):
    return (a > 0) != (b > 0)


@case((1, 2, 3), (0, 2, 3), (1, 0, 3), (1, 2, 0))
def three_way_and_or(a, b, c):
    if a > 0 and b > 0 and c > 0:
        return 3
    if a > 0 or b > 0 or c > 0:
        return 1
    return 0


@case((3, 5), (0, 5), (3, 0), graph=False)
def and_returns_operand(a, b):
    # On Python ints `and`/`or` return an operand, not a bool: no graph equivalent.
    return (a and b) + (a or b)


# --- while loops ---------------------------------------------------------------------------------


@case((0,), (1,), (10,))
def sum_to(n):
    total = 0
    i = 1
    while i <= n:
        total += i
        i += 1
    return total


@case((1,), (6,), (27,))
def collatz_steps(n):
    steps = 0
    while n > 1:
        if n % 2 == 0:
            n //= 2
        else:
            n = 3 * n + 1
        steps += 1
    return steps


@case((48, 18), (17, 5), (7, 0), (0, 9))
def gcd(a, b):
    while b != 0:
        a, b = b, a % b
    return a


@case((0,), (7,), (98765,))
def digit_sum(n):
    s = 0
    while n > 0:
        s += n % 10
        n //= 10
    return s


@case((1,), (1234,), (900,))
def reverse_digits(n):
    r = 0
    while n > 0:
        r = r * 10 + n % 10
        n = n // 10
    return r


@case((2, 10), (3, 0), (5, 3), (7, 1))
def fast_power(base, exp):
    result = 1
    while exp > 0:
        if exp % 2 == 1:
            result *= base
        base *= base
        exp //= 2
    return result


@case((0,), (1,), (15,), (16,), (99,))
def isqrt_binary_search(n):
    lo = 0
    hi = n
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if mid * mid <= n:
            lo = mid
        else:
            hi = mid - 1
    return lo


@case((49, 20), (50, 20), (0, 20), (400, 20))
def binary_search_squares(target, n):
    lo = 0
    hi = n
    while lo <= hi:
        mid = (lo + hi) // 2
        v = mid * mid
        if v == target:
            return mid
        elif v < target:
            lo = mid + 1
        else:
            hi = mid - 1
    return -1


@case((3,), (7,), (0,))
def while_true_break(n):
    while True:
        n += 3
        if n % 7 == 0:
            break
    return n


@case((5,), (13,))
def while_true_return(n):
    k = 0
    while True:
        k += 1
        if k * k > n:
            return k
        n -= 1


@case((10, 3), (20, 7), (5, 9))
def first_multiple(n, k):
    i = 1
    while i < LIMIT:
        if (i * n) % k == 0:
            return i
        i += 1
    return -1


@case((10, 20), (3, 200), (0, 5))
def while_compound_condition(n, cap):
    i = 0
    total = 0
    while i < n and total < cap:
        total += i * i
        i += 1
    return total * 100 + i


@case((12,), (7,))
def while_with_continue(n):
    i = 0
    s = 0
    while i < n:
        i += 1
        if i % 3 == 0:
            continue
        s += i
    return s


@case((4,), (30,))
def while_else(n):
    i = 0
    while i < n:
        if i * i > 20:
            break
        i += 1
    else:
        i = -i
    return i


@case((6,), (11,))
def while_not_done(n):
    done = False
    steps = 0
    while not done:
        steps += 1
        if steps * 2 >= n:
            done = True
    return steps


@case((10,), (25,))
def countdown_multiple_vars(n):
    a = 0
    b = 1
    while n > 0:
        a, b = b, a + b
        n -= 3
    return a - b


@case((5,), (20,))
def augmented_assignments(n):
    x = n
    x += 7
    x -= 2
    x *= 3
    x //= 4
    x %= 11
    y = 0
    i = 0
    while i < n:
        y += i
        y -= 1
        y *= 2
        y %= 97
        i += 1
    return x * 1000 + y


# --- for loops over range / rt.range -------------------------------------------------------------


@case((0,), (1,), (6,))
def factorial(n):
    r = 1
    for i in range(1, n + 1):
        r *= i
    return r


@case((0,), (1,), (2,), (10,), (20,))
def fibonacci(n):
    a, b = 0, 1
    for _ in range(n):
        a, b = b, a + b
    return a


@case((1,), (5,), (9,))
def sum_of_squares_rt_range(n):
    total = 0
    for i in rt.range(n):
        total += i * i
    return total


@case((2, 9), (5, 5), (3, 12))
def rt_range_start_limit(a, b):
    total = 0
    for i in rt.range(a, b):
        total += i
    return total


@case((20,), (7,))
def range_with_step(n):
    total = 0
    for i in range(1, n, 3):
        total += i
    return total


@case((10,), (3,))
def for_with_continue(n):
    total = 0
    for i in range(n):
        if i % 2 == 0:
            continue
        total += i
    return total


@case((10,), (30,), (2,))
def for_with_break(n):
    total = 0
    for i in range(n):
        if total > 20:
            break
        total += i
    return total


@case((9,), (7,), (2,), (1,))
def for_else_is_prime(n):
    prime = 0
    if n >= 2:
        for d in range(2, n):
            if n % d == 0:
                break
        else:
            prime = 1
    return prime


@case((6,), (12,))
def for_continue_and_break(n):
    total = 0
    for i in range(n):
        if i % 3 == 0:
            continue
        if i > 8:
            break
        total += i
    return total


@case((5,), (9,))
def loop_target_after_loop(n):
    last = 0
    for i in range(n):
        last += i
    return i * 100 + last


@case((12,), (13,), (1,))
def count_divisors(n):
    count = 0
    for d in range(1, n + 1):
        if n % d == 0:
            count += 1
    return count


@case((6,), (28,), (12,))
def is_perfect(n):
    s = 0
    for d in range(1, n):
        if n % d == 0:
            s += d
    return s == n


@case((4, 7), (8, 1))
def for_with_ternary(n, k):
    total = 0
    for i in range(n):
        total += i if i % 2 == 0 else k
    return total


@case((8,), (15,))
def count_down_range(n):
    s = 0
    for i in range(n, 0, -2):
        s = s * 2 + i
        s %= 1000
    return s


# --- nested loops --------------------------------------------------------------------------------


@case((2,), (10,), (30,))
def count_primes(n):
    count = 0
    for k in range(2, n):
        is_p = 1
        for d in range(2, k):
            if d * d > k:
                break
            if k % d == 0:
                is_p = 0
                break
        count += is_p
    return count


@case((4,), (6,))
def multiplication_table_sum(n):
    total = 0
    for i in range(1, n + 1):
        for j in range(1, n + 1):
            if j > i:
                continue
            total += i * j
    return total


@case((10, 30), (3, 100))
def nested_return(n, target):
    for i in range(n):
        for j in range(n):
            if i * j == target:
                return i * 10 + j
    return -1


@case((5,), (13,))
def pythagorean_triples(n):
    count = 0
    for a in range(1, n):
        for b in range(a, n):
            for c in range(b, n):
                if a * a + b * b == c * c:
                    count += 1
    return count


@case((5,), (8,))
def while_in_for(n):
    total = 0
    for i in range(n):
        j = i
        while j > 0:
            total += j % 3
            j //= 2
    return total


@case((7, 3), (20, 4))
def for_in_while_with_break(n, k):
    rounds = 0
    while n > 0:
        for i in range(k):
            n -= i + 1
            if n <= 0:
                break
        rounds += 1
    return rounds * 1000 + n


@case((9,), (25,))
def nested_while_true(n):
    outer = 0
    while True:
        inner = 0
        while True:
            inner += 1
            if inner >= 3:
                break
        outer += inner
        if outer > n:
            break
    return outer


# --- helper calls, nested functions, closures, recursion -----------------------------------------


@case((4, 6), (21, 6), (5, 7))
def lcm(a, b):
    return a * b // _gcd(a, b)


@case((1, 20), (10, 40))
def primes_in_range(lo, hi):
    count = 0
    for n in range(lo, hi):
        if _is_prime(n):
            count += 1
    return count


@case((3, -4), (-2, -9), (0, 5))
def sign_product(a, b):
    return _sign(a) * _sign(b) + _sign(a + b)


@case((4,), (7,))
def sum_with_nested_def(n):
    def sq(x):
        return x * x

    total = 0
    for i in range(n):
        total += sq(i)
    return total


@case((3, 4), (-2, 9))
def closure_reads_outer(a, b):
    k = a * 2

    def add_k(x):
        return x + k

    return add_k(b) * add_k(1)


@case((4,), (8,), (20,))
def nested_def_with_control_flow(a):
    def clip(x):
        if x > 10:
            return 10
        return x

    return clip(a) + clip(a * 3)


@case((3,), (6,))
def nested_def_with_loop(n):
    def tri(m):
        s = 0
        for i in range(m + 1):
            s += i
        return s

    return tri(n) - tri(n - 2)


@case((5,), (9,))
def helper_in_loop_condition(n):
    i = 0
    found = 0
    while i < n:
        if _is_prime(i) and i % 4 == 1:
            found += i
        i += 1
    return found


@case((5,), (0,), (7,), graph=False)
def factorial_recursive(n):
    # Recursion on a tensor condition never ends while tracing: Python only.
    if n <= 1:
        return 1
    return n * factorial_recursive(n - 1)


@case((3,), (8,))
def module_helper_square(n):
    return _square(n) + _square(n + 1)


# --- attributes on objects -----------------------------------------------------------------------


@case((10,), (3,))
def counter_attribute_in_loop(n):
    c = Counter()
    for i in range(n):
        if i % 3 == 0:
            c.count += 1
        c.total += i
    return c.count * 1000 + c.total


@case((4,), (-4,))
def counter_attribute_in_branches(x):
    c = Counter()
    if x > 0:
        c.count = x
    else:
        c.count = -x * 2
    return c.count


@case((6,), (2,), graph=False)
def counter_method_in_loop(n):
    # The mutation happens inside a method: invisible to a graph loop, fine in Python.
    c = Counter()
    for i in range(n):
        c.bump(i)
    return c.count * 100 + c.total


# --- loops over Python lists, tuples, enumerate, zip ---------------------------------------------


@case((3, -4), (-1, -2))
def loop_over_list(a, b):
    total = 0
    for x in [a, b, a + b, a * b]:
        if x > 0:
            total += x
    return total


@case((3, 4), (5, 0))
def loop_over_tuple_break(a, b):
    total = 0
    for x in (a, b, 10, a - b):
        if x == 0:
            break
        total += x
    return total


@case((2, 5), (1, 1))
def enumerate_list(a, b):
    total = 0
    for i, x in enumerate([a, b, a + b]):
        total += i * x
    return total


@case((1, 2), (4, -3))
def zip_lists(a, b):
    total = 0
    for x, y in zip([a, b, 3], [b, a, 5]):
        if x > y:
            total += x - y
        else:
            total -= y - x
    return total


@case((3, 4), (7, 0))
def list_loop_with_else(a, b):
    found = 0
    for x in [a, b, a + b]:
        if x == 0:
            found = -1
            break
    else:
        found = 1
    return found


@case((5,), (8,), graph=False)
def list_built_from_args(n):
    # A list whose length depends on a value: Python only.
    items = [i * i for i in range(n)]
    total = 0
    for x in items:
        total += x
    return total + len(items)


@case((3, 9), (9, 3), graph=False)
def builtin_max_min(a, b):
    # Python's max/min call bool() on comparisons: not convertible on graph tensors.
    return max(a, b) * 10 + min(a, b)


# --- lists appended in loops ---------------------------------------------------------------------


@case((1,), (4,), (7,))
def squares_stacked(n):
    lst = []
    for i in rt.range(n):
        lst.append(i * i)
    return rt.stack(lst)


@case((3,), (6,))
def running_sum_stacked(n):
    lst = []
    s = 0
    for i in rt.range(n):
        s += i
        lst.append(s)
    return rt.stack(lst)


# --- multiple results ----------------------------------------------------------------------------


@case((17, 5), (20, 4), (3, 7))
def divmod_by_subtraction(a, b):
    q = 0
    while a >= b:
        a -= b
        q += 1
    return q, a


@case((4,), (9,))
def min_max_digits(n):
    lo = 9
    hi = 0
    n = n * 37 + 12
    while n > 0:
        d = n % 10
        if d < lo:
            lo = d
        if d > hi:
            hi = d
        n //= 10
    return lo, hi


# --- float and bool results ----------------------------------------------------------------------


@case((3, 4), (7, 2))
def mean_of_two(a, b):
    return (a + b) / 2


@case((5.0,), (100.0,), (0.5,))
def halve_until_small(x):
    steps = 0
    while x > 1.0:
        x = x / 2.0
        steps += 1
    return steps


@case((3,), (4,), (0,))
def toggle(n):
    flag = False
    for _ in range(n):
        flag = not flag
    return flag


@case((8,), (12,))
def bool_and_in_while(n):
    i = 0
    ok = True
    while i < n and ok:
        ok = i * i < 40
        i += 1
    return i


# --- more jumps, helpers and iterables ------------------------------------------------------------


@case((2,), (0,), (9,))
def return_in_list_loop(a):
    for x in [1, 3, 5]:
        if a < x:
            return x
    return 0


@case((2,), (7,))
def return_in_constant_range_loop(a):
    for i in range(4):
        if a < i * 2:
            return i
    return -1


@case((4,), (11,))
def while_true_continue_break(n):
    i = 0
    s = 0
    while True:
        i += 1
        if i % 2 == 0:
            continue
        s += i
        if s > n:
            break
    return s


@case((10, 30), (3, 100))
def rt_range_with_break(n, t):
    last = 0
    for i in rt.range(n):
        last = i
        if i * i > t:
            break
    return last


@case((4,), (6,))
def enumerate_rt_range(n):
    total = 0
    for k, v in enumerate(rt.range(10, 10 + n)):
        total += k * v
    return total


@case((3,), (5,))
def zip_rt_ranges(n):
    total = 0
    for x, y in zip(rt.range(n), rt.range(1, n + 1)):
        total += x * y
    return total


@case((2,), (4,))
def loop_over_constant_tensor(a):
    count = 0
    for x in rt.constant([3, 1, 4, 1, 5]):
        if x > a:
            count += 1
    return count


@case((5,), (8,))
def stack_from_python_range(n):
    lst = []
    for i in range(n):
        lst.append(i * 3 % 7)
    return rt.stack(lst)


@case((6,), (9,))
def append_in_branch_count(n):
    lst = []
    for i in rt.range(n):
        if i % 2 == 0:
            lst.append(i)
    return len(lst)


@case((4,), (9,), graph=False)
def nonlocal_accumulator(n):
    # A nested function updates `total` through `nonlocal`: a graph loop cannot see that.
    total = 0

    def add(x):
        nonlocal total
        total += x

    for i in range(n):
        add(i)
    return total


@case((3,), (6,))
def nested_def_rebinds_nothing(n):
    def step(x, k):
        if x % 2 == 0:
            return x // 2 + k
        return 3 * x + 1 - k

    x = n
    for k in range(3):
        x = step(x, k)
    return x


@case((3, 5), (7, 2))
def tuple_return_in_branches(a, b):
    if a > b:
        return a, b
    return b, a


@case((4,), (-3,))
def local_in_one_branch(x):
    if x > 0:
        t = x * 2
        x = t + 1
    return x


@case((9,), (3,))
def docstring_and_early_return(x):
    """A docstring, then an early return."""
    if x > 5:
        return x - 5
    x *= 2
    return x


@case((3,), (12,))
def keyword_and_default_helper(x):
    return _clip(x, hi=10) + _clip(x)


def _clip(x, lo=0, hi=5):
    if x < lo:
        return lo
    if x > hi:
        return hi
    return x


@case((3,), (6,))
def lambda_helper(n):
    double = lambda v: v * 2  # noqa: E731
    total = 0
    for i in range(n):
        total += double(i)
    return total


@case((5,), (8,))
def average_loop_float(n):
    total = 0
    for i in range(n):
        total += i * i
    return total / n


@case((3,), (-2,))
def pass_branches(x):
    y = x
    if x > 0:
        pass
    else:
        y = 0
    for _ in range(2):
        pass
    return y


@case((7, 3), (2, 9))
def compare_in_branches_bool(a, b):
    if a > b:
        r = True
    else:
        r = a * 3 > b
    return r


@case((5, 3), (2, 2))
def swap_in_loop(a, b):
    for _ in range(3):
        a, b = b, a + b
    return a, b


@case((1,), (7,), (200,))
def tuple_return_after_elif(a):
    x = a
    if a > 100:
        x += 1
    elif a < 5:
        return 0, 0
    return x, 1


@case((2,), (7,))
def tuple_return_in_loop(n):
    for i in range(n):
        if i > 2:
            return i, 1
    return n, 0


@case((0,), (5,), (12,))
def for_else_breaks_outer(n):
    while n < 10:
        for _ in range(2):
            n += 1
        else:
            break
    return n


@case((3,), (8,))
def for_else_continues_outer(n):
    total = 0
    for i in range(n):
        for j in range(i):
            if j > 2:
                break
        else:
            continue
        total += i
    return total


@case((7,), (9,))
def for_else_returns(n):
    for d in range(2, n):
        if n % d == 0:
            break
    else:
        return 1
    return 0


@case((1,), (3,))
def return_in_for_and_its_else(n):
    for i in range(n):
        if i == 1:
            return 10
    else:
        return 20
    return 30


@case((1,), (3,))
def return_in_while_and_its_else(n):
    i = 0
    while i < n:
        i += 1
        if i == 2:
            return 10
    else:
        return 20
    return 30


@case((1,), (3,))
def for_else_continue_without_break(n):
    t = 0
    for _ in range(n):
        for _ in range(2):
            t += 1
        else:
            continue
        t += 100
    return t


# --- odds and ends: rebinding, walrus, defaults, builtins, arithmetic ----------------------------


@case((4,), (6,))
def loop_modifies_its_bound(n):
    total = 0
    for i in range(n):
        n -= 1
        total += i + n
    return total


@case((4,), (5,))
def loop_rebinds_its_target(n):
    total = 0
    for i in rt.range(n):
        i = i * 2
        total += i
    return total


@case((3,), (5,))
def def_inside_loop(n):
    total = 0
    for i in range(n):

        def twice(i=i):
            return i * 2

        total += twice()
    return total


@case((4,), (-6,))
def lambda_with_ternary(x):
    magnitude = lambda v: v if v > 0 else -v  # noqa: E731
    return magnitude(x) + magnitude(x - 10)


def _sum_positive(*values, scale=1):
    total = 0
    for v in values:
        if v > 0:
            total += v * scale
    return total


@case((3, -2), (-1, 5))
def star_args_helper(a, b):
    return _sum_positive(a, b, a + b, scale=2)


@case((5,), (-5,))
def default_argument(a, b=3):
    if a > b:
        return a - b
    return b - a


@case((4,), (9,))
def none_default_checked(a, b=None):
    if b is None:
        b = a * 2
    if a > 5:
        b += 1
    return b


class Accumulator:
    def __init__(self, start):
        self.start = start

    def add_if_positive(self, x):
        if x > 0:
            return self.start + x
        return self.start


@case((4,), (-4,))
def method_with_control_flow(x):
    acc = Accumulator(10)
    return acc.add_if_positive(x) + acc.add_if_positive(x - 5)


@case((5,), (8,))
def reversed_list(a):
    total = 0
    for v in reversed([a, a + 1, a + 2]):
        total = total * 10 + v % 10
    return total


@case((100,), (7,), (1,))
def walrus_in_while(n):
    steps = 0
    while (n := n // 2) > 0:
        steps += 1
    return steps * 100 + n


@case((-7,), (7,), (-3,))
def negative_floor_division(a):
    return (a // 2) * 100 + a % 3 + (-a) // 4 + (-a) % 5


@case((3,), (-4,))
def builtin_abs_and_power(a):
    return abs(a) + a**2 - (-a) + (+a)


def _tri(n, depth):
    if depth == 0:
        return n
    return _tri(n + depth, depth - 1)


@case((2,), (10,))
def recursion_on_python_depth(n):
    if n > 5:
        return _tri(n, 3)
    return _tri(n, 2)


@case((4, 5), (5, 4))
def early_return_before_loop(a, b):
    if a > b:
        return a
    total = 0
    for i in range(b):
        total += i
    return total


@case((3,), (12,))
def return_from_nested_while_true(n):
    i = 0
    while True:
        j = 0
        while True:
            j += 1
            if i * j > n:
                return i * 100 + j
            if j >= 3:
                break
        i += 1


def _make_clipper(hi):
    def clip(x):
        if x > hi:
            return hi
        return x

    return clip


@case((4,), (15,))
def closure_from_factory(x):
    clip = _make_clipper(10)
    return clip(x) + clip(x * 2)


def _apply_twice(fn, x):
    return fn(fn(x))


@case((3,), (-8,))
def function_as_argument(x):
    def step(v):
        if v < 0:
            return -v
        return v + 1

    return _apply_twice(step, x)


@case((2,), (6,))
def user_names_like_generated_ones(n):
    retval = 0
    do_return = 1
    break_ = 2
    continue_ = 3
    state = 4
    loop_body = 5
    for i in range(n):
        if i > 3:
            break
        if i == 1:
            continue
        retval += i + do_return + break_ + continue_ + state + loop_body
    if retval > 20:
        return retval
    return -retval


@case((3,), (10,))
def if_true_named_variable(n):
    if_true = n > 5
    get_state = 0
    if if_true:
        get_state = n * 2
    else:
        get_state = n - 1
    return get_state
