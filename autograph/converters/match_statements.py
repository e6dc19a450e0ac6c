"""``match`` becomes ``if``/``else`` on a fresh name holding the subject, before the jump converters.

    match command:                  subject = command
        case 0 | 1:                 if subject == 0 or subject == 1:
            a                           a
        case n if n > 9:    ->      else:
            b                           guard = False
        case _:                         n = subject
            c                           guard = n > 9
                                        if guard:
                                            b
                                        else:
                                            c

Value patterns (``case 0:``, ``case Color.RED:``), ``None``/``True``/``False``, captures,
the wildcard, ``as`` and ``|`` of them become tests of the subject, which stage on a
tensor like any ``if``. Other patterns (sequences, mappings, classes, and ``|`` between
patterns that capture) are matched by Python itself, in a small function holding just that
pattern, which gives back what it captures: they need a Python value, and a symbolic tensor
subject gets an error naming the pattern (``ag__.match_structure``).
"""

from __future__ import annotations

import gast

from autograph.converters.base import StatementConverter, name, new_node, statements
from autograph.pyct import anno, walk
from autograph.pyct.origin import set_origin

# Patterns that are tests of the subject's value.
_VALUE_PATTERNS = (gast.MatchValue, gast.MatchSingleton, gast.MatchAs, gast.MatchOr)


class _MatchConverter(StatementConverter):
    def visit_Match(self, node):
        for match_case in node.cases:  # matches nested in the cases first
            match_case.body = self.visit_block(match_case.body)
        subject = self.ctx.namer.new("subject")
        helpers = []
        lowered = self._cases(node.cases, subject, helpers)
        assign = statements("subject = value", node, subject=subject, value=node.subject)
        return helpers + assign + lowered

    def _cases(self, cases, subject, helpers):
        """The statements standing for ``cases``: the first, with the others in its ``else``."""
        if not cases:
            return []
        first, rest = cases[0], cases[1:]
        setup, test, binds = self._pattern(first.pattern, subject, helpers)
        otherwise = self._cases(rest, subject, helpers)
        if first.guard is None:
            taken = binds + first.body
            return setup + (taken if test is None else [_if(test, taken, otherwise, first)])
        # A guard runs after the captures, and a false one goes on to the next case.
        guard = self.ctx.namer.new("guard")
        check = binds + statements("guard = test", first, guard=guard, test=first.guard)
        if test is not None:
            check = statements("guard = False", first, guard=guard) + [_if(test, check, [], first)]
        return setup + check + [_if(name(guard), first.body, otherwise, first)]

    def _pattern(self, pattern, subject, helpers):
        """(statements before the test, the test or None for always, the captures' assignments)."""
        if _is_value_test(pattern):
            test, captures = _value_test(pattern, subject)
            binds = [
                s
                for capture in captures
                for s in statements("capture = subject", pattern, capture=capture, subject=subject)
            ]
            return [], test, binds
        return self._structural(pattern, subject, helpers)

    def _structural(self, pattern, subject, helpers):
        """A pattern Python matches itself, in a function of its own: it gives back what it
        captures (a tuple), or None when the subject does not match."""
        captures = sorted(_captures(pattern))
        case_fn, matched = self.ctx.namer.new("match_case"), self.ctx.namer.new("matched")
        captured = new_node(gast.Tuple, elts=[name(c) for c in captures], ctx=new_node(gast.Load))
        helper = statements(
            """
            def case_fn(subject):
                match subject:
                    case _:
                        return captured
                return None
            """,
            pattern,
            case_fn=case_fn,
            subject=subject,
            captured=captured,
        )[0]
        helper.body[0].cases[0].pattern = pattern
        anno.setanno(helper, anno.Basic.SKIP_CONVERSION, True)
        helpers.append(helper)
        setup = statements(
            "matched = ag__.match_structure(case_fn, subject, kind)",
            pattern,
            matched=matched,
            case_fn=case_fn,
            subject=subject,
            kind=gast.Constant(value=_describe(pattern), kind=None),
        )
        test = new_node(
            gast.Compare,
            left=name(matched),
            ops=[new_node(gast.IsNot)],
            comparators=[gast.Constant(value=None, kind=None)],
        )
        set_origin(test, pattern.lineno)
        binds = []
        if captures:
            target = new_node(
                gast.Tuple, elts=[name(c, gast.Store) for c in captures], ctx=new_node(gast.Store)
            )
            binds = statements("target = matched", pattern, target=target, matched=matched)
        return setup, test, binds


def _is_value_test(pattern):
    """Whether ``pattern`` is a test of the subject's value (``_VALUE_PATTERNS`` all through),
    whose ``|`` alternatives capture nothing."""
    if isinstance(pattern, gast.MatchAs):
        return pattern.pattern is None or _is_value_test(pattern.pattern)
    if isinstance(pattern, gast.MatchOr):
        return all(_is_value_test(p) and not _captures(p) for p in pattern.patterns)
    return isinstance(pattern, _VALUE_PATTERNS)


def _value_test(pattern, subject):
    """(the test of ``subject`` that ``pattern`` makes, or None for always; what it captures)."""
    if isinstance(pattern, gast.MatchValue):
        return _compare(subject, gast.Eq, pattern.value), []
    if isinstance(pattern, gast.MatchSingleton):
        return _compare(subject, gast.Is, gast.Constant(value=pattern.value, kind=None)), []
    if isinstance(pattern, gast.MatchOr):
        tests = [_value_test(p, subject)[0] for p in pattern.patterns]
        if any(t is None for t in tests):
            return None, []
        return new_node(gast.BoolOp, op=new_node(gast.Or), values=tests), []
    inner, captures = (
        (None, []) if pattern.pattern is None else _value_test(pattern.pattern, subject)
    )
    return inner, captures + ([pattern.name] if pattern.name else [])


def _compare(subject, op, value):
    return new_node(gast.Compare, left=name(subject), ops=[new_node(op)], comparators=[value])


def _captures(pattern):
    """The names ``pattern`` binds."""
    found = set()
    for node in gast.walk(pattern):
        for field in ("name", "rest"):
            value = getattr(node, field, None)
            if isinstance(value, str) and isinstance(node, gast.pattern):
                found.add(value)
    return found


_KINDS = {
    gast.MatchSequence: "a sequence pattern",
    gast.MatchMapping: "a mapping pattern",
    gast.MatchClass: "a class pattern",
    gast.MatchOr: "an or-pattern that captures",
}


def _describe(pattern):
    """What the error about a staged subject calls ``pattern``: its kind and line."""
    line = pattern.lineno
    while isinstance(pattern, gast.MatchAs) and pattern.pattern is not None:
        pattern = pattern.pattern  # `case [a, b] as pair:` is a sequence pattern
    return f"{_KINDS.get(type(pattern), 'a pattern')} (line {line})"


def _if(test, body, orelse, origin):
    node = gast.If(test=test, body=body, orelse=orelse)
    set_origin(node, origin.pattern.lineno)
    return node


def transform(node, ctx):
    if not any(isinstance(s, gast.Match) for s in walk.statements(node.body)):
        return node
    return _MatchConverter(ctx).visit(node)
