"""Subscripts and attributes as the state of staged control flow (TensorFlow's
composite_names_in_control_flow tests): ``x['b']``, ``y[0]``, ``o.v``, ``x[k]`` written in a
tensor-dependent branch or loop are carried like variables.
"""

import runtime as rt
from tests.autograph.conformance.harness import Programs, Raises

programs = Programs()
case = programs.case

IAE = rt.errors.InvalidArgumentError


A01 = [(0,), (1,)]


SIGNS = [(-2,), (3,)]


class _Box:
    pass


class _Counter:
    def __init__(self):
        self.total = 0

    def add_up(self, n):
        for i in rt.range(n):
            self.total += i
        return self.total


@case(A01, theme="composite_names")
def if_dict_key_both_branches(a):
    x = {"a": a}
    if x["a"] > 0:
        x["b"] = 1
    else:
        x["b"] = -1
    return x


@case(SIGNS, theme="composite_names")
def if_dict_key_read_after(a):
    x = {"a": a}
    if x["a"] > 0:
        x["b"] = 1
    else:
        x["b"] = -1
    return x["b"]


@case(A01, theme="composite_names")
def if_list_item_both_branches(a):
    x = [a, 0]
    if x[0] > 0:
        x[1] = 1
    else:
        x[1] = -1
    return x


@case(SIGNS, theme="composite_names")
def if_list_item_read_after(a):
    x = [a, 0]
    if x[0] > 0:
        x[1] = 10
    return x[1] + 1


@case(
    A01,
    theme="composite_names",
    expect={"c": Raises(ValueError, r"'x\['b'\]' must also be initialized in the (else|false)")},
)
def if_dict_key_only_in_if(a):
    x = {"a": a}
    if x["a"] > 0:
        x["b"] = 1
    return x


@case(
    A01,
    theme="composite_names",
    expect={"c": Raises(ValueError, r"'x\['b'\]' must also be initialized in the (main|true)")},
)
def if_dict_key_only_in_else(a):
    x = {"a": a}
    if x["a"] > 0:
        pass
    else:
        x["b"] = 1
    return x


@case(
    A01,
    theme="composite_names",
    expect={
        "c": Raises(ValueError, r"'x\['a'\]\['b'\]' must also be initialized in the (else|false)")
    },
)
def if_nested_dict_key_only_in_if(a):
    x = {"a": {"a": a}}
    if x["a"]["a"] > 0:
        x["a"]["b"] = 1
    return x


@case(
    A01,
    theme="composite_names",
    expect={
        "c": Raises(ValueError, r"'x\['a'\]\['b'\]' must also be initialized in the (main|true)")
    },
)
def if_nested_dict_key_only_in_else(a):
    x = {"a": {"a": a}}
    if x["a"]["a"] > 0:
        pass
    else:
        x["a"]["b"] = 1
    return x


@case(A01, theme="composite_names", ref_raises=KeyError, expect={"c": Raises(KeyError, "'b'")})
def if_missing_outer_key(a):
    x = {"a": {"a": a}}
    if x["a"]["a"] > 0:
        x["b"]["a"] = 1
    else:
        x["b"]["a"] = -1
    return x


@case([(1,)], theme="composite_names", ref_raises=KeyError, expect={"c": Raises(KeyError, "'b'")})
def if_missing_outer_key_one_branch(a):
    x = {"a": {"a": a}}
    if x["a"]["a"] > 0:
        x["b"]["a"] = 1
    return x


@case([(x, a) for x in (0, 1, 2) for a in (3, 7)], theme="composite_names", tensors=(True, False))
def while_dict_value_counts(x, a):
    y = {"a": a, "b": 0}
    while x > 0:
        x -= 1
        y["a"] += 1
    return y


@case([(x, a) for x in (0, 1, 2) for a in (3, 7)], theme="composite_names", tensors=(True, False))
def while_list_item_counts(x, a):
    y = [a, 0]
    while x > 0:
        x -= 1
        y[0] += 1
    return y


@case([(0, b) for b in (3, 4, 5, 6)], theme="composite_names", tensors=(False, True))
def while_test_on_dict_value(a, b):
    y = {"a": a, "b": b}
    while y["b"] <= 10:
        y["a"] += 1
        y["b"] *= 2
    return y


@case([(0, b) for b in (3, 4, 5, 6)], theme="composite_names", tensors=(False, True))
def while_test_on_list_item(a, b):
    y = [a, b]
    while y[1] <= 10:
        y[0] += 1
        y[1] *= 2
    return y


@case(
    [(5,), (10,), (11,)],
    theme="composite_names",
    expect=lambda b: (
        {"c": Raises(IAE, r"loop must iterate at least once to initialize y\[\\'a\\'\]")}
        if b > 10
        else {}
    ),
    ref_raises=KeyError,
)
def while_creates_dict_key(b):
    y = {"b": b}
    while y["b"] <= 10:
        y["a"] = y["b"] + 1
        y["b"] *= 2
    return y["a"], y["b"]


@case([(n,) for n in (0, 1, 2)], theme="composite_names", tensors=(True,))
def for_dict_value_accumulates(n):
    x = 1
    y = {"a": 1, "b": 1}
    for i in range(n):
        x -= 1
        y["a"] += i
    return y


@case([(n,) for n in (0, 1, 2)], theme="composite_names", tensors=(True,))
def for_list_item_accumulates(n):
    x = 1
    y = [1, 1]
    for i in range(n):
        x -= 1
        y[0] += i
    return y


@case([(n,) for n in (0, 1, 3)], theme="composite_names", tensors=(True,))
def for_dict_value_state_only(n):
    y = {"a": 1, "b": 1}
    for _ in range(n):
        y["a"] += 1
    return y


@case([(n,) for n in (0, 1, 3)], theme="composite_names", tensors=(True,))
def for_list_item_state_only_rt_range(n):
    y = [0]
    for _ in rt.range(n):
        y[0] += 1
    return y[0]


@case(
    [(n,) for n in (1, 2, 0)],
    theme="composite_names",
    tensors=(True, False),
    ref_raises=KeyError,
    expect=lambda n: (
        {"c": Raises(IAE, r"loop must iterate at least once to initialize y\[\\'a\\'\]")}
        if n == 0
        else {}
    ),
)
def for_creates_dict_key(n):
    x = 0
    y = {}
    for i in range(n):
        x -= i
        y["a"] = x
    return y["a"]


@case(SIGNS, theme="composite_names")
def if_dict_existing_key_augmented(a):
    x = {"a": a, "b": 0}
    if a > 0:
        x["b"] += 5
    return x["b"]


@case([(n,) for n in (0, 2, 4)], theme="composite_names")
def while_two_list_items(n):
    y = [0, 0]
    while y[0] < n:
        y[0] += 1
        y[1] += y[0]
    return y


@case([(n,) for n in (0, 3)], theme="composite_names")
def for_nested_dict_value(n):
    y = {"s": {"t": 0}}
    for i in rt.range(n):
        y["s"]["t"] += i
    return y["s"]["t"]


@case(SIGNS, theme="composite_names")
def if_object_attribute(a):
    o = _Box()
    o.v = 0
    if a > 0:
        o.v = 1
    else:
        o.v = -1
    return o.v


@case([(n,) for n in (0, 1, 4)], theme="composite_names")
def for_object_attribute_counter(n):
    b = _Box()
    b.count = 0
    for i in rt.range(n):
        b.count += i
    return b.count


@case([(n,) for n in (0, 1, 4)], theme="composite_names")
def while_object_attribute_test(n):
    b = _Box()
    b.k = 0
    while b.k < n:
        b.k += 1
    return b.k


@case(SIGNS, theme="composite_names")
def if_nested_attribute(a):
    o = _Box()
    o.inner = _Box()
    o.inner.v = 5
    if a > 0:
        o.inner.v = a * 2
    return o.inner.v


@case(SIGNS, theme="composite_names")
def if_attribute_of_dict_value(a):
    o = _Box()
    o.d = {"k": 1}
    if a > 0:
        o.d["k"] = 2
    else:
        o.d["k"] = 3
    return o.d["k"]


@case([(n,) for n in (0, 3)], theme="composite_names")
def method_attribute_in_loop(n):
    c = _Counter()
    return c.add_up(n)


@case(SIGNS, theme="composite_names")
def if_list_item_via_name_index(a):
    x = [0, 0, 0]
    k = 1
    if a > 0:
        x[k] = 7
    return x[1]


@case([(n,) for n in (0, 3)], theme="composite_names")
def while_tuple_in_dict(n):
    d = {"p": (0, 1)}
    i = 0
    while i < n:
        d["p"] = (d["p"][1], d["p"][0] + d["p"][1])
        i += 1
    return d["p"]


@case([(n,) for n in (0, 2)], theme="composite_names")
def for_dict_value_break(n):
    y = {"s": 0}
    for i in rt.range(10):
        if i > n:
            break
        y["s"] += i
    return y["s"]


@case(SIGNS, theme="composite_names")
def if_list_item_read_in_branch(a):
    x = [a, 1]
    if x[0] > 0:
        x[1] = x[0] + x[1]
    else:
        x[1] = x[1] - x[0]
    return x[1]


# --- found by the random programs ---------------------------------------------------------------


@case([(7,), (3,), (-2,), (-9,)], theme="composite_names")
def elif_chain_writes_an_item_only_later_branches_name(x):
    d = {"p": 0}
    if x > 5:
        x = x + 1
    elif x > 0:
        d["p"] = 2
    elif x > -5:
        d["p"] = 3
    return d["p"] + x


test_program = programs.test()
