"""Variables that only a loop gives a value (TensorFlow's loop_created_variables and
loop_scoping tests): a staged loop that runs zero times fails at run time, naming them.
"""

import runtime as rt
from tests.autograph.conformance.harness import OneOf, Programs, Raises, Value

programs = Programs()
case = programs.case

IAE = rt.errors.InvalidArgumentError


ONCE = "loop must iterate at least once to initialize"


N012 = [(0,), (1,), (2,)]


def _zero_raises(n):
    return {"c": Raises(IAE, ONCE)} if n == 0 else {}


def _zero_raises_in_graphs(n):
    return {"cd": Raises(IAE, ONCE)} if n == 0 else {}


def _empty_raises(l):
    return {"c": Raises(IAE, ONCE)} if len(l) == 0 else {}


_v = rt.Variable(0)


LISTS = [([],), ([1],), ([1, 2],), ([1, 2, 3, 4],)]


NS = [(0,), (1,), (2,), (4,)]


_counter = None


def _double(x):
    return x * 2


class _Quad:
    def method(self, x):
        return x * 4


_quad = _Quad()


CALLEES = (_double, lambda x: x * 1, _quad.method, abs)


@case(N012, theme="loop_created_variables", ref_raises=UnboundLocalError, expect=_zero_raises)
def while_creates_static_shape(n):
    i = 0
    while i < n:
        v = rt.zeros([1, 2, 3])
        i += 1
    return v


@case(N012, theme="loop_created_variables", ref_raises=UnboundLocalError, expect=_zero_raises)
def while_creates_dynamic_shape(n):
    i = 0
    while i < n:
        v = rt.zeros([1, rt.random.uniform((), i, i + 1, rt.int32), 2])
        i += 1
    return v


@case(N012, theme="loop_created_variables", ref_raises=UnboundLocalError, expect=_zero_raises)
def while_creates_dynamic_rank(n):
    i = 0
    while i < n:
        v = rt.zeros(rt.range(rt.random.uniform((), i, i + 1, rt.int32)))
        i += 1
    return v


@case(N012, theme="loop_created_variables", ref_raises=UnboundLocalError, expect=_zero_raises)
def while_creates_range_of_counter(n):
    i = 0
    while i < n:
        v = rt.range(i)
        i += 1
    return v


@case(N012, theme="loop_created_variables", ref_raises=UnboundLocalError, expect=_zero_raises)
def while_creates_dict(n):
    i = 0
    while i < n:
        v = {"a": rt.zeros([1, 2, 3]), "b": rt.ones([1, 2, 3])}
        i += 1
    return v["a"], v["b"]


@case(N012, theme="loop_created_variables", ref_raises=UnboundLocalError, expect=_zero_raises)
def while_creates_dict_dynamic(n):
    i = 0
    while i < n:
        v = {
            "a": rt.zeros([1, rt.random.uniform((), i, i + 1, rt.int32)]),
            "b": rt.ones([rt.random.uniform((), i, i + 1, rt.int32), 2]),
        }
        i += 1
    return v["a"], v["b"]


@case(N012, theme="loop_created_variables", ref_raises=UnboundLocalError, expect=_zero_raises)
def while_creates_tensor_array(n):
    i = 0
    while i < n:
        ta = rt.TensorArray(rt.int32, size=0, dynamic_size=True).write(0, i).write(1, i * 2)
        i += 1
    return ta.stack()


@case([(0,), (1,), (4,)], theme="loop_created_variables")
def while_creates_tensor_array_written_in_an_if(n):
    total = 0
    i = 0
    while i < n:
        ta = rt.TensorArray(rt.int32, size=0, dynamic_size=True)
        if i % 2 == 0:
            ta = ta.write(0, i).write(1, 1)
        else:
            ta = ta.write(0, i * 10)
        total += rt.reduce_sum(ta.stack())
        i += 1
    return total


@case(N012, theme="loop_created_variables", ref_raises=UnboundLocalError, expect=_zero_raises)
def while_creates_scalar_from_counter(n):
    i = 0
    while i < n:
        last = i * 10
        i += 1
    return last


@case(N012, theme="loop_created_variables", ref_raises=UnboundLocalError, expect=_zero_raises)
def for_range_creates_scalar(n):
    for i in range(n):
        last = i + 100
    return last


@case(
    N012,
    theme="loop_created_variables",
    ref_raises=UnboundLocalError,
    expect=_zero_raises_in_graphs,
)
def for_rt_range_creates_float(n):
    for i in rt.range(n):
        y = rt.cast(i, rt.float32) * 0.5 + 1.0
    return y


@case(
    [([],), ([3],), ([3, 4],)],
    theme="loop_created_variables",
    ref_raises=UnboundLocalError,
    expect=_empty_raises,
)
def for_tensor_creates_var(l):
    for x in l:
        y = x * 2
    return y


@case(
    [([],), ([3, 4],)],
    theme="loop_created_variables",
    ref_raises=UnboundLocalError,
    expect=_empty_raises,
)
def for_tensor_creates_tuple(l):
    for x in l:
        pair = (x, x + 1)
    return pair


@case(N012, theme="loop_created_variables", ref_raises=UnboundLocalError, expect=_zero_raises)
def while_with_break_creates_var(n):
    i = 0
    while i < n:
        found = i * 3
        i += 1
        if i > 5:
            break
    return found


@case(N012, theme="loop_created_variables", ref_raises=UnboundLocalError, expect=_zero_raises)
def for_creates_var_used_in_arith_after(n):
    total = 1
    for i in range(n):
        step = i + 1
    return total + step


@case(
    [(0, 1), (2, 0), (2, 3)],
    theme="loop_created_variables",
    ref_raises=UnboundLocalError,
    expect=lambda a, b: {"c": Raises(IAE, ONCE)} if a == 0 or b == 0 else {},
)
def nested_loops_create_var(a, b):
    for i in range(a):
        for j in range(b):
            cell = i * 10 + j
    return cell


@case([(0,), (3,)], theme="loop_created_variables")
def zero_iteration_with_initialized_var_is_fine(n):
    last = -1
    for i in range(n):
        last = i
    return last


@case([(0,), (3,)], theme="loop_created_variables")
def created_var_not_used_after_is_fine(n):
    s = 0
    for i in range(n):
        t = i * 2
        s += t
    return s


@case(
    N012,
    theme="loop_created_variables",
    ref_raises=UnboundLocalError,
    expect=_zero_raises_in_graphs,
)
def created_in_staged_if_inside_loop(n):
    for i in rt.range(n):
        if i >= 0:
            m = i + 1
        else:
            m = i - 1
    return m


@case(
    [(0,), (1,), (2,)],
    theme="loop_basic",
    ref_raises=UnboundLocalError,
    expect=lambda n: {"c": Raises(IAE, ONCE)} if n == 0 else {},
)
def while_creates_var(n):
    i = 0
    while i < n:
        i = n + 1
        j = i + 1
    return i, j


@case(
    [([],), ([1],), ([1, 2],)],
    theme="loop_basic",
    ref_raises=UnboundLocalError,
    expect=lambda l: {"c": OneOf(Raises(IAE, ONCE), Value(0))} if not l else {},
)
def for_creates_target(l):
    for i in l:
        pass
    return i


@case(
    [(1,), (2,), (0,)],
    theme="nested_control_flow",
    ref_raises=UnboundLocalError,
    expect=lambda n: {"c": Raises(IAE, ONCE)} if n == 0 else {},
)
def loop_sets_var_in_both_branches(n):
    for i in range(n):
        if i == 0:
            a = 1
        else:
            a = 2
    return a


@case(
    [([1],), ([1, 2],), ([],)],
    theme="loop_scoping",
    ref_raises=UnboundLocalError,
    expect=lambda l: {"c": Raises(IAE, ONCE)} if not l else {},
)
def for_defines_local(l):
    for i in l:
        x = i + 2
    return x


@case(
    [(1,), (2,), (0,)],
    theme="loop_scoping",
    ref_raises=UnboundLocalError,
    expect=lambda n: {"c": Raises(IAE, ONCE)} if n == 0 else {},
)
def while_defines_local(x):
    while x > 0:
        y = x + 2
        x -= 1
    return y


@case(
    [(0,)],
    theme="loop_scoping",
    tensors=(True,),
    ref_raises=UnboundLocalError,
    expect={"cd": OneOf(Value((0, 0)), Raises(IAE))},
    note="TF returns (0, 0) here on purpose (no assert op for the iterate)",
)
def for_defines_iterate_rt_range_empty(n):
    s = 0
    for i in rt.range(n):
        s = s * 10 + i
    return i, s


# --- found by the test-strength review and the random programs ---------------------------------


@case([(2,), (3,), (5,)], theme="loop_basic")
def loop_test_pops_a_list(n):
    stack = [1, 2, 3, 4]
    count = 0
    while stack.pop() > n:
        count += 1
    return count, len(stack)


@case(
    [(0, 1), (0, 0), (3, 0), (3, 1)],
    theme="loop_created_variables",
    ref_raises=UnboundLocalError,
    expect=lambda n, k: {"cd": Raises(IAE, ONCE)} if n == 0 and k <= 0 else {},
)
def created_in_loop_read_on_some_paths(n, k):
    for i in rt.range(n):
        w = i * 2
    if k > 0:
        return -1
    return w


@case(
    [(0, 2), (2, 0), (2, 3)],
    theme="loop_created_variables",
    ref_raises=UnboundLocalError,
    expect=lambda a, b: {"c": Raises(IAE, ONCE)} if a == 0 or b == 0 else {},
)
def created_in_nested_loop_then_staged_if(a, b):
    for i in range(a):
        for j in range(b):
            cell = i * 10 + j
    if a > 1:
        cell = cell + 1
    return cell


@case(
    [(0,), (1,), (2,)],
    theme="nested_control_flow",
    ref_raises=UnboundLocalError,
    expect={"c": Raises(ValueError, "'a' must be defined before the loop")},
    note="TensorFlow's loop_initializing_variant_variable: the next value of `a` needs one "
    "the loop has not given it yet",
)
def loop_initializing_variant_variable(n):
    for i in range(n):
        if i == 0:
            a = 1
        else:
            a = a + 1
    return a


@case(
    [(0,), (1,), (2,)],
    theme="nested_control_flow",
    ref_raises=UnboundLocalError,
    expect=_zero_raises,
    note="TensorFlow's loop_initializing_invariant_variable: legal, checked when the graph runs",
)
def loop_initializing_invariant_variable(n):
    for i in range(n):
        if i == 0:
            a = 1
        else:
            a = 2
    return a


test_program = programs.test()
