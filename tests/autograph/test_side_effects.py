"""A call of the user's own function that changes a list or an object while a staged loop or
``if`` is traced: never a silently wrong answer, nor a loop that never ends.

Each program is checked against plain Python: where the graph can give Python's answer it
must; where it cannot (the change would happen once, at trace time), the error names the
variable, the call, and the user's line.
"""

import inspect
import random
import types

import pytest

import autograph as ag
import runtime as rt
from autograph.operators import side_effects
from autograph.operators.kinds import StatementKind


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


def test_a_tensor_of_the_loop_appended_by_a_call_in_a_staged_for_is_an_error():
    message = staged_error(appends_in_for, rt.constant(3))
    assert message.startswith(
        "'found' (a Python list, given a tensor of the traced code) was changed by a call of push()"
    )
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
        push(log, x * 2)  # the call
    else:
        push(log, -x)
    return len(log)


def test_a_tensor_of_a_branch_appended_by_a_call_in_a_staged_if_is_an_error():
    assert logs_in_branches(1) == 1
    message = staged_error(logs_in_branches, rt.constant(1))
    assert message.startswith(
        "'log' (a Python list, given a tensor of the traced code) was changed by a call of "
        "push() while a branch of a "
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
    assert message.startswith(
        "'seen' (a Python dict, given a tensor of the traced code) was changed by a call of "
        "records()"
    )


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


def sets_once(box):
    if box.count is None:
        box.count = 1


def sets_in_loop(n):
    box = Box()
    box.count = None
    total = 0
    for i in rt.range(n):
        sets_once(box)
        total += i * box.count
    return total


def test_an_attribute_that_was_none_given_a_number_gives_pythons_answer():
    assert ag.function(sets_in_loop)(rt.constant(4)).numpy() == sets_in_loop(4) == 6


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
        "'acc.items' (a Python list, given a tensor of the traced code) was changed by a call of "
        "Accumulator.put() while the body"
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


# --- which changes are errors: removal and replacement; an addition only of a tensor --------


def drops(d):
    d.pop("scale", None)


def drops_a_key_in_loop(n):
    d = {"scale": 2, "shift": 1}
    total = 0
    for i in rt.range(n):
        total += i * d.get("scale", 1)
        drops(d)  # the call
    return total


def test_a_key_removed_by_a_call_is_an_error():
    assert drops_a_key_in_loop(3) == 3  # 0*2 + 1*1 + 2*1: Python drops it in the first step
    message = staged_error(drops_a_key_in_loop, rt.constant(3))
    assert message.startswith("'d' (a Python dict) was changed by a call of drops()")
    assert at_line(message, drops_a_key_in_loop, "# the call")


def forgets(box):
    vars(box).pop("scale", None)


def forgets_in_loop(n):
    box = Box()
    box.scale = 2
    total = 0
    for i in rt.range(n):
        total += i * getattr(box, "scale", 1)
        forgets(box)  # the call
    return total


def test_an_attribute_removed_by_a_call_is_an_error():
    assert forgets_in_loop(3) == 3
    message = staged_error(forgets_in_loop, rt.constant(3))
    assert message.startswith("'box.scale' (an attribute of a Box) was changed by a call of")
    assert at_line(message, forgets_in_loop, "# the call")


def doubles(cfg):
    cfg["scale"] = cfg["scale"] * 2


def doubles_in_loop(n):
    cfg = {"scale": 1}
    total = 0
    for _ in rt.range(n):
        doubles(cfg)  # the call
        total += cfg["scale"]
    return total


def test_a_dict_value_replaced_by_a_call_is_an_error():
    assert doubles_in_loop(3) == 14
    message = staged_error(doubles_in_loop, rt.constant(3))
    assert message.startswith("'cfg' (a Python dict) was changed by a call of doubles()")


def puts_first(xs, item):
    xs.insert(0, item)


def inserts_in_loop(n):
    xs = [1, 2]
    total = 0
    for _ in rt.range(n):
        puts_first(xs, 0)  # the call
        total += xs[1]
    return total


def test_an_insert_before_existing_items_is_an_error():
    assert inserts_in_loop(3) == 1  # xs[1]: 1, then 0 once the 0s shift it
    message = staged_error(inserts_in_loop, rt.constant(3))
    assert message.startswith("'xs' (a Python list) was changed by a call of puts_first()")
    assert at_line(message, inserts_in_loop, "# the call")


def notes(log, what):
    log.append(what)


def logs_in_for(n):
    log = []
    total = 0
    for i in rt.range(n):
        notes(log, "step")  # the call
        total += i
    return total, len(log)


def counts_appends_in_while(n):
    xs = []
    i = 0
    while i < n:
        notes(xs, 1)  # the call
        i += 1
    return len(xs)


def appends_in_a_branch(x):
    xs = [0]
    if x > 0:
        notes(xs, 1)  # the call
    return xs[-1]


@pytest.mark.parametrize("fn", [logs_in_for, counts_appends_in_while, appends_in_a_branch])
def test_an_item_appended_by_a_call_to_the_functions_own_list_is_an_error(fn):
    # Python appends once per iteration (len 4), or only on the branch taken (xs[-1] is 0 for
    # -1); traced once, the graph would append once, whatever it then does: len 1, xs[-1] 1.
    assert (logs_in_for(4), counts_appends_in_while(4), appends_in_a_branch(-1)) == ((6, 4), 4, 0)
    message = staged_error(fn, rt.constant(-1 if fn is appends_in_a_branch else 4))
    assert message.startswith("'")
    assert message.split("'")[1] in ("log", "xs")
    assert "(a Python list) was changed by a call of notes()" in message
    assert at_line(message, fn, "# the call")


def test_an_item_appended_to_a_list_the_loop_appends_to_gives_pythons_answer():
    def f(n):
        xs = []
        for i in rt.range(n):
            xs.append(i)  # the loop's own code: the list is a TensorList the loop carries
            notes(xs, i * 10)
        return ag.stack(xs)

    assert list(ag.function(f)(rt.constant(3)).numpy()) == list(ag.stack(f(3)).numpy())


# --- programs that worked before the watch, and give Python's answer --------------------------


class Config:
    def __init__(self):
        self.size = 3

    def scale(self):
        if not hasattr(self, "factor"):  # made on first use
            self.factor = 2.0
        return self.factor


def scales_with_a_lazy_attribute(x):
    cfg = Config()
    for _ in rt.range(3):
        x = x * cfg.scale()
    return x


def option(cfg):
    return cfg.setdefault("scale", 2.0)


def scales_with_setdefault(x):
    cfg = {}
    for _ in rt.range(3):
        x = x * option(cfg)
    return x


class Scale:
    """A layer of the user's own class that builds its variable on first use."""

    def __init__(self):
        self.w = None

    def __call__(self, x):
        if self.w is None:
            self.w = rt.Variable(2.0)
        return x * self.w


class Wrapper:
    def __call__(self, x):
        if not hasattr(self, "inner"):
            self.inner = Scale()
        return self.inner(x)


class Sequence:
    def __init__(self):
        self.layers = []

    def __call__(self, x):
        if not self.layers:
            self.layers.append(Scale())
        for layer in self.layers:
            x = layer(x)
        return x


def applies(x, model):
    for _ in rt.range(3):
        x = model(x)
    return x


def draws(rng):
    return rng.gauss(0.0, 1.0)


def adds_a_draw(x):
    rng = random.Random(0)
    for _ in rt.range(3):
        x = x + draws(rng)
    return x


@pytest.mark.parametrize("fn", [scales_with_a_lazy_attribute, scales_with_setdefault])
def test_a_value_made_on_first_use_gives_pythons_answer(fn):
    assert ag.function(fn)(rt.constant(1.0)).numpy() == fn(1.0) == 8.0


@pytest.mark.parametrize("model", [Wrapper, Sequence])
def test_sub_layers_built_on_first_use_give_pythons_answer(model):
    assert ag.function(applies)(rt.constant(1.0), model()).numpy() == 8.0
    assert applies(1.0, model()).numpy() == 8.0


def test_a_standard_library_object_is_not_watched():
    # random.Random keeps its next draw in a public attribute (gauss_next); like any Python
    # randomness in traced code, the draw is made once, while tracing.
    once = random.Random(0).gauss(0.0, 1.0)
    got = ag.function(adds_a_draw)(rt.constant(0.0)).numpy()
    assert got == pytest.approx(3 * once, rel=1e-6)


class ShapeMemo:
    shape = None
    spec = None


SHAPE_MEMO = ShapeMemo()


def remembers_the_shape(x):
    SHAPE_MEMO.shape = x.shape  # trace-time memos: the same values on every iteration
    SHAPE_MEMO.spec = (x.shape, x.dtype)
    return x * 2


def doubles_three_times(x):
    for _ in rt.range(3):
        x = remembers_the_shape(x)
    return x


@pytest.mark.parametrize(
    "shape, spec", [(None, None), (rt.TensorShape([1]), (rt.TensorShape([1]), rt.float32))]
)
def test_a_global_given_an_equal_immutable_value_in_a_staged_loop_is_not_a_change(shape, spec):
    SHAPE_MEMO.shape, SHAPE_MEMO.spec = shape, spec
    got = ag.function(doubles_three_times)(rt.constant([1.0])).numpy()
    assert got.tolist() == [8.0]


def test_a_users_module_named_like_a_library_is_watched():
    class Counter:
        pass

    Counter.__module__ = "runtime_utils"  # the user's, though its name begins with "runtime"
    counter = Counter()
    counter.n = 0
    watch = side_effects.Watch(StatementKind.LOOP, {"counter": counter}, ())
    counter.n = 1
    assert watch.changed()[1] == "counter.n"


def test_a_large_list_is_data_not_watched():
    large = list(range(side_effects._LARGEST_WATCHED + 1))
    small = [1, 2]
    watch = side_effects.Watch(StatementKind.LOOP, {"large": large, "small": small}, ())
    large.pop()
    assert watch.changed() is None
    small.pop()
    assert watch.changed()[1] == "small"


@pytest.mark.parametrize("kind", [StatementKind.LOOP, StatementKind.IF, StatementKind.BREAK])
def test_each_statement_kind_says_what_happens_and_what_to_do(kind):
    stack = [1, 2]
    watch = side_effects.Watch(kind, {"stack": stack}, ())
    stack.pop()
    message = str(watch.error("by a call of pop()", watch.changed()))
    assert "'stack' (a Python list) was changed by a call of pop() while" in message
    assert "Make it" in message
