"""A third staging backend writes only the primitives: this one stages through plain Python.

Its staged values are ``Staged`` wrappers (a bool of one fails, as a graph
tensor's does); a conditional takes the chosen branch's values, a loop is a
Python loop over the body function. The statements themselves (joining what
branches leave in variables, lists, loop-created variables, ``break``,
``return``) are the shared ones, and the converted programs must give Python's
answers.
"""

from __future__ import annotations

import operator

import pytest

import autograph as ag
import runtime as rt
from autograph.operators import backends, unset
from autograph.operators.backend_protocol import Backend
from autograph.operators.staged_if import resolved


class Staged:
    """A value only the staged program knows: arithmetic and comparisons stay staged."""

    __hash__ = object.__hash__

    def __init__(self, value):
        self.value = value

    def __bool__(self):
        raise TypeError("a staged value has no Python truth value")


def _value(x):
    return x.value if isinstance(x, Staged) else x


def _operator(op, reflected=False):
    def method(self, other):
        a, b = (other, self) if reflected else (self, other)
        return Staged(op(_value(a), _value(b)))

    return method


for _name in ("add", "sub", "mul", "floordiv", "mod", "lt", "le", "gt", "ge", "eq", "ne"):
    setattr(Staged, f"__{_name}__", _operator(getattr(operator, _name)))
for _name in ("add", "sub", "mul", "floordiv", "mod"):
    setattr(Staged, f"__r{_name}__", _operator(getattr(operator, _name), reflected=True))


class _Branch:
    def __init__(self, values):
        self.values, self.error = values, None


class PythonBackend(Backend):
    """Only primitives: no stage_if, stage_while or stage_for of its own."""

    name = "python"
    carries_contents = True
    _tracing = []

    def is_staged(self, value):
        return isinstance(value, Staged)

    def trace_branch(self, run, name):
        branch = _Branch(None)
        self._tracing.append(branch)
        try:
            branch.values = run()
        finally:
            self._tracing.pop()
        return branch, branch.values

    def fail_when_run(self, error):
        self._tracing[-1].error = error

    def cond_branches(self, pred, true_branch, false_branch, true_leaves, false_leaves, labels):
        branch, leaves = (true_branch, true_leaves) if pred.value else (false_branch, false_leaves)
        if branch.error is not None:
            raise branch.error
        return [Staged(_value(resolved(self, leaf))) for leaf in leaves]

    def stageable(self, leaf):
        return isinstance(leaf, Staged) or type(leaf) in (bool, int, float)

    def kind_of(self, leaf):
        return type(_value(leaf))

    def stand_in(self, leaf):
        return Staged(type(_value(leaf))()) if self.stageable(leaf) else None

    def while_loop(self, loop, cond_fn, body_fn):
        index = 0 if loop.index_label is not None else None
        values = rt.nest.map_structure(Staged, rt.nest.map_structure(_value, loop.values))
        while _value(cond_fn(index, *values)):
            values = body_fn(index, *values)
            index = None if index is None else index + 1
        return values

    def probe(self, run, values, counted):
        try:
            return run(list(values), 0 if counted else None)
        except UnboundLocalError:
            return None

    def iteration(self, iterable):
        items = list(iterable.value)

        def item(i):
            # The probe (one iteration, to learn types) may ask an empty range for an item.
            return Staged(items[_value(i)] if _value(i) < len(items) else 0)

        return Staged(len(items)), item

    def cond(self, pred, true_fn, false_fn):
        return true_fn() if pred.value else false_fn()

    def logical_not(self, value):
        return Staged(not value.value)

    def logical_and(self, a, b):
        return Staged(_value(a) and _value(b))

    def range(self, *args):
        return Staged(range(*map(_value, args)))

    def require_set(self, value, flag, name):
        if not _value(flag):
            raise UnboundLocalError(unset.never_initialized(name))
        return value


@pytest.fixture(autouse=True, scope="module")
def python_backend():
    """Registered for this module's tests only: elsewhere a ``Staged`` is no staged value."""
    backend = PythonBackend()
    backends.register(backend)
    yield backend
    backends.unregister(backend)


def sign(x):
    if x > 0:
        y = 1
    elif x < 0:
        y = -1
    else:
        y = 0
    return y


def odd_digits(n):
    count = 0
    while n > 0:
        if n % 2 == 1:
            count += 1
        n = n // 10
    return count


def first_over(xs, limit):
    found = -1
    for x in xs:
        if x > limit:
            found = x
            break
    return found


def index_of(n, target):
    for i in range(n):
        if i * i >= target:
            return i
    return -1


def last_square(n):
    for i in range(n):
        square = i * i
    return square


def index_and_square(n):
    total = 0
    for i in range(n):
        square = i * i
        total += square
    return total + square


def pair_in_place(x):
    items = [0, 0]
    if x > 0:
        items[0] = x
    else:
        items[1] = x
    return items


def sums_in_place(n):
    totals = [0, 0]
    i = 0
    while i < n:
        totals[0] = totals[0] + i
        totals[1] = totals[1] + 1
        i += 1
    return totals


CASES = [
    (sign, [(5,), (-2,), (0,)]),
    (odd_digits, [(0,), (7,), (13579,), (2468,)]),
    (first_over, [([1, 5, 2, 9], 4), ([1, 2], 4), ([], 0)]),
    (index_of, [(10, 17), (3, 100), (0, 1)]),
    (last_square, [(1,), (4,)]),
    (index_and_square, [(1,), (3,)]),
    (pair_in_place, [(3,), (-3,)]),
    (sums_in_place, [(0,), (5,)]),
]


def _unwrapped(value):
    if isinstance(value, list):
        return [_unwrapped(v) for v in value]
    return _value(value)


@pytest.mark.parametrize("fn, args", [(fn, args) for fn, arg_lists in CASES for args in arg_lists])
def test_converted_code_staged_by_a_backend_of_primitives_gives_pythons_answer(fn, args):
    staged = ag.to_graph(fn)(*[Staged(a) for a in args])
    assert _unwrapped(staged) == fn(*args)


@pytest.mark.parametrize("fn, args", [(last_square, (0,)), (index_and_square, (0,))])
def test_a_variable_a_loop_that_never_ran_creates_is_pythons_error(fn, args):
    with pytest.raises(UnboundLocalError):
        fn(*args)
    with pytest.raises(UnboundLocalError, match="loop must iterate at least once to initialize"):
        ag.to_graph(fn)(*[Staged(a) for a in args])


def test_the_values_were_staged_by_the_python_backend():
    # Its cond sees only staged conditions: a converted `if` on a Staged took the staged path.
    assert isinstance(ag.to_graph(sign)(Staged(5)), Staged)
    assert isinstance(ag.to_graph(odd_digits)(Staged(35)), Staged)


def test_the_backend_writes_no_statement_of_its_own():
    for statement in ("stage_if", "stage_while", "stage_for"):
        assert statement not in vars(PythonBackend)
        assert getattr(PythonBackend, statement) is getattr(Backend, statement)


def test_branches_that_disagree_are_the_shared_error_naming_the_variable():
    def kinds(x):
        if x > 0:
            y = (1, 2)
        else:
            y = 1
        return y

    with pytest.raises(ValueError, match="'y' must have the same nested structure"):
        ag.to_graph(kinds)(Staged(1))
