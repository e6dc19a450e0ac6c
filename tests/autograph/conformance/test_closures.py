"""Closures keep Python's late binding (TensorFlow's loop_scoping tests, where TensorFlow
itself binds early): converted code shares one cell per variable, as Python does.
"""

import runtime as rt
from tests.autograph.conformance.harness import Programs

programs = Programs()
case = programs.case

L = [([1],), ([1, 2],), ([1, 2, 5],)]


def _list_of_tensors(l):
    return ([rt.constant(x) for x in l],)


@case(L, theme="loop_scoping", tensors=_list_of_tensors)
def lambdas_in_loop_late_binding(l):
    fns = []
    results = []
    for i in l:
        fns.append(lambda: i + i)
    for f in fns:
        results.append(f())
    return results


@case(L, theme="loop_scoping", tensors=_list_of_tensors)
def lambdas_in_loop_default_arg(l):
    fns = []
    results = []
    for i in l:
        fns.append(lambda i=i: i + i)
    for f in fns:
        results.append(f())
    return results


@case([(2,), (5,)], theme="loop_scoping")
def defs_in_range_loop_late_binding(x):
    fs = []
    for i in range(3):

        def g():
            return i * x

        fs.append(g)
    return [f() for f in fs]


@case([(2,), (5,)], theme="loop_scoping")
def lambdas_in_while_late_binding(x):
    fs = []
    k = 0
    while k < 3:
        fs.append(lambda: k * x)
        k += 1
    return [f() for f in fs]


@case([(2,), (5,)], theme="loop_scoping")
def lambdas_in_comprehension_late_binding(x):
    fs = [lambda: i * x for i in range(3)]
    return [f() for f in fs]


@case([(2,)], theme="loop_scoping")
def dict_of_lambdas_late_binding(x):
    table = {}
    for name, k in (("a", 1), ("b", 2)):
        table[name] = lambda: k * x
    return table["a"](), table["b"]()


@case([(2,), (-2,)], theme="loop_scoping")
def closure_sees_later_assignment(x):
    y = 1
    f = lambda: y * x  # noqa: E731
    y = 2
    return f()


@case([(2,), (-2,)], theme="loop_scoping")
def closure_sees_value_set_by_if(x):
    y = 1
    f = lambda: y + 100  # noqa: E731
    if x > 0:
        y = 2
    else:
        y = 3
    return f()


@case([(0,), (3,)], theme="loop_scoping")
def closure_sees_value_set_by_loop(n):
    acc = 0
    f = lambda: acc * 10  # noqa: E731
    for i in range(n):
        acc += i
    return f()


@case([(2,), (-2,)], theme="loop_scoping")
def closures_in_unrolled_loop_with_staged_if(x):
    fs = []
    for k in range(3):
        if x > 0:
            v = x + k
        else:
            v = x - k
        fs.append(lambda: v)
    return [f() for f in fs]


@case([(2,)], theme="loop_scoping")
def nested_def_captures_loop_var_and_param(x):
    out = []
    for i in range(2):

        def outer():
            def inner():
                return i + x

            return inner()

        out.append(outer)
    return [f() for f in out]


@case([(3,)], theme="loop_scoping")
def closure_over_unrolled_target_called_inside(x):
    total = 0
    for i in range(3):
        f = lambda: i * x  # noqa: E731
        total += f()
    return total


@case([(3,)], theme="loop_scoping")
def nonlocal_counter_in_unrolled_loop(x):
    count = 0

    def bump():
        nonlocal count
        count += x

    for _ in range(3):
        bump()
    return count


@case([(3,), (-3,), (0,)], theme="loop_scoping")
def nonlocal_written_by_a_function_called_in_staged_code(x):
    """A block that calls a function defined here assigns what that function assigns."""
    total = 0

    def add(v):
        nonlocal total
        total += v

    if x > 0:
        add(x)
    else:
        add(-x)
    for i in rt.range(x):
        add(i)
    return total


test_program = programs.test()
