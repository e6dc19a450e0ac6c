"""Core control flow (TensorFlow's cond_basic, basic_ifexp, early_return, loop_basic,
loop_control_flow, nested_control_flow, loop_scoping, logical_expression tests).
"""

import runtime as rt
from tests.autograph.conformance.harness import REF, OneOf, Programs, Raises

programs = Programs()
case = programs.case

_v = rt.Variable(0)


B = [(True,), (False,)]


N01 = [(0,), (1,)]


BOOL3 = [
    (False, True, False),
    (False, False, False),
    (True, True, True),
    (True, False, True),
    (False, False, True),
]


NUM3 = [(1, 2, 3), (2, 1, 3), (3, 2, 1), (3, 1, 2), (1, 3, 2), (2, 3, 1)]


IAE = rt.errors.InvalidArgumentError


LISTS = [([],), ([1],), ([1, 2],), ([1, 2, 3, 4],)]


NS = [(0,), (1,), (2,), (4,)]


ONCE = "loop must iterate at least once to initialize"


_counter = None


def _double(x):
    return x * 2


class _Quad:
    def method(self, x):
        return x * 4


_quad = _Quad()


CALLEES = (_double, lambda x: x * 1, _quad.method, abs)


@case(B, theme="cond_basic")
def if_effect_only(c):
    _v.assign(0)
    if c:
        _v.assign_add(1)
    return _v.read_value()


@case(B, theme="cond_basic")
def if_else_effect_only(c):
    _v.assign(0)
    if c:
        _v.assign_add(3)
    else:
        _v.assign_add(5)
    return _v.read_value()


@case(N01, theme="cond_basic")
def if_bumps_counter(n):
    k = 0
    if k < n:
        k += 1
    return k


@case(N01, theme="cond_basic")
def if_else_bumps_counter(n):
    k = 0
    if k < n:
        k += 1
    else:
        k += 2
    return k


@case(N01, theme="cond_basic")
def if_two_counters(n):
    a = 0
    b = 1
    if a < n:
        a += 1
        b *= 10
    return a, b


@case(N01, theme="cond_basic")
def if_else_two_counters(n):
    a = 0
    b = 1
    if a < n:
        a += 1
        b *= 10
    else:
        a += 2
        b *= 20
    return a, b


@case(B, theme="cond_basic")
def if_else_both_create(c):
    if c:
        r = 10
    else:
        r = 20
    return r


@case(B, theme="cond_basic", expect={"c": OneOf(REF, Raises(ValueError, r"'r' is None"))})
def both_set_none(c):
    if c:
        r = None
        s = 1
    else:
        r = None
        s = 2
    return r, s


@case(B, theme="cond_basic")
def if_local_temp(c):
    r = 0
    if c:
        t = 1
        r = t + 1
    return r


@case(B, theme="cond_basic")
def if_else_local_temp(c):
    r = 0
    if c:
        t = 1
    else:
        t = 2
        r = t + 1
    return r


@case(B, theme="cond_basic")
def if_modifies_then_reads(c):
    r = 0
    t = 2
    if c:
        t = t + 1
        r = t + 1
    return r


@case([(0, 0), (0, 1), (1, 0), (1, 1)], theme="cond_basic")
def two_ifs_in_a_row(n1, n2):
    s = 0
    i = 0
    if i < n1:
        s = s * 10 + i
        i += 1
    i = 0
    if i < n2:
        s = s * 10 + i
        i += 1
    return s


@case([(0, 0), (0, 1), (1, 0), (1, 1)], theme="cond_basic")
def two_if_elses_in_a_row(n1, n2):
    s = 0
    i = 0
    if i < n1:
        s = s * 10 + i
        i += 1
    else:
        s = s * 11 + i
        i += 2
    i = 0
    if i < n2:
        s = s * 10 + i
        i += 1
    else:
        s = s * 11 + i
        i += 2
    return s


@case([(0, 0), (0, 1), (1, 0), (1, 1)], theme="cond_basic")
def if_inside_if(n1, n2):
    i = 0
    acc = 0
    if i < n1:
        j = 0
        s = 0
        if j < n2:
            s = s * 10 + i * j
            j += 1
        acc = acc * 1000 + s
        i += 1
    return acc


@case([(0, 0), (0, 1), (1, 0), (1, 1), (2, 3)], theme="cond_basic")
def if_else_inside_if_else(n1, n2):
    i = 0
    acc = 0
    if i < n1:
        j = 0
        s = 0
        if j < n2:
            s = s * 10 + i * j + n1
            j += 1
        else:
            s = s * 11 + i * j + n2
            j += 2
        acc = acc * 1000 + s
        i += 1
    else:
        j = 0
        s = 0
        if j < n2:
            s = s * 12 + i * j + 5
            j += 3
        else:
            s = s * 13 + i * j + 7
            j += 4
        acc = acc * 2000 + s + j
        i += 1
    return acc


@case(
    [(True, True), (True, False), (False, True), (False, False)],
    theme="cond_basic",
    expect={"c": OneOf(REF, Raises(ValueError, "must also have a return"))},
)
def nested_if_partial_return(c1, c2):
    if c1:
        if c2:
            return 1
    return 2


@case([(-3,), (2,), (7,)], theme="cond_basic")
def elif_chain(x):
    if x < 0:
        r = -1
    elif x < 5:
        r = 0
    else:
        r = 1
    return r


@case([(-3.5,), (0.25,), (9.0,)], theme="cond_basic")
def float_branches(x):
    if x > 0.5:
        y = x * 2.0
    else:
        y = x - 1.0
    return y


@case([(3, 4), (5, 1)], theme="cond_basic")
def if_on_comparison_of_two_args(a, b):
    if a > b:
        m = a
    else:
        m = b
    return m * 2


@case([(1,), (-1,)], theme="cond_basic", tensors=(False,))
def python_cond_in_graph(x):
    if x > 0:
        y = rt.constant(1)
    else:
        y = rt.constant(2)
    return y


@case(B, theme="cond_basic")
def if_with_tuple_assign(c):
    a, b = 1, 2
    if c:
        a, b = b, a
    return a, b


@case(B, theme="cond_basic")
def if_augassign_chain(c):
    x = 1
    if c:
        x += 1
        x *= 5
        x -= 2
    else:
        x //= 1
        x = x**2
    return x


@case([(True, 1), (False, 1)], theme="cond_basic")
def cond_result_used_in_arith(c, k):
    if c:
        v = k + 1
    else:
        v = k - 1
    return v * v + k


@case([(-1,), (1,), (5,)], theme="basic_ifexp")
def ifexp_consecutive(x):
    if x > 0:
        x = -x if x < 5 else x
    else:
        x = -2 * x if x < 5 else 1
    if x > 0:
        x = -x if x < 5 else x
    else:
        x = (3 * x) if x < 5 else x
    return x


@case([(-1,), (1,), (5,)], theme="basic_ifexp")
def ifexp_many_values(x):
    if x > 0:
        x = -x if x < 5 else x
        y = 2 * x if x < 5 else x
        z = -y if y < 5 else y
    else:
        x = 2 * x if x < 5 else x
        y = -x if x < 5 else x
        z = -y if y < 5 else y
    return x, y, z


@case([(3,), (-3,)], theme="basic_ifexp")
def ifexp_nested(x):
    return 1 if x > 0 else (2 if x > -5 else 3)


@case([(3,), (-3,)], theme="basic_ifexp")
def ifexp_in_arith(x):
    return (x if x > 0 else -x) * 10 + (1 if x > 1 else 0)


@case([(3,), (-3,)], theme="basic_ifexp")
def ifexp_short_circuit(x):
    d = {"pos": 1}
    return d["pos"] if x > 0 else -1


@case([(0,), (1,)], theme="early_return", stdout="acd", twice=True)
def return_default_after_print(x):
    if x > 0:
        rt.print("x", x)
        return x
    return x * x


@case(B, theme="early_return")
def return_local_tensor(c):
    t = rt.constant(1)
    if c:
        return t
    t = rt.stack([t, t])
    return rt.reduce_sum(t)


@case([(-1,), (3,), (6,)], theme="early_return")
def return_in_nested_ifs(x):
    if x > 0:
        if x < 5:
            return x
        else:
            return x * x
    else:
        return x * x * x


@case(
    [(c1, c2, n) for c1 in (True, False) for c2 in (True, False) for n in (0, 2)],
    theme="early_return",
    tensors=(False, False, True),
)
def return_before_loop(c1, c2, n):
    if c1:
        if c2:
            return 1
    for _ in range(n):
        pass
    return 2


@case([(0,), (3,), (5,)], theme="early_return")
def return_inside_name_scopes(x):
    with rt.name_scope("outer"):
        if x > 0:
            if x < 5:
                with rt.name_scope("inner"):
                    return x
            else:
                return x * x
        else:
            return x * x * x


@case([(0,), (3,), (5,)], theme="early_return")
def unreachable_tail_return(x):
    with rt.name_scope("s"):
        if x > 0:
            if x < 5:
                return x
            else:
                return x * x
        else:
            return x * x * x
    return x * x * x * x


@case([(0,), (1,)], theme="early_return")
def return_default_in_name_scope(x):
    with rt.name_scope("s"):
        if x > 0:
            return 1
        return 0


@case([(0,), (1,), (4,)], theme="early_return")
def return_in_elif_chain(x):
    if x == 0:
        return 10
    elif x == 1:
        return 20
    return 30


@case([(0,), (1,), (4,)], theme="early_return")
def return_tuple_early(x):
    if x > 2:
        return x, x + 1
    return x - 1, x


@case([(0,), (3,)], theme="early_return")
def return_after_if_without_else(x):
    y = x
    if x > 1:
        y = x * 3
        return y
    y = y - 1
    return y


@case([(0,), (3,)], theme="early_return")
def return_none_both_paths(x):
    if x > 1:
        return
    return


@case(BOOL3, theme="logical_expression")
def composite_ors(x, y, z):
    return x or y or z


@case(BOOL3, theme="logical_expression")
def composite_ands(x, y, z):
    return x and y and z


@case(BOOL3, theme="logical_expression")
def composite_mixed(x, y, z):
    return x or y or z and y and z


@case(BOOL3, theme="logical_expression")
def composite_ors_with_callable(x, y, z):
    z1 = lambda: z  # noqa: E731
    return x or y or z1()


@case(NUM3, theme="logical_expression")
def comparison_conjunction(x, y, z):
    return x < y and y < z


@case([(1, 1), (1, 2)], theme="logical_expression")
def equality(x, y):
    return x == y


@case([(1, 1), (1, 2)], theme="logical_expression")
def inequality(x, y):
    return x != y


@case([(True,), (False,)], theme="logical_expression")
def not_of_value(x):
    return not x


@case([(3,), (-3,), (0,)], theme="logical_expression")
def not_in_if_test(x):
    if not x > 0:
        r = 1
    else:
        r = 2
    return r


@case([(0,), (5,)], theme="logical_expression")
def short_circuit_protects_division(x):
    if x != 0 and 10 // x > 1:
        r = 1
    else:
        r = 0
    return r


@case([(3, 0), (0, 3)], theme="logical_expression")
def while_with_and_test(x, y):
    n = 0
    while x > 0 and n < 10:
        x -= 1
        n += 1
    while y > 0 or n < 0:
        y -= 1
        n += 2
    return n


@case(
    [(True, 2), (False, 2)],
    theme="logical_expression",
    eager_ref=True,
    ref_raises=TypeError,
    expect={"c": OneOf(REF, Raises(TypeError))},
)
def and_returns_operand_value(c, k):
    return (c and k) + 1


@case([(True,), (False,)], theme="cond_errors", tensors=(True,))
def branches_give_different_shapes(c):
    if c:
        y = rt.constant([1])
    else:
        y = rt.constant([1, 2])
    return rt.reduce_sum(y)


@case(NS, theme="loop_basic")
def while_effect_only(n):
    _v.assign(0)
    while _v.read_value() < n:
        _v.assign_add(1)
    return _v.read_value()


@case(LISTS, theme="loop_basic")
def for_effect_only(l):
    _v.assign(0)
    for _ in l:
        _v.assign_add(1)
    return _v.read_value()


@case(NS, theme="loop_basic")
def while_single_var(n):
    i = 0
    while i < n:
        i = i * 10 + 1
    return i


@case(LISTS, theme="loop_basic")
def for_target_reuses_var(l):
    i = 0
    for i in l:
        pass
    return i


@case(NS, theme="loop_basic")
def while_two_vars(n):
    s = 0
    i = 0
    while i < n:
        s = s * 10 + i
        i += 1
    return s


@case(LISTS, theme="loop_basic")
def for_two_vars(l):
    s = 0
    for i in l:
        s = s * 10 + i
    return s


@case([(x, y) for x in (0, 3) for y in (0, 1, 5)], theme="loop_basic")
def while_with_else(x, y):
    s = 0
    while x > 0:
        x -= 1
        if x > y:
            break
        s += x
    else:
        s = -100
    return s


@case(
    [(l, k) for l in ([], [1, 2], [3, 4, 5]) for k in (2, 9)],
    theme="loop_basic",
    tensors=(True, False),
)
def for_with_else(l, k):
    s = 0
    for c in l:
        if c == k:
            break
        s = s * 10 + c
    else:
        s = -1000
    return s


@case([(a, b) for a in (0, 1, 2) for b in (0, 2)], theme="loop_basic")
def while_twice(n1, n2):
    s = 0
    i = 0
    while i < n1:
        s = s * 10 + i
        i += 1
    i = 0
    while i < n2:
        s = s * 10 + i
        i += 1
    return s


@case([(a, b) for a in ([], [1], [1, 2]) for b in ([], [3, 4])], theme="loop_basic")
def for_twice(l1, l2):
    s = 0
    for i in l1:
        s = s * 10 + i
    for i in l2:
        s = s * 10 + i
    return s


@case([(a, b) for a in (0, 1, 3) for b in (0, 2)], theme="loop_basic")
def nested_while_into_tensor_array(n1, n2):
    i = 0
    acc = rt.TensorArray(rt.int32, size=0, dynamic_size=True, element_shape=())
    while i < n1:
        j = 0
        s = 0
        while j < n2:
            s = s * 10 + i * j
            j += 1
        acc = acc.write(i, s)
        i += 1
    return acc.stack()


@case(
    [([[1]],), ([[1], [2]],), ([[1, 2], [3, 4]],), ([[]],), ([[], []],)],
    theme="loop_basic",
    tensors=(True,),
)
def nested_for_into_tensor_array(m):
    acc = rt.TensorArray(rt.int32, size=0, dynamic_size=True, element_shape=())
    for row in m:
        s = 0
        for j in row:
            s = s * 10 + j
        acc = acc.write(acc.size(), s)
    return acc.stack()


@case([(n,) for n in (0, 1, 5)], theme="loop_basic")
def for_over_range_arg(n):
    s = 0
    for i in range(n):
        s += i * i
    return s


@case([(n,) for n in (0, 1, 5)], theme="loop_basic")
def for_over_rt_range(n):
    s = 0
    for i in rt.range(n):
        s += i * i
    return s


@case([(n,) for n in (1, 7)], theme="loop_basic")
def for_range_start_stop_step(n):
    s = 0
    for i in range(1, n, 2):
        s += i
    return s


@case([(n,) for n in (0, 6)], theme="loop_basic")
def for_range_negative_step(n):
    s = 0
    for i in range(n, 0, -2):
        s = s * 10 + i
    return s


@case([([[1, 2], [3, 4]],), ([[5, 6, 7]],)], theme="loop_basic")
def for_over_matrix_rows(m):
    total = 0
    for row in m:
        total += row[0] * 10 + row[-1]
    return total


@case(
    [([1.5, 2.5],), ([],)],
    theme="loop_basic",
    tensors=lambda l: (rt.constant(l, dtype=rt.float32),),
)
def for_float_accumulate(l):
    s = 0.0
    for x in l:
        s = s + x * 2.0
    return s


@case([(10,), (1,)], theme="loop_basic")
def while_collatz(n):
    steps = 0
    while n > 1:
        n = n // 2 if n % 2 == 0 else 3 * n + 1
        steps += 1
    return steps


@case([(5,), (0,)], theme="loop_basic")
def while_walrus_test(n):
    s = 0
    while (m := n - s) > 0:
        s += 1
    return s, m


@case([(3,), (0,)], theme="loop_basic")
def while_tuple_state(n):
    a, b = 0, 1
    while n > 0:
        a, b = b, a + b
        n -= 1
    return a, b


@case([(4,), (0,)], theme="loop_basic")
def while_dict_value_loop_var(n):
    d = {"k": 0}
    while n > 0:
        d = {"k": d["k"] + n}
        n -= 1
    return d["k"]


@case([(4,), (0,)], theme="loop_basic")
def while_tuple_value_loop_var(n):
    t = (0, 1)
    while n > 0:
        t = (t[0] + 1, t[1] * 2)
        n -= 1
    return t


@case([(3,)], theme="loop_basic")
def for_enumerate_list(n):
    s = 0
    for i, x in enumerate([4, 5, 6]):
        s += i * x + n
    return s


@case([([4, 5, 6],), ([],)], theme="loop_basic")
def for_enumerate_tensor(l):
    s = 0
    for i, x in enumerate(l):
        s += i * x
    return s


@case([([4, 5, 6], [1, 2, 3]), ([1], [2])], theme="loop_basic")
def for_zip_two(a, b):
    s = 0
    for x, y in zip(a, b):
        s = s * 10 + x * y
    return s


@case([(3,), (0,)], theme="loop_basic")
def while_len_of_list(n):
    items = [1, 2, 3]
    i = 0
    s = 0
    while i < len(items):
        s += items[i] * n
        i += 1
    return s


@case(LISTS, theme="loop_control_flow")
def continue_in_for(l):
    s = 0
    for c in l:
        if c % 2 > 0:
            continue
        s += c
    return s


@case(NS, theme="loop_control_flow")
def continue_in_while(x):
    s = 0
    while x > 0:
        x -= 1
        if x % 2 > 0:
            continue
        s += x
    return s


@case(LISTS, theme="loop_control_flow")
def break_in_for(l):
    s = 0
    for c in l:
        if c % 2 > 0:
            break
        s += c
    return s


@case([([2, 4, 5, 6],), ([2, 4],)], theme="loop_control_flow")
def break_in_for_later(l):
    s = 0
    for c in l:
        if c % 2 > 0:
            break
        s += c
    return s


@case(NS, theme="loop_control_flow")
def break_in_while(x):
    s = 0
    while x > 0:
        x -= 1
        if x % 2 > 0:
            break
        s += x
    return s


@case(
    LISTS,
    theme="loop_control_flow",
    expect=lambda l: {"c": OneOf(REF, Raises(IAE, ONCE))} if not l else {},
)
def return_first_in_for(l):
    s = 0
    for c in l:
        s += c
        return s
    return s


@case(
    LISTS,
    theme="loop_control_flow",
    expect=lambda l: {"c": OneOf(REF, Raises(IAE, ONCE))} if not l else {},
)
def return_either_way_in_for(l):
    s = 0
    for c in l:
        s += c
        if c % 2 > 0:
            return s
        else:
            return -s
    return s


@case(
    NS,
    theme="loop_control_flow",
    expect=lambda n: {"c": OneOf(REF, Raises(IAE, ONCE))} if n == 0 else {},
)
def return_first_in_while(x):
    s = 0
    while x > 0:
        x -= 1
        s += x
        return s
    return s


@case(
    NS,
    theme="loop_control_flow",
    expect=lambda n: {"c": OneOf(REF, Raises(IAE, ONCE))} if n == 0 else {},
)
def return_either_way_in_while(x):
    s = 0
    while x > 0:
        x -= 1
        s += x
        if x % 2 > 0:
            return s
        else:
            return -s
    return s


@case(
    [([[], []],), ([[1], [2]],), ([[1, 2], [3, 4]],), ([[1, 2, 3], [4, 5, 6]],)],
    theme="loop_control_flow",
)
def continue_in_inner_for(m):
    s = 0
    for row in m:
        for c in row:
            if c % 2 > 0:
                continue
            s += c
    return s


@case(
    [([[], []],), ([[1], [2]],), ([[2, 1], [4, 4]],), ([[1, 2, 3], [4, 5, 6]],)],
    theme="loop_control_flow",
)
def break_in_inner_for(m):
    s = 0
    for row in m:
        for c in row:
            if c % 2 > 0:
                break
            s += c
    return s


@case(
    [([[1, 2], [3, 4]],), ([[2, 4], [6, 1]],)],
    theme="loop_control_flow",
    tensors=lambda m: ([rt.constant(r) for r in m],),
)
def break_in_inner_for_list_of_tensors(m):
    s = 0
    for row in m:
        for c in row:
            if c % 2 > 0:
                break
            s += c
    return s


@case([([[1, 2], [3, 4]],), ([[2, 4], [6, 1]],)], theme="loop_control_flow")
def break_or_continue_in_inner_for(m):
    s = 0
    for row in m:
        for c in row:
            if c % 2 > 0:
                break
            else:
                continue
            s += c
    return s


@case([(x, y) for x in (0, 2, 4) for y in (0, 3)], theme="loop_control_flow")
def continue_in_inner_while(x, y):
    s = 0
    while x > 0:
        x -= 1
        while y > 0:
            y -= 1
            if (x + y) % 2 > 0:
                continue
            s += x + y
    return s


@case([(x, y) for x in (0, 2, 4) for y in (0, 3)], theme="loop_control_flow")
def break_in_inner_while(x, y):
    s = 0
    while x > 0:
        x -= 1
        while y > 0:
            y -= 1
            if ((x + y) % 2) == 0:
                break
            s += x + y
    return s


@case([(x, y) for x in (1, 4) for y in (0, 3)], theme="loop_control_flow")
def break_or_continue_in_inner_while(x, y):
    s = 0
    while x > 0:
        x -= 1
        while y > 0:
            y -= 1
            if (x + y) % 2 > 0:
                break
            else:
                continue
            s += x + y
    return s


@case([(x, y) for x in (0, 3) for y in (1, 4)], theme="loop_control_flow")
def break_then_cond_in_for(x, y):
    for i in range(y):
        if i == 2:
            break
        if x > 0:
            x -= 1
    return x


@case(NS, theme="loop_control_flow")
def break_then_cond_in_while(x):
    while x > 0:
        if x == 2:
            break
        if x > 0:
            x -= 1
    return x


@case(NS, theme="loop_control_flow")
def two_breaks_in_while(n):
    s = 1
    i = 0
    while i < n:
        i += 1
        if i > 10 * n:
            break
        if i == n:
            break
        s = s * 10 + i
    return i, s


@case([(5,), (0,)], theme="loop_control_flow")
def break_and_continue_same_loop(n):
    s = 0
    i = 0
    while i < 10:
        i += 1
        if i % 2 == 0:
            continue
        if i > n:
            break
        s += i
    return s


@case([(3,), (8,)], theme="loop_control_flow")
def return_from_nested_loops(n):
    for i in range(5):
        for j in range(5):
            if i * j > n:
                return i * 10 + j
    return -1


@case([([1, 2, 3],), ([2, 4],)], theme="loop_control_flow", modes="abd")
def tensor_break_in_python_for(l):
    s = 0
    for c in l:
        if rt.greater(c % 2, 0):
            break
        s += c
    return s


@case(
    [([1, 2, 3],), ([2, 4],)],
    theme="loop_control_flow",
    tensors=lambda l: (l,),
    modes="c",
    note="TF: NotImplementedError; this project documents staging the rest under cond",
    expect={"c": OneOf(REF, Raises(NotImplementedError, "not supported in Python for"))},
)
def tensor_break_in_python_for_graph(l):
    s = 0
    for c in l:
        if rt.greater(c % 2, 0):
            break
        s += c
    return s


@case([(x, y) for x in (-1, 1) for y in (-1, 1)], theme="nested_control_flow")
def independent_nested_ifs(x, y):
    z = 0
    if x > 0:
        if y > 0:
            z = x + y
    return z


@case([(-1,), (1,)], theme="nested_control_flow")
def dependent_inner_if(x):
    y = 0
    if x > 0:
        y = -2 * x
        if y > 0:
            x = -3 * x
    else:
        y = 4 * x
    return x, y


@case([(-1,), (1,), (5,)], theme="nested_control_flow")
def dependent_imbalanced_inner_if(x):
    y = 0
    if x > 0:
        if x < 3:
            y = -2 * x
            x = -3 * x
    return x, y


@case([(0,), (1,)], theme="nested_control_flow", modes="ad")
def nested_if_mutates_global(x):
    global _counter
    _counter = None
    y = 0
    if x > 0:
        if x > 0:
            if _counter is None:
                _counter = 1
            else:
                _counter += 1
            y += _counter
    return y


@case(
    [(range(a), range(b)) for a in (0, 1, 2) for b in (0, 2)],
    theme="nested_control_flow",
    tensors=lambda a, b: (rt.range(len(a)), rt.range(len(b))),
)
def independent_inner_for(a, b):
    p = 0
    for _ in a:
        tmp = b
        for j in tmp:
            p += j
    return p


@case([(a, b) for a in (0, 1, 2) for b in (0, 2)], theme="nested_control_flow")
def independent_inner_while(a, b):
    p = 0
    while a > 0:
        tmp = b
        while tmp > 0:
            p += 1
            tmp -= 1
        a -= 1
    return p


@case(
    [(range(a), range(b)) for a in (0, 1, 2) for b in (0, 2)],
    theme="nested_control_flow",
    tensors=lambda a, b: (rt.range(len(a)), rt.range(len(b))),
)
def dependent_inner_for(a, b):
    r = 1
    s = 0
    for _ in a:
        r += s
        tmp = b
        for j in tmp:
            s += j
    return r


@case([(a, b) for a in (0, 1, 4) for b in (0, 1, 3)], theme="nested_control_flow")
def dependent_inner_while(a, b):
    r = 1
    while a > 0:
        r += 1
        tmp = b
        while tmp > 0:
            a -= 1
            tmp -= 1
        a -= 1
    return r


@case(
    [(range(n),) for n in (0, 1, 2, 5)],
    theme="nested_control_flow",
    tensors=lambda a: (rt.range(len(a)),),
)
def if_in_for(a):
    k = 0
    for i in a:
        if i % 2 > 0:
            j = i // 2
            k += j
    return k


@case([(0,), (4,), (10,)], theme="nested_control_flow")
def continue_in_name_scope(x):
    z = 0
    while x > 0:
        with rt.name_scope("body"):
            x = x - 1
            if x < 5:
                continue
            z = z + 1
    return z


@case([(0,), (4,), (10,)], theme="nested_control_flow")
def break_in_name_scope(x):
    z = 0
    while x > 0:
        with rt.name_scope("body"):
            x = x - 1
            if x < 5:
                break
            z = z + 1
    return z


@case(LISTS, theme="loop_scoping")
def for_local_temp(l):
    s = 0
    for i in l:
        x = i + 2
        s = s * 10 + x
    return s


@case(NS, theme="loop_scoping")
def while_local_temp(x):
    s = 0
    while x > 0:
        y = x + 2
        s = s * 10 + y
        x -= 1
    return s


@case([([],), ([1],), ([1, 2],)], theme="loop_scoping", modes="ad")
def for_initializes_local_python(l):
    s = 0
    for i in l:
        if i == l[0]:
            x = 0
        else:
            x += 1
        s = s * 10 + x
    return s


@case(NS, theme="loop_scoping", modes="ad")
def while_initializes_local_python(x):
    s = 0
    while x > 0:
        if x > 0:
            y = 0
        else:
            y += 1
        s = s * 10 + y
        x -= 1
    return s


@case([(1,), (2,)], theme="loop_scoping", tensors=(True,))
def for_defines_iterate_rt_range(n):
    s = 0
    for i in rt.range(n):
        s = s * 10 + i
    return i, s


@case([(l,) for l in ([], [1], [1, 2])], theme="loop_scoping")
def for_reuses_iterate(l):
    i = 7
    s = 0
    for i in l:
        s = s * 10 + i
    return i, s


@case([(n,) for n in (0, 1, 2)], theme="loop_scoping")
def for_reuses_iterate_range(n):
    i = 7
    s = 0
    for i in range(n):
        s = s * 10 + i
    return i, s


@case([(l,) for l in ([], [1], [1, 2])], theme="loop_scoping")
def for_alters_iterate(l):
    i = 7
    s = 0
    for i in l:
        i = 3 * i + 1
        s = s * 10 + i
    return i, s


@case([(n,) for n in (0, 1, 2)], theme="loop_scoping")
def for_alters_iterate_rt_range(n):
    i = 7
    s = 0
    for i in rt.range(n):
        i = 3 * i + 1
        s = s * 10 + i
    return i, s


@case(
    [(n, fn) for n in (0, 1, 2) for fn in CALLEES],
    theme="loop_with_function_call",
    tensors=lambda n, fn: (rt.constant(n), fn),
)
def while_call_in_test(n, fn):
    i = 0
    s = 0
    while i < fn(n):
        s = s * 10 + i
        i += 1
    return s


@case(
    [(l, fn) for l in ([], [1], [1, 2]) for fn in (_double, lambda x: x * 1, _quad.method)],
    theme="loop_with_function_call",
    tensors=lambda l, fn: (rt.constant(l, dtype=rt.int32), fn),
    eager_ref=True,
)
def for_call_in_iterable(l, fn):
    s = 0
    for i in fn(l):
        s = s * 10 + i
    return s


@case([(n,) for n in (0, 1, 2)], theme="loop_with_function_call")
def while_local_call_in_test(n):
    def local_fn(x):
        return x * 3

    i = 0
    s = 0
    while i < local_fn(n):
        s = s * 10 + i
        i += 1
    return s


@case(
    [(n, fn) for n in (0, 1, 2) for fn in CALLEES],
    theme="loop_with_function_call",
    tensors=lambda n, fn: (rt.constant(n), fn),
)
def while_call_in_body(n, fn):
    i = 0
    s = 0
    while i < n:
        s = s * 10 + fn(i)
        i += 1
    return s


@case(
    [(l, fn) for l in ([], [1], [1, 2]) for fn in CALLEES],
    theme="loop_with_function_call",
    tensors=lambda l, fn: (rt.constant(l, dtype=rt.int32), fn),
)
def for_call_in_body(l, fn):
    s = 0
    for i in l:
        s = s * 10 + fn(i)
    return s


@case([(l,) for l in ([], [1], [1, 2])], theme="loop_with_function_call")
def for_local_call_in_body(l):
    def local_fn(x):
        return x * 3

    s = 0
    for i in l:
        s = s * 10 + local_fn(i)
    return s


@case([(n,) for n in (0, 1, 2)], theme="loop_with_function_call")
def while_closure_reads_loop_var(n):
    i = 0

    def i_plus_two():
        return i + 2

    i = 0
    s = 0
    while i < n:
        s = s * 10 + i_plus_two()
        i += 1
    return s


@case([(l,) for l in ([], [1], [1, 2])], theme="loop_with_function_call")
def for_closure_reads_target(l):
    i = 0

    def i_plus_two():
        return i + 2

    s = 0
    for i in l:
        s = s * 10 + i_plus_two()
    return s, i


@case([(n,) for n in (0, 1, 2)], theme="loop_with_function_call")
def while_lambda_reads_loop_var(n):
    i = 0
    s = 0
    i_plus_two = lambda: i + 2  # noqa: E731
    while i < n:
        s = s * 10 + i_plus_two()
        i += 1
    return s


@case([(l,) for l in ([], [1], [1, 2])], theme="loop_with_function_call")
def for_lambda_reads_target(l):
    i = 0
    s = 0
    i_plus_two = lambda: i + 2  # noqa: E731
    for i in l:
        s = s * 10 + i_plus_two()
    return s, i


test_program = programs.test()
