"""What Python's scopes promise inside converted code: private names mangle in methods,
zero-argument ``super()`` works, ``match`` statements, loops with an ``else`` clause, and ``functools.partial`` objects.

Each program runs as plain Python (the reference) and in the harness's four converted ways.
"""

import functools
import types

import autograph as ag
import runtime as rt
from runtime.errors import OperatorNotAllowedInGraphError
from tests.autograph.conformance.harness import Programs, Raises

programs = Programs()
case = programs.case

B = [(True,), (False,)]
NS = [(0,), (2,), (5,)]


# --- functools.partial ------------------------------------------------------------------------


def _difference(a, b):
    if a > b:  # on tensors, staged only when the partial's function is converted
        return a - b
    return a + b


_minus_two = functools.partial(_difference, b=2)
_nested_partial = functools.partial(functools.partial(_difference), 1)


@case([(5,), (1,)], theme="call_to_user_function (a partial in a module global)")
def calls_global_partial(x):
    return _minus_two(x)


@case([(5,), (0,)], theme="call_to_user_function (a partial of a partial)")
def calls_partial_of_partial(x):
    return _nested_partial(x)


# --- private names in methods -----------------------------------------------------------------


class _Counter:  # a leading underscore, which mangling strips: _Counter__n
    def __init__(self):
        self.__n = 0

    def add(self, x):
        if x > 1:  # a staged branch writes the mangled attribute
            self.__n = self.__n + x
        else:
            self.__n = self.__n - 1
        return self.__n

    def add_twice(self, x):
        self.__bump(x)
        return self.__bump(x)

    def __bump(self, x):
        __step = x * 2  # a private local name is mangled too
        self.__n += __step
        return self.__n

    def through_closure(self, x):
        def inner(y, __scale=3):  # a parameter is mangled, a keyword of a call is not
            return self.__n + y * __scale

        if x > 1:
            self.__n = x
        return inner(x, _Counter__scale=2)


class _Outer:
    def __init__(self):
        self.__bias = 10

    def make(self, x):
        class Inner:  # its own body mangles with its own name: _Inner__v
            def __init__(self, v):
                self.__v = v

            def get(self):
                return self.__v

        inner = Inner(x)
        return inner.get() + self.__bias + inner._Inner__v


@case(NS, theme="class_definition (a private attribute)")
def private_attribute_in_method(x):
    c = _Counter()
    c.add(x)
    return c.add(x)


@case(NS, theme="class_definition (a private method and local)")
def private_method_and_local(x):
    return _Counter().add_twice(x)


@case(NS, theme="class_definition (private names in a closure and a keyword)")
def private_names_in_closure(x):
    return _Counter().through_closure(x)


@case(NS, theme="class_definition (a class defined in a method)")
def private_names_of_inner_class(x):
    return _Outer().make(x)


# --- super() ----------------------------------------------------------------------------------


class _Base:
    def scale(self, x):
        return x + 1


class _Child(_Base):
    def scale(self, x):
        if x > 1:  # super() inside a staged branch's function
            y = super().scale(x) * 2
        else:
            y = super().scale(x)
        return y


class _GrandChild(_Child):
    def scale(self, x):
        total = 0
        for i in range(x):  # and inside a loop's body
            total += super().scale(i)
        return total

    def with_helper(self, x):
        def helper(obj):  # a nested function's super() takes its own first argument
            return super().scale(x) if x > 0 else 0

        return helper(self)


@case(NS, theme="class_definition (zero-argument super() in a branch)")
def super_in_branch(x):
    return _Child().scale(x)


@case(NS, theme="class_definition (zero-argument super() in a loop)")
def super_in_loop(x):
    return _GrandChild().scale(x)


@case(NS, theme="class_definition (zero-argument super() in a nested function)")
def super_in_nested_function(x):
    return _GrandChild().with_helper(x)


def test_super_in_a_method_converted_directly():
    for convert in (ag.to_graph, ag.function):
        assert int(convert(_Child().scale)(rt.constant(3))) == _Child().scale(3)


def test_a_function_only_named_like_a_method_keeps_its_names():
    holder = types.SimpleNamespace(**{"__x": 5})

    def wrapper():  # defined outside any class: Python did not mangle holder.__x
        return holder.__x

    wrapper.__qualname__ = "_Counter.add"  # as functools.wraps would name it
    assert ag.to_graph(wrapper)() == wrapper() == 5


# --- match statements -------------------------------------------------------------------------


@case([([0, 0, 1, 0],), ([0, 0],), ([],)], theme="loop_control_flow (break in a case)")
def match_break_in_loop(xs):
    t = 0
    for x in xs:
        match x:
            case 0:
                t += 10
            case _:
                break
    return t


@case([([1, 2, 3, 9, 0],), ([5, 5],)], theme="loop_control_flow (continue and return in cases)")
def match_continue_and_return(xs):
    t = 0
    for x in xs:
        match x:
            case 2:
                continue
            case 9:
                return -t
            case n:
                t += n
    return t


@case([(0,), (1,), (2,), (3,), (7,)], theme="cond_basic (value, or, guard, capture, wildcard)")
def match_values(x):
    match x:
        case 0:
            r = 10
        case 1 | 2:
            r = 20
        case n if n > 4:
            r = n * 3
        case _:
            r = -1
    return r


@case([(3,), (-3,)], theme="cond_basic (a capture named like the subject, a failing guard)")
def match_guard_falls_through(x):
    match x:
        case x if x > 100:
            y = 0
        case (1 | 3) as y:
            y = y * 7
        case _:
            y = x + 1
    return y


@case([(None,), (True,), (False,), (5,)], tensors=(False,), theme="cond_basic (singletons)")
def match_singletons(x):
    match x:
        case None:
            return 0
        case True:
            return 1
        case False:
            return 2
    return 3


@case(
    [(("add", 5), 2), (("neg",), 2), (("scale", 2, 3), 4), ([1, 2], 1), ("add", 1)],
    tensors=(False, True),
    theme="cond_basic (sequence patterns on Python values, staged bodies)",
)
def match_sequences(command, x):
    match command:
        case ("add", n):
            if x > 3:
                x = x + n
            else:
                x = x - n
        case ("neg",):
            x = -x
        case ("scale", *factors):
            for f in factors:
                x = x * f
        case [a, b] if a < b:
            x = x + a + b
        case _:
            x = 0
    return x


@case(
    [({"op": "add", "by": 3}, 4), ({"op": "keep", "a": 1, "b": 2}, 4), ({"x": 1}, 4)],
    tensors=(False, True),
    theme="cond_basic (mapping patterns)",
)
def match_mappings(config, x):
    match config:
        case {"op": "add", "by": by}:
            y = x + by
        case {"op": "keep", **rest}:
            y = x * len(rest)
        case _:
            y = x
    return y


class _Point:
    __match_args__ = ("x", "y")

    def __init__(self, x, y):
        self.x, self.y = x, y


@case(
    [(_Point(0, 2), 3), (_Point(1, 1), 3), (_Point(2, 5), 3), (7, 3)],
    tensors=(False, True),
    theme="cond_basic (class patterns)",
)
def match_classes(p, x):
    match p:
        case _Point(0, y):
            r = x * y
        case _Point(x=1, y=yy) if yy == 1:
            r = x + yy
        case _Point(a, b):
            r = x * (a + b)
        case int():
            r = -x
    return r


@case(
    [(1,), (2,)],
    expect={"c": Raises(OperatorNotAllowedInGraphError, "sequence pattern \\(line .* symbolic")},
    theme="nested_control_flow (a match in a case)",
    note="the sequence pattern's value 1 would be compared with a symbolic tensor",
)
def match_nested(x):
    match (x, x + 1):
        case (1, second):
            match second:
                case 2:
                    r = 100
                case _:
                    r = 0
        case _:
            r = x
    return r


@case(
    [([1, 2],)],
    expect={"c": Raises(OperatorNotAllowedInGraphError, "sequence pattern \\(line")},
    theme="cond_basic (a structural pattern on a symbolic tensor)",
    note="a symbolic tensor has no length or items to match while tracing",
    eager_ref=True,
)
def match_sequence_on_tensor(xs):
    match xs:
        case [a, b]:
            r = a + b
        case _:
            r = 0
    return r


# --- loops with an else clause ----------------------------------------------------------------


@case(
    [("sum", 2), ("sum", 9), ("other", 3)],
    tensors=(False, True),
    theme="loop_control_flow (for/else in a match case)",
)
def for_else_in_match_case(mode, n):
    t = 0
    match mode:
        case "sum":
            for i in range(n):
                if i > 3:
                    break
                t += i
            else:
                t = -t
        case _:
            t = n
    return t


@case([([1, 2, 3],), ([1],), ([],)], theme="loop_control_flow (for/else over a tensor)")
def for_else_over_tensor(xs):
    t = 0
    for x in xs:
        if x > 2:
            break
        t += x
    else:
        t = -1
    return t


@case(NS, theme="loop_control_flow (for/else: return in the body, continue)")
def for_else_return_and_continue(n):
    t = 0
    for i in range(n):
        if i == 1:
            continue
        if t > 3:
            return t
        t += i
    else:
        t = t * 100
    return t


@case(NS, theme="loop_control_flow (while/else with a break, and an inner for/else)")
def while_else_with_break(n):
    t = 0
    i = 0
    while i < n:
        i += 1
        for j in range(i):
            if j > 2:
                break
            t += j
        else:
            continue
        break
    else:
        t = -t
    return t


test_program = programs.test()
