"""Printing forms (``runtime.core.forms``) as Python text, with only the parentheses Python needs.

Each printed expression comes with its precedence, so an operand written into
another expression is parenthesised only where Python would read it otherwise.
Text comes from two places only: the names the compiler made (of its operands
and of bound values) and the fixed syntax written here; an int of a subscript
is written as digits, from a checked int.

>>> from runtime.core.forms import Input, Operator
>>> render(Operator("*", Operator("+", Input(0), Input(1)), Input(0)), [("a", ATOM), ("b", ATOM)], None)
('(a + b) * a', 10)
"""

from __future__ import annotations

from runtime.core.forms import Attribute, Bound, Call, Input, Method, Operator, Subscript

# Python's operator precedence, lowest first.
PRECEDENCE = {
    "or": 1, "and": 2, "not": 3,
    "<": 4, "<=": 4, ">": 4, ">=": 4, "==": 4, "!=": 4,
    "|": 5, "^": 6, "&": 7, "+": 9, "-": 9, "*": 10, "/": 10, "//": 10, "%": 10, "@": 10,
    "unary": 11, "**": 12,
}  # fmt: skip
ATOM = 13
_COMPARISON, _POWER = PRECEDENCE["<"], PRECEDENCE["**"]

# An int of an index is written as digits below this; a larger one is bound as a global.
LITERAL_INT_LIMIT = 1 << 63


def wrap(operand, needs_parentheses):
    return f"({operand[0]})" if needs_parentheses else operand[0]


def render(node, operands, bind):
    """The text and precedence of form expression ``node``.

    ``operands`` holds ``(text, precedence)`` for each input of the op;
    ``bind(bound)`` gives the global name of a ``Bound`` value.
    """
    kind = type(node)
    if kind is Input:
        return operands[node.index]
    if kind is Bound:
        return bind(node), ATOM
    if kind is Operator:
        parts = [
            operands[o.index] if type(o) is Input else render(o, operands, bind)
            for o in node.operands
        ]
        return operator_text(node.symbol, parts)
    if kind is Call:
        function = bind(node.function)
        return f"{function}({_arguments(node.args, node.keywords, operands, bind)})", ATOM
    if kind is Method:
        obj = render(node.obj, operands, bind)
        arguments = _arguments(node.args, node.keywords, operands, bind)
        return f"{wrap(obj, obj[1] < ATOM)}.{node.name}({arguments})", ATOM
    if kind is Attribute:
        obj = render(node.obj, operands, bind)
        return f"{wrap(obj, obj[1] < ATOM)}.{node.name}", ATOM
    if kind is Subscript:
        obj = render(node.obj, operands, bind)
        return _subscript_text(wrap(obj, obj[1] < ATOM), node.spec, operands, bind), ATOM
    raise TypeError(f"not a form expression: {node!r}")


def operator_text(symbol, parts):
    """``symbol`` applied to ``parts`` (each ``(text, precedence)``): the text and its precedence."""
    if len(parts) == 1:
        precedence = PRECEDENCE["not"] if symbol == "not" else PRECEDENCE["unary"]
        separator = " " if symbol == "not" else ""
        return f"{symbol}{separator}{wrap(parts[0], parts[0][1] < precedence)}", precedence
    precedence = PRECEDENCE[symbol]
    left, right = parts
    # ``(a < b) == c`` is not the chain ``a < b == c``; ``(a ** b) ** c`` is not ``a ** b ** c``.
    left_tight = precedence in (_COMPARISON, _POWER)
    left_text = wrap(left, left[1] < precedence or (left_tight and left[1] == precedence))
    right_text = wrap(right, right[1] <= precedence)
    return f"{left_text} {symbol} {right_text}", precedence


def _arguments(args, keywords, operands, bind):
    texts = [render(a, operands, bind)[0] for a in args]
    texts += [f"{key}={render(value, operands, bind)[0]}" for key, value in keywords.items()]
    return ", ".join(texts)


def _subscript_text(base, spec, operands, bind):
    """``base[...]`` for an index spec as a StridedSlice holds it; ``("input", k)`` is the op's
    input ``k + 1``. An int is written as its digits; anything else the spec holds is bound."""

    def part(v):
        if v is None:
            return ""
        if type(v) is tuple:
            return operands[v[1] + 1][0]  # a dynamic index: the text of that input
        if type(v) is int and abs(v) < LITERAL_INT_LIMIT:
            return str(v)
        return bind(Bound(v, "index"))

    items = []
    for k in spec:
        if k is Ellipsis:
            items.append("...")
        elif k is None:
            items.append("None")
        elif type(k) is slice:
            text = f"{part(k.start)}:{part(k.stop)}"
            items.append(text + (f":{part(k.step)}" if k.step is not None else ""))
        else:
            items.append(part(k))
    trailing = "," if items == ["..."] else ""  # x[...,] is x[(...,)], as the kernel indexes
    return f"{base}[{', '.join(items)}{trailing}]" if items else f"{base}[()]"  # not x[]
