"""Loops whose test changes state (TensorFlow's loop_with_side_effecting_test family): an
assignment in the test (``m := m - 1``), a list it pops, a function of the user's that pops
it. A staged loop's test cannot change what the loop carries, so the converter moves such a
test into the body; these programs check that it does so with an ``else`` clause too, and
for calls it cannot see into.
"""

from tests.autograph.conformance.harness import Programs

programs = Programs()
case = programs.case

M = [(0,), (1,), (3,)]


def _pop(stack):
    return stack.pop()


class _Counter:
    def __init__(self, n):
        self.n = n


@case(M, theme="loop_with_side_effecting_test")
def walrus_test_with_else(m):
    count = 0
    while (m := m - 1) > 0:
        count += 1
    else:
        count += 100
    return count, m


@case(M, theme="loop_with_side_effecting_test")
def walrus_test_with_else_and_break(m):
    count = 0
    while (m := m - 1) > 0:
        count += 1
        if count > 1:
            break
    else:
        count += 100
    return count, m


@case(M, theme="loop_with_side_effecting_test")
def walrus_test_with_else_and_continue(m):
    count = 0
    while (m := m - 1) > -2:
        if m == 0:
            continue
        count += 1
    else:
        count += 100
    return count, m


@case(M, theme="loop_with_side_effecting_test")
def popping_test_with_else(n):
    stack = [n - 2, n + 3, n + 5]
    count = 0
    while stack.pop() > n:
        count += 1
    else:
        count += 100
    return count


@case(M, theme="loop_with_side_effecting_test")
def helper_popping_test(n):
    stack = [n - 2, n + 3, n + 5]
    count = 0
    while _pop(stack) > n:
        count += 1
    return count


@case(M, theme="loop_with_side_effecting_test")
def helper_popping_test_with_else(n):
    stack = [n - 2, n + 3, n + 5]
    count = 0
    while _pop(stack) > n:
        count += 1
    else:
        count += 100
    return count, len(stack)


def _below(x, counter):
    return x < counter.n


@case(M, theme="loop_with_side_effecting_test")
def helper_given_an_object_in_test(n):
    # The test moves into the body all the same; the object, which no loop variable can
    # hold, is left alone rather than carried.
    counter = _Counter(3)
    i = n * 0
    while _below(i, counter):
        i += 1
    return i


@case(M, theme="loop_with_side_effecting_test")
def local_function_in_test(n):
    left = n

    def step():
        nonlocal left
        left = left - 1
        return left

    count = 0
    while step() >= 0:
        count += 2
    return count, left


@case(M, theme="loop_with_side_effecting_test")
def builtin_call_changing_state_in_test(n):
    # setattr is a builtin, so the converter takes the test for pure and leaves it in place.
    # Deciding whether to stage evaluates the test in a throwaway graph; what it set there
    # (a tensor of that graph) must be put back before the loop is staged.
    counter = _Counter(1)
    i = 0
    while setattr(counter, "n", n - n + 1) or i < n:
        i += counter.n
        counter.n = counter.n * 1
    return i, counter.n


test_program = programs.test()
