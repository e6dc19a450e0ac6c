"""Valid programs conversion must accept: nested staged ifs, loop else clauses that return,
the user's own names that conversion also makes (retval, ag__), long elif and and/or chains,
local classes, annotations, ``del`` and ``@ag.do_not_convert`` inside converted functions.
"""

import autograph as ag
import runtime as rt
from tests.autograph.conformance.harness import REF, OneOf, Programs, Raises

programs = Programs()
case = programs.case

T3 = [(x, y, z) for x in (-1, 2) for y in (-1, 2) for z in (-1, 3)]


_GLOBAL_K = 4


@case(T3, theme="nested_control_flow")
def three_nested_ifs_a_and_s(x, y, z):
    a = 0
    s = 0
    if x > 0:
        a = a + 1
        if y > 0:
            s = s + a
            if z > 0:
                a = a * 2
                s = s + 1
            else:
                s = s - 1
        else:
            a = a - 1
    else:
        s = s + 5
    return a, s


@case([(x,) for x in (-1, 1, 2, 3)], theme="nested_control_flow")
def three_nested_ifs_chained_on_a_s(x):
    a = x
    s = 0
    if a > 0:
        s = a
        if s > 1:
            a = s + 1
            if a > 2:
                s = a * 2
    return a, s


@case([(n,) for n in (2, 5)], theme="loop_basic")
def for_else_return_after_staged_return(n):
    for i in rt.range(n):
        if i == 3:
            return i
    else:
        return -1


@case([(n,) for n in (2, 5)], theme="loop_basic")
def while_else_return_after_staged_return(n):
    i = 0
    while i < n:
        if i == 3:
            return i * 10
        i += 1
    else:
        return -1


@case([(n,) for n in (2, 5)], theme="loop_basic")
def for_return_then_tail_return(n):
    for i in rt.range(n):
        if i == 3:
            return i
    return -1


@case([(3,), (-3,)], theme="names")
def user_variable_named_ag__(x):
    ag__ = 1
    if x > 0:
        ag__ += 1
    return ag__


@case([(3,), (-3,)], theme="names")
def user_variable_named_retval(x):
    retval = 5
    if x > 0:
        return retval
    return retval + 1


@case([(3,), (-3,)], theme="names")
def user_variable_named_do_return(x):
    do_return = 7
    if x > 0:
        return do_return
    return 0


@case([(n,) for n in (0, 3, 9)], theme="names")
def user_variable_named_break_(n):
    break_ = 100
    s = 0
    for i in rt.range(n):
        if i > 4:
            break
        s += i
    return s + break_


@case([(3,), (-3,)], theme="names")
def user_function_named_if_true(x):
    def if_true():
        return 10

    if x > 0:
        y = if_true()
    else:
        y = 0
    return y


@case([(0,), (3,)], theme="names")
def user_function_named_loop_body(n):
    def loop_body(v):
        return v + 1

    s = 0
    for i in rt.range(n):
        s = loop_body(s)
    return s


@case([(3,), (-3,)], theme="names")
def user_variable_named_undefined(x):
    Undefined = 4  # noqa: N806
    if x > 0:
        y = Undefined
    else:
        y = -Undefined
    return y


@case([(3,), (9,)], theme="logical_expression")
def or_with_variable_set_by_staged_if(a):
    if a > 0:
        y = True
    else:
        y = False
    return a > 5 or y


@case([(3,), (-3,)], theme="logical_expression")
def or_with_maybe_undefined_python_path(a):
    if a > 5 or a < -1:
        y = 1
    else:
        y = 2
    return y


@case([(1,), (-1,)], theme="cond_basic")
def del_in_branch_variable_dead_after(c):
    x = 1
    if c > 0:
        del x
        y = 1
    else:
        y = 2
    return y


@case([(1,), (-1,)], theme="cond_basic")
def del_in_both_branches_dead_after(c):
    t = c * 2
    if c > 0:
        del t
        y = 1
    else:
        del t
        y = 2
    return y


@case([(-20, -9), (-24, -7), (52, -2), (0, 0), (3, 1)], theme="nested_control_flow")
def nested_ifs_set_a_variable_only_an_inner_if_reads(a, b):
    """Found by the random programs: the inner ifs share ``flag`` with the branch around
    them, whose own if must then restore it ("cond:0 belongs to another graph")."""
    z = (a * 3 + b) % 1000
    flag = a < b
    xs = [a, b, 7]
    d = {"p": b, "q": 3}
    if xs[0] == 3 or a % 2 < 0:
        z += 1
    elif z % 2 <= 1:
        z += 2
    elif flag and z >= b:
        z += 3
    elif d["p"] % 2 <= 0 or d["q"] % 2 < 1:
        if 1 % 2 != 1 or z == z:
            flag = xs[-1] % 2 == 1 and z % 2 == 1
        else:
            flag = xs[2] % 2 >= 0
        if not d["q"] == d["p"]:  # noqa: SIM201 (ag__.not_ staged, as generated)
            z += 4
        elif not z % 2 != 1:  # noqa: SIM202
            z += 5
        elif not flag:
            z += 6
    return z


@case(
    [(True,), (False,)],
    theme="cond_basic",
    ref_raises=UnboundLocalError,
    expect={"c": Raises(ValueError, "'i' must also be initialized")},
    note="TensorFlow's if_else_destroys_var: deleted in both staged branches, then read",
)
def del_in_both_branches_then_read(c):
    i = 1
    if c:
        del i
    else:
        del i
    return i


@case(
    [(True,), (False,)],
    theme="cond_basic",
    ref_raises=UnboundLocalError,
    expect=lambda c: (
        {"c": Raises(ValueError, "'i' must also be initialized in the else branch")}
        | ({} if c else {"abd": Raises(UnboundLocalError, "'i' is used before assignment")})
    ),
    note="TensorFlow's if_creates_var: its words for Python values too",
)
def if_creates_var_then_reads_it(c):
    if c:
        i = 1
    return i


@case([(n,) for n in (0, 3)], theme="loop_created_variables")
def random_uniform_tensor_bounds_in_loop(n):
    s = 0
    for i in rt.range(n):
        s += rt.random.uniform((), i, i + 1, rt.int32)
    return s


@case([(2,), (5,)], theme="loop_created_variables")
def random_uniform_tensor_bounds(n):
    return rt.random.uniform((), n, n + 1, rt.int32)


@case(
    [(0,), (3,)],
    theme="logical_expression",
    note="TF converts chained comparisons only with Feature.EQUALITY_OPERATORS; docs limit them",
    expect={"c": OneOf(REF, Raises(TypeError))},
)
def chained_comparison_with_expression(x):
    if 0 < x + 1 < 3:
        r = 1
    else:
        r = 2
    return r


@case(
    [(0,), (3,)],
    theme="logical_expression",
    note="TF converts chained comparisons only with Feature.EQUALITY_OPERATORS; docs limit them",
    expect={"c": OneOf(REF, Raises(TypeError))},
)
def chained_comparison_with_call(x):
    if 0 < abs(x) < 3:
        r = 1
    else:
        r = 2
    return r


@case([(3,), (-3,)], theme="syntax")
def walrus_in_staged_if(x):
    if (y := x * 2) > 3:
        z = y + 1
    else:
        z = y - 1
    return z


@case([(3,)], theme="syntax")
def multiple_targets(x):
    a = b = x
    if a > 0:
        a = a + b
    return a, b


@case([(3,)], theme="syntax")
def starred_unpack(x):
    a, *rest = [x, 1, 2]
    if a > 0:
        a = a + rest[0]
    return a, rest[1]


@case([(3,), (-3,)], theme="syntax", tensors=(True, False, False))
def keyword_only_and_defaults(x, k=2, *, scale=3):
    if x > 0:
        r = x * k
    else:
        r = x * scale
    return r


@case([(3,), (-3,)], theme="syntax")
def star_args_forwarding(x):
    def g(*args, **kwargs):
        if args[0] > 0:
            return args[0] + kwargs["b"]
        return -args[0]

    return g(x, b=10)


@case(
    [(3,), (-3,)],
    theme="syntax",
    note="TF cannot either (a tensor escapes its cond branch)",
    expect={"c": OneOf(REF, Raises(ValueError, "(?i)nonlocal|branch|out of scope"))},
)
def nested_function_with_nonlocal_in_staged_if(x):
    total = 0

    def add(v):
        nonlocal total
        total += v

    if x > 0:
        add(x)
    else:
        add(-x)
    return total


@case([(5,), (1,)], theme="syntax", modes="ad")
def recursion_on_python_values(n):
    def fact(k):
        return 1 if k <= 1 else k * fact(k - 1)

    return fact(n)


@case([(3,), (-3,)], theme="syntax")
def method_of_local_class_with_staged_if(x):
    class Thing:
        def value(self, v):
            if v > 0:
                return v
            return -v

    return Thing().value(x)


@case([(3,), (-3,)], theme="type_annotations")
def annotated_assignment_in_staged_if(x):
    if x > 0:
        y: int = 1
    else:
        y: int = 2
    return y


@case([(0,), (3,)], theme="type_annotations")
def annotated_assignment_in_staged_loop(n):
    s: int = 0
    for i in range(n):
        s: int = s + i
    return s


@case([(3,), (-3,)], theme="syntax")
def global_read_in_staged_if(x):
    if x > 0:
        r = _GLOBAL_K * x
    else:
        r = _GLOBAL_K
    return r


@case([(0,), (4,)], theme="syntax")
def staged_loop_empty_body_continue(n):
    s = 0
    for i in rt.range(n):
        if i > 1:
            continue
        s += 1
    return s


@case([(3, 2), (0, 2), (4, 9)], theme="loop_control_flow")
def nested_staged_loops_break_inner_return_outer(n, m):
    for i in rt.range(n):
        for j in rt.range(m):
            if j > i:
                break
            if i * j > 6:
                return i * 100 + j
    return -1


@case([([[1, 2], [3, 4]],)], theme="syntax")
def unpack_tensor_rows_in_staged_loop(m):
    s = 0
    for row in m:
        a, b = rt.unstack(row)
        s += a * b
    return s


@case([(3,), (-3,)], theme="syntax")
def if_expression_statement_only_effects(x):
    v = rt.Variable(0) if False else None  # noqa: SIM211
    if x > 0:
        r = 1
    else:
        r = 2
    return r, v


@case([(3,), (-3,)], theme="syntax")
def lambda_with_staged_if_inside_comprehension(x):
    fs = [lambda v: v if v > 0 else -v]
    return [f(x) for f in fs]


@case([(2, 3), (-2, 3)], theme="syntax")
def if_on_both_args_bool_ops(x, y):
    if x > 0 and not y < 0:
        r = x + y
    elif x < 0 or y > 100:
        r = x - y
    else:
        r = 0
    return r


@case([(0,), (7,), (19,), (50,)], theme="large_programs")
def elif_chain_20(x):
    if x == 0:
        r = 0
    elif x == 1:
        r = 3
    elif x == 2:
        r = 6
    elif x == 3:
        r = 9
    elif x == 4:
        r = 12
    elif x == 5:
        r = 15
    elif x == 6:
        r = 18
    elif x == 7:
        r = 21
    elif x == 8:
        r = 24
    elif x == 9:
        r = 27
    elif x == 10:
        r = 30
    elif x == 11:
        r = 33
    elif x == 12:
        r = 36
    elif x == 13:
        r = 39
    elif x == 14:
        r = 42
    elif x == 15:
        r = 45
    elif x == 16:
        r = 48
    elif x == 17:
        r = 51
    elif x == 18:
        r = 54
    elif x == 19:
        r = 57
    else:
        r = -1
    return r


@case([(0,), (57,), (99,), (150,)], theme="large_programs")
def elif_chain_100(x):
    if x == 0:
        r = 0
    elif x == 1:
        r = 3
    elif x == 2:
        r = 6
    elif x == 3:
        r = 9
    elif x == 4:
        r = 12
    elif x == 5:
        r = 15
    elif x == 6:
        r = 18
    elif x == 7:
        r = 21
    elif x == 8:
        r = 24
    elif x == 9:
        r = 27
    elif x == 10:
        r = 30
    elif x == 11:
        r = 33
    elif x == 12:
        r = 36
    elif x == 13:
        r = 39
    elif x == 14:
        r = 42
    elif x == 15:
        r = 45
    elif x == 16:
        r = 48
    elif x == 17:
        r = 51
    elif x == 18:
        r = 54
    elif x == 19:
        r = 57
    elif x == 20:
        r = 60
    elif x == 21:
        r = 63
    elif x == 22:
        r = 66
    elif x == 23:
        r = 69
    elif x == 24:
        r = 72
    elif x == 25:
        r = 75
    elif x == 26:
        r = 78
    elif x == 27:
        r = 81
    elif x == 28:
        r = 84
    elif x == 29:
        r = 87
    elif x == 30:
        r = 90
    elif x == 31:
        r = 93
    elif x == 32:
        r = 96
    elif x == 33:
        r = 99
    elif x == 34:
        r = 102
    elif x == 35:
        r = 105
    elif x == 36:
        r = 108
    elif x == 37:
        r = 111
    elif x == 38:
        r = 114
    elif x == 39:
        r = 117
    elif x == 40:
        r = 120
    elif x == 41:
        r = 123
    elif x == 42:
        r = 126
    elif x == 43:
        r = 129
    elif x == 44:
        r = 132
    elif x == 45:
        r = 135
    elif x == 46:
        r = 138
    elif x == 47:
        r = 141
    elif x == 48:
        r = 144
    elif x == 49:
        r = 147
    elif x == 50:
        r = 150
    elif x == 51:
        r = 153
    elif x == 52:
        r = 156
    elif x == 53:
        r = 159
    elif x == 54:
        r = 162
    elif x == 55:
        r = 165
    elif x == 56:
        r = 168
    elif x == 57:
        r = 171
    elif x == 58:
        r = 174
    elif x == 59:
        r = 177
    elif x == 60:
        r = 180
    elif x == 61:
        r = 183
    elif x == 62:
        r = 186
    elif x == 63:
        r = 189
    elif x == 64:
        r = 192
    elif x == 65:
        r = 195
    elif x == 66:
        r = 198
    elif x == 67:
        r = 201
    elif x == 68:
        r = 204
    elif x == 69:
        r = 207
    elif x == 70:
        r = 210
    elif x == 71:
        r = 213
    elif x == 72:
        r = 216
    elif x == 73:
        r = 219
    elif x == 74:
        r = 222
    elif x == 75:
        r = 225
    elif x == 76:
        r = 228
    elif x == 77:
        r = 231
    elif x == 78:
        r = 234
    elif x == 79:
        r = 237
    elif x == 80:
        r = 240
    elif x == 81:
        r = 243
    elif x == 82:
        r = 246
    elif x == 83:
        r = 249
    elif x == 84:
        r = 252
    elif x == 85:
        r = 255
    elif x == 86:
        r = 258
    elif x == 87:
        r = 261
    elif x == 88:
        r = 264
    elif x == 89:
        r = 267
    elif x == 90:
        r = 270
    elif x == 91:
        r = 273
    elif x == 92:
        r = 276
    elif x == 93:
        r = 279
    elif x == 94:
        r = 282
    elif x == 95:
        r = 285
    elif x == 96:
        r = 288
    elif x == 97:
        r = 291
    elif x == 98:
        r = 294
    elif x == 99:
        r = 297
    else:
        r = -1
    return r


@case([(5,), (-7,)], theme="large_programs")
def and_chain_20(x):
    if (
        x > -1
        and x > -2
        and x > -3
        and x > -4
        and x > -5
        and x > -6
        and x > -7
        and x > -8
        and x > -9
        and x > -10
        and x > -11
        and x > -12
        and x > -13
        and x > -14
        and x > -15
        and x > -16
        and x > -17
        and x > -18
        and x > -19
        and x > -20
    ):
        r = 1
    else:
        r = 0
    return r


@case([(5,), (-70,)], theme="large_programs")
def and_chain_100(x):
    if (
        x > -1
        and x > -2
        and x > -3
        and x > -4
        and x > -5
        and x > -6
        and x > -7
        and x > -8
        and x > -9
        and x > -10
        and x > -11
        and x > -12
        and x > -13
        and x > -14
        and x > -15
        and x > -16
        and x > -17
        and x > -18
        and x > -19
        and x > -20
        and x > -21
        and x > -22
        and x > -23
        and x > -24
        and x > -25
        and x > -26
        and x > -27
        and x > -28
        and x > -29
        and x > -30
        and x > -31
        and x > -32
        and x > -33
        and x > -34
        and x > -35
        and x > -36
        and x > -37
        and x > -38
        and x > -39
        and x > -40
        and x > -41
        and x > -42
        and x > -43
        and x > -44
        and x > -45
        and x > -46
        and x > -47
        and x > -48
        and x > -49
        and x > -50
        and x > -51
        and x > -52
        and x > -53
        and x > -54
        and x > -55
        and x > -56
        and x > -57
        and x > -58
        and x > -59
        and x > -60
        and x > -61
        and x > -62
        and x > -63
        and x > -64
        and x > -65
        and x > -66
        and x > -67
        and x > -68
        and x > -69
        and x > -70
        and x > -71
        and x > -72
        and x > -73
        and x > -74
        and x > -75
        and x > -76
        and x > -77
        and x > -78
        and x > -79
        and x > -80
        and x > -81
        and x > -82
        and x > -83
        and x > -84
        and x > -85
        and x > -86
        and x > -87
        and x > -88
        and x > -89
        and x > -90
        and x > -91
        and x > -92
        and x > -93
        and x > -94
        and x > -95
        and x > -96
        and x > -97
        and x > -98
        and x > -99
        and x > -100
    ):
        r = 1
    else:
        r = 0
    return r


@case([(150,), (5,)], theme="large_programs")
def or_chain_100(x):
    if (
        x == 100
        or x == 101
        or x == 102
        or x == 103
        or x == 104
        or x == 105
        or x == 106
        or x == 107
        or x == 108
        or x == 109
        or x == 110
        or x == 111
        or x == 112
        or x == 113
        or x == 114
        or x == 115
        or x == 116
        or x == 117
        or x == 118
        or x == 119
        or x == 120
        or x == 121
        or x == 122
        or x == 123
        or x == 124
        or x == 125
        or x == 126
        or x == 127
        or x == 128
        or x == 129
        or x == 130
        or x == 131
        or x == 132
        or x == 133
        or x == 134
        or x == 135
        or x == 136
        or x == 137
        or x == 138
        or x == 139
        or x == 140
        or x == 141
        or x == 142
        or x == 143
        or x == 144
        or x == 145
        or x == 146
        or x == 147
        or x == 148
        or x == 149
        or x == 150
        or x == 151
        or x == 152
        or x == 153
        or x == 154
        or x == 155
        or x == 156
        or x == 157
        or x == 158
        or x == 159
        or x == 160
        or x == 161
        or x == 162
        or x == 163
        or x == 164
        or x == 165
        or x == 166
        or x == 167
        or x == 168
        or x == 169
        or x == 170
        or x == 171
        or x == 172
        or x == 173
        or x == 174
        or x == 175
        or x == 176
        or x == 177
        or x == 178
        or x == 179
        or x == 180
        or x == 181
        or x == 182
        or x == 183
        or x == 184
        or x == 185
        or x == 186
        or x == 187
        or x == 188
        or x == 189
        or x == 190
        or x == 191
        or x == 192
        or x == 193
        or x == 194
        or x == 195
        or x == 196
        or x == 197
        or x == 198
        or x == 199
    ):
        r = 1
    else:
        r = 0
    return r


@case([(3,), (20,)], theme="large_programs")
def nested_ifs_10(x):
    r = 0
    if x > 0:
        r = r + 1
        if x > 1:
            r = r + 1
            if x > 2:
                r = r + 1
                if x > 3:
                    r = r + 1
                    if x > 4:
                        r = r + 1
                        if x > 5:
                            r = r + 1
                            if x > 6:
                                r = r + 1
                                if x > 7:
                                    r = r + 1
                                    if x > 8:
                                        r = r + 1
                                        if x > 9:
                                            r = r + 1
    return r


@case([(3,), (40,)], theme="large_programs")
def nested_ifs_30(x):
    r = 0
    if x > 0:
        r = r + 1
        if x > 1:
            r = r + 1
            if x > 2:
                r = r + 1
                if x > 3:
                    r = r + 1
                    if x > 4:
                        r = r + 1
                        if x > 5:
                            r = r + 1
                            if x > 6:
                                r = r + 1
                                if x > 7:
                                    r = r + 1
                                    if x > 8:
                                        r = r + 1
                                        if x > 9:
                                            r = r + 1
                                            if x > 10:
                                                r = r + 1
                                                if x > 11:
                                                    r = r + 1
                                                    if x > 12:
                                                        r = r + 1
                                                        if x > 13:
                                                            r = r + 1
                                                            if x > 14:
                                                                r = r + 1
                                                                if x > 15:
                                                                    r = r + 1
                                                                    if x > 16:
                                                                        r = r + 1
                                                                        if x > 17:
                                                                            r = r + 1
                                                                            if x > 18:
                                                                                r = r + 1
                                                                                if x > 19:
                                                                                    r = r + 1
                                                                                    if x > 20:
                                                                                        r = r + 1
                                                                                        if x > 21:
                                                                                            r = (
                                                                                                r
                                                                                                + 1
                                                                                            )
                                                                                            if (
                                                                                                x
                                                                                                > 22
                                                                                            ):
                                                                                                r = (
                                                                                                    r
                                                                                                    + 1
                                                                                                )
                                                                                                if (
                                                                                                    x
                                                                                                    > 23
                                                                                                ):
                                                                                                    r = (
                                                                                                        r
                                                                                                        + 1
                                                                                                    )
                                                                                                    if (
                                                                                                        x
                                                                                                        > 24
                                                                                                    ):
                                                                                                        r = (
                                                                                                            r
                                                                                                            + 1
                                                                                                        )
                                                                                                        if (
                                                                                                            x
                                                                                                            > 25
                                                                                                        ):
                                                                                                            r = (
                                                                                                                r
                                                                                                                + 1
                                                                                                            )
                                                                                                            if (
                                                                                                                x
                                                                                                                > 26
                                                                                                            ):
                                                                                                                r = (
                                                                                                                    r
                                                                                                                    + 1
                                                                                                                )
                                                                                                                if (
                                                                                                                    x
                                                                                                                    > 27
                                                                                                                ):
                                                                                                                    r = (
                                                                                                                        r
                                                                                                                        + 1
                                                                                                                    )
                                                                                                                    if (
                                                                                                                        x
                                                                                                                        > 28
                                                                                                                    ):
                                                                                                                        r = (
                                                                                                                            r
                                                                                                                            + 1
                                                                                                                        )
                                                                                                                        if (
                                                                                                                            x
                                                                                                                            > 29
                                                                                                                        ):
                                                                                                                            r = (
                                                                                                                                r
                                                                                                                                + 1
                                                                                                                            )
    return r


@case([(2,), (9,)], theme="large_programs")
def sequential_ifs_60(x):
    r = 0
    if x > 0:
        r = r + 0
    else:
        r = r - 1
    if x > 1:
        r = r + 1
    else:
        r = r - 1
    if x > 2:
        r = r + 2
    else:
        r = r - 1
    if x > 3:
        r = r + 3
    else:
        r = r - 1
    if x > 4:
        r = r + 4
    else:
        r = r - 1
    if x > 5:
        r = r + 5
    else:
        r = r - 1
    if x > 6:
        r = r + 6
    else:
        r = r - 1
    if x > 0:
        r = r + 7
    else:
        r = r - 1
    if x > 1:
        r = r + 8
    else:
        r = r - 1
    if x > 2:
        r = r + 9
    else:
        r = r - 1
    if x > 3:
        r = r + 10
    else:
        r = r - 1
    if x > 4:
        r = r + 11
    else:
        r = r - 1
    if x > 5:
        r = r + 12
    else:
        r = r - 1
    if x > 6:
        r = r + 13
    else:
        r = r - 1
    if x > 0:
        r = r + 14
    else:
        r = r - 1
    if x > 1:
        r = r + 15
    else:
        r = r - 1
    if x > 2:
        r = r + 16
    else:
        r = r - 1
    if x > 3:
        r = r + 17
    else:
        r = r - 1
    if x > 4:
        r = r + 18
    else:
        r = r - 1
    if x > 5:
        r = r + 19
    else:
        r = r - 1
    if x > 6:
        r = r + 20
    else:
        r = r - 1
    if x > 0:
        r = r + 21
    else:
        r = r - 1
    if x > 1:
        r = r + 22
    else:
        r = r - 1
    if x > 2:
        r = r + 23
    else:
        r = r - 1
    if x > 3:
        r = r + 24
    else:
        r = r - 1
    if x > 4:
        r = r + 25
    else:
        r = r - 1
    if x > 5:
        r = r + 26
    else:
        r = r - 1
    if x > 6:
        r = r + 27
    else:
        r = r - 1
    if x > 0:
        r = r + 28
    else:
        r = r - 1
    if x > 1:
        r = r + 29
    else:
        r = r - 1
    if x > 2:
        r = r + 30
    else:
        r = r - 1
    if x > 3:
        r = r + 31
    else:
        r = r - 1
    if x > 4:
        r = r + 32
    else:
        r = r - 1
    if x > 5:
        r = r + 33
    else:
        r = r - 1
    if x > 6:
        r = r + 34
    else:
        r = r - 1
    if x > 0:
        r = r + 35
    else:
        r = r - 1
    if x > 1:
        r = r + 36
    else:
        r = r - 1
    if x > 2:
        r = r + 37
    else:
        r = r - 1
    if x > 3:
        r = r + 38
    else:
        r = r - 1
    if x > 4:
        r = r + 39
    else:
        r = r - 1
    if x > 5:
        r = r + 40
    else:
        r = r - 1
    if x > 6:
        r = r + 41
    else:
        r = r - 1
    if x > 0:
        r = r + 42
    else:
        r = r - 1
    if x > 1:
        r = r + 43
    else:
        r = r - 1
    if x > 2:
        r = r + 44
    else:
        r = r - 1
    if x > 3:
        r = r + 45
    else:
        r = r - 1
    if x > 4:
        r = r + 46
    else:
        r = r - 1
    if x > 5:
        r = r + 47
    else:
        r = r - 1
    if x > 6:
        r = r + 48
    else:
        r = r - 1
    if x > 0:
        r = r + 49
    else:
        r = r - 1
    if x > 1:
        r = r + 50
    else:
        r = r - 1
    if x > 2:
        r = r + 51
    else:
        r = r - 1
    if x > 3:
        r = r + 52
    else:
        r = r - 1
    if x > 4:
        r = r + 53
    else:
        r = r - 1
    if x > 5:
        r = r + 54
    else:
        r = r - 1
    if x > 6:
        r = r + 55
    else:
        r = r - 1
    if x > 0:
        r = r + 56
    else:
        r = r - 1
    if x > 1:
        r = r + 57
    else:
        r = r - 1
    if x > 2:
        r = r + 58
    else:
        r = r - 1
    if x > 3:
        r = r + 59
    else:
        r = r - 1
    return r


@case([(3,)], theme="do_not_convert", modes="c", expect={"c": Raises(TypeError)})
def do_not_convert_helper_with_bool(x):
    @ag.do_not_convert
    def raw(v):
        if v > 0:
            return v
        return -v

    return raw(x)


@case([(0,), (1,), (3,)], theme="early_return")
def python_loop_with_a_return_after_a_staged_return(n):
    """Inside ``if not do_return:`` the flag is known: the Python loop is not staged under it."""
    for i in rt.range(n):
        if i > 1:
            return i
    for k in range(1):
        w = k + n
        for j in rt.range(n):
            return j + 100
    return w


test_program = programs.test()
