"""Python lists that staged code changes (TensorFlow's basic_list tests and lists converter):
the right values, or a clear error that names the list; never a silently wrong one.
"""

import runtime as rt
from tests.autograph.conformance.harness import REF, OneOf, Programs, Raises

programs = Programs()
case = programs.case

# What TensorFlow's rules allow for a list that staged code changes: the right values, or a clear
# error about the list (TensorFlow: "cannot stack a list without knowing its element type; use
# set_element_type", "does not have the same nested structure", ...).
LIST_ERROR = Raises(
    (ValueError, TypeError, NotImplementedError),
    r"(?i)list|stack|set_element_type|TensorArray|nested structure",
)


REF_OR_LIST_ERROR = {"cd": OneOf(REF, LIST_ERROR)}


SIGNS = [(-1,), (2,)]


NS = [(0,), (1,), (3,)]


@case(SIGNS, theme="basic_list", expect=REF_OR_LIST_ERROR)
def append_in_one_branch(a):
    L = []
    if a > 0:
        L.append(7)
    return L


@case(SIGNS, theme="basic_list", expect=REF_OR_LIST_ERROR)
def append_in_one_branch_len(a):
    L = []
    if a > 0:
        L.append(7)
    return len(L)


@case(SIGNS, theme="basic_list", expect=REF_OR_LIST_ERROR)
def append_in_both_branches(a):
    L = []
    if a > 0:
        L.append(a)
    else:
        L.append(-a)
    return L[0]


@case(NS, theme="basic_list", expect=REF_OR_LIST_ERROR)
def append_in_rt_range_loop_return_list(n):
    l = []
    for i in rt.range(n):
        l.append(i)
    return l


@case([(1,), (3,)], theme="basic_list", expect=REF_OR_LIST_ERROR)
def append_in_rt_range_loop_stack(n):
    l = []
    for i in rt.range(n):
        l.append(i * 2)
    return rt.stack(l)


@case(NS, theme="basic_list", expect=REF_OR_LIST_ERROR)
def append_in_while_loop_len(n):
    l = []
    i = 0
    while i < n:
        l.append(i)
        i += 1
    return len(l)


@case([(2,), (3,)], theme="basic_list", expect=REF_OR_LIST_ERROR)
def index_appended_list_after_loop(n):
    l = []
    for i in rt.range(n):
        l.append(i * 2)
    return l[1]


@case([(2,), (4,)], theme="basic_list", expect=REF_OR_LIST_ERROR)
def read_appended_list_in_loop(n):
    l = [1, 1]
    for i in rt.range(2, n + 2):
        l.append(l[i - 1] + l[i - 2])
    return l[-1]


@case([(0,), (2,), (4,)], theme="basic_list", expect=REF_OR_LIST_ERROR)
def pop_in_staged_loop(n):
    l = [1, 2, 3, 4]
    s = 0
    for _ in rt.range(n):
        s += l.pop()
    return s


@case([(0,), (2,)], theme="basic_list", expect=REF_OR_LIST_ERROR)
def pop_in_staged_loop_return_list(n):
    l = [1, 2, 3, 4]
    for _ in rt.range(n):
        l.pop()
    return l


@case(
    [(1,), (3,)],
    theme="basic_list",
    expect={"c": OneOf(REF, Raises(TypeError, "nested structure"))},
)
def concat_list_in_staged_loop(n):
    s = []
    for i in rt.range(n):
        s = s + [i]
    return len(s)


@case([(2,)], theme="basic_list", expect={"c": OneOf(REF, Raises(TypeError, "nested structure"))})
def concat_list_of_tensors_in_staged_loop(n):
    s = [rt.constant(0)]
    for _ in rt.range(n):
        s = s + [rt.constant(0)]
    return len(s)


@case([(1,), (3,)], theme="basic_list")
def append_in_python_loop_then_stack(a):
    l = []
    for i in range(3):
        l.append(a * i)
    return rt.stack(l)


@case([(1,), (3,)], theme="basic_list")
def list_literal_of_tensors(a):
    l = [a, a + 1, a * 2]
    return l[2] - l[0]


@case(
    [([5], n) for n in (0, 2)], theme="basic_list", expect=REF_OR_LIST_ERROR, tensors=(False, True)
)
def append_to_argument_list(l, n):
    for i in rt.range(n):
        l.append(i)
    return len(l)


@case([(n,) for n in (0, 3)], theme="basic_list")
def read_only_list_in_loop(n):
    w = [2, 3]
    s = 0
    for _ in rt.range(n):
        s += w[0] * w[1]
    return s


@case([(2,)], theme="basic_list")
def list_comprehension_over_python_range(a):
    return [a * i for i in range(3)]


@case([([1, 2, 3],)], theme="basic_list")
def list_comprehension_over_tensor(t):
    return [x * 2 for x in t]


@case(SIGNS, theme="basic_list", expect=REF_OR_LIST_ERROR)
def append_tensor_in_branch_then_stack(a):
    l = [a]
    if a > 0:
        l.append(a * 10)
    else:
        l.append(a * 20)
    return rt.stack(l)


@case([(n,) for n in (1, 3)], theme="basic_list", expect=REF_OR_LIST_ERROR)
def append_in_while_then_sum_python(n):
    l = []
    i = 0
    while i < n:
        l.append(i + 1)
        i += 1
    s = 0
    for x in l:
        s += x
    return s


@case([(n,) for n in (1, 3)], theme="basic_list", expect=REF_OR_LIST_ERROR)
def append_pairs_in_loop(n):
    pairs = []
    for i in rt.range(n):
        pairs.append((i, i * i))
    return len(pairs)


@case(SIGNS, theme="basic_list", expect=REF_OR_LIST_ERROR)
def list_item_assign_and_append(a):
    l = [0]
    if a > 0:
        l[0] = 1
        l.append(2)
    else:
        l[0] = 3
        l.append(4)
    return l


@case([(n,) for n in (2, 3)], theme="basic_list", expect=REF_OR_LIST_ERROR)
def append_in_nested_staged_loops(n):
    l = []
    for i in rt.range(n):
        for j in rt.range(2):
            l.append(i * 10 + j)
    return len(l)


@case([(n,) for n in (1, 3)], theme="basic_list", expect=REF_OR_LIST_ERROR)
def extend_in_staged_loop(n):
    l = []
    for i in rt.range(n):
        l.extend([i, i])
    return len(l)


# --- found by the random programs ---------------------------------------------------------------


@case([(-1, 3), (2, 3), (2, 0)], theme="basic_list")
def list_made_a_tensor_list_in_one_branch(a, n):
    acc = []
    if a > 0:
        for i in rt.range(n):
            acc.append(i)
    return len(acc)


@case([(-1,), (2,)], theme="basic_list")
def list_changed_in_one_branch_read_in_the_other(a):
    acc = [1]
    if a > 0:
        acc.append(5)
        return a
    return len(acc)


@case([(0, 2), (2, 2), (3, 0)], theme="basic_list")
def list_appended_in_loops_nested_in_a_loop_with_a_created_variable(n, m):
    acc = []
    for i in rt.range(n):
        w = i
        for j in rt.range(m):
            acc.append(w + j)
    return len(acc)


test_program = programs.test()
