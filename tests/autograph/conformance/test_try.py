"""try/except/finally around staged control flow (TensorFlow's early_return and
nested_control_flow tests): staged as TensorFlow does; returns set their flag after their value.
"""

import runtime as rt
from tests.autograph.conformance.harness import Programs, Raises

programs = Programs()
case = programs.case

X01 = [(0,), (1,)]


def _boom():
    raise ValueError("boom")


@case(X01, theme="early_return")
def return_in_try_with_finally(x):
    try:
        if x > 0:
            return 1
        else:
            return 0
    finally:
        x = x + 1


@case(X01, theme="early_return")
def return_default_in_try_with_finally(x):
    try:
        if x > 0:
            return 1
        return 0
    finally:
        x = x + 1


@case(X01, theme="early_return")
def return_in_finally(x):
    try:
        return 2
    finally:
        if x > 0:
            return 1  # noqa: B012
        else:
            return 0  # noqa: B012


@case(X01, theme="early_return")
def return_default_in_finally(x):
    try:
        return 2
    finally:
        if x > 0:
            return 1  # noqa: B012
        return 0  # noqa: B012


@case(X01, theme="early_return")
def finally_return_overrides_try(x):
    try:
        if x > 0:
            return 0
    finally:
        return 1  # noqa: B012


@case([()], theme="early_return")
def return_of_raising_call_caught():
    try:
        return _boom()
    except ValueError:
        pass
    return 1


@case([(True,), (False,)], theme="early_return")
def return_of_raising_call_caught_in_tail(c):
    if c:
        return 2
    try:
        return _boom()
    except ValueError:
        pass
    return 1


@case([(0,), (4,), (10,)], theme="nested_control_flow")
def continue_in_try_finally(x):
    z = 0
    while x > 0:
        x = x - 1
        try:
            if x < 5:
                continue
            z = z + 1
        finally:
            z = z + 10
    return z


@case([(0,), (4,), (10,)], theme="nested_control_flow")
def break_in_try_finally(x):
    z = 0
    while x > 0:
        x = x - 1
        try:
            if x < 5:
                break
            z = z + 1
        finally:
            z = z + 10
    return z


@case([(-1,), (0,), (1,), (2,)], theme="nested_control_flow", modes="ad")
def exception_masks_local_change(x):
    y = 0
    if x > 0:
        try:
            if x > 1:
                _boom()
            y = 1
        except ValueError:
            pass
        if y == 0:
            y = 2
    return y


@case([(-1,), (3,)], theme="try")
def staged_if_in_try_except(x):
    try:
        if x > 0:
            y = 1
        else:
            y = 2
    except ValueError:
        y = 3
    return y


@case([(0,), (4,)], theme="try")
def staged_loop_in_try_finally(n):
    s = 0
    try:
        for i in rt.range(n):
            s += i
    finally:
        pass
    return s


@case([(0,), (4,)], theme="try")
def staged_while_in_try_else(n):
    s = 0
    try:
        i = 0
        while i < n:
            s += i
            i += 1
    except ZeroDivisionError:
        s = -1
    else:
        s = s * 2
    return s


@case([(-2,), (5,)], theme="try")
def python_error_caught_around_staged_if(x):
    r = 0
    try:
        if x > 0:
            r = x + 1
        raise KeyError("k")
    except KeyError:
        r = r * 10
    return r


@case([("12",), ("zz",)], theme="try", tensors=(False,))
def python_only_try_in_converted_code(s):
    try:
        v = int(s)
    except ValueError:
        v = -1
    return v


@case([(3,), (-3,)], theme="try")
def staged_if_after_try(x):
    try:
        y = x * 2
    except TypeError:
        y = 0
    if y > 0:
        y = y + 1
    return y


@case([(3,), (-3,)], theme="try")
def with_statement_and_staged_if(x):
    with rt.name_scope("scope"):
        try:
            if x > 0:
                r = x
            else:
                r = -x
        finally:
            pass
    return r


# --- found by the test-strength review and the random programs ---------------------------------


@case([(3,), (-3,)], theme="try")
def handler_reads_a_value_a_raising_assignment_left(x):
    y = 0
    try:
        if x > 0:
            y = 1
        y = int("not a number")
    except ValueError:
        return y
    return -1


@case(
    X01,
    theme="early_return",
    ref_raises=UnboundLocalError,
    expect={"abcd": Raises(UnboundLocalError, "'w'")},
)
def return_unassigned_after_loop_with_return_in_except(a):
    # The graph has no path that returns: the except clause never runs in it, and the final
    # return reads `w`, which no iteration of the empty loop assigned. Every mode fails as
    # Python does, naming `w` (not for want of a value to return).
    for i in range(0):
        w = 1
    for i in rt.range(3):
        try:
            a = a + 1
        except ValueError:
            return 5
        break
    return a + w


@case(
    X01,
    theme="early_return",
    ref_raises=UnboundLocalError,
    expect={
        "cd": Raises(rt.errors.InvalidArgumentError, r"UnboundLocalError.*\\?'w\\?' is used before")
    },
)
def return_unassigned_after_staged_if_with_return(a):
    # Here a graph path may return (5, from the loop): the graph fails when it runs instead.
    for i in range(0):
        w = 1
    for i in rt.range(3):
        if a > 5:
            return 5
        a = a + 1
    return a + w


test_program = programs.test()
