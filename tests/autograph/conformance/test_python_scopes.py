"""What Python's scopes promise inside converted code: ``eval``/``exec``/``locals`` see the
user's own variables, private names mangle in methods, zero-argument ``super()`` works,
``match`` statements, loops with an ``else`` clause, and ``functools.partial`` objects.

Each program runs as plain Python (the reference) and in the harness's four converted ways.
"""

import functools
import types

import autograph as ag
import runtime as rt
from tests.autograph.conformance.harness import Programs

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


test_program = programs.test()
