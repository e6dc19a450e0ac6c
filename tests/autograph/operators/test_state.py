"""A staged statement reads and writes its variables through its functions' closures.

First ``State`` on its own, against what plain Python sees; then converted
functions whose tensor-dependent statements carry locals, closure variables,
globals and attributes, compared with the same functions run as Python.
"""

from __future__ import annotations

import numpy as np
import pytest

import autograph as ag
import runtime as rt
from autograph.operators.state import State
from autograph.operators.variables import Undefined

# --- State -----------------------------------------------------------------------------------


def test_reads_and_writes_the_enclosing_variables():
    a, b = 1, "two"

    def assigns():
        nonlocal a, b
        a, b = a, b

    state = State(("a", "b"), assigns)
    assert state.get() == (1, "two")
    state.set((3, "four"))
    assert (a, b) == (3, "four")


def test_cells_come_from_every_function_given():
    x, y = 1, 2

    def writes_x():
        nonlocal x
        x = 0

    def writes_y():
        nonlocal y
        y = 0

    state = State(("x", "y"), writes_x, None, writes_y)
    state.set((10, 20))
    assert (x, y) == (10, 20)


def test_a_variable_not_assigned_yet_reads_as_undefined():
    def outer():
        def assigns():
            nonlocal late
            late = 1

        before = State(("late",), assigns).get()
        late = 5
        return before, State(("late",), assigns).get()

    before, after = outer()
    assert isinstance(before[0], Undefined) and before[0].name == "late"
    assert after == (5,)


def test_an_undefined_value_is_written_as_it_is():
    """Generated code keeps Undefined objects in variables, so that errors can name them."""
    v = 1

    def assigns():
        nonlocal v
        v = 0

    marker = Undefined("v")
    State(("v",), assigns).set((marker,))
    assert v is marker


GLOBAL_FOR_STATE_TEST = 1


def test_globals_are_read_and_written_in_the_functions_globals():
    def assigns():
        global GLOBAL_FOR_STATE_TEST
        GLOBAL_FOR_STATE_TEST = 0

    state = State(("GLOBAL_FOR_STATE_TEST",), assigns)
    assert state.get() == (1,)
    state.set((7,))
    assert GLOBAL_FOR_STATE_TEST == 7
    state.set((1,))


class _Box:
    pass


def test_attributes_are_reached_from_their_base():
    box = _Box()
    box.inner = _Box()
    box.inner.value = 1

    def assigns():
        box.inner.value = 2

    state = State(("box.inner.value",), assigns)
    assert state.get() == (1,)
    state.set((5,))
    assert box.inner.value == 5


def test_a_missing_attribute_reads_as_undefined_and_restoring_removes_it():
    box = _Box()

    def assigns():
        box.fresh = 1

    state = State(("box.fresh", "box.fresh.deeper"), assigns)
    before = state.get()
    assert [v.name for v in before] == ["box.fresh", "box.fresh.deeper"]
    assigns()
    state.set(before)
    assert not hasattr(box, "fresh")


def test_an_attribute_of_an_undefined_base_is_left_alone():
    def outer():
        def assigns():
            nonlocal base
            base = _Box()
            base.value = 1

        state = State(("base.value",), assigns)
        state.set((3,))  # nothing to set it on: as undefined as it was
        value = state.get()[0]
        base = None
        return value

    assert isinstance(outer(), Undefined)


def test_items_are_reached_by_constant_and_by_name():
    table = {"a": [1, 2, 3], "b": {"c": 4}}
    k = 1

    def assigns():
        table["a"][k] = table["b"]["c"]

    state = State(("table['a'][-1]", "table['b']['c']", "table['a'][k]"), assigns)
    assert state.get() == (3, 4, 2)
    state.set((30, 40, 20))
    assert table == {"a": [1, 20, 30], "b": {"c": 40}}


def test_a_missing_key_reads_as_undefined_and_restoring_removes_it():
    table = {"a": 1}

    def assigns():
        table["fresh"] = 2

    state = State(("table['fresh']", "table['fresh'][0]"), assigns)
    before = state.get()
    assert [v.name for v in before] == ["table['fresh']", "table['fresh'][0]"]
    assigns()
    state.set(before)
    assert table == {"a": 1}


def test_a_key_given_by_an_unassigned_name_is_undefined():
    def outer():
        table = {}

        def assigns():
            nonlocal key
            table[key] = 1
            key = "k"

        value = State(("table[key]",), assigns).get()[0]
        key = None
        return value

    assert isinstance(outer(), Undefined)


def test_save_and_restore_give_containers_back_what_they_held():
    items, table = [1, 2], {"a": 1}

    def changes():
        items.append(3)
        table["b"] = 2

    state = State(("items", "table"), changes)
    saved = state.save()
    changes()
    state.restore(saved)
    assert (items, table) == ([1, 2], {"a": 1})


def test_cells_are_found_through_the_functions_a_branch_calls():
    """An elif's functions sit beside the if's: its else branch only calls them."""
    table = {"a": 1}

    def inner_branch():
        table["a"] = 2

    def else_branch():
        inner_branch()

    state = State(("table['a']",), else_branch)
    assert state.get() == (1,)
    state.set((5,))
    assert table == {"a": 5}


# --- converted functions ------------------------------------------------------------------------


def _in_graph(fn, *args, python_args=()):
    """Runs ``fn`` converted on placeholders fed with ``args`` (ints), then ``python_args`` as
    they are, in a TF1-style session."""
    graph = rt.Graph()
    with graph.as_default():
        placeholders = [rt.placeholder(rt.int32, []) for _ in args]
        out = ag.to_graph(fn)(*placeholders, *python_args)
    return rt.Session(graph).run(out, dict(zip(placeholders, args)))


def _sum_below(n):
    total = 0
    i = 0
    while i < n:
        if i % 3 == 0:
            total += i
        i += 1
    return total


@pytest.mark.parametrize("n", [0, 1, 7, 20])
def test_staged_loops_and_branches_carry_locals(n):
    assert _in_graph(_sum_below, n) == _sum_below(n)


def _make_accumulator():
    acc = 0

    def add_range(n):
        nonlocal acc
        for i in rt.range(n):
            acc = acc + i
        return acc

    return add_range


@pytest.mark.parametrize("n", [0, 4, 9])
def test_a_staged_loop_carries_a_closure_variable_of_the_user(n):
    assert _in_graph(_make_accumulator(), n) == _make_accumulator()(n)


class _Stats:
    def __init__(self):
        self.total = 0


def _staged_attributes(n, stats):
    for i in rt.range(n):
        if i % 2 == 0:
            stats.total += i
    return stats.total


@pytest.mark.parametrize("n", [0, 5, 10])
def test_staged_statements_carry_attributes(n):
    stats = _Stats()
    assert _in_graph(_staged_attributes, n, python_args=[stats]) == _staged_attributes(n, _Stats())
    assert isinstance(stats.total, rt.Tensor)  # the attribute holds the loop's result


def _new_attribute(x, box):
    if x > 0:
        box.sign = 1
    else:
        box.sign = -1
    return box.sign


@pytest.mark.parametrize("x", [-3, 4])
def test_an_attribute_both_branches_create_is_staged(x):
    assert _in_graph(_new_attribute, x, python_args=[_Box()]) == _new_attribute(x, _Box())


def _attribute_in_one_branch(x, box):
    if x > 0:
        box.only_here = x
    return x


def test_an_attribute_only_one_branch_creates_is_named_in_the_error():
    box = _Box()
    message = "'box.only_here' must also be initialized"
    with rt.Graph().as_default(), pytest.raises(ValueError, match=message):
        ag.to_graph(_attribute_in_one_branch)(rt.placeholder(rt.int32, []), box)
    assert not hasattr(box, "only_here")  # the failed staging leaves the object as it was


def test_python_values_never_touch_the_state():
    """On Python values the statement runs as Python: globals work as they always do."""
    out = ag.to_graph(_counts_into_global)(4)
    assert out == 4 and _GLOBAL_TALLY == [0, 1, 2, 3]


_GLOBAL_TALLY = []


def _counts_into_global(n):
    global _GLOBAL_TALLY
    for i in range(n):
        if i >= 0:
            _GLOBAL_TALLY = _GLOBAL_TALLY + [i]
    return len(_GLOBAL_TALLY)


def test_eager_tensors_run_as_python():
    out = ag.to_graph(_sum_below)(rt.constant(9))
    np.testing.assert_array_equal(np.asarray(out), _sum_below(9))


def test_restoring_a_global_that_did_not_exist_removes_it():
    def assigns():
        global _NOT_YET_A_GLOBAL
        _NOT_YET_A_GLOBAL = 1

    state = State(("_NOT_YET_A_GLOBAL",), assigns)
    before = state.get()
    assert isinstance(before[0], Undefined)
    assigns()
    state.set(before)
    assert "_NOT_YET_A_GLOBAL" not in globals()


def _inner_local_only(c, d):
    tmp = c
    if tmp > 0:  # noqa: SIM102 (the nesting is the point)
        if d > 0:
            tmp = 1  # dead after the inner `if`: it stays that branch's local
    return d * 2


def test_a_variable_only_an_inner_statement_assigns_stays_a_local():
    out = _in_graph(_inner_local_only, 1, 3)
    assert out == _inner_local_only(1, 3)
    assert "tmp" not in globals()  # the operator never took it for a global


def _returns_in_else(n):
    x = 7
    for i in rt.range(n):
        x = x + i
    else:
        return x * 2
    return -1


def _breaks_and_returns(n, limit):
    total = 0
    for i in rt.range(n):
        if total > limit:
            break
        if i == 7:
            return -total
        total += i
    return total


@pytest.mark.parametrize("n", [0, 3, 6])
def test_a_return_in_the_else_clause_does_not_stop_the_loop(n):
    """The flag the return sets is never set in the body: the loop does not test it."""
    assert "stop_on" not in ag.to_code(_returns_in_else)
    assert _in_graph(_returns_in_else, n) == _returns_in_else(n)


@pytest.mark.parametrize("n, limit", [(0, 5), (5, 100), (12, 100), (12, 10), (12, 3)])
def test_a_loop_stops_on_any_of_its_flags(n, limit):
    assert "stop_on=('break_', 'do_return')" in ag.to_code(_breaks_and_returns)
    assert _in_graph(_breaks_and_returns, n, limit) == _breaks_and_returns(n, limit)
    assert ag.to_graph(_breaks_and_returns)(n, limit) == _breaks_and_returns(n, limit)


class _Holder:
    pass


def _attribute_of_a_maybe_unassigned_object(x, flag):
    if flag:
        o = _Holder()
    o.v = 0  # o may be unassigned here: the write becomes ag__.ld(o).v = 0
    if x > 0:
        o.v = x
    return o.v


@pytest.mark.parametrize("x", [-3, 5])
def test_an_attribute_written_through_ag_ld_is_carried(x):
    expected = _attribute_of_a_maybe_unassigned_object(x, True)
    assert _in_graph(_attribute_of_a_maybe_unassigned_object, x, python_args=[True]) == expected


def _branches_disagree_on_a_new_attribute(n, box):
    if n > 0:
        box.val = 1
    else:
        box.val = "one"
    return n


def _loop_fails_after_creating_an_attribute(n, box):
    i = 0
    while i < n:
        box.made = i
        i = i + "a string"  # tracing the body fails: box.made is not known after it
    return i


@pytest.mark.parametrize(
    "fn, error",
    [
        (_branches_disagree_on_a_new_attribute, TypeError),
        (_loop_fails_after_creating_an_attribute, ValueError),
    ],
)
def test_a_failed_staging_leaves_the_variables_as_they_were(fn, error):
    box = _Box()
    box.kept = 5
    with rt.Graph().as_default(), pytest.raises(error):
        ag.to_graph(fn)(rt.placeholder(rt.int32, []), box)
    assert vars(box) == {"kept": 5}


_GLOBAL_OF_A_BROKEN_LOOP = None


def _tensor_break_out_of_a_list_loop_writing_a_global(x):
    global _GLOBAL_OF_A_BROKEN_LOOP
    for v in [1, 2, 3]:
        _GLOBAL_OF_A_BROKEN_LOOP = v
        if v > x:
            break
    return x


def test_a_tensor_dependent_break_that_would_stage_a_global_is_refused():
    with rt.Graph().as_default(), pytest.raises(NotImplementedError, match="global variable"):
        ag.to_graph(_tensor_break_out_of_a_list_loop_writing_a_global)(rt.placeholder(rt.int32, []))
    assert not isinstance(_GLOBAL_OF_A_BROKEN_LOOP, rt.Tensor)


def test_an_attribute_of_an_undefined_base_reads_as_undefined_under_its_own_name():
    def outer():
        base = Undefined("base")

        def assigns():
            nonlocal base
            base.value = 1

        return State(("base.value",), assigns).get()[0]

    value = outer()
    assert isinstance(value, Undefined) and value.name == "base.value"
