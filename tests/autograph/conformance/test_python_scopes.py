"""What Python's scopes promise inside converted code: ``eval``/``exec``/``locals`` see the
user's own variables, private names mangle in methods, zero-argument ``super()`` works,
``match`` statements, loops with an ``else`` clause, and ``functools.partial`` objects.

Each program runs as plain Python (the reference) and in the harness's four converted ways.
"""

import functools

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


test_program = programs.test()
