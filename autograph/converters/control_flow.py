"""``if``, ``while`` and ``for`` become functions and a call that decides at run time.

    if x > 0:                       def if_true():
        y = x * 2                       nonlocal y
    else:                   ->          y = x * 2
        y = -x                      def if_false():
                                        nonlocal y
                                        y = -x
                                    y = ag__.Undefined('y')
                                    ag__.if_stmt(x > 0, if_true, if_false, ('y',))

The carried variables (the *state*) come from the analyses: the symbols a
statement modifies that are live after it, or read in it before being
written. A state variable not certainly defined before the statement starts
as ``ag__.Undefined``, so that errors can name it. The call names the state;
the functions that assign it declare it ``nonlocal``, and so hold the cells
through which a staged statement reads and writes it (``operators.state``).
"""

from __future__ import annotations

import gast

from autograph.converters import directives
from autograph.converters.base import (
    StatementConverter,
    ag_attribute,
    declarations,
    function_def,
    name,
    new_node,
    statements,
)
from autograph.pyct import anno, walk
from autograph.pyct.analysis.activity import Activity


class _ControlFlowConverter(StatementConverter):
    def __init__(self, ctx, activity):
        super().__init__(ctx)
        self._functions = []  # (FunctionDef, declared globals, hoisted names) of enclosing user functions
        self._try_lines = []
        self._carried = []  # what enclosing converted statements of this function carry
        # Asked only about code not converted yet: what each statement's blocks write, before
        # they are converted, is what their functions declare.
        self._activity = activity

    # --- scopes ---------------------------------------------------------------------------

    def visit_FunctionDef(self, node):
        if anno.getanno(node, "skip_conversion"):
            return node
        declared = {
            n for s in walk.statements(node.body) if isinstance(s, gast.Global) for n in s.names
        }
        hoisted = []
        self._functions.append((node, declared, hoisted))
        saved = self._try_lines, self._carried
        self._try_lines, self._carried = [], []
        node.body = self.visit_block(node.body)
        self._try_lines, self._carried = saved
        self._functions.pop()
        if hoisted:
            inits = [s for n in sorted(set(hoisted)) for s in _undefined(n, node)]
            docstring = _has_docstring(node.body)
            node.body = node.body[:docstring] + inits + node.body[docstring:]
        return node

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_Try(self, node):
        self._try_lines.append(node.lineno)
        node.body = self.visit_block(node.body)
        self._try_lines.pop()
        for handler in node.handlers:
            handler.body = self.visit_block(handler.body)
        node.orelse = self.visit_block(node.orelse)
        node.finalbody = self.visit_block(node.finalbody)
        return node

    # --- state ----------------------------------------------------------------------------

    def _state(self, node, modified, live):
        symbols = sorted(s for s in modified & live if not s.startswith("ag__"))
        _, declared, hoisted = self._functions[-1]
        defined = anno.getanno(node, "defined_in", set())
        maybe = anno.getanno(node, "maybe_defined_in", set())
        live_in = anno.getanno(node, "live_in", set())
        before = []
        carried = set().union(*self._carried) if self._carried else set()
        for sym in symbols:
            if "." in sym or sym in defined or sym in declared or sym in carried:
                continue  # bound already: by the user, or by an enclosing statement's state
            if sym in maybe and sym in live_in:
                hoisted.append(sym)  # its earlier value may matter: bind it once, at the top
            else:
                before += _undefined(sym, node)
        return symbols, before

    def _unsupported(self, symbols):
        _, declared, _ = self._functions[-1]
        reasons = []
        if self._try_lines:
            reasons.append(
                f"it is inside the `try` block at line {self._try_lines[-1]}, and errors of a graph "
                "happen when it runs, not where the `try` could catch them"
            )
        written_globals = [s for s in symbols if s in declared]
        if written_globals:
            reasons.append(
                f"it assigns the global variable '{written_globals[0]}', which a graph cannot"
            )
        return "; ".join(reasons) or None

    def _declarations(self, symbols):
        _, declared, _ = self._functions[-1]
        names = [s for s in symbols if "." not in s]
        return [n for n in names if n not in declared], [n for n in names if n in declared]

    def _function(self, fn_name, body, symbols, writes, node, params=()):
        """``def fn_name(params): body``, declaring the state that its code, as the user wrote it,
        assigns (``writes``): only that needs declaring, as reads reach the enclosing scope anyway.

        An inner statement may keep to itself a variable it does not carry; declaring it here
        anyway costs nothing, and every variable of the state keeps a cell in some function.
        """
        nonlocals, globals_ = self._declarations([s for s in symbols if s in writes])
        line = node.lineno
        body = declarations(globals_, nonlocals, line) + (body or [gast.Pass(lineno=line)])
        return function_def(fn_name, params, body, line)

    def _call(self, operator, node, args, symbols, **keywords):
        """``ag__.operator(args, keywords)``, told why staging is refused if it must be."""
        reason = self._unsupported(symbols)
        if reason:
            keywords["unsupported"] = _text(reason)
        keywords = [gast.keyword(arg=k, value=v) for k, v in keywords.items()]
        call = new_node(gast.Call, func=ag_attribute(operator), args=args, keywords=keywords)
        return new_node(gast.Expr, value=call, lineno=node.lineno)

    # --- statements -----------------------------------------------------------------------
    # Names are taken before the body is converted, so outer functions get the plain names.

    def _inner(self, symbols, *blocks):
        """Converts nested blocks; what this statement carries needs no initialising inside them."""
        self._carried.append(set(symbols))
        try:
            return [self.visit_block(block) for block in blocks]
        finally:
            self._carried.pop()

    def visit_If(self, node):
        body_writes, orelse_writes = map(self._activity.writes, (node.body, node.orelse))
        modified = body_writes | orelse_writes
        live = anno.getanno(node, "live_out", set()) | anno.getanno(node, "live_in", set())
        symbols, before = self._state(node, modified, live)
        namer = self.ctx.namer
        if_true = namer.new("if_true")
        if_false = namer.new("if_false") if node.orelse else None
        body, orelse = self._inner(symbols, node.body, node.orelse)
        defs = [self._function(if_true, body, symbols, body_writes, node)]
        args = [node.test, name(if_true)]
        if if_false is not None:
            defs.append(self._function(if_false, orelse, symbols, orelse_writes, node))
            args.append(name(if_false))
        if symbols:
            if if_false is None:
                args.append(_text(None))
            args.append(_names_tuple(symbols))
        call = self._call("if_stmt", node, args, symbols)
        return defs + before + [call]

    def visit_While(self, node):
        test_writes = self._activity.writes(node.test)  # the test may assign (n := n // 2)
        body_writes = self._activity.writes(node.body)
        modified = body_writes | test_writes
        live = anno.getanno(node, "live_out", set()) | anno.getanno(node, "live_in", set())
        symbols, before = self._state(node, modified, live)
        namer = self.ctx.namer
        loop_test, loop_body = namer.new("loop_test"), namer.new("loop_body")
        body, orelse = self._inner(symbols, node.body, node.orelse)
        test_return = statements("return test", node, test=node.test)
        defs = [
            self._function(loop_test, test_return, symbols, test_writes, node),
            self._function(loop_body, body, symbols, body_writes, node),
        ]
        args = [name(loop_test), name(loop_body)] + _state_args(symbols)
        call = self._call("while_stmt", node, args, symbols, **_loop_options(node))
        return defs + before + [call] + orelse

    def visit_For(self, node):
        flags = anno.getanno(node, "extra_test_flags", ())
        modified = self._activity.writes(node.body) | self._activity.writes(node.target)
        live = anno.getanno(node, "live_out", set()) | anno.getanno(node, "head_live", set())
        symbols, before = self._state(node, modified, live)
        namer = self.ctx.namer
        loop_body = namer.new("loop_body")
        simple_target = isinstance(node.target, gast.Name) and node.target.id not in symbols
        item = None if simple_target else namer.new("item")
        body, orelse = self._inner(symbols, node.body, node.orelse)
        if simple_target:
            params = [node.target.id]
        else:
            params = [item]
            body = statements("target = item", node, target=node.target, item=item) + body
        body_def = self._function(loop_body, body, symbols, modified, node, params)
        args = [node.iter, name(loop_body)] + _state_args(symbols)
        # Set by a break or return, a flag stops the loop before its next iteration. One the
        # body never sets (a return in the loop's else clause) is False all along.
        stop_on = [f for f in flags if f in modified]
        keywords = {"stop_on": _names_tuple(stop_on)} if stop_on else {}
        call = self._call("for_stmt", node, args, symbols, **keywords, **_loop_options(node))
        return [body_def] + before + [call] + orelse


def _loop_options(node):
    """``options=`` of a loop whose body begins with ``set_loop_options`` (``directives``)."""
    options = directives.options_dict(node)
    return {"options": options} if options is not None else {}


def _undefined(sym, node):
    return statements("sym = ag__.Undefined(sym_name)", node, sym=sym, sym_name=_text(sym))


def _text(value):
    return new_node(gast.Constant, value=value, kind=None)


def _state_args(symbols):
    """The last argument of a loop's call: the names of what it carries, if anything."""
    return [_names_tuple(symbols)] if symbols else []


def _names_tuple(symbols):
    return new_node(gast.Tuple, elts=[_text(s) for s in symbols], ctx=new_node(gast.Load))


def _has_docstring(body):
    first = body[0] if body else None
    return int(
        isinstance(first, gast.Expr)
        and isinstance(first.value, gast.Constant)
        and isinstance(first.value.value, str)
    )


def transform(node, ctx, activity=None):
    """Converts the control flow of ``node`` (a FunctionDef annotated by the analyses).

    ``activity`` (an ``Activity``) may be the analyses' own: this converter asks
    it what statements write as the user wrote them (a write ``ag__.ld(o).v = x``
    that the variables converter made of ``o.v = x`` is still one of ``o.v``).
    """
    return _ControlFlowConverter(ctx, activity or Activity()).visit(node)
