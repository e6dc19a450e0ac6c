"""Python source for gast expressions, match patterns and parameter lists.

Each printer returns text. The precedence a caller passes says how tightly the code
around the expression binds; an expression that binds more loosely comes back in
parentheses. The text is what ``ast.unparse`` prints for the same tree on Python
3.11 and later. f-strings are left to ``ast.unparse`` itself: how they are quoted
changes from one Python version to the next. So are node types this printer does not
know (they come with new Python versions).

>>> import gast
>>> expression_source(gast.parse("(a + b) * -c ** 2, d", mode="eval").body)
'((a + b) * -c ** 2, d)'
>>> expression_source(gast.parse("(a + b) * -c ** 2, d", mode="eval").body, TUPLE)
'(a + b) * -c ** 2, d'
"""

from __future__ import annotations

import ast
import sys

import gast

# How tightly each kind of expression binds, loosest first (the grammar's order).
(
    NAMED_EXPR,
    TUPLE,
    YIELD,
    TEST,
    OR,
    AND,
    NOT,
    CMP,
    BOR,
    BXOR,
    BAND,
    SHIFT,
    ARITH,
    TERM,
    FACTOR,
    POWER,
    AWAIT,
    ATOM,
) = range(1, 19)

# Python 3.10 cannot read a starred element in an unparenthesized subscript: a[*b].
_STARRED_INDEX_NEEDS_PARENTHESES = sys.version_info < (3, 11)

# A float literal too large to be read as anything but infinity.
_INFINITY = "1e" + str(sys.float_info.max_10_exp + 1)

_BINARY_OPERATORS = {
    gast.Add: (" + ", ARITH),
    gast.Sub: (" - ", ARITH),
    gast.Mult: (" * ", TERM),
    gast.MatMult: (" @ ", TERM),
    gast.Div: (" / ", TERM),
    gast.Mod: (" % ", TERM),
    gast.FloorDiv: (" // ", TERM),
    gast.LShift: (" << ", SHIFT),
    gast.RShift: (" >> ", SHIFT),
    gast.BitOr: (" | ", BOR),
    gast.BitXor: (" ^ ", BXOR),
    gast.BitAnd: (" & ", BAND),
    gast.Pow: (" ** ", POWER),
}

AUGMENTED_ASSIGNMENTS = {
    operator: f" {text.strip()}= " for operator, (text, _) in _BINARY_OPERATORS.items()
}

_UNARY_OPERATORS = {
    gast.Not: ("not ", NOT),
    gast.Invert: ("~", FACTOR),
    gast.UAdd: ("+", FACTOR),
    gast.USub: ("-", FACTOR),
}

_COMPARISONS = {
    gast.Eq: " == ",
    gast.NotEq: " != ",
    gast.Lt: " < ",
    gast.LtE: " <= ",
    gast.Gt: " > ",
    gast.GtE: " >= ",
    gast.Is: " is ",
    gast.IsNot: " is not ",
    gast.In: " in ",
    gast.NotIn: " not in ",
}


class _Printers(dict):
    """Printer of each node type; a type without one is printed by ``ast.unparse``."""

    def __missing__(self, node_type):
        return _print_with_ast_unparse


_PRINTERS = _Printers()


def expression_source(node, precedence=TEST):
    """Source for the expression (or match pattern) ``node``, in parentheses where
    code that binds as tightly as ``precedence`` needs them.

    >>> import gast
    >>> expression_source(gast.parse("lambda: (yield)", mode="eval").body, ATOM)
    '(lambda: (yield))'
    """
    return _PRINTERS[type(node)](node, precedence)


def _sources(nodes, precedence=TEST):
    return [_PRINTERS[type(node)](node, precedence) for node in nodes]


def _items(nodes):
    """The elements of a tuple: one element keeps its comma."""
    if len(nodes) == 1:
        node = nodes[0]
        return _PRINTERS[type(node)](node, TEST) + ","
    return ", ".join([_PRINTERS[type(node)](node, TEST) for node in nodes])


# Leaves


def _name(node, precedence):
    return node.id


def _constant(node, precedence):
    value = node.value
    if type(value) is str:
        return "u" + repr(value) if node.kind == "u" else repr(value)
    if isinstance(value, tuple):
        return "(" + _literal_items(value) + ")"
    if value is ...:
        return "..."
    return ("u" if node.kind == "u" else "") + _literal(value)


def _literal(value):
    if isinstance(value, (float, complex)):
        # repr gives inf and nan, which are names, not literals.
        return repr(value).replace("inf", _INFINITY).replace("nan", f"({_INFINITY}-{_INFINITY})")
    return repr(value)


def _literal_items(values):
    if len(values) == 1:
        return _literal(values[0]) + ","
    return ", ".join([_literal(value) for value in values])


def _print_with_ast_unparse(node, precedence):
    """A node type added after this printer: ast.unparse prints it for a context like ours
    at its loosest (an assignment's value); a tighter one gets parentheses to be safe."""
    text = ast.unparse(gast.gast_to_ast(node))
    return "(" + text + ")" if precedence > TEST else text


def _formatted_string(node, precedence):
    # How f-strings are quoted changes with each Python version: ast.unparse knows.
    return ast.unparse(gast.gast_to_ast(node))


# Operators


def _binary_operation(node, precedence):
    operator, own = _BINARY_OPERATORS[type(node.op)]
    left, right = node.left, node.right
    # Operators group left to right except **: (a - b) - c but a ** (b ** c).
    if own == POWER:
        text = _PRINTERS[type(left)](left, AWAIT) + operator + _PRINTERS[type(right)](right, POWER)
    else:
        text = _PRINTERS[type(left)](left, own) + operator + _PRINTERS[type(right)](right, own + 1)
    return "(" + text + ")" if precedence > own else text


def _unary_operation(node, precedence):
    operator, own = _UNARY_OPERATORS[type(node.op)]
    operand = node.operand
    text = operator + _PRINTERS[type(operand)](operand, own)
    return "(" + text + ")" if precedence > own else text


def _comparison(node, precedence):
    left = node.left
    parts = [_PRINTERS[type(left)](left, BOR)]
    for operator, operand in zip(node.ops, node.comparators):
        parts.append(_COMPARISONS[type(operator)])
        parts.append(_PRINTERS[type(operand)](operand, BOR))
    text = "".join(parts)
    return "(" + text + ")" if precedence > CMP else text


def _boolean_operation(node, precedence):
    operator, own = (" and ", AND) if type(node.op) is gast.And else (" or ", OR)
    # ast.unparse asks each operand to bind one level tighter than the one before it.
    operands = [
        _PRINTERS[type(value)](value, min(own + position, ATOM))
        for position, value in enumerate(node.values, 1)
    ]
    text = operator.join(operands)
    return "(" + text + ")" if precedence > own else text


def _conditional(node, precedence):
    body, test, orelse = node.body, node.test, node.orelse
    text = (
        _PRINTERS[type(body)](body, OR)
        + " if "
        + _PRINTERS[type(test)](test, OR)
        + " else "
        + _PRINTERS[type(orelse)](orelse, TEST)
    )
    return "(" + text + ")" if precedence > TEST else text


def _lambda(node, precedence):
    parameters = arguments_source(node.args)
    body = node.body
    text = (
        ("lambda " + parameters if parameters else "lambda")
        + ": "
        + _PRINTERS[type(body)](body, TEST)
    )
    return "(" + text + ")" if precedence > TEST else text


def _named_expression(node, precedence):
    target, value = node.target, node.value
    text = _PRINTERS[type(target)](target, ATOM) + " := " + _PRINTERS[type(value)](value, ATOM)
    return "(" + text + ")" if precedence > NAMED_EXPR else text


def _await(node, precedence):
    value = node.value
    text = "await " + _PRINTERS[type(value)](value, ATOM) if value else "await"
    return "(" + text + ")" if precedence > AWAIT else text


def _yield(node, precedence):
    value = node.value
    text = "yield " + _PRINTERS[type(value)](value, ATOM) if value else "yield"
    return "(" + text + ")" if precedence > YIELD else text


def _yield_from(node, precedence):
    value = node.value
    text = "yield from " + _PRINTERS[type(value)](value, ATOM)
    return "(" + text + ")" if precedence > YIELD else text


# Access


def _attribute(node, precedence):
    value = node.value
    text = _PRINTERS[type(value)](value, ATOM)
    if type(value) is gast.Constant and isinstance(value.value, int):
        return text + " ." + node.attr  # 1.real would read as a float literal
    return text + "." + node.attr


def _call(node, precedence):
    func = node.func
    arguments = [_PRINTERS[type(argument)](argument, TEST) for argument in node.args]
    if node.keywords:
        arguments += [_keyword(keyword) for keyword in node.keywords]
    return _PRINTERS[type(func)](func, ATOM) + "(" + ", ".join(arguments) + ")"


def _keyword(node, precedence=TEST):
    value = node.value
    text = _PRINTERS[type(value)](value, TEST)
    return "**" + text if node.arg is None else node.arg + "=" + text


def _subscript(node, precedence):
    value, index = node.value, node.slice
    if type(index) is gast.Tuple and index.elts and not _starred_needs_parentheses(index.elts):
        inside = _items(index.elts)  # a[b, c] needs no parentheses around b, c
    else:
        inside = _PRINTERS[type(index)](index, TEST)
    return _PRINTERS[type(value)](value, ATOM) + "[" + inside + "]"


def _starred_needs_parentheses(elements):
    return _STARRED_INDEX_NEEDS_PARENTHESES and any(type(e) is gast.Starred for e in elements)


def _slice(node, precedence):
    lower, upper, step = node.lower, node.upper, node.step
    text = (_PRINTERS[type(lower)](lower, TEST) if lower else "") + ":"
    if upper:
        text += _PRINTERS[type(upper)](upper, TEST)
    if step:
        text += ":" + _PRINTERS[type(step)](step, TEST)
    return text


def _starred(node, precedence):
    value = node.value
    return "*" + _PRINTERS[type(value)](value, BOR)


# Displays and comprehensions


def _tuple(node, precedence):
    if not node.elts:
        return "()"
    text = _items(node.elts)
    return "(" + text + ")" if precedence > TUPLE else text


def _list(node, precedence):
    return "[" + ", ".join(_sources(node.elts)) + "]"


def _set(node, precedence):
    # {} is an empty dict, and the name set may be shadowed.
    return "{" + ", ".join(_sources(node.elts)) + "}" if node.elts else "{*()}"


def _dict(node, precedence):
    items = []
    for key, value in zip(node.keys, node.values):
        if key is None:
            items.append("**" + _PRINTERS[type(value)](value, BOR))
        else:
            items.append(
                _PRINTERS[type(key)](key, TEST) + ": " + _PRINTERS[type(value)](value, TEST)
            )
    return "{" + ", ".join(items) + "}"


def _generators(generators):
    parts = []
    for generator in generators:
        target, iterable = generator.target, generator.iter
        parts.append(" async for " if generator.is_async else " for ")
        parts.append(_PRINTERS[type(target)](target, TUPLE))
        parts.append(" in ")
        parts.append(_PRINTERS[type(iterable)](iterable, OR))
        for condition in generator.ifs:
            parts.append(" if ")
            parts.append(_PRINTERS[type(condition)](condition, OR))
    return "".join(parts)


def _list_comprehension(node, precedence):
    return "[" + expression_source(node.elt) + _generators(node.generators) + "]"


def _set_comprehension(node, precedence):
    return "{" + expression_source(node.elt) + _generators(node.generators) + "}"


def _generator_expression(node, precedence):
    return "(" + expression_source(node.elt) + _generators(node.generators) + ")"


def _dict_comprehension(node, precedence):
    key = expression_source(node.key)
    return "{" + key + ": " + expression_source(node.value) + _generators(node.generators) + "}"


# Parameters


def arguments_source(node):
    """The parameters of a function or lambda, as written between its parentheses.

    >>> import gast
    >>> arguments_source(gast.parse("def f(a, /, b: int=1, *c, d, **e): pass").body[0].args)
    'a, /, b: int=1, *c, d, **e'
    """
    if not (node.posonlyargs or node.defaults or node.vararg or node.kwonlyargs or node.kwarg):
        # The common case, and the only one in generated code: plain names.
        return ", ".join([_parameter(parameter) for parameter in node.args])
    parts = []
    positional = node.posonlyargs + node.args
    first_with_default = len(positional) - len(node.defaults)
    for position, parameter in enumerate(positional):
        text = _parameter(parameter)
        if position >= first_with_default:
            default = node.defaults[position - first_with_default]
            text += "=" + _PRINTERS[type(default)](default, TEST)
        parts.append(text)
        if position + 1 == len(node.posonlyargs):
            parts.append("/")
    if node.vararg or node.kwonlyargs:
        parts.append("*" + _parameter(node.vararg) if node.vararg else "*")
    for parameter, default in zip(node.kwonlyargs, node.kw_defaults):
        text = _parameter(parameter)
        if default is not None:
            text += "=" + _PRINTERS[type(default)](default, TEST)
        parts.append(text)
    if node.kwarg:
        parts.append("**" + _parameter(node.kwarg))
    return ", ".join(parts)


def _parameter(name):
    # gast parameters are Names; their annotation, if any, is on the Name.
    annotation = getattr(name, "annotation", None)
    if annotation is None:
        return name.id
    return name.id + ": " + _PRINTERS[type(annotation)](annotation, TEST)


# Match patterns


def _match_value(node, precedence):
    return expression_source(node.value)


def _match_singleton(node, precedence):
    return repr(node.value)


def _match_sequence(node, precedence):
    return "[" + ", ".join(_sources(node.patterns)) + "]"


def _match_star(node, precedence):
    return "*" + (node.name if node.name is not None else "_")


def _match_mapping(node, precedence):
    items = [
        expression_source(key) + ": " + expression_source(pattern)
        for key, pattern in zip(node.keys, node.patterns)
    ]
    if node.rest is not None:
        items.append("**" + node.rest)
    return "{" + ", ".join(items) + "}"


def _match_class(node, precedence):
    arguments = _sources(node.patterns)
    arguments += [
        attribute + "=" + expression_source(pattern)
        for attribute, pattern in zip(node.kwd_attrs, node.kwd_patterns)
    ]
    return expression_source(node.cls, ATOM) + "(" + ", ".join(arguments) + ")"


def _match_as(node, precedence):
    if node.name is None:
        return "_"
    if node.pattern is None:
        return node.name
    text = expression_source(node.pattern, BOR) + " as " + node.name
    return "(" + text + ")" if precedence > TEST else text


def _match_or(node, precedence):
    text = " | ".join(_sources(node.patterns, BOR + 1))
    return "(" + text + ")" if precedence > BOR else text


# Type parameters (Python 3.12 and later): def f[T: int, *Ts, **P]() and type X[T] = ...


def _type_variable(node, precedence):
    bound = node.bound
    text = node.name + ": " + expression_source(bound) if bound else node.name
    return text + _type_default(node)


def _type_variable_tuple(node, precedence):
    return "*" + node.name + _type_default(node)


def _parameter_specification(node, precedence):
    return "**" + node.name + _type_default(node)


def _type_default(node):
    default = getattr(node, "default_value", None)  # Python 3.13 and later
    return " = " + expression_source(default) if default else ""


def type_parameters_source(node):
    """The type parameters of a function, class or type alias, in brackets, if it has any.

    >>> import gast
    >>> type_parameters_source(gast.parse("def f(): pass").body[0])
    ''
    """
    parameters = getattr(node, "type_params", None)
    return "[" + ", ".join(_sources(parameters)) + "]" if parameters else ""


# Nodes that are neither expressions nor patterns but may be printed on their own.


def _alias(node, precedence):
    return node.name + " as " + node.asname if node.asname else node.name


def _with_item(node, precedence):
    text = expression_source(node.context_expr)
    if node.optional_vars:
        text += " as " + expression_source(node.optional_vars)
    return text


_PRINTERS.update(
    {
        gast.Name: _name,
        gast.Constant: _constant,
        gast.JoinedStr: _formatted_string,
        gast.BinOp: _binary_operation,
        gast.UnaryOp: _unary_operation,
        gast.Compare: _comparison,
        gast.BoolOp: _boolean_operation,
        gast.IfExp: _conditional,
        gast.Lambda: _lambda,
        gast.NamedExpr: _named_expression,
        gast.Await: _await,
        gast.Yield: _yield,
        gast.YieldFrom: _yield_from,
        gast.Attribute: _attribute,
        gast.Call: _call,
        gast.keyword: _keyword,
        gast.Subscript: _subscript,
        gast.Slice: _slice,
        gast.Starred: _starred,
        gast.Tuple: _tuple,
        gast.List: _list,
        gast.Set: _set,
        gast.Dict: _dict,
        gast.ListComp: _list_comprehension,
        gast.SetComp: _set_comprehension,
        gast.GeneratorExp: _generator_expression,
        gast.DictComp: _dict_comprehension,
        gast.arguments: lambda node, precedence: arguments_source(node),
        gast.comprehension: lambda node, precedence: _generators([node]),
        gast.alias: _alias,
        gast.withitem: _with_item,
    }
)
# Node types of later Python versions, which older versions of gast do not have.
_PRINTERS.update(
    {
        getattr(gast, type_name): printer
        for type_name, printer in {
            "MatchValue": _match_value,
            "MatchSingleton": _match_singleton,
            "MatchSequence": _match_sequence,
            "MatchStar": _match_star,
            "MatchMapping": _match_mapping,
            "MatchClass": _match_class,
            "MatchAs": _match_as,
            "MatchOr": _match_or,
            "TypeVar": _type_variable,
            "TypeVarTuple": _type_variable_tuple,
            "ParamSpec": _parameter_specification,
            "TemplateStr": _formatted_string,
        }.items()
        if hasattr(gast, type_name)
    }
)
