"""A call of the user's own function that changes a list or an object while a staged loop or
``if`` is traced: never a silently wrong answer, nor a loop that never ends.

Each program is checked against plain Python: where the graph can give Python's answer it
must; where it cannot (the change would happen once, at trace time), the error names the
variable, the call, and the user's line.
"""

import inspect
import types

import pytest

import autograph as ag
import runtime as rt
from autograph.operators import side_effects


def line_of(fn, marker):
    lines, first = inspect.getsourcelines(fn)
    (hit,) = [first + i for i, text in enumerate(lines) if text.rstrip().endswith(marker)]
    return hit


def staged_error(fn, *args):
    with pytest.raises(ValueError) as caught:
        ag.function(fn)(*args)
    return str(caught.value)


def at_line(message, fn, marker):
    return f'File "{__file__}", line {line_of(fn, marker)}, in {fn.__name__}' in message


class Box:
    pass


def pop(stack):
    return stack.pop()


def push(items, item):
    items.append(item)


def bump(box):
    box.count = box.count + 1


# --- the two reported programs ---------------------------------------------------------------


def pops_in_while(n):
    stack = [1, 2, 3, 4, 5]
    total = 0
    i = 0
    while i < n:
        x = pop(stack)  # the call
        total += x
        i += 1
    return total


def test_a_list_popped_by_a_call_in_a_staged_while_is_an_error_at_the_call():
    assert pops_in_while(3) == 12
    assert ag.to_graph(pops_in_while)(rt.constant(3)) == 12  # eager: Python's loop
    message = staged_error(pops_in_while, rt.constant(3))
    assert message.startswith(
        "'stack' (a Python list) was changed by a call of pop() while the body of a "
        "tensor-dependent loop was traced: in the graph that change happens once, when the loop "
        "is traced, not once per iteration. Make it loop state"
    )
    assert at_line(message, pops_in_while, "# the call")


def step(b):
    b.v = b.v + 1
    return b.v < 5


def steps_in_test(n):
    b = Box()
    b.v = n
    c = 0
    while step(b):  # the test
        c += 1
    return c


def test_an_attribute_changed_by_a_call_in_a_staged_test_is_an_error_not_a_hang():
    assert steps_in_test(0) == 4
    message = staged_error(steps_in_test, rt.constant(0))
    assert message.startswith(
        "'b.v' (an attribute of a Box) was changed by a call of step() while the body of a "
        "tensor-dependent loop was traced"
    )
    assert at_line(message, steps_in_test, "# the test")


# --- more of the same kind ------------------------------------------------------------------


def appends_in_for(n):
    found = []
    for i in rt.range(n):
        push(found, i)  # the call
    return len(found)


def test_a_list_appended_to_by_a_call_in_a_staged_for_is_an_error():
    message = staged_error(appends_in_for, rt.constant(3))
    assert message.startswith("'found' (a Python list) was changed by a call of push()")
    assert at_line(message, appends_in_for, "# the call")


def bumps_in_for(n):
    box = Box()
    box.count = 0
    for _ in rt.range(n):
        bump(box)  # the call
    return box.count


def test_an_attribute_set_by_a_call_in_a_staged_body_is_an_error():
    assert bumps_in_for(3) == 3
    message = staged_error(bumps_in_for, rt.constant(3))
    assert message.startswith(
        "'box.count' (an attribute of a Box) was changed by a call of bump() while the body"
    )
    assert at_line(message, bumps_in_for, "# the call")


def logs_in_branches(x):
    log = []
    if x > 0:
        push(log, "positive")  # the call
    else:
        push(log, "not positive")
    return len(log)


def test_a_list_changed_by_a_call_in_a_staged_branch_is_an_error():
    assert logs_in_branches(1) == 1
    message = staged_error(logs_in_branches, rt.constant(1))
    assert message.startswith(
        "'log' (a Python list) was changed by a call of push() while a branch of a "
        "tensor-dependent `if` was traced: both branches are traced"
    )
    assert at_line(message, logs_in_branches, "# the call")


def records(d, x):
    d["last"] = x


def records_in_while(n):
    seen = {}
    i = 0
    while i < n:
        records(seen, i)
        i += 1
    return seen["last"]


def test_a_dict_changed_by_a_call_in_a_staged_loop_is_an_error():
    message = staged_error(records_in_while, rt.constant(2))
    assert message.startswith("'seen' (a Python dict) was changed by a call of records()")


def nested_helper(stack):
    return pop(stack) * 10


def pops_through_two_calls(n):
    stack = [1, 2, 3]
    total = 0
    for _ in rt.range(n):
        total += nested_helper(stack)
    return total


def test_a_change_two_calls_deep_names_the_function_that_made_it():
    message = staged_error(pops_through_two_calls, rt.constant(2))
    assert message.startswith("'stack' (a Python list) was changed by a call of pop()")
    assert at_line(message, nested_helper, "return pop(stack) * 10")


def sets_with_setattr(n):
    box = Box()
    box.count = 0
    for i in rt.range(n):
        setattr(box, "count", i)  # noqa: B010 (a builtin the converter cannot see into)
    return box.count


def test_a_change_no_call_of_converted_code_made_is_an_error_at_the_loop():
    message = staged_error(sets_with_setattr, rt.constant(2))
    assert message.startswith(
        "'box.count' (an attribute of a Box) was changed by code the converter cannot see"
    )
    assert at_line(message, sets_with_setattr, "for i in rt.range(n):")


def guarded_pops(stack, n):
    try:
        for _ in rt.range(n):
            pop(stack)
    except ValueError:
        return "caught"
    return "not caught"


def test_the_error_passes_a_try_and_leaves_the_callers_list_as_it_was():
    stack = [1, 2, 3]
    with pytest.raises(ValueError, match="'stack' .* was changed by a call of pop"):
        ag.function(guarded_pops)(stack, rt.constant(2))
    assert stack == [1, 2, 3]


def test_the_error_under_jax_jit_too():
    jax = pytest.importorskip("jax")
    with pytest.raises(ValueError, match="'found' .* was changed by a call of push"):
        jax.jit(ag.to_graph(appends_to_a_list_under_jit))(3)


def appends_to_a_list_under_jit(n):
    found = []
    i = 0
    while i < n:
        push(found, i)
        i += 1
    return i


# --- what stays as it was ----------------------------------------------------------------------


def peek(stack):
    return stack[-1]


def reads_in_loop(n):
    stack = [1, 2, 3]
    box = Box()
    box.count = 2
    total = 0
    for i in rt.range(n):
        total += peek(stack) * box.count + i
    return total


def test_calls_that_only_read_give_pythons_answer():
    assert ag.function(reads_in_loop)(rt.constant(3)).numpy() == reads_in_loop(3)


def pops_inline(n):
    stack = [1, 2, 3, 4, 5]
    total = 0
    i = 0
    while i < n:
        total += stack.pop()
        i += 1
    return total


def pops_and_keeps(n):
    stack = [1, 2, 3, 4, 5]
    total = 0
    i = 0
    while i < n:
        x = pop(stack)
        stack = stack  # assigned in the loop: loop state, a TensorList
        total += x
        i += 1
    return total


@pytest.mark.parametrize("fn", [pops_inline, pops_and_keeps])
def test_a_list_the_loop_carries_gives_pythons_answer(fn):
    assert ag.function(fn)(rt.constant(3)).numpy() == fn(3) == 12


def bumps_inline(n):
    box = Box()
    box.count = 0
    for _ in rt.range(n):
        box.count = box.count + 1
    return box.count


def test_an_attribute_the_loop_assigns_gives_pythons_answer():
    assert ag.function(bumps_inline)(rt.constant(3)).numpy() == bumps_inline(3)


TRACES = []


def log_trace(what):
    TRACES.append(what)


def logs_to_a_global(n):
    total = 0
    for i in rt.range(n):
        log_trace("body")
        total += i
    return total


def test_a_global_log_changes_while_tracing_as_documented():
    TRACES.clear()
    assert ag.function(logs_to_a_global)(rt.constant(4)).numpy() == 6
    assert TRACES == ["body"]


def test_a_list_of_an_enclosing_function_changes_while_tracing():
    calls = []

    def count(what):
        calls.append(what)

    def f(n):
        total = 0
        for i in rt.range(n):
            count("body")
            total += i
        return total

    assert ag.function(f)(rt.constant(4)).numpy() == 6
    assert len(calls) == 1


class Counter(rt.Module):
    def __init__(self):
        super().__init__()
        self.scale = None

    def __call__(self, x):
        if self.scale is None:  # built on the first call, as a layer is
            self.scale = rt.Variable(2)
        return x * self.scale


def uses_a_module_built_lazily(counter, n):
    total = 0
    for i in rt.range(n):
        total += counter(i)
    return total


def test_a_module_building_itself_in_a_staged_loop_is_left_alone():
    counter = Counter()
    assert ag.function(uses_a_module_built_lazily)(counter, rt.constant(4)).numpy() == 12
    assert counter.scale.numpy() == 2


class Dense:
    """A layer of the user's own class, not an ``rt.Module``: it builds its variable on its
    first call, inside the staged loop that calls it."""

    def __init__(self):
        self.kernel = None

    def __call__(self, x):
        if self.kernel is None:
            self.kernel = rt.Variable(2)
        if not hasattr(self, "biases"):
            self.biases = [rt.Variable(1)]
        return x * self.kernel + self.biases[0]


def test_an_object_of_the_users_building_its_variables_in_a_staged_loop_is_left_alone():
    layer = Dense()
    assert ag.function(uses_a_module_built_lazily)(layer, rt.constant(4)).numpy() == 16
    assert uses_a_module_built_lazily(Dense(), 4) == 16
    assert layer.kernel.numpy() == 2


def test_an_attribute_that_was_none_given_a_number_is_still_an_error():
    def sets(box):
        box.count = 1

    def sets_in_loop(n):
        box = Box()
        box.count = None
        for _ in rt.range(n):
            sets(box)  # the call
        return 0

    message = staged_error(sets_in_loop, rt.constant(2))
    assert message.startswith("'box.count' (an attribute of a Box) was changed by a call of")


def caches(box):
    box._cache = "filled"


def fills_a_private_cache(n):
    box = Box()
    total = 0
    for i in rt.range(n):
        caches(box)
        total += i
    return total


def test_private_attributes_are_left_alone():
    assert ag.function(fills_a_private_cache)(rt.constant(4)).numpy() == 6


def test_nothing_is_watched_when_no_statement_is_staged():
    assert pops_in_while(3) == ag.to_graph(pops_in_while)(3) == 12
    assert side_effects.WATCHES == []


class Accumulator:
    def __init__(self):
        self.items = []
        self.steps = 0

    def put(self, x):
        self.items.append(x)

    def tick(self):
        self.steps += 1

    def run(self, n):
        for _ in rt.range(n):
            self.tick()  # the call
        return self.steps


def adds_through_a_method(n):
    acc = Accumulator()
    for i in rt.range(n):
        acc.put(i)  # the call
    return len(acc.items)


def test_a_list_an_object_holds_changed_by_its_method_is_an_error():
    assert adds_through_a_method(3) == 3
    message = staged_error(adds_through_a_method, rt.constant(3))
    assert message.startswith(
        "'acc.items' (a Python list) was changed by a call of Accumulator.put() while the body"
    )
    assert at_line(message, adds_through_a_method, "# the call")


def test_an_attribute_of_self_changed_by_another_method_is_an_error():
    assert Accumulator().run(3) == 3
    message = staged_error(Accumulator().run, rt.constant(3))
    assert message.startswith(
        "'self.steps' (an attribute of an Accumulator) was changed by a call of Accumulator.tick()"
    )
    assert at_line(message, Accumulator.run, "# the call")


GLOBAL_BOX = Box()


def steps_a_global_in_test(n):
    GLOBAL_BOX.v = n
    c = 0
    while step(GLOBAL_BOX):  # the test
        c += 1
    return c


def test_a_global_given_a_tensor_of_the_loop_is_an_error_not_a_hang():
    assert steps_a_global_in_test(0) == 4
    message = staged_error(steps_a_global_in_test, rt.constant(0))
    assert message.startswith(
        "'GLOBAL_BOX.v' (an attribute of a Box, given a tensor of the traced code) was changed "
        "by a call of step() while the body of a tensor-dependent loop was traced"
    )
    assert at_line(message, steps_a_global_in_test, "# the test")
    assert not isinstance(GLOBAL_BOX.v, rt.SymbolicTensor) or GLOBAL_BOX.v.graph.outer_graph is None


def test_a_list_of_an_enclosing_function_given_a_tensor_of_the_loop_is_an_error():
    seen = []

    def keep(x):
        seen.append(x)

    def f(n):
        total = 0
        for i in rt.range(n):
            keep(i * 2)
            total += i
        return total

    with pytest.raises(ValueError, match=r"^'seen' \(a Python list, given a tensor of the traced"):
        ag.function(f)(rt.constant(4))
    assert seen == []


def bump_first(xs):
    xs[0] = xs[0] + 1


def bumps_a_carried_item(n):
    xs = [0, 5]
    for i in rt.range(n):
        xs[0] = xs[0] + i  # xs[0] is the loop's state
        bump_first(xs)
    return xs[0], xs[1]


def bumps_another_item(n):
    xs = [0, 5]
    for i in rt.range(n):
        xs[1] = xs[1] + i  # xs[1] is the loop's state, xs[0] is not
        bump_first(xs)  # the call
    return xs[0], xs[1]


def test_a_call_changing_an_item_the_loop_carries_gives_pythons_answer():
    got = ag.function(bumps_a_carried_item)(rt.constant(4))
    assert [t.numpy() for t in got] == list(bumps_a_carried_item(4)) == [10, 5]


def test_a_call_changing_an_item_the_loop_does_not_carry_is_an_error():
    message = staged_error(bumps_another_item, rt.constant(4))
    assert message.startswith("'xs' (a Python list) was changed by a call of bump_first()")
    assert at_line(message, bumps_another_item, "# the call")


def bumps_a_namespace(n):
    counts = types.SimpleNamespace(steps=0)
    for _ in rt.range(n):
        bump_steps(counts)  # the call
    return counts.steps


def bump_steps(counts):
    counts.steps += 1


def test_a_simple_namespace_is_watched_like_an_object_of_the_users():
    assert bumps_a_namespace(2) == 2
    message = staged_error(bumps_a_namespace, rt.constant(2))
    assert message.startswith("'counts.steps' (an attribute of a SimpleNamespace) was changed")
    assert at_line(message, bumps_a_namespace, "# the call")


def bump_second(xs):
    xs[1] = xs[1] + 1


def bumps_in_an_elif(x):
    xs = [0, 0]
    if x > 5:
        xs[1] = 10  # the if carries xs[1]; its elif does not
    elif x > 2:
        bump_second(xs)  # the call
    return xs[1]


def test_a_call_in_an_elif_changing_what_only_the_if_carries_is_an_error():
    assert bumps_in_an_elif(3) == 1
    message = staged_error(bumps_in_an_elif, rt.constant(3))
    assert message.startswith("'xs' (a Python list) was changed by a call of bump_second()")
    assert at_line(message, bumps_in_an_elif, "# the call")
