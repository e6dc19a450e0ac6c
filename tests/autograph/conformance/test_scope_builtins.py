"""``eval``, ``exec``, ``locals()``, ``vars()``, ``dir()`` and ``globals()`` inside converted code
see what they see in Python: the user's own variables, not those of the functions that
conversion makes for branches and loop bodies.

Each program runs as plain Python (the reference) and in the harness's four converted ways.
"""

from tests.autograph.conformance.harness import Programs, Raises

programs = Programs()
case = programs.case

NS = [(0,), (2,), (5,)]

# --- eval, exec, locals, vars, dir, globals ---------------------------------------------------

y = 100  # a global of the same name as the programs' local variables: they must not read it


@case(NS, theme="builtins (eval reads the function's own variable in a branch)")
def eval_in_branch(x):
    y = x + 4  # noqa: F841 - read by the string
    if x > 1:
        z = eval("y * 2")
    else:
        z = eval("y - 1")
    return z


@case(NS, theme="builtins (eval in a loop body, a conditional expression and an `and`)")
def eval_in_loop_and_expressions(x):
    y = 3  # noqa: F841 - read by the string
    total = 0
    for i in range(x):
        total += eval("i * y") if i > 0 else 1
        if total > 2 and eval("total < y * 10"):
            total += 1
    return total


@case(NS, theme="builtins (exec prints the function's own variable)")
def exec_in_branch(x):
    y = 7  # noqa: F841 - read by the string
    if x > 1:
        exec("print(y * 2)")
    return x


@case(NS, theme="builtins (eval with explicit namespaces, and globals())")
def eval_with_namespaces(x):
    y = 5
    if x > 1:
        a = eval("y + 1", {"y": 1})
        b = eval("y + 1", None, {"y": 2})
        c = globals()["y"]
    else:
        a, b, c = 0, 0, 0
    return a + b + c + y


def _names_code(names):
    """A number that tells sets of names apart."""
    return sum((len(k) + 1) * ord(k[0]) for k in names)


@case(NS, theme="builtins (locals, vars and dir name the function's variables)")
def locals_in_branch(x):
    a = 1
    if x > 1:
        b = 2
        n = _names_code(locals()) + vars()["b"] * 1000 + _names_code(dir()) * 10000
    else:
        n = -_names_code(locals())
    return n + a


@case(NS, theme="builtins (exec's assignments do not change the function's variables)")
def exec_does_not_assign(x):
    y = 1
    if x > 1:
        exec("y = 50")
    return y


@case([(1,), (2,)], theme="builtins (locals() in a match case: no names of the conversion)")
def locals_in_match_case(x):
    a = 2
    match x:
        case 1:
            n = _names_code(locals()) + a
        case _:
            n = 0
    return n


@case(NS, theme="builtins (a branch's assignment read only by eval)")
def eval_reads_branch_assignment(x):
    y = 0
    if x > 1:
        y = x * 5  # noqa: F841 - read by the string
    return eval("y")


@case(NS, theme="builtins (a loop's assignment read only by eval, locals() after branches)")
def eval_and_locals_after_loop(n):
    y = 0
    for i in range(n):
        y = i  # noqa: F841 - read by the string
    if n > 1:
        z = 3
    else:
        z = 4
    return eval("y + 1") + locals()["z"] * 10


@case(
    [(0,), (2,)],
    expect={"c": Raises(ValueError, "'tmp' must also be initialized in the else branch")},
    theme="builtins (locals() after a staged branch that assigns a variable on one path)",
    note="locals() may read every variable: a graph needs a value for tmp on both paths",
)
def locals_after_one_sided_branch(x):
    y = 1
    if x > 1:
        y = 2
        tmp = 5  # noqa: F841 - read by locals()
    return locals()["y"]


@case(NS, theme="builtins (eval in a lambda and a comprehension: their own scopes)")
def eval_in_inner_scopes(x):
    y = 2  # noqa: F841 - read by the string
    if x > 1:
        plus_one = lambda k: eval("k + 1")  # noqa: E731 - a lambda is the point
        r = plus_one(x) + sum([eval("i * y") for i in range(3)])  # y: the global
    else:
        r = 0
    return r


@case(NS, theme="builtins (eval reached as a value)")
def eval_as_value(x):
    y = x + 1  # noqa: F841 - read by the string
    evaluate = eval
    if x > 1:
        r = evaluate("y * 3")
    else:
        r = 0
    return r


@case(NS, theme="builtins (locals() as a comprehension's first iterable: the enclosing scope)")
def locals_as_comprehension_iterable(x):
    g = 1
    if x > 1:
        listed = [k for k in locals()]
        n = _names_code(listed) + _names_code(sorted(k for k in locals())) * 1000
    else:
        n = -_names_code(list(k for k in locals())) - g
    return n


@case(NS, theme="builtins (defaults, a decorator and class keywords see the enclosing scope)")
def scope_builtins_in_definitions(x):
    g = 3
    if x > 1:

        def inner(k=eval("g"), *, code=_names_code(locals())):  # noqa: B008 - the point
            return k + code

        by_lambda = (lambda *, names=dir(): _names_code(names))()  # noqa: E731, B008

        @eval("lambda f: f") if "g" in locals() else None
        def decorated():
            return 1000

        class WithKeyword(_Extra, extra=eval("g * 7")):
            pass

        r = inner() + by_lambda + decorated() + WithKeyword.extra
    else:
        r = g
    return r


class _Extra:
    def __init_subclass__(cls, extra=0):
        cls.extra = extra


@case(NS, theme="builtins (a staged branch's assignment read by eval in a default)")
def eval_in_default_reads_branch_assignment(x):
    y = 0
    if x > 1:
        y = x * 5  # noqa: F841 - read by the string

    def inner(k=eval("y")):  # noqa: B008 - the point
        return k

    return inner()


@case(NS, theme="builtins (locals() in a generator's body reads its own scope only)")
def locals_in_generator_body(x):
    if x > 1:
        tmp = 5  # noqa: F841 - assigned on one path: not read by the generator's locals()
    return sum(len(locals()) for k in range(2))


@case(NS, theme="builtins (a lambda's keyword-only default and a class keyword are reads)")
def definitions_read_branch_assignment(x):
    y = 0
    if x > 1:
        y = x * 5
    by_lambda = (lambda *, k=y: k)()  # noqa: E731

    class WithKeyword(_Extra, extra=y * 2):
        pass

    return by_lambda + WithKeyword.extra


# Before Python 3.13, locals() in a function gives one dict per call, which each call updates
# (what exec wrote there stays); since (PEP 667), a new dict each time. Python is the reference.


@case(NS, theme="builtins (locals() after exec: what exec wrote, on this Python)")
def exec_then_locals(x):
    if x > 1:
        exec("q = 5")
        r = locals().get("q", -1)
    else:
        r = 0
    return r


@case(NS, theme="builtins (eval and dir() after exec, on this Python)")
def exec_then_eval_and_dir(x):
    y = 2
    if x > 1:
        exec("w = y * 3; y = 9")
        r = eval("w if 'w' in dir() else -1") * 10 + locals()["y"]
    else:
        r = y
    return r


@case(NS, theme="builtins (a dict from locals() seen again after an assignment)")
def locals_dict_kept(x):
    y = 2
    if x > 1:
        d = locals()
        y = 5
        locals()
        r = d["y"] * 10 + (d is locals()) + len(d) * 100
    else:
        r = -1
    return r


@case(NS, theme="builtins (exec and locals() in a loop body)")
def exec_in_loop(n):
    total = 0
    for i in range(n):
        exec("acc = i * 10")
        total += locals().get("acc", 1)
    return total


@case([(1,), (3,)], tensors=(False,), theme="builtins (locals() and exec in a class body)")
def locals_in_class_body(x):
    class Body:
        w = x
        names = _names_code(locals())
        locals()["z"] = 3
        exec("q = w * 4")

    return Body.names + Body.z * 10 + Body.q * 100


test_program = programs.test()
